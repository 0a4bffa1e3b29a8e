package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dbbench/dbbench/internal/term/ptytest"
	"github.com/dbbench/dbbench/internal/term/termtest"
)

// onTerminal runs the built binary with its stdout on a real pseudo-terminal and returns what the
// terminal received.
func onTerminal(t *testing.T, env []string, args ...string) string {
	t.Helper()
	pty, tty := ptytest.Open(t)
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = tty
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, errb.String())
	}
	tty.Close()
	var out bytes.Buffer
	pty.SetReadDeadline(time.Now().Add(5 * time.Second))
	io.Copy(&out, pty) // ends with EIO once the terminal side is closed and drained
	return out.String()
}

// TestColourOnTerminalOnly: on a real terminal the verdicts are coloured; NO_COLOR or a pipe turn the
// colour off, and the text is the same.
func TestColourOnTerminalOnly(t *testing.T) {
	sweep := filepath.Join("..", "..", "report", "render", "testdata", "sweep.json")
	coloured := onTerminal(t, []string{"TERM=xterm-256color", "NO_COLOR="}, "report", sweep)
	if !strings.Contains(coloured, "\033[1;31mFAIL\033[0m") || !strings.Contains(coloured, "\033[32mPASS\033[0m") {
		t.Errorf("no coloured verdicts on a terminal:\n%q", coloured)
	}
	plain := onTerminal(t, []string{"TERM=xterm-256color", "NO_COLOR=1"}, "report", sweep)
	if strings.Contains(plain, "\033[") {
		t.Errorf("colour despite NO_COLOR:\n%q", plain)
	}
	code, piped, _ := dbbench(t, t.TempDir(), "report", sweep)
	if code != 1 && code != 0 || strings.Contains(piped, "\033[") {
		t.Errorf("exit %d, colour into a pipe:\n%q", code, piped)
	}
	// the terminal turns \n into \r\n; otherwise the words are the same
	if strings.ReplaceAll(plain, "\r\n", "\n") != piped {
		t.Errorf("text differs between terminal and pipe:\n%q\n%q", plain, piped)
	}
}

// TestProgressOnANarrowTerminal runs a sweep with stderr on a real 90-column terminal: the live
// progress line is redrawn cut to the terminal's width, never wrapped onto a second line, every other
// line wraps to it, and the ETA shows.
func TestProgressOnANarrowTerminal(t *testing.T) {
	pty, tty := ptytest.Open(t)
	ptytest.SetColumns(t, tty, 90)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "narrow.yaml")
	os.WriteFile(cfg, []byte(`name: a-config-with-a-rather-long-name-to-see-the-start-line-wrap
dataset: {sizes: [300, 600]}
warmup: 1
repeats: 3
workloads:
  - scan
  - {name: lookup, ops: 100}
targets:
  - {name: a-memory-target-with-a-long-name-that-makes-the-live-line-long, adapter: memory}
  - {name: b, adapter: memory}
`), 0o644)
	var got bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&got, pty); close(copied) }() // drained as it comes: a full terminal would block dbbench
	cmd := exec.Command(binary, "run", "-c", cfg, "--out", filepath.Join(dir, "r.json"))
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	cmd.Stderr = tty
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, got.String())
	}
	tty.Close()
	select {
	case <-copied:
	case <-time.After(5 * time.Second):
		t.Fatal("the terminal's output did not end")
	}
	progress := got.String()
	if !strings.Contains(progress, "\r\033[K") || !strings.Contains(progress, ", ETA ") {
		t.Fatalf("no live progress line with an ETA on the terminal:\n%q", progress)
	}
	for _, l := range termtest.Wider(progress, 90) {
		t.Errorf("a line wider than the 90-column terminal: %q", l)
	}
	live := 0
	for _, seg := range strings.Split(progress, "\r\033[K") {
		if (strings.HasPrefix(seg, "  [") || strings.HasPrefix(seg, "  run ")) && !strings.Contains(seg, "\n") {
			live++ // a live line: redrawn in place, so it must fit in one line of the terminal
			if n := utf8.RuneCountInString(seg); n > 89 {
				t.Errorf("a live line of %d columns on a 90-column terminal: %q", n, seg)
			}
		}
	}
	if live < 10 {
		t.Errorf("only %d live lines:\n%q", live, progress)
	}
}

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

	"github.com/dbbench/dbbench/internal/term/ptytest"
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

package term

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/dbbench/dbbench/internal/term/ptytest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestNotTerminals: /dev/null is a character device but no terminal; pipes, files and buffers are not
// terminals either.
func TestNotTerminals(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, out := range map[string]io.Writer{"/dev/null": null, "pipe": w, "file": f, "buffer": &bytes.Buffer{}} {
		if IsTerminal(out) {
			t.Errorf("%s counts as a terminal", name)
		}
		if Color(out, env(nil)) {
			t.Errorf("%s gets colour", name)
		}
	}
}

// TestRealTerminal opens a pseudo-terminal: it is one, it gets colour, and NO_COLOR or TERM=dumb
// turn the colour off.
func TestRealTerminal(t *testing.T) {
	_, tty := ptytest.Open(t)
	if !IsTerminal(tty) {
		t.Fatal("a pseudo-terminal is not recognised as a terminal")
	}
	if !Color(tty, env(map[string]string{"TERM": "xterm-256color"})) {
		t.Error("no colour on a terminal")
	}
	if Color(tty, env(map[string]string{"NO_COLOR": "1"})) {
		t.Error("colour despite NO_COLOR")
	}
	if Color(tty, env(map[string]string{"TERM": "dumb"})) {
		t.Error("colour on TERM=dumb")
	}
}

// TestColumns: a terminal's width is what its driver says; anything else has none.
func TestColumns(t *testing.T) {
	if n := Columns(&bytes.Buffer{}); n != 0 {
		t.Errorf("a buffer is %d columns wide", n)
	}
	_, tty := ptytest.Open(t)
	for _, cols := range []int{80, 200} {
		ptytest.SetColumns(t, tty, cols)
		if n := Columns(tty); n != cols {
			t.Errorf("terminal sized %d columns: Columns says %d", cols, n)
		}
	}
}

// filter stands for a writer that filters another (the secret scrubber).
type filter struct{ w io.Writer }

func (f filter) Write(p []byte) (int, error) { return f.w.Write(p) }
func (f filter) Unwrap() io.Writer           { return f.w }

// TestThroughAFilter: a writer that filters a terminal is that terminal (progress goes to stderr
// through the secret scrubber); one that filters a buffer is not.
func TestThroughAFilter(t *testing.T) {
	_, tty := ptytest.Open(t)
	ptytest.SetColumns(t, tty, 100)
	if !IsTerminal(filter{filter{tty}}) || Columns(filter{tty}) != 100 {
		t.Errorf("a filtered terminal: IsTerminal %v, %d columns", IsTerminal(filter{tty}), Columns(filter{tty}))
	}
	if IsTerminal(filter{&bytes.Buffer{}}) || Columns(filter{&bytes.Buffer{}}) != 0 {
		t.Error("a filtered buffer counts as a terminal")
	}
}

// Package term answers what the terminal side of dbbench needs to know about an output: whether it
// is a terminal (progress that redraws in place, colour) and whether the user turned colour off.
package term

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// IsTerminal reports whether w is a terminal. It asks the terminal driver (isatty), so /dev/null, a
// file or a pipe is not one, though /dev/null is a character device too. A writer that filters
// another (the secret scrubber) is the terminal its Unwrap returns.
func IsTerminal(w io.Writer) bool {
	f, ok := file(w)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd())
}

// file is the file w writes to, through writers that wrap another (Unwrap() io.Writer).
func file(w io.Writer) (*os.File, bool) {
	for range 16 {
		switch x := w.(type) {
		case *os.File:
			return x, true
		case interface{ Unwrap() io.Writer }:
			w = x.Unwrap()
		default:
			return nil, false
		}
	}
	return nil, false
}

// Color reports whether output to w may be coloured: w is a terminal, NO_COLOR (no-color.org) is unset
// or empty, and TERM is not "dumb". getenv is os.Getenv outside tests.
func Color(w io.Writer, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	return IsTerminal(w)
}

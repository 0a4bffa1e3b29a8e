// Package termtest checks a command's text output as a user's terminal and a script read it: every
// line fits 120 columns, no line shows a Go value dump, and the error line is one line.
package termtest

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// Width is the widest line dbbench prints (render.DefaultWidth; a 120-column terminal shows it whole).
const Width = 120

// escape is an ANSI control sequence (colour, clear line): it takes no column.
var escape = regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]")

// dumps are what fmt prints for Go values that were never meant for people.
var dumps = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`\bmap\[(\]|[^\s\]]+:)`), "a Go map"},
	{regexp.MustCompile(`&\{`), "a Go pointer to a struct"},
	// {Name:x Size:3}, not a shell's ${NAME:-default}
	{regexp.MustCompile(`(^|[^$])\{[A-Z][a-z][A-Za-z0-9]*:`), "a Go struct (%+v)"},
	{regexp.MustCompile(`\[\][A-Za-z0-9_.*]+\{`), "a Go slice literal (%#v)"},
	{regexp.MustCompile(`\[[a-z][a-z0-9_]*( [a-z][a-z0-9_]*){2,}\]`), "a Go slice ([a b c]; two words in brackets are prose)"},
	{regexp.MustCompile(`%!`), "a fmt verb error"},
	{regexp.MustCompile(`<nil>`), "a Go nil"},
	{regexp.MustCompile(`\b[0-9](\.[0-9]+)?e[+-][0-9]{2}\b`), "a float with an exponent"},
	{regexp.MustCompile(`\b0xc[0-9a-f]{9}\b`), "a Go pointer"},
}

// Lines splits output as a terminal shows it: at newlines and at carriage returns (a progress line
// redrawn in place is seen one state at a time), without the escape sequences.
func Lines(out string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		for _, seg := range strings.Split(l, "\r") {
			lines = append(lines, escape.ReplaceAllString(seg, ""))
		}
	}
	return lines
}

// Wider returns the lines of out (as Lines splits them) wider than width columns.
func Wider(out string, width int) []string {
	var wide []string
	for _, l := range Lines(out) {
		if utf8.RuneCountInString(l) > width {
			wide = append(wide, l)
		}
	}
	return wide
}

// Problems lists what is wrong with one command's output (its exit code, stdout and stderr): a line
// wider than Width columns (runes), a Go value dump, an error that is not one line. A message of
// dbbench's own on stderr, "dbbench: ..." (an error, a note such as taking over a reservation), is
// exempt from the width, since scripts read it whole, but it must be one line: after an exit with a
// usage or infrastructure error (2, 3), stderr must end with a "dbbench: " line.
func Problems(code int, stdout, stderr string) []string {
	var out []string
	check := func(stream string, lines []string) {
		for i, l := range lines {
			n := utf8.RuneCountInString(l)
			if n > Width && !(stream == "stderr" && strings.HasPrefix(l, "dbbench: ")) {
				out = append(out, fmt.Sprintf("%s line %d is %d columns wide (limit %d): %q", stream, i+1, n, Width, l))
			}
			for _, d := range dumps {
				if m := d.re.FindString(l); m != "" {
					out = append(out, fmt.Sprintf("%s line %d shows %s (%q): %q", stream, i+1, d.what, m, l))
				}
			}
		}
	}
	if stdout != "" {
		check("stdout", Lines(stdout))
	}
	if stderr != "" {
		lines := Lines(stderr)
		if last := lines[len(lines)-1]; (code == 2 || code == 3) && !strings.HasPrefix(last, "dbbench: ") {
			out = append(out, fmt.Sprintf("exit %d and stderr does not end with one error line \"dbbench: ...\": %q", code, last))
		}
		check("stderr", lines)
	} else if code == 2 || code == 3 {
		out = append(out, fmt.Sprintf("exit %d without an error line on stderr", code))
	}
	return out
}

// Check fails t with every problem Problems finds in one command's output; what names the command.
func Check(t testing.TB, what string, code int, stdout, stderr string) {
	t.Helper()
	for _, p := range Problems(code, stdout, stderr) {
		t.Errorf("%s: %s", what, p)
	}
}

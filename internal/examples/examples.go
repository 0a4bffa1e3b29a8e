// Package examples finds the dbbench commands that documentation shows: the invocations in one line
// of shell, and the shell lines of a Markdown file's code blocks. Two tests share it: commands'
// check of every --help example and cmd/dbbench's run of every README example.
package examples

import "strings"

// keywords introduce a command without being it (`for i in 1 2; do dbbench run; done`).
var keywords = map[string]bool{
	"if": true, "elif": true, "then": true, "else": true, "while": true, "until": true, "do": true, "time": true, "!": true,
}

// Commands returns the arguments (after the program) of each dbbench invocation in one line of
// shell. The line is cut at a comment, split into commands at | & ; ( and ), and each command cut
// at its first redirection (> or <); a command counts when, after the shell keywords and variable
// assignments that introduce it, it starts with `dbbench` or `go run ./cmd/dbbench`. Quotes are left
// as written.
func Commands(line string) [][]string {
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "#") {
		return nil
	}
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	var cmds [][]string
	for _, part := range strings.FieldsFunc(line, func(r rune) bool {
		return r == '|' || r == '&' || r == ';' || r == '(' || r == ')'
	}) {
		if i := strings.IndexAny(part, "><"); i >= 0 {
			part = part[:i]
		}
		f := strings.Fields(part)
		for len(f) > 0 && (keywords[f[0]] || assignment(f[0])) {
			f = f[1:]
		}
		switch {
		case len(f) > 0 && f[0] == "dbbench":
			cmds = append(cmds, f[1:])
		case len(f) >= 3 && f[0] == "go" && f[1] == "run" && f[2] == "./cmd/dbbench":
			cmds = append(cmds, f[3:])
		}
	}
	return cmds
}

// assignment reports whether a word is a shell variable assignment (NAME=value), which may precede a
// command: `BASE=x dbbench run` runs dbbench.
func assignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Line is one line of a code block: its number in the file (from 1) and its text, trimmed.
type Line struct {
	N    int
	Text string
}

// shellInfo are the info strings of fenced blocks that hold shell; a block that names another
// language (yaml, go, sql, text for a transcript) holds none.
var shellInfo = map[string]bool{"": true, "sh": true, "bash": true, "shell": true, "console": true, "zsh": true}

// ShellLines returns the non-empty lines of a Markdown file's shell code blocks: fenced blocks
// (``` or ~~~) with no info string or a shell's, and indented blocks (four spaces or a tab after a
// blank line, not inside a list item, where such lines continue the item).
func ShellLines(md string) []Line {
	var out []Line
	fence := ""       // the open fenced block's fence, "" outside one
	shell := false    // the open fenced block holds shell
	indented := false // inside an indented code block
	prevBlank := true // the previous line was blank (or there was none)
	inList := false   // the last paragraph was a list item
	for i, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence, prevBlank = "", false
			} else if shell && t != "" {
				out = append(out, Line{i + 1, t})
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			n := len(t) - len(strings.TrimLeft(t, t[:1]))
			fence = t[:n]
			info := strings.TrimSpace(t[n:])
			if j := strings.IndexAny(info, " {"); j >= 0 {
				info = info[:j]
			}
			shell, indented = shellInfo[strings.ToLower(info)], false
			continue
		}
		if t == "" {
			prevBlank = true
			continue
		}
		code := strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t")
		switch {
		case code && (indented || prevBlank && !inList):
			indented = true
			out = append(out, Line{i + 1, t})
		case code: // continues a list item or a paragraph
			indented = false
		case listItem(t):
			indented, inList = false, true
		default: // an indented or lazy continuation stays in the list; a new paragraph leaves it
			indented = false
			if l[0] != ' ' && l[0] != '\t' && prevBlank {
				inList = false
			}
		}
		prevBlank = false
	}
	return out
}

// listItem says whether a line starts a list item: "- ", "* ", "+ " or "1. ".
func listItem(t string) bool {
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ ") {
		return true
	}
	d := len(t) - len(strings.TrimLeft(t, "0123456789"))
	return d > 0 && (strings.HasPrefix(t[d:], ". ") || strings.HasPrefix(t[d:], ") "))
}

package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestMarkdownGolden(t *testing.T) {
	for _, name := range []string{"runs", "load", "profile"} {
		var b bytes.Buffer
		if err := Markdown(&b, readReport(t, name+".json")); err != nil {
			t.Fatal(err)
		}
		golden(t, name+".md.golden", b.Bytes())
		checkMarkdownTables(t, name, b.String())
	}
}

// unescapedPipe is a cell separator: a | not escaped with a backslash.
var unescapedPipe = regexp.MustCompile(`(^|[^\\])\|`)

// checkMarkdownTables checks every table of a Markdown text as GitHub reads one: a head, a line of
// alignments, then rows, each with as many cells as the head.
func checkMarkdownTables(t *testing.T, name, md string) {
	t.Helper()
	lines := strings.Split(md, "\n")
	tables := 0
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "| ") {
			continue
		}
		tables++
		cells := len(unescapedPipe.FindAllString(lines[i], -1))
		if i+1 >= len(lines) || !regexp.MustCompile(`^\|(-{3}|-{2}:)(\|(-{3}|-{2}:))*\|$`).MatchString(lines[i+1]) {
			t.Errorf("%s: table at line %d has no alignment line", name, i+1)
		}
		for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			if n := len(unescapedPipe.FindAllString(lines[i], -1)); n != cells {
				t.Errorf("%s line %d: %d cell separators, the head has %d: %q", name, i+1, n, cells, lines[i])
			}
		}
	}
	if tables == 0 {
		t.Errorf("%s: no table", name)
	}
}

package config

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Mistake is one mistake of a config: the file, the line (0: the file as a whole) and what is wrong,
// in one line.
type Mistake struct {
	Source string
	Line   int
	Msg    string
}

func (m Mistake) Error() string {
	if m.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", m.Source, m.Line, m.Msg)
	}
	return fmt.Sprintf("%s: %s", m.Source, m.Msg)
}

// Errors is every mistake Parse and Resolve found in a config, sorted by line: one pass reports
// them all. Error() puts each on a line of its own.
type Errors []Mistake

func (e Errors) Error() string {
	lines := make([]string, len(e))
	for i, m := range e {
		lines[i] = m.Error()
	}
	return strings.Join(lines, "\n")
}

// MaxMistakes is the most mistakes Errors holds; a file with more is seldom a config at all, and
// the last entry says how many more there were.
const MaxMistakes = 20

// Merge returns the mistakes of a and those of b on lines a has none on, sorted by line: what
// validate reports for a config's two forms (a mistake of the CI form on a line the full form is
// already wrong on is the same mistake seen twice). Either may be nil, or an error other than Errors
// (kept as a mistake without a line).
func Merge(a, b error) error {
	var out Errors
	lines := map[int]bool{}
	for i, err := range []error{a, b} {
		for _, m := range mistakes(err) {
			if i == 1 && (lines[m.Line] || slices.Contains(out, m)) {
				continue
			}
			out = append(out, m)
		}
		for _, m := range out {
			lines[m.Line] = true
		}
	}
	if len(out) == 0 {
		return nil
	}
	slices.SortStableFunc(out, func(x, y Mistake) int { return cmp.Compare(x.Line, y.Line) })
	return out
}

// mistakes lists what an error of this package holds.
func mistakes(err error) Errors {
	if err == nil {
		return nil
	}
	var e Errors
	if errors.As(err, &e) {
		return e
	}
	return Errors{{Msg: err.Error()}}
}

// problems collects a config's mistakes as parsing and resolving meet them. Each section, entry
// and key is read on its own: a mistake stops only what lies beneath it (an entry in error is not
// checked further, and nothing that refers to it is), so the next section is still read.
type problems struct {
	list []*lineError
}

// add records err: a lineError, several (from mapping), or an error without a line.
func (p *problems) add(err error) {
	if err == nil {
		return
	}
	var many lineErrors
	var one *lineError
	switch {
	case errors.As(err, &many):
		p.list = append(p.list, many...)
	case errors.As(err, &one):
		p.list = append(p.list, one)
	default:
		p.list = append(p.list, &lineError{msg: err.Error()})
	}
}

// ok records err, if any, and reports whether there was none.
func (p *problems) ok(err error) bool {
	p.add(err)
	return err == nil
}

// count is how many mistakes have been found: an entry is in error when reading it added some.
func (p *problems) count() int { return len(p.list) }

// meant reports whether an unknown key of mapping n was taken for key (a misspelling): its
// absence is then not reported again.
func (p *problems) meant(n *yaml.Node, key string) bool {
	return slices.ContainsFunc(p.list, func(e *lineError) bool { return e.in == n && e.meant == key })
}

// located returns the mistakes as Errors of file source, sorted by line, identical ones once; nil
// when there are none.
func (p *problems) located(source string) error {
	if len(p.list) == 0 {
		return nil
	}
	list := slices.Clone(p.list)
	slices.SortStableFunc(list, func(x, y *lineError) int { return cmp.Or(cmp.Compare(x.line, y.line), cmp.Compare(x.col, y.col)) })
	var out Errors
	for _, e := range list {
		m := Mistake{Source: source, Line: e.line, Msg: e.msg}
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	if len(out) > MaxMistakes {
		more := len(out) - MaxMistakes + 1
		out = append(out[:MaxMistakes-1], Mistake{Source: source, Msg: fmt.Sprintf("and %d more mistakes (is this a dbbench config?)", more)})
	}
	return out
}

// lineErrors are several mistakes found at once (the keys of one mapping).
type lineErrors []*lineError

func (e lineErrors) Error() string {
	msgs := make([]string, len(e))
	for i, x := range e {
		msgs[i] = x.Error()
	}
	return strings.Join(msgs, "; ")
}

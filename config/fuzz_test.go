package config

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/configs"
)

// FuzzParse: any bytes are a config or a list of mistakes, quickly (aliases cannot make a few bytes
// expand without bound) and never a panic: each mistake one line of this file, sorted by line, at
// most MaxMistakes of them. A config read with mistakes never resolves, and Resolve returns Parse's
// mistakes with its own; a parsed config resolves or fails the same way.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	for _, name := range configs.Names() {
		if b, ok := configs.Read(name); ok {
			f.Add(b)
		}
	}
	f.Add([]byte("name: x\ndataset: {persons: 10}\nworkloads: [{name: page_all, params: &a {p: [*a]}}]\ntargets: [memory]\n"))
	f.Add([]byte("name: x\ndataset: {persons: 10}\nworkloads: [scan]\ntargets: [{adapter: pages, options: {a: &a [x, x], b: &b [*a, *a], c: [*b, *b]}}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("f.yaml", data)
		checkMistakes(t, err)
		if c == nil {
			return
		}
		parsed := mistakes(err)
		for _, ci := range []bool{false, true} {
			_, rerr := c.Resolve(registry(t), ci)
			checkMistakes(t, rerr)
			if len(parsed) > 0 && rerr == nil {
				t.Fatalf("a config with mistakes resolved: %v", err)
			}
			for _, m := range parsed {
				// (unless Resolve's list is cut at MaxMistakes)
				if len(mistakes(rerr)) < MaxMistakes && !slices.Contains(mistakes(rerr), m) {
					t.Fatalf("Resolve lost Parse's mistake %q: %v", m, rerr)
				}
			}
		}
	})
}

// checkMistakes fails t unless err is nil or Errors: each one line of f.yaml, sorted by line, at
// most MaxMistakes.
func checkMistakes(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var ms Errors
	if !errors.As(err, &ms) {
		t.Fatalf("error %q is not Errors", err)
	}
	if len(ms) == 0 || len(ms) > MaxMistakes {
		t.Fatalf("%d mistakes", len(ms))
	}
	for i, m := range ms {
		if strings.Contains(m.Msg, "\n") || m.Source != "f.yaml" {
			t.Fatalf("mistake %q is not one line of f.yaml", m)
		}
		if i > 0 && m.Line < ms[i-1].Line && i < MaxMistakes-1 {
			t.Fatalf("mistakes not sorted by line: %v", err)
		}
	}
}

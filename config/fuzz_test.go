package config

import (
	"strings"
	"testing"

	"github.com/dbbench/dbbench/configs"
)

// FuzzParse: any bytes are a config or one line of error, quickly (aliases cannot make a few bytes
// expand without bound) and never a panic; a parsed config resolves or fails the same way.
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
		if err == nil {
			for _, ci := range []bool{false, true} {
				if _, err = c.Resolve(registry(t), ci); err != nil {
					break
				}
			}
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("error spans lines: %q", err)
		}
	})
}

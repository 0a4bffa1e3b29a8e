package examples

import (
	"reflect"
	"strings"
	"testing"
)

func TestCommands(t *testing.T) {
	for _, tt := range []struct {
		line string
		want [][]string
	}{
		{"dbbench run", [][]string{{"run"}}},
		{"  dbbench run -c lmdb --ci   # CI sizes", [][]string{{"run", "-c", "lmdb", "--ci"}}},
		{"dbbench report r.json --format html > r.html", [][]string{{"report", "r.json", "--format", "html"}}},
		{`dbbench compare a.json b.json --format markdown >> "$GITHUB_STEP_SUMMARY"`, [][]string{{"compare", "a.json", "b.json", "--format", "markdown"}}},
		{"source <(dbbench completion bash)   # also zsh", [][]string{{"completion", "bash"}}},
		{"dbbench history reports/ | head -3 && dbbench version", [][]string{{"history", "reports/"}, {"version"}}},
		{"for i in 1 2; do dbbench run -q --out base/run-$i.json; done", [][]string{{"run", "-q", "--out", "base/run-$i.json"}}},
		{"go run ./cmd/dbbench run     # the built-in default", [][]string{{"run"}}},
		{"if dbbench validate -c x.yaml; then time dbbench run -c x.yaml; fi", [][]string{{"validate", "-c", "x.yaml"}, {"run", "-c", "x.yaml"}}},
		{"dbbench client-test -- go run ./clients/go/cmd/dbbench-client lmdb", [][]string{{"client-test", "--", "go", "run", "./clients/go/cmd/dbbench-client", "lmdb"}}},
		// not dbbench: other programs, a comment, a build, a name inside another word
		{"BASE=$PWD/b HEAD_CLIENT=x dbbench run -c client-gate", [][]string{{"run", "-c", "client-gate"}}},
		{"go build -o c ./x && DBBENCH_GO_CLIENT=$PWD/c dbbench run -q", [][]string{{"run", "-q"}}},
		{"X=1 echo dbbench run", nil},
		{"=x dbbench run", nil},
		{".ci/test", nil},
		{"# dbbench run", nil},
		{"go install ./cmd/dbbench", nil},
		{"go build -o bin/dbbench ./cmd/dbbench", nil},
		{"mydbbench run", nil},
		{"echo dbbench run", nil},
	} {
		if got := Commands(tt.line); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Commands(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestShellLines(t *testing.T) {
	md := strings.Join([]string{
		"# Title", // 1
		"",        // 2
		"dbbench is prose at the start of a line.", // 3
		"",                                       // 4
		"```sh",                                  // 5
		"dbbench run            # fenced sh",     // 6
		"",                                       // 7
		"  dbbench list",                         // 8
		"```",                                    // 9
		"```yaml",                                // 10
		"dbbench: not shell",                     // 11
		"```",                                    // 12
		"```text",                                // 13
		"dbbench → {\"op\":\"hello\"}",           // 14
		"```",                                    // 15
		"```",                                    // 16
		"dbbench version        # unlabelled",    // 17
		"````",                                   // 18
		"",                                       // 19
		"A paragraph",                            // 20
		"    dbbench continues a paragraph",      // 21
		"",                                       // 22
		"    dbbench compare a b   # indented",   // 23
		"",                                       // 24
		"    dbbench report a      # same block", // 25
		"text ends it",                           // 26
		"",                                       // 27
		"- a list item",                          // 28
		"  its continuation",                     // 29
		"",                                       // 30
		"    dbbench inside the item",            // 31
		"",                                       // 32
		"After the list.",                        // 33
		"",                                       // 34
		"\tdbbench history d/   # a tab",         // 35
		"~~~bash",                                // 36
		"dbbench validate -c x  # tildes",        // 37
		"```",                                    // 38 (not the fence that opened it)
		"~~~",                                    // 39
	}, "\n")
	var got []int
	for _, l := range ShellLines(md) {
		got = append(got, l.N)
	}
	want := []int{6, 8, 17, 23, 25, 35, 37, 38}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("shell lines at %v, want %v", got, want)
	}
}

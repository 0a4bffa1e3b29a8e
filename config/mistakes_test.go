package config

import (
	"strings"
	"testing"
)

// eightMistakes holds eight mistakes of as many kinds, each on a line of its own (and two on one).
const eightMistakes = `name: t
repeets: 3
dataset: {persons: 1000}
warmup: -1
isolation: rewarn
workloads:
  - scna
  - {name: lookup, opps: 10}
  - page_all
targets:
  - {name: mem, adapter: memroy}
  - name: pg
    adapter: pages
    options:
      map_sise: 1GiB
assertions:
  - page_all.p5O[pg] <= 1000000
verdict: {runs: 0, confidense: 0.9}
`

// TestEveryMistakeAtOnce: Parse and Resolve report every mistake of a config in one pass, sorted by
// line, each one line with the name a misspelt key, adapter, option, workload or figure was meant as.
func TestEveryMistakeAtOnce(t *testing.T) {
	c, err := Parse("x.yaml", []byte(eightMistakes))
	if c == nil {
		t.Fatalf("no partial config: %v", err)
	}
	_, err = c.Resolve(registry(t), false)
	want := []string{
		`x.yaml:2: unknown key "repeets" in the config: did you mean repeats?`,
		`x.yaml:4: warmup must be at least 0, got -1`,
		`x.yaml:5: isolation "rewarn": want one of none, rewarm, process`,
		`x.yaml:7: unknown workload "scna": did you mean scan?`,
		`x.yaml:8: unknown key "opps" in a workload: did you mean ops?`,
		`x.yaml:11: unknown adapter "memroy": did you mean memory?`,
		`x.yaml:15: target pg (pages): unknown option "map_sise": did you mean map_size?`,
		`x.yaml:17: unknown figure "p5O" in page_all.p5O[pg]: did you mean p50?`,
		`x.yaml:18: verdict.runs must be positive, got 0`,
		`x.yaml:18: unknown key "confidense" in verdict: did you mean confidence?`,
	}
	if got := strings.Split(errText(err), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("mistakes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestNothingBeneathAMistake: what lies beneath a key in error, or refers to a section or entry in
// error, is not reported as well: one mistake, one line.
func TestNothingBeneathAMistake(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"targets not a list", strings.Replace(good, good[strings.Index(good, "targets:"):strings.Index(good, "assertions:")], "targets: memory\n", 1),
			"x.yaml:14: targets must be a non-empty list"},
		{"workloads not a list", strings.Replace(good, good[strings.Index(good, "workloads:"):strings.Index(good, "targets:")], "workloads: 3\n", 1),
			"x.yaml:7: workloads must be a non-empty list"},
		{"a misspelt section", strings.Replace(good, "targets:", "tagrets:", 1),
			`x.yaml:14: unknown key "tagrets" in the config: did you mean targets?`},
		{"a misspelt required key", strings.Replace(good, "adapter: memory", "adaptr: memory", 1),
			`x.yaml:16: unknown key "adaptr" in a target: did you mean adapter?`},
		{"a target in error", strings.Replace(good, "adapter: memory", "adapter: memory\n    optional: maybe", 1),
			`x.yaml:17: optional must be true or false, got "maybe"`},
		{"an unknown adapter and its options", strings.Replace(good, "adapter: pages", "adapter: pagse", 1),
			`x.yaml:17: unknown adapter "pagse": did you mean pages?`},
		{"a dataset in error", strings.Replace(good, "persons: 1000", "persons: lots", 1),
			`x.yaml:4: dataset.persons must be a whole number, got "lots"`},
		{"a misspelt dataset", strings.Replace(good, "dataset:", "datset:", 1),
			`x.yaml:3: unknown key "datset" in the config: did you mean dataset?`},
		{"a workload in error", strings.Replace(good, "ops: 100", "ops: many", 1),
			`x.yaml:10: lookup.ops must be a whole number, got "many"`},
		{"nothing close", strings.Replace(good, "adapter: memory", "adapter: mongo", 1),
			`x.yaml:15: unknown adapter "mongo" (known: memory, pages)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("x.yaml", []byte(tt.yaml))
			if c != nil {
				_, err = c.Resolve(registry(t), false)
			}
			if got := errText(err); got != tt.want {
				t.Errorf("mistakes:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestMerge: the CI form's mistakes join the full form's, bar those on a line already in error.
func TestMerge(t *testing.T) {
	a := Errors{{Source: "x", Line: 3, Msg: "a3"}, {Source: "x", Line: 9, Msg: "a9"}}
	b := Errors{{Source: "x", Line: 3, Msg: "b3"}, {Source: "x", Line: 5, Msg: "b5"}, {Source: "x", Line: 9, Msg: "a9"}}
	if got, want := errText(Merge(a, b)), "x:3: a3\nx:5: b5\nx:9: a9"; got != want {
		t.Errorf("Merge = %q, want %q", got, want)
	}
	if Merge(nil, nil) != nil {
		t.Error("Merge of nothing is not nil")
	}
}

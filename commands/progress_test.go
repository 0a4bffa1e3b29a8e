package commands

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/memory"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/configs"
	"github.com/dbbench/dbbench/engine"
	"github.com/dbbench/dbbench/report"
)

// TestProgressPosition runs a plan through the real engine and prints its events as on a terminal:
// every line says which workload run of how many, which target and which repeat, an ETA once a turn
// is done, and fits the terminal (a live line too long for it is cut). The long target name still
// fits a line of its own: a word wider than the terminal cannot be wrapped.
func TestProgressPosition(t *testing.T) {
	long := "a-target-with-a-very-long-name-" + strings.Repeat("x", 80)
	c, err := config.Parse("t.yaml", []byte(`name: t
dataset: {sizes: [100, 200]}
warmup: 1
repeats: 2
workloads: [scan, lookup]
targets:
  - {name: a, adapter: memory}
  - {name: `+long+`, adapter: memory, workloads: [scan]}
`))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := adapters.NewRegistry(memory.New())
	if err != nil {
		t.Fatal(err)
	}
	pl, err := c.Resolve(reg, false)
	if err != nil {
		t.Fatal(err)
	}
	pl.Verdict.Runs = 1 // measured in this process
	var b bytes.Buffer
	p := newProgressPrinter(&b)
	p.tty = true // as on a terminal
	r := &engine.Runner{Plan: pl, TempDir: t.TempDir(), Events: p.print, Environment: func() report.Environment { return report.Environment{} }}
	if rep, err := r.Run(context.Background()); err != nil || rep.Verdict != "pass" {
		t.Fatalf("run: %v", err)
	}
	out := b.String()
	for _, want := range []string{"[1/4] scan (size 100) a: warm-up 1/1", "[2/4] lookup (size 100) a: repeat 2/2", "[4/4] lookup (size 200) a: repeat 1/2", "ETA ", "dbbench: finished in "} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lacks %q", want)
		}
	}
	cut := 0
	for _, l := range strings.Split(strings.ReplaceAll(out, "\r\033[K", "\n"), "\n") {
		if n := utf8.RuneCountInString(l); n > 120 {
			t.Errorf("a progress line of %d columns: %q", n, l)
		}
		if strings.Contains(l, "scan (size 100) a-target-with") && utf8.RuneCountInString(l) == 119 {
			cut++
		}
	}
	if cut != 3 {
		t.Errorf("%d live lines of the long-named target cut to 119 columns, want its 3 turns at size 100:\n%s", cut, out)
	}
}

// TestProgressNotTerminal: off a terminal, no redrawn line and no escape codes.
func TestProgressNotTerminal(t *testing.T) {
	var b bytes.Buffer
	p := newProgressPrinter(&b)
	p.print(engine.Started{Plan: &config.Plan{Name: "t", Sizes: []int{10}, Repeats: 1, Workloads: []config.WorkloadPlan{{Name: "scan"}}, Targets: []config.TargetPlan{{Name: "a", Workloads: []string{"scan"}}}}})
	p.print(engine.Turn{Position: engine.Position{Run: 1, Runs: 1, Workload: "scan", Size: 10}, Target: "a", Repeat: 0, Warmup: 0, Repeats: 1})
	p.print(engine.Finished{Took: time.Second})
	if strings.Contains(b.String(), "\033") || strings.Contains(b.String(), "repeat 1/1") {
		t.Errorf("progress off a terminal redraws: %q", b.String())
	}
	if !strings.HasSuffix(b.String(), "dbbench: finished in 1.00s\n") {
		t.Errorf("no finished line: %q", b.String())
	}
}

// TestProgressFitsANarrowTerminal: on a terminal narrower than 120 columns the live line is cut to
// its width (never wrapped onto a second line), and the other lines wrap to it.
func TestProgressFitsANarrowTerminal(t *testing.T) {
	pl := &config.Plan{
		Name: "a-config-with-a-long-name", Sizes: []int{100000, 1000000}, Warmup: 1, Repeats: 2, CI: true, Relax: 0.1,
		Workloads: []config.WorkloadPlan{{Name: "lookup"}},
		Targets:   []config.TargetPlan{{Name: "node-postgres-with-a-long-name", Workloads: []string{"lookup"}}},
	}
	var b bytes.Buffer
	p := newProgressPrinter(&b)
	p.tty, p.width = true, 60
	p.print(engine.Started{Plan: pl})
	p.print(engine.Message{Source: "postgres", Text: "pgserver: PostgreSQL 15.18 (Debian 15.18-0+deb12u1) ready on 127.0.0.1:34471 (local, initdb 2.193s)"})
	p.print(engine.Loaded{Target: pl.Targets[0].Name, Size: 100000, Took: 1234 * time.Millisecond})
	for rep := 0; rep < 3; rep++ {
		eta := engine.ETA{}
		if rep > 0 {
			eta = engine.ETA{Elapsed: time.Duration(rep) * time.Second, Left: 40 * time.Second, OK: true}
		}
		p.print(engine.Turn{Position: engine.Position{Run: 1, Runs: 2, Workload: "lookup", Size: 100000}, Target: pl.Targets[0].Name, Repeat: rep, Warmup: 1, Repeats: 2, ETA: eta})
	}
	p.print(engine.Finished{Took: 3 * time.Second})
	live := 0
	for _, l := range strings.Split(strings.ReplaceAll(b.String(), "\r\033[K", "\n"), "\n") {
		if n := utf8.RuneCountInString(l); n > 60 {
			t.Errorf("a line of %d columns on a 60-column terminal: %q", n, l)
		}
		if strings.Contains(l, "[1/2] lookup") {
			live++
			if n := utf8.RuneCountInString(l); n != 59 {
				t.Errorf("the live line is %d columns, want it cut to 59: %q", n, l)
			}
		}
	}
	if live != 3 {
		t.Errorf("%d live lines, want 3:\n%s", live, b.String())
	}
}

// TestProgressLines: the lines of a loaded target, a target's message, a finished workload (with the
// ETA while workloads are left, without it after the last) and a live line with its ETA, as printed.
func TestProgressLines(t *testing.T) {
	results := []engine.TargetTime{{Target: "a", MedianNs: 1.5e6}, {Target: "b", Failed: true}}
	eta := engine.ETA{Elapsed: 12 * time.Second, Left: 3400 * time.Millisecond, OK: true}
	tests := []struct {
		what string
		tty  bool
		ev   engine.Event
		want string
	}{
		{"loaded", false, engine.Loaded{Target: "a", Size: 20000, Took: 2 * time.Second}, "  loaded a in 2.00s (10.0k/s persons)\n"},
		{"a target's message, two lines", false, engine.Message{Source: "a", Text: "first\nsecond\n"}, "  a: first\n  second\n"},
		{"an engine note", false, engine.Message{Text: "isolation: process: 2 worker processes, one per target"}, "  isolation: process: 2 worker processes, one per target\n"},
		{"done, runs left", false, engine.WorkloadDone{Position: engine.Position{Run: 1, Runs: 4, Workload: "scan", Size: 100}, Results: results, ETA: eta},
			"  [1/4, ETA 3s] scan         size 100      a 1.50ms  b FAILED\n"},
		{"done, the last run", false, engine.WorkloadDone{Position: engine.Position{Run: 4, Runs: 4, Workload: "scan", Size: 100}, Results: results, ETA: eta},
			"  [4/4] scan         size 100      a 1.50ms  b FAILED\n"},
		{"done, no estimate yet", false, engine.WorkloadDone{Position: engine.Position{Run: 1, Runs: 4, Workload: "scan", Size: 100}, Results: results[:1]},
			"  [1/4] scan         size 100      a 1.50ms\n"},
		{"live line", true, engine.Turn{Position: engine.Position{Run: 2, Runs: 4, Workload: "lookup", Size: 100}, Target: "a", Repeat: 2, Warmup: 1, Repeats: 2, ETA: eta},
			"  [2/4] lookup (size 100) a: repeat 2/2, 12s elapsed, ETA 3s"},
		{"live line, warm-up, no estimate", true, engine.Turn{Position: engine.Position{Run: 1, Runs: 4, Workload: "scan", Size: 100}, Target: "a", Repeat: 0, Warmup: 1, Repeats: 2},
			"  [1/4] scan (size 100) a: warm-up 1/1"},
		{"a long ETA rounds to 10s", true, engine.Turn{Position: engine.Position{Run: 2, Runs: 4, Workload: "lookup", Size: 100}, Target: "a", Repeat: 1, Warmup: 1, Repeats: 2, ETA: engine.ETA{Elapsed: 75 * time.Second, Left: 94 * time.Second, OK: true}},
			"  [2/4] lookup (size 100) a: repeat 1/2, 1m20s elapsed, ETA 1m30s"},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			var b bytes.Buffer
			p := newProgressPrinter(&b)
			p.tty = tt.tty
			p.print(tt.ev)
			if b.String() != tt.want {
				t.Errorf("printed %q\nwant    %q", b.String(), tt.want)
			}
		})
	}
}

// TestHeaderLine: the line a run starts with fits 120 columns for every shipped config in its CI
// form, YCSB ones at a --rate too, and counts in the right number ("1 workload").
func TestHeaderLine(t *testing.T) {
	reg, err := adapters.NewRegistry(builtinAdapters()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range configs.Names() {
		data, _ := configs.Read(name)
		c, err := config.Parse("(built-in) "+name, data)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := c.Resolve(reg, c.CI != nil)
		if err != nil {
			t.Fatal(err)
		}
		if hasYCSB(pl) {
			if err := pl.OverrideLoad(20000, 10*time.Second); err != nil {
				t.Fatal(err)
			}
		}
		line := headerLine(pl)
		if n := utf8.RuneCountInString(line); n > 120 {
			t.Errorf("%s: the header is %d columns: %q", name, n, line)
		}
		if strings.Contains(line, " 1 workloads") || strings.Contains(line, " 1 targets") {
			t.Errorf("%s: %q", name, line)
		}
	}
}

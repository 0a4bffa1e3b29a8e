package engine

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dbbench/dbbench/config"
)

// TestProgressPosition drives the progress line as the engine does, on a terminal: every line says
// which workload run of how many, which target and which repeat, an ETA once a turn is done, and
// fits the terminal.
func TestProgressPosition(t *testing.T) {
	pl := &config.Plan{
		Name: "t", Sizes: []int{100, 200}, Warmup: 1, Repeats: 2,
		Workloads: []config.WorkloadPlan{{Name: "scan"}, {Name: "lookup"}},
		Targets: []config.TargetPlan{
			{Name: "a", Workloads: []string{"scan", "lookup"}},
			{Name: "a-target-with-a-very-long-name-" + strings.Repeat("x", 100), Workloads: []string{"scan"}},
		},
	}
	var b bytes.Buffer
	p := newProgress(&b, nil)
	p.tty = true // as on a terminal
	p.start(pl)
	if p.runs != 4 || p.units != 2*(2+1)*3 {
		t.Fatalf("planned %d workload runs and %d target-repeats, want 4 and 18", p.runs, p.units)
	}
	for _, size := range pl.Sizes {
		for _, w := range pl.Workloads {
			for rep := 0; rep < pl.Warmup+pl.Repeats; rep++ {
				p.step(w.Name, size, rep, pl.Warmup, pl.Repeats)
				for _, tp := range pl.Targets {
					if tp.Runs(w.Name) {
						p.target(tp.Name)
					}
				}
			}
		}
	}
	p.finish()
	out := b.String()
	for _, want := range []string{"[1/4] scan (size 100) a: warm-up 1/1", "[2/4] lookup (size 100) a: repeat 2/2", "[4/4] lookup (size 200) a: repeat 1/2", "ETA "} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lacks %q", want)
		}
	}
	if p.ticks != p.units {
		t.Errorf("%d target-repeats counted, %d planned", p.ticks, p.units)
	}
	for _, l := range strings.Split(strings.ReplaceAll(out, "\r\033[K", "\n"), "\n") {
		if n := utf8.RuneCountInString(l); n > 120 {
			t.Errorf("a progress line of %d columns: %q", n, l)
		}
	}
}

// TestProgressNotTerminal: off a terminal, no redrawn line and no escape codes.
func TestProgressNotTerminal(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, nil)
	p.start(&config.Plan{Name: "t", Sizes: []int{10}, Repeats: 1, Workloads: []config.WorkloadPlan{{Name: "scan"}}, Targets: []config.TargetPlan{{Name: "a", Workloads: []string{"scan"}}}})
	p.step("scan", 10, 0, 0, 1)
	p.target("a")
	p.finish()
	if strings.Contains(b.String(), "\033") || strings.Contains(b.String(), "repeat 1/1") {
		t.Errorf("progress off a terminal redraws: %q", b.String())
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
	p := newProgress(&b, nil)
	p.tty, p.width = true, 60
	p.start(pl)
	p.printf("postgres: pgserver: PostgreSQL 15.18 (Debian 15.18-0+deb12u1) ready on 127.0.0.1:34471 (local, initdb 2.193s)")
	p.sizeStart(100000)
	p.loading(pl.Targets[0].Name)
	for rep := 0; rep < 3; rep++ {
		p.step("lookup", 100000, rep, 1, 2)
		p.target(pl.Targets[0].Name)
	}
	p.finish()
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

package commands

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/engine"
	"github.com/dbbench/dbbench/internal/term"
	"github.com/dbbench/dbbench/report/render"
)

// progressPrinter prints a run's progress events (engine.Event) to the user (stderr). On a terminal
// one line updates in place with the position (workload k of n, target, repeat) and the ETA the
// engine estimated, cut to the terminal's width; otherwise there is one line per finished workload,
// which suits CI logs. Every line fits 120 columns.
type progressPrinter struct {
	mu     sync.Mutex // adapters may log from their own goroutines
	w      io.Writer
	tty    bool
	width  int // the widest line: the terminal's width, at most render.DefaultWidth
	inLine bool
	run    string // "run 2/3 ", when the plan is measured in several runs
}

func newProgressPrinter(w io.Writer) *progressPrinter {
	p := &progressPrinter{w: w, tty: term.IsTerminal(w), width: render.DefaultWidth}
	if c := term.Columns(w); c > 0 && p.tty {
		p.width = min(c, render.DefaultWidth)
	}
	return p
}

// print prints one event; it is the engine's Runner.Events.
func (p *progressPrinter) print(ev engine.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := ev.(type) {
	case engine.Started:
		p.started(e)
	case engine.Message:
		text := e.Text
		if e.Source != "" {
			text = e.Source + ": " + text
		}
		p.printf("%s", text)
	case engine.Loaded:
		p.printf("loaded %s in %s (%s persons)", e.Target, render.Duration(e.Took), render.Rate(float64(e.Size)/e.Took.Seconds()))
	case engine.Turn:
		p.turn(e)
	case engine.WorkloadDone:
		p.done(e)
	case engine.RunStarted:
		p.runStarted(e)
	case engine.Finished:
		p.clearLine()
		fmt.Fprintf(p.w, "dbbench: finished in %s\n", render.Duration(e.Took.Round(time.Millisecond)))
	}
}

func (p *progressPrinter) clearLine() {
	if p.inLine {
		fmt.Fprint(p.w, "\r\033[K")
		p.inLine = false
	}
}

// printf prints one or more lines, each indented and wrapped to the width.
func (p *progressPrinter) printf(format string, args ...any) {
	p.clearLine()
	for _, l := range strings.Split(strings.TrimRight(fmt.Sprintf(format, args...), "\n"), "\n") {
		fmt.Fprintln(p.w, render.Wrap("  "+l, p.width, "    "))
	}
}

func (p *progressPrinter) started(e engine.Started) {
	fmt.Fprintln(p.w, render.Wrap(headerLine(e.Plan), p.width, "  "))
	if l := runsLine(e.Plan); l != "" {
		fmt.Fprintln(p.w, render.Wrap(l, p.width, "  "))
	}
}

// runsLine says, before a run of several runs, how many it makes and how long it may take: the
// initial runs, then while an assertion is undecided more runs up to the most looks, within the
// budget (the whole run's, or twice the initial runs' time); "" for one run.
func runsLine(pl *config.Plan) string {
	v := pl.Verdict
	if v.Runs < 2 {
		return ""
	}
	if len(pl.Assertions) == 0 {
		return fmt.Sprintf("dbbench: %d runs (fresh processes)", v.Runs)
	}
	within := fmt.Sprintf("%dx their time at most", 1+config.DefaultBudgetFactor)
	if v.Budget > 0 {
		within = fmt.Sprintf("within %s in all", v.Budget)
	}
	looks := max(v.MaxLooks, 1)
	if looks == 1 {
		return fmt.Sprintf("dbbench: %d runs (fresh processes); the verdicts are decided on them alone", v.Runs)
	}
	return fmt.Sprintf("dbbench: %d runs (fresh processes), then more while an assertion is undecided: up to %d looks, %s", v.Runs, looks, within)
}

// headerLine says what a run is about to do, in one line that fits 120 columns for the shipped
// configs with --ci and --rate (a longer one wraps): targets and workloads, sizes, warm-up (when
// there is one) and repeats, how the YCSB workloads' operations arrive, and CI mode.
func headerLine(pl *config.Plan) string {
	warmup := ""
	if pl.Warmup > 0 {
		warmup = fmt.Sprintf("warm-up %d, ", pl.Warmup)
	}
	mode := ""
	if pl.CI {
		mode = ", --ci"
		if pl.Relax > 0 {
			mode = fmt.Sprintf(", --ci (relaxed %s%%)", render.Sig3(pl.Relax*100))
		}
	}
	return fmt.Sprintf("dbbench: %s: %s x %s, %s, %srepeats %d%s%s", pl.Name, render.Plural(len(pl.Targets), "target"),
		render.Plural(len(pl.Workloads), "workload"), dataText(pl, " -> "), warmup, pl.Repeats, loadSummary(pl), mode)
}

// runStarted says which run begins, and for a run made to decide, which assertions and what it
// measures.
func (p *progressPrinter) runStarted(e engine.RunStarted) {
	p.clearLine()
	if e.Index <= e.Initial {
		p.run = fmt.Sprintf("run %d/%d ", e.Index, e.Initial)
		fmt.Fprintln(p.w, render.Wrap(fmt.Sprintf("dbbench: run %d of %d (a fresh process)", e.Index, e.Initial), p.width, "  "))
		return
	}
	p.run = fmt.Sprintf("run %d ", e.Index)
	fmt.Fprintln(p.w, render.Wrap(fmt.Sprintf("dbbench: run %d, %s (%s on %s)", e.Index, e.Why,
		strings.Join(e.Workloads, ", "), strings.Join(e.Targets, ", ")), p.width, "  "))
}

// turn redraws the live line, on a terminal only.
func (p *progressPrinter) turn(e engine.Turn) {
	if !p.tty {
		return
	}
	p.clearLine()
	phase := fmt.Sprintf("repeat %d/%d", e.Repeat-e.Warmup+1, e.Repeats)
	if e.Repeat < e.Warmup {
		phase = fmt.Sprintf("warm-up %d/%d", e.Repeat+1, e.Warmup)
	}
	eta := ""
	if e.ETA.OK {
		eta = fmt.Sprintf(", %s elapsed, ETA %s", roundDur(e.ETA.Elapsed), roundDur(e.ETA.Left))
	}
	line := fmt.Sprintf("  %s[%d/%d] %s (size %d) %s: %s%s", p.run, e.Run, e.Runs, e.Workload, e.Size, e.Target, phase, eta)
	// one column short of the width: a terminal that wraps at its last column would start a new line
	fmt.Fprint(p.w, render.Shorten(line, p.width-1))
	p.inLine = true
}

// done prints a finished workload's line: each target's median time, or FAILED.
func (p *progressPrinter) done(e engine.WorkloadDone) {
	var parts []string
	for _, r := range e.Results {
		if r.Failed {
			parts = append(parts, r.Target+" FAILED")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s", r.Target, render.Ns(r.MedianNs)))
	}
	pos := fmt.Sprintf("[%d/%d]", e.Run, e.Runs)
	if e.ETA.OK && e.Run < e.Runs {
		pos = fmt.Sprintf("[%d/%d, ETA %s]", e.Run, e.Runs, roundDur(e.ETA.Left))
	}
	p.printf("%s%s %-12s size %-8d %s", p.run, pos, e.Workload, e.Size, strings.Join(parts, "  "))
}

func roundDur(d time.Duration) string {
	if d < time.Minute {
		return d.Round(time.Second).String()
	}
	return d.Round(10 * time.Second).String()
}

// sizeUnit is what a plan's sizes count: YCSB records when it runs only YCSB workloads (and sql
// workloads), "" when it runs only sql workloads, which load no dataset.
func sizeUnit(pl *config.Plan) string {
	switch {
	case slices.ContainsFunc(pl.Workloads, func(w config.WorkloadPlan) bool { return !w.LoadModel() }):
		return "persons"
	case slices.ContainsFunc(pl.Workloads, func(w config.WorkloadPlan) bool { return w.YCSB }):
		return "records"
	}
	return ""
}

// dataText is what a plan loads: its sizes (joined by sep) and what they count, or that its sql
// workloads load no dataset.
func dataText(pl *config.Plan, sep string) string {
	unit := sizeUnit(pl)
	if unit == "" {
		return "no dataset"
	}
	sizes := make([]string, len(pl.Sizes))
	for i, s := range pl.Sizes {
		sizes[i] = fmt.Sprint(s)
	}
	return strings.Join(sizes, sep) + " " + unit
}

// loadSummary describes how a plan's YCSB and sql workloads' operations arrive, "" without any.
func loadSummary(pl *config.Plan) string {
	if !hasYCSB(pl) {
		return ""
	}
	l := pl.Load
	switch {
	case l.Open() && len(l.Stages) > 0:
		return fmt.Sprintf(", open loop: a ramp of %d stages, %s", len(l.Stages), render.Plural(l.Workers, "worker"))
	case l.Open():
		return fmt.Sprintf(", open loop at %g ops/s, %s", l.Rate, render.Plural(l.Workers, "worker"))
	case l != nil:
		return fmt.Sprintf(", closed loop of %s", render.Plural(l.Workers, "worker"))
	}
	return ", closed loop of 1 worker"
}

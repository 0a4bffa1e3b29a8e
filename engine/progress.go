package engine

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/internal/term"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render"
)

// progress prints what the engine is doing to the user (stderr). On a terminal one line updates in
// place with the position (workload k of n, target, repeat) and an ETA, cut to the terminal's width;
// otherwise there is one line per finished workload, which suits CI logs. Every line fits 120 columns.
type progress struct {
	w       io.Writer
	tty     bool
	width   int              // the widest line: the terminal's width, at most render.DefaultWidth
	now     func() time.Time // the clock (a fake one in tests)
	started time.Time
	inLine  bool

	// position: workload runs (workload x size) and target-repeats, done and planned
	runs, run       int
	units, ticks    int
	measuring       time.Time // when the first repeat started
	cur             string    // the current workload run, "lookup@100000"
	wl              string
	size            int
	rep, warm, reps int

	targets []string   // the plan's, in order
	est     *estimator // nil before start
	// observe, in tests, sees every estimate of the time left as it is made.
	observe func(p *progress, left time.Duration, ok bool)
}

func newProgress(w io.Writer, now func() time.Time) *progress {
	if now == nil {
		now = time.Now
	}
	p := &progress{w: w, now: now, started: now(), tty: term.IsTerminal(w), width: render.DefaultWidth}
	if c := term.Columns(w); c > 0 && p.tty {
		p.width = min(c, render.DefaultWidth)
	}
	return p
}

func (p *progress) clearLine() {
	if p.inLine {
		fmt.Fprint(p.w, "\r\033[K")
		p.inLine = false
	}
}

func (p *progress) printf(format string, args ...any) {
	if p.w == nil {
		return
	}
	p.clearLine()
	for _, l := range strings.Split(strings.TrimRight(fmt.Sprintf(format, args...), "\n"), "\n") {
		fmt.Fprintln(p.w, render.Wrap("  "+l, p.width, "    "))
	}
}

func (p *progress) logf(target string) func(string, ...any) {
	return func(format string, args ...any) { p.printf(target+": "+format, args...) }
}

func (p *progress) start(pl *config.Plan) {
	if p.w == nil {
		return
	}
	p.est = newEstimator(pl, p.now())
	for _, t := range pl.Targets {
		p.targets = append(p.targets, t.Name)
	}
	sizes := make([]string, len(pl.Sizes))
	for i, s := range pl.Sizes {
		sizes[i] = fmt.Sprint(s)
	}
	mode := ""
	if pl.CI {
		mode = fmt.Sprintf(", CI mode (thresholds relaxed %.0f%%)", pl.Relax*100)
	}
	fmt.Fprintln(p.w, render.Wrap(fmt.Sprintf("dbbench: %s: %d targets x %d workloads, %s persons, warm-up %d, repeats %d%s",
		pl.Name, len(pl.Targets), len(pl.Workloads), strings.Join(sizes, " -> "), pl.Warmup, pl.Repeats, mode), p.width, "  "))
	p.runs = len(pl.Sizes) * len(pl.Workloads)
	for _, w := range pl.Workloads {
		n := 0
		for i := range pl.Targets {
			if pl.Targets[i].Runs(w.Name) {
				n++
			}
		}
		p.units += len(pl.Sizes) * n * (pl.Warmup + pl.Repeats)
	}
}

// sizeStart starts a dataset size: its dataset is generated, then its targets opened and loaded.
func (p *progress) sizeStart(size int) {
	if p.est != nil {
		p.est.sizeStart(p.now(), size)
	}
}

// loading starts opening and loading a target.
func (p *progress) loading(target string) {
	if p.est != nil {
		p.est.loading(p.now(), slices.Index(p.targets, target))
	}
}

// skipped says a target runs nothing more (unavailable, or stalled).
func (p *progress) skipped(target string) {
	if p.est != nil {
		p.est.skipped(slices.Index(p.targets, target))
	}
}

// closing starts closing the targets of a dataset size.
func (p *progress) closing() {
	if p.est != nil {
		p.est.closing(p.now())
	}
}

// step starts repeat rep (warm-ups first) of a workload.
func (p *progress) step(workload string, size, rep, warmup, repeats int) {
	if key := fmt.Sprintf("%s@%d", workload, size); key != p.cur {
		p.cur = key
		p.run++
	}
	if p.measuring.IsZero() {
		p.measuring = p.now()
	}
	p.wl, p.size, p.rep, p.warm, p.reps = workload, size, rep, warmup, repeats
}

// target starts one target's turn in the current repeat.
func (p *progress) target(name string) {
	p.ticks++
	if p.est != nil {
		p.est.turn(p.now(), p.wl, p.rep, slices.Index(p.targets, name))
	}
	if p.observe != nil {
		p.estimate()
	}
	if p.w == nil || !p.tty {
		return
	}
	p.clearLine()
	phase := fmt.Sprintf("repeat %d/%d", p.rep-p.warm+1, p.reps)
	if p.rep < p.warm {
		phase = fmt.Sprintf("warm-up %d/%d", p.rep+1, p.warm)
	}
	line := fmt.Sprintf("  [%d/%d] %s (size %d) %s: %s%s", p.run, p.runs, p.wl, p.size, name, phase, p.eta())
	// one column short of the width: a terminal that wraps at its last column would start a new line
	fmt.Fprint(p.w, render.Shorten(line, p.width-1))
	p.inLine = true
}

// eta says the time spent measuring and the estimated time left: ", 12s elapsed, ETA 40s".
func (p *progress) eta() string {
	left := p.left()
	if left == "" {
		return ""
	}
	return fmt.Sprintf(", %s elapsed, ETA %s", roundDur(p.now().Sub(p.measuring)), left)
}

// left is the estimated time left (estimator): "" before there is anything to go on.
func (p *progress) left() string {
	d, ok := p.estimate()
	if !ok || p.measuring.IsZero() {
		return ""
	}
	return roundDur(d)
}

func (p *progress) estimate() (time.Duration, bool) {
	if p.est == nil {
		return 0, false
	}
	d, ok := p.est.left(p.now())
	if p.observe != nil {
		p.observe(p, d, ok)
	}
	return d, ok
}

func roundDur(d time.Duration) string {
	if d < time.Minute {
		return d.Round(time.Second).String()
	}
	return d.Round(10 * time.Second).String()
}

func (p *progress) done(workload string, size int, accs []*resultAcc) {
	if p.w == nil {
		return
	}
	if p.est != nil {
		p.est.done(p.now(), workload)
	}
	var parts []string
	for _, a := range accs {
		if a.failed() {
			parts = append(parts, a.key.target+" FAILED")
			continue
		}
		var el []float64
		for _, r := range a.repeats {
			el = append(el, float64(r.ElapsedNs))
		}
		parts = append(parts, fmt.Sprintf("%s %s", a.key.target, render.Ns(report.Median(el))))
	}
	pos := fmt.Sprintf("[%d/%d]", p.run, p.runs)
	if left := p.left(); left != "" && p.run < p.runs {
		pos = fmt.Sprintf("[%d/%d, ETA %s]", p.run, p.runs, left)
	}
	p.printf("%s %-12s size %-8d %s", pos, workload, size, strings.Join(parts, "  "))
}

func (p *progress) finish() {
	if p.w == nil {
		return
	}
	p.clearLine()
	if p.est != nil {
		p.est.finish(p.now())
	}
	fmt.Fprintf(p.w, "dbbench: finished in %s\n", render.Duration(p.now().Sub(p.started).Round(time.Millisecond)))
}

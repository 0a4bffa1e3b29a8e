package workloads

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbbench/dbbench/internal/config"
	"github.com/dbbench/dbbench/internal/term"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render"
)

// progress prints what the engine is doing to the user (stderr). On a terminal one line updates in
// place with the position (workload k of n, target, repeat) and an ETA; otherwise there is one line
// per finished workload, which suits CI logs.
type progress struct {
	w       io.Writer
	tty     bool
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
}

func newProgress(w io.Writer) *progress {
	return &progress{w: w, started: time.Now(), tty: term.IsTerminal(w)}
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
	fmt.Fprintf(p.w, "  "+format+"\n", args...)
}

func (p *progress) logf(target string) func(string, ...any) {
	return func(format string, args ...any) { p.printf(target+": "+format, args...) }
}

func (p *progress) start(pl *config.Plan) {
	if p.w == nil {
		return
	}
	sizes := make([]string, len(pl.Sizes))
	for i, s := range pl.Sizes {
		sizes[i] = fmt.Sprint(s)
	}
	mode := ""
	if pl.CI {
		mode = fmt.Sprintf(", CI mode (thresholds relaxed %.0f%%)", pl.Relax*100)
	}
	fmt.Fprintf(p.w, "dbbench: %s: %d targets x %d workloads, %s persons, warm-up %d, repeats %d%s\n",
		pl.Name, len(pl.Targets), len(pl.Workloads), strings.Join(sizes, " -> "), pl.Warmup, pl.Repeats, mode)
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

// step starts repeat rep (warm-ups first) of a workload.
func (p *progress) step(workload string, size, rep, warmup, repeats int) {
	if key := fmt.Sprintf("%s@%d", workload, size); key != p.cur {
		p.cur = key
		p.run++
	}
	if p.measuring.IsZero() {
		p.measuring = time.Now()
	}
	p.wl, p.size, p.rep, p.warm, p.reps = workload, size, rep, warmup, repeats
}

// target starts one target's turn in the current repeat.
func (p *progress) target(name string) {
	p.ticks++
	if p.w == nil || !p.tty {
		return
	}
	p.clearLine()
	phase := fmt.Sprintf("repeat %d/%d", p.rep-p.warm+1, p.reps)
	if p.rep < p.warm {
		phase = fmt.Sprintf("warm-up %d/%d", p.rep+1, p.warm)
	}
	line := fmt.Sprintf("  [%d/%d] %s (size %d) %s: %s%s", p.run, p.runs, p.wl, p.size, name, phase, p.eta())
	fmt.Fprint(p.w, render.Shorten(line, render.DefaultWidth-1))
	p.inLine = true
}

// eta says the time spent measuring and the estimated time left: ", 12s elapsed, ETA 40s".
func (p *progress) eta() string {
	left := p.left()
	if left == "" {
		return ""
	}
	return fmt.Sprintf(", %s elapsed, ETA %s", roundDur(time.Since(p.measuring)), left)
}

// left estimates the time left from the target-repeats done so far (warm-ups included): workloads
// differ in cost, so it firms up as the run goes. "" before there is anything to go on.
func (p *progress) left() string {
	if p.ticks < 2 || p.units < p.ticks || p.measuring.IsZero() {
		return ""
	}
	el := time.Since(p.measuring)
	return roundDur(time.Duration(float64(el) / float64(p.ticks-1) * float64(p.units-p.ticks+1)))
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
	line := fmt.Sprintf("%s %-12s size %-8d %s", pos, workload, size, strings.Join(parts, "  "))
	p.printf("%s", render.Wrap(line, render.DefaultWidth-2, "    "))
}

func (p *progress) finish() {
	if p.w == nil {
		return
	}
	p.clearLine()
	fmt.Fprintf(p.w, "dbbench: finished in %s\n", render.Duration(time.Since(p.started).Round(time.Millisecond)))
}

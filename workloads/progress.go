package workloads

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/dbbench/dbbench/internal/config"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render"
)

// progress prints what the engine is doing to the user (stderr). On a terminal the repeat counter
// updates in place; otherwise there is one line per finished workload, which suits CI logs.
type progress struct {
	w       io.Writer
	tty     bool
	started time.Time
	inLine  bool
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, started: time.Now()}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
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
}

func (p *progress) step(workload string, size, rep, warmup, repeats int) {
	if p.w == nil || !p.tty {
		return
	}
	p.clearLine()
	if rep < warmup {
		fmt.Fprintf(p.w, "  %s (size %d): warm-up %d/%d", workload, size, rep+1, warmup)
	} else {
		fmt.Fprintf(p.w, "  %s (size %d): repeat %d/%d", workload, size, rep-warmup+1, repeats)
	}
	p.inLine = true
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
	p.printf("%-12s size %-8d %s", workload, size, strings.Join(parts, "  "))
}

func (p *progress) finish() {
	if p.w == nil {
		return
	}
	p.clearLine()
	fmt.Fprintf(p.w, "dbbench: finished in %s\n", render.Duration(time.Since(p.started).Round(time.Millisecond)))
}

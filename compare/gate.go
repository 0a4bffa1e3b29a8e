package compare

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render"
)

// gate applies the thresholds: a row fails when its figure got significantly worse (U test at alpha)
// and its median moved the wrong way by more than the threshold. Rows with too few repeats, and
// results that failed in OLD, leave the gate undecided (never a silent pass); a result that failed in
// NEW fails it.
func (c *comparer) gate() error {
	th := c.opts.Thresholds
	if !th.Enabled() {
		return nil
	}
	g := &c.out.Gate
	g.Enabled, g.Thresholds = true, th.String()
	used := map[string]bool{}
	for i := range c.out.Rows {
		r := &c.out.Rows[i]
		t, ok := th.For(r.Workload, r.Figure)
		if !ok {
			continue
		}
		used[r.Workload+"."+r.Figure], used[r.Figure] = true, true
		r.Threshold = &t
		g.Gated++
		switch {
		case r.Verdict == Worse && Worsening(*r) > t:
			r.Gate = GateFail
			g.Failures++
			g.Reasons = append(g.Reasons, fmt.Sprintf("%s: %s worse, beyond the %s threshold",
				c.rowName(*r), FormatChange(float64(r.Change)), FormatPercent(t)))
		case r.Verdict == OneRun && Worsening(*r) > t:
			// No significance without the run-to-run variation: the threshold alone decides.
			r.Gate = GateFail
			g.Failures++
			g.Reasons = append(g.Reasons, fmt.Sprintf("%s: %s worse, beyond %s (one run a side: no test)",
				c.rowName(*r), FormatChange(float64(r.Change)), FormatPercent(t)))
		case r.Verdict == TooFew:
			r.Gate = GateUndecided
			g.Undecided++
			g.Reasons = append(g.Reasons, fmt.Sprintf("%s: cannot decide with %d and %d %s (%s)",
				c.rowName(*r), r.Old.N(), r.New.N(), c.sampleWord(), r.Reason))
		default:
			r.Gate = GatePass
		}
	}
	for _, f := range c.out.Failed {
		name := f.Target + " " + f.Workload + c.sizeSuffix(f.Size)
		if f.In == "new" {
			g.Failures++
			g.Reasons = append(g.Reasons, fmt.Sprintf("%s failed in %s: %s", name, c.newName, f.Error))
		} else {
			g.Undecided++
			g.Reasons = append(g.Reasons, fmt.Sprintf("%s failed in %s (the baseline): %s", name, c.oldName, f.Error))
		}
	}
	if g.Gated == 0 && len(c.out.Failed) == 0 {
		return fmt.Errorf("the gate would check nothing: no compared figure has a threshold (thresholds %s; compared figures: %s)",
			th.String(), strings.Join(c.comparedFigures(), ", "))
	}
	for _, k := range th.Keys() {
		if !used[k] {
			c.out.Notes = append(c.out.Notes, fmt.Sprintf("threshold %s=%s applies to no compared figure", k, FormatPercent(th.byKey[k])))
		}
	}
	switch {
	case g.Failures > 0:
		g.Verdict = GateFail
	case g.Undecided > 0:
		g.Verdict = GateUndecided
	default:
		g.Verdict = GatePass
	}
	return nil
}

// sampleWord names the samples in messages.
func (c *comparer) sampleWord() string {
	if c.sample == SampleRuns {
		return "runs"
	}
	return "repeats"
}

// Worsening is how much worse a row's median got, as a fraction: the change itself for figures where
// lower is better, its negation where higher is better (a throughput falling 17% worsens by 0.17). An
// undefined change (from a median of 0) counts as infinitely worse.
func Worsening(r Row) float64 {
	ch := float64(r.Change)
	if math.IsNaN(ch) {
		return math.Inf(1)
	}
	if r.HigherBetter {
		return -ch
	}
	return ch
}

func (c *comparer) comparedFigures() []string {
	seen := map[string]bool{}
	for _, r := range c.out.Rows {
		seen[r.Figure] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// rowName names a row in messages: "lmdb-go scan rows_per_s" (with "@SIZE" in sweeps and "/REF" when
// normalized).
func (c *comparer) rowName(r Row) string {
	fig := r.Figure
	if c.opts.NormalizeBy != "" {
		fig += "/" + c.opts.NormalizeBy
	}
	return r.Target + " " + r.Workload + c.sizeSuffix(r.Size) + " " + fig
}

func (c *comparer) sizeSuffix(size int) string {
	if c.out.Sweep {
		return fmt.Sprintf("@%d", size)
	}
	return ""
}

// FormatChange renders a relative change: 0.123 -> "+12.3%", NaN -> "?".
func FormatChange(v float64) string {
	switch {
	case math.IsNaN(v):
		return "?"
	case math.IsInf(v, 0):
		return "∞"
	}
	return fmt.Sprintf("%+.1f%%", v*100)
}

// notes records differences between the reports that change how the comparison reads.
func (c *comparer) notes() {
	o, n := c.old, c.new
	add := func(format string, args ...any) { c.out.Notes = append(c.out.Notes, fmt.Sprintf(format, args...)) }
	for _, f := range c.forced {
		add("compared despite %s (--force)", f)
	}
	if c.sample == SampleOneRun {
		add("one run per side: the run-to-run variation is not measured, so no change is called significant; give several runs per side (dbbench compare OLD1 OLD2 ... -- NEW1 NEW2 ...)")
	}
	if c.out.NormalizedByDefault {
		add("normalized by %s, the baseline target both sides name (--normalize-by none compares raw figures)", c.opts.NormalizeBy)
	}
	if oi, ni := o.Run.IsolationMode(), n.Run.IsolationMode(); oi != ni {
		add("isolation differs: %s %s, %s %s", c.oldName, oi, c.newName, ni)
	}
	if o.Run.CI != n.Run.CI {
		add("%s was run with --ci=%t, %s with --ci=%t: sizes and repeats may differ", c.oldName, o.Run.CI, c.newName, n.Run.CI)
	}
	oe, ne := o.Environment, n.Environment
	if oe.CPUModel != ne.CPUModel || oe.Cores != ne.Cores || oe.Arch != ne.Arch {
		what := "absolute figures are not comparable across machines; --normalize-by TARGET compares ratios to a reference target instead"
		if c.opts.NormalizeBy != "" {
			what = "figures are normalized by " + c.opts.NormalizeBy + ", which cancels most of the machine's speed"
		}
		add("different machines (%s: %s, %d cores; %s: %s, %d cores): %s",
			c.oldName, oe.CPUModel, oe.Cores, c.newName, ne.CPUModel, ne.Cores, what)
	}
	for _, t := range n.Targets {
		ot := o.TargetByName(t.Name)
		if ot == nil {
			if t.Status == report.StatusSkipped {
				add("%s skipped %s: %s", c.newName, t.Name, t.Reason)
			}
			continue
		}
		if ot.Slowdown != t.Slowdown {
			add("injected slowdown of %s differs: %s %s, %s %s", t.Name, c.oldName, slowdown(ot.Slowdown), c.newName, slowdown(t.Slowdown))
		}
		if ot.Status == report.StatusSkipped && t.Status != report.StatusSkipped {
			add("%s skipped %s: %s", c.oldName, t.Name, ot.Reason)
		}
		if t.Status == report.StatusSkipped && ot.Status != report.StatusSkipped {
			add("%s skipped %s: %s", c.newName, t.Name, t.Reason)
		}
	}
	seen := map[string]bool{}
	for _, r := range c.out.Rows {
		if seen[r.Workload] {
			continue
		}
		seen[r.Workload] = true
		or, nr := find(o, r.Target, r.Workload, c.sizeOf[r.Size]), find(n, r.Target, r.Workload, r.Size)
		if or != nil && nr != nil && fmt.Sprint(or.Params) != fmt.Sprint(nr.Params) {
			add("%s parameters differ: %s %s, %s %s", r.Workload, c.oldName, params(or.Params), c.newName, params(nr.Params))
		}
	}
}

func slowdown(f float64) string {
	if f == 0 {
		return "none"
	}
	return FormatPercent(f)
}

// params renders workload parameters in key order: "ops=300 rows=20000".
func params(p map[string]any) string {
	if len(p) == 0 {
		return "(none)"
	}
	keys := slices.Sorted(maps.Keys(p))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + render.OptionValue("", p[k])
	}
	return strings.Join(parts, " ")
}

package compare

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render"
)

// gate applies the thresholds: each gated row is decided on the interval of its change (decide):
// FAIL when it lies wholly beyond the threshold on the worse side, PASS when wholly within, else
// INCONCLUSIVE, never a silent pass. The family-wise confidence is split over the gated rows and the
// looks (Bonferroni), so that the chance of any wrong decision at any look stays within 1 - Confidence.
// With one run a side there is no interval (the run-to-run spread is not measured): inconclusive. A
// result that failed in NEW fails the gate, and so does a gated figure missing in NEW; one missing in
// OLD, or from a target NEW skipped with a reason, leaves it inconclusive (AllowMissing accepts
// both, and a note says so); across machine classes nothing else is decided.
func (c *comparer) gate() error {
	th := c.opts.Thresholds
	if !th.Enabled() {
		return nil
	}
	g := &c.out.Gate
	g.Enabled, g.Thresholds, g.Confidence, g.Looks = true, th.String(), c.opts.Confidence, c.opts.Looks
	g.AllowMissing = c.opts.AllowMissing
	c.worst = math.Inf(-1)
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
	}
	missing := c.gatedMissing(used)
	if g.Gated == 0 && len(c.out.Failed) == 0 && len(missing) == 0 {
		return fmt.Errorf("the gate would check nothing: no compared figure has a threshold (thresholds %s; compared figures: %s)",
			th.String(), strings.Join(c.comparedFigures(), ", "))
	}
	conf := 1 - (1-c.opts.Confidence)/float64(max(g.Gated, 1)*c.opts.Looks)
	for i := range c.out.Rows {
		if c.out.Rows[i].Threshold != nil {
			c.decideRow(&c.out.Rows[i], conf)
		}
	}
	if c.out.Undecidable != "" {
		g.Reasons = append([]string{c.out.Undecidable}, g.Reasons...)
	}
	for _, f := range c.out.Failed {
		// OLD's failures refuse the comparison before it starts (checkBaseline): these are NEW's.
		g.Failures++
		c.failure(math.Inf(1), fmt.Sprintf("%s %s%s failed in %s: %s", f.Target, f.Workload, c.sizeSuffix(f.Size), c.newName, f.Error))
	}
	c.gateMissing(missing)
	for _, k := range th.Keys() {
		if !used[k] {
			c.out.Notes = append(c.out.Notes, fmt.Sprintf("threshold %s=%s applies to no compared figure", k, FormatPercent(th.byKey[k])))
		}
	}
	switch {
	case g.Failures > 0:
		g.Verdict = GateFail
	case g.Inconclusive > 0:
		g.Verdict = GateInconclusive
	default:
		g.Verdict = GatePass
	}
	return nil
}

// gatedMissing returns, per missing entry (index into Unpaired), its figures that have a threshold,
// and marks their thresholds used.
func (c *comparer) gatedMissing(used map[string]bool) map[int][]string {
	out := map[int][]string{}
	for i, u := range c.out.Unpaired {
		for _, f := range u.Figures {
			if _, ok := c.opts.Thresholds.For(u.Workload, f); ok {
				used[u.Workload+"."+f], used[f] = true, true
				out[i] = append(out[i], f)
			}
		}
	}
	return out
}

// gateMissing holds the gated figures missing on one side against the gate: missing in NEW fails,
// missing in OLD (nothing to compare with) or from a target NEW skipped with a reason is
// inconclusive; with AllowMissing none is, and a note names them.
func (c *comparer) gateMissing(missing map[int][]string) {
	g := &c.out.Gate
	var allowed []string
	for i := range c.out.Unpaired {
		u := &c.out.Unpaired[i]
		figs := missing[i]
		if len(figs) == 0 {
			continue
		}
		side := c.newName
		if u.In == "old" {
			side = c.oldName
		}
		if c.opts.AllowMissing {
			u.Allowed = true
			for _, f := range figs {
				allowed = append(allowed, fmt.Sprintf("%s (missing in %s)", c.figureName(u.Target, u.Workload, u.Size, f), side))
			}
			continue
		}
		g.Missing += len(figs)
		u.Gate = GateInconclusive
		if u.In == "new" && !u.Skipped {
			u.Gate = GateFail
		}
		for _, f := range figs {
			why := fmt.Sprintf("%s: missing in %s: %s", c.figureName(u.Target, u.Workload, u.Size, f), side, u.Reason)
			if u.Gate == GateFail {
				g.Failures++
				c.failure(math.Inf(1), why)
				continue
			}
			g.Inconclusive++
			g.Reasons = append(g.Reasons, why)
		}
	}
	if len(allowed) > 0 {
		c.out.Notes = append(c.out.Notes, fmt.Sprintf("--allow-missing: %s with values on one side only not held against the gate: %s",
			plural(len(allowed), "gated figure"), strings.Join(allowed, ", ")))
	}
}

// failure records a reason the gate fails; the worst (by Worsening) is the one its error line names.
func (c *comparer) failure(worsening float64, why string) {
	g := &c.out.Gate
	g.Reasons = append(g.Reasons, why)
	if worsening > c.worst || g.Worst == "" {
		c.worst, g.Worst = worsening, why
	}
}

// decideRow decides one gated row at confidence conf and counts it in the gate.
func (c *comparer) decideRow(r *Row, conf float64) {
	g := &c.out.Gate
	t := *r.Threshold
	var d Decision
	switch {
	case c.out.Undecidable != "":
		r.Gate, d = GateInconclusive, Decision{Lo: Num(math.NaN()), Hi: Num(math.NaN()), Confidence: conf,
			Why: "not decided: the sides ran on different machine classes"}
	case c.sample == SampleOneRun:
		r.Gate, d = GateInconclusive, Decision{Lo: Num(math.NaN()), Hi: Num(math.NaN()), Confidence: conf,
			Why: "one run a side: the spread between runs is not measured, so there is no interval (give 5 or more runs a side)"}
	default:
		r.Gate, d = decide(r.Old.Values, r.New.Values, t, r.HigherBetter, conf, c.sampleWord(), c.opts.DropSlowest)
	}
	r.Decision = &d
	switch r.Gate {
	case GateFail:
		g.Failures++
		c.failure(Worsening(*r), fmt.Sprintf("%s: %s: %s", c.rowName(*r), FormatChange(float64(r.Change)), d.Why))
	case GateInconclusive:
		g.Inconclusive++
		switch n := d.RunsNeeded; {
		case n < 0:
			g.RunsNeeded = -1 // more than anyone would take: that says it all
		case g.RunsNeeded >= 0 && n > g.RunsNeeded:
			g.RunsNeeded = n
		}
		if c.out.Undecidable == "" {
			g.Reasons = append(g.Reasons, fmt.Sprintf("%s: %s", c.rowName(*r), d.Why))
		}
	}
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
	return c.figureName(r.Target, r.Workload, r.Size, r.Figure)
}

// figureName names a figure of a result in messages, as rowName.
func (c *comparer) figureName(target, workload string, size int, fig string) string {
	if c.opts.NormalizeBy != "" {
		fig += "/" + c.opts.NormalizeBy
	}
	return target + " " + workload + c.sizeSuffix(size) + " " + fig
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
	for _, n := range c.notComparable {
		add("not comparable (%s): %s", n.why, strings.Join(n.names, "; "))
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
	if oe, ne := o.Environment, n.Environment; oe.MachineClass() == ne.MachineClass() && oe.Arch != ne.Arch {
		add("different architectures (%s: %s; %s: %s)", c.oldName, oe.Arch, c.newName, ne.Arch)
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

// Outcome is the exit code the comparison calls for (internal/exitcode) and, unless 0, one line
// saying why: 1 when the gate failed (naming the worst failure and how many failed), 4 when it is
// inconclusive, or when there is no gate but the sides ran on different machine classes (nothing is
// decided; exit 0 would read as "no change").
func (c *Comparison) Outcome() (int, string) {
	g := c.Gate
	switch {
	case g.Verdict == GateFail:
		worst := cmp.Or(g.Worst, "see the table above")
		return exitcode.Failed, fmt.Sprintf("gate failed: %s (%d of %s failed)", worst, g.Failures, plural(c.gatedTotal(), "gated figure"))
	case g.Verdict == GateInconclusive:
		line := gateLine(c)
		if c.Undecidable == "" && len(g.Reasons) > 0 {
			// the gate line already says how many runs would decide
			r, _, _ := strings.Cut(g.Reasons[0], runsPhrase)
			line += "; first: " + r
		}
		return exitcode.Inconclusive, strings.TrimPrefix(line, "gate: ")
	case !g.Enabled && c.Undecidable != "":
		return exitcode.Inconclusive, "INCONCLUSIVE: " + c.Undecidable
	}
	return exitcode.OK, ""
}

// gatedTotal counts what the gate held: the figures decided on an interval, the missing ones and
// the results that failed in NEW.
func (c *Comparison) gatedTotal() int {
	return c.Gate.Gated + c.Gate.Missing + len(c.Failed)
}

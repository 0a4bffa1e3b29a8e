package assertion

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dbbench/dbbench/report"
)

// Evaluate decides the assertion on a report under rule (interval.go): over the report's runs, or on
// its one run's value. It returns one verdict per dataset size it applies to: one for a single-size
// run or when every ref names its size, else one per size of the sweep.
func (a Assertion) Evaluate(r *report.Report, relax float64, rule Rule) []report.Assertion {
	sizes := r.Run.Sizes
	pinned := true
	for _, ref := range a.Refs() {
		if ref.Size == "" {
			pinned = false
		}
	}
	if pinned || len(sizes) <= 1 {
		at := 0
		if len(sizes) == 1 {
			at = sizes[0]
		}
		return []report.Assertion{a.evaluateAt(r, relax, at, rule)}
	}
	out := make([]report.Assertion, 0, len(sizes))
	for _, s := range sizes {
		out = append(out, a.evaluateAt(r, relax, s, rule))
	}
	return out
}

// resolveSize picks the dataset size a ref reads: its own @SIZE, else the size being evaluated.
func resolveSize(ref Ref, sizes []int, at int) (int, error) {
	switch ref.Size {
	case "":
		return at, nil
	case "min", "max":
		if len(sizes) == 0 {
			return 0, fmt.Errorf("no sizes in the report")
		}
		if ref.Size == "min" {
			return slices.Min(sizes), nil
		}
		return slices.Max(sizes), nil
	}
	n, err := strconv.Atoi(strings.ReplaceAll(ref.Size, "_", ""))
	if err != nil || !slices.Contains(sizes, n) {
		return 0, fmt.Errorf("size %s was not run (sizes: %v)", ref.Size, sizes)
	}
	return n, nil
}

func (a Assertion) evaluateAt(r *report.Report, relax float64, at int, rule Rule) report.Assertion {
	def := a.K
	a, keyed := a.ForMachine(r.Environment.MachineClass())
	out := report.Assertion{
		Name:             a.Name,
		Expr:             a.Expr,
		Line:             a.Line,
		Left:             a.Left.String(),
		Form:             string(a.Form),
		Op:               a.Op,
		Threshold:        a.K,
		RelaxedThreshold: a.Relaxed(relax),
		PerRepeat:        []float64{},
	}
	if a.RunValue == report.RunBest {
		out.RunValue = report.RunBest
	}
	if keyed {
		out.MachineClass, out.DefaultThreshold = r.Environment.MachineClass(), def
	}
	if a.Form != Absolute {
		out.Right = a.Right.String()
	}
	if len(r.Run.Sizes) > 1 {
		out.Left = sizedName(a.Left, r.Run.Sizes, at)
		if a.Form != Absolute {
			out.Right = sizedName(a.Right, r.Run.Sizes, at)
		}
	}
	values, ok := a.runValues(r, at, &out)
	if !ok {
		return out
	}
	// Ratios and a positive figure's values vary by factors (a machine state scales them): their
	// interval is taken on log scale. Differences can be negative and stay linear, and so do the
	// signed figures (memory growth per operation: a difference of two readings, often near 0).
	log := a.Form != Difference && !(a.Form == Absolute && report.Signed(a.Left.Key()))
	for _, v := range values {
		if !(v > 0) {
			log = false
		}
	}
	e := newEstimate(values, log, rule.PerTest())
	out.RunValues, out.Runs = values, len(values)
	out.Interval = e.interval()
	out.Value = e.center()
	out.Verdict = Decide(a.Op, out.RelaxedThreshold, out.Interval.Lo, out.Interval.Hi)
	out.Why = why(e, out)
	if out.Verdict == report.VerdictInconclusive {
		out.MoreRuns = e.moreRuns(out.RelaxedThreshold)
		out.Why += moreRunsText(out.MoreRuns)
	}
	return out
}

// LeftOut is the report's entry for the assertion when the run leaves it out (it names a target
// that is not part of the run): verdict left_out, with the reason; it changes nothing.
func (a Assertion) LeftOut(relax float64, reason string) report.Assertion {
	out := report.Assertion{
		Name: a.Name, Expr: a.Expr, Line: a.Line, Left: a.Left.String(), Form: string(a.Form), Op: a.Op,
		Threshold: a.K, RelaxedThreshold: a.Relaxed(relax), PerRepeat: []float64{},
		Verdict: report.VerdictLeftOut, Reason: reason, Why: "left out: " + reason,
	}
	if a.Form != Absolute {
		out.Right = a.Right.String()
	}
	return out
}

// runValues fills in the sides' values and returns each run's value, in run order: the median of
// the run's paired per-repeat ratios or differences, or of its values. When there is nothing to
// decide on, it gives out its verdict (left_out for a target that is not part of the run, error for
// anything else) and its reason, and returns false.
func (a Assertion) runValues(r *report.Report, at int, out *report.Assertion) ([]float64, bool) {
	stop := func(s sideProblem) ([]float64, bool) {
		out.Verdict, out.Reason, out.Why = report.VerdictError, s.reason, "nothing to decide on: "+s.reason
		if s.leftOut {
			out.Verdict, out.Why = report.VerdictLeftOut, "left out: "+s.reason
		}
		return nil, false
	}
	left, p := series(r, a.Left, at)
	if p.reason != "" {
		return stop(p)
	}
	var right map[int][]float64
	if a.Form != Absolute {
		if right, p = series(r, a.Right, at); p.reason != "" {
			return stop(p)
		}
	}
	var values, lefts, rights []float64
	for _, run := range runsOf(left) {
		l := left[run]
		lefts = append(lefts, report.Median(l))
		if a.Form == Absolute {
			out.PerRepeat = append(out.PerRepeat, l...)
			values = append(values, a.summary(l, [2][]float64{}))
			continue
		}
		rv, ok := right[run]
		if !ok {
			continue // the other side did not run in this run: it gives no pair
		}
		rights = append(rights, report.Median(rv))
		var paired []float64
		for i := 0; i < min(len(l), len(rv)); i++ {
			if a.Form == Difference {
				paired = append(paired, l[i]-rv[i])
				continue
			}
			if rv[i] == 0 {
				return stop(sideProblem{reason: fmt.Sprintf("%s is 0 in run %d, repeat %d: a zero denominator, the ratio is undefined", out.Right, run, i+1)})
			}
			paired = append(paired, l[i]/rv[i])
		}
		if len(paired) == 0 {
			continue
		}
		out.PerRepeat = append(out.PerRepeat, paired...)
		values = append(values, a.summary(paired, [2][]float64{l, rv}))
	}
	out.LeftValue, out.RightValue = report.Median(lefts), report.Median(rights)
	if len(values) == 0 {
		return stop(sideProblem{reason: "no repeats to compare: the two sides share no run"})
	}
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return stop(sideProblem{reason: fmt.Sprintf("the value of run %d is not a number (%g)", i+1, v)})
		}
	}
	return values, true
}

// summary is a run's value: the median of its paired per-repeat values (of its values, for an
// absolute check), or under report.RunBest each side's best repeat of the run, then their ratio or
// difference. sides holds the two sides' repeats (none for an absolute check).
func (a Assertion) summary(paired []float64, sides [2][]float64) float64 {
	if a.RunValue != report.RunBest {
		return report.Median(paired)
	}
	if sides[0] == nil {
		return report.Best(a.Left.Key(), paired)
	}
	l, r := report.Best(a.Left.Key(), sides[0]), report.Best(a.Right.Key(), sides[1])
	if a.Form == Difference {
		return l - r
	}
	return l / r
}

// why says in one line what decided a verdict, or that nothing did yet.
func why(e estimate, a report.Assertion) string {
	if e.n < 2 {
		return "one run: its value decides (a point verdict, no interval; more runs give one)"
	}
	switch a.Verdict {
	case report.VerdictPass:
		return fmt.Sprintf("the %s interval over %d runs lies within the threshold", percent(e.confidence), e.n)
	case report.VerdictFail:
		return fmt.Sprintf("the %s interval over %d runs lies beyond the threshold", percent(e.confidence), e.n)
	}
	return fmt.Sprintf("the %s interval over %d runs straddles the threshold", percent(e.confidence), e.n)
}

// moreRunsText is what would decide an undecided verdict.
func moreRunsText(n int) string {
	switch {
	case n == 0:
		return "; its mean sits on the threshold: more runs decide only if the mean moves"
	case n >= MaxMoreRuns:
		return fmt.Sprintf("; more than %d more runs would be needed", MaxMoreRuns)
	}
	return fmt.Sprintf("; about %d more runs would decide, if the mean and spread stay as they are", n)
}

// percent formats a confidence: 0.996875 -> "99.69%".
func percent(c float64) string {
	s := strconv.FormatFloat(c*100, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s + "%"
}

// runsOf returns the runs of a side's values in order.
func runsOf(m map[int][]float64) []int {
	return slices.Sorted(maps.Keys(m))
}

func sizedName(ref Ref, sizes []int, at int) string {
	n, err := resolveSize(ref, sizes, at)
	if err != nil || ref.Size != "" {
		return ref.String()
	}
	ref.Size = strconv.Itoa(n)
	return ref.String()
}

// sideProblem is why a side has no values: its reason, and whether the side's target is simply not
// part of the run (left out) rather than failed or incomplete.
type sideProblem struct {
	reason  string
	leftOut bool
}

// series returns the values of a ref per run (the run's repeats in order), or why there are none.
func series(r *report.Report, ref Ref, at int) (map[int][]float64, sideProblem) {
	size, err := resolveSize(ref, r.Run.Sizes, at)
	if err != nil {
		return nil, sideProblem{reason: err.Error()}
	}
	t := r.TargetByName(ref.Target)
	if t == nil {
		return nil, sideProblem{reason: fmt.Sprintf("no target %q in the report", ref.Target)}
	}
	if t.Status == report.StatusSkipped {
		return nil, sideProblem{reason: fmt.Sprintf("target %s was skipped: %s", ref.Target, t.Reason), leftOut: true}
	}
	res := r.Find(ref.Target, ref.Workload, size)
	if res == nil {
		for _, in := range t.Instances {
			if in.Size == size && in.Skipped != "" {
				return nil, sideProblem{reason: fmt.Sprintf("target %s was skipped at size %d: %s", ref.Target, size, in.Skipped), leftOut: true}
			}
		}
		return nil, sideProblem{reason: fmt.Sprintf("%s did not run %s, so %s was not measured", ref.Target, ref.Workload, ref)}
	}
	if res.Status != report.StatusOK {
		return nil, sideProblem{reason: fmt.Sprintf("%s %s failed, so %s was not measured: %s", ref.Target, ref.Workload, ref, exitcodeOneLine(res.Error))}
	}
	vals := map[int][]float64{}
	for i, rep := range res.Repeats {
		v, ok := rep.Figures[ref.Key()]
		if !ok {
			return nil, sideProblem{reason: fmt.Sprintf("figure %s is missing in %s %s (run %d, repeat %d)%s", ref.Key(), ref.Target, ref.Workload, rep.RunIndex(), i+1, missingHint(res, ref))}
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, sideProblem{reason: fmt.Sprintf("figure %s of %s %s is not a number (%g) in run %d", ref.Key(), ref.Target, ref.Workload, v, rep.RunIndex())}
		}
		vals[rep.RunIndex()] = append(vals[rep.RunIndex()], v)
	}
	if len(vals) == 0 {
		return nil, sideProblem{reason: fmt.Sprintf("%s %s has no repeats, so %s was not measured", ref.Target, ref.Workload, ref)}
	}
	return vals, sideProblem{}
}

// exitcodeOneLine folds a multi-line error into one line.
func exitcodeOneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// missingHint says why a load-model figure may be missing: the workload is not one, or ran as a
// closed loop, which has no schedule to measure; or the operation type is not in its mix (naming
// the types it has).
func missingHint(res *report.Result, ref Ref) string {
	if !report.OpenLoop(ref.Key()) {
		return ""
	}
	if res.Load == nil {
		return ": it is a load-model figure, and this workload is not one"
	}
	if res.Load.Loop == "closed" && report.ScheduleFigure(ref.Key()) {
		return ": only an open loop measures it, and this workload ran as a closed loop (no schedule: give load: a rate)"
	}
	if ref.Op == "" {
		return ""
	}
	ops := make([]string, len(res.Load.Types))
	for i, t := range res.Load.Types {
		ops[i] = t.Op
	}
	return fmt.Sprintf(": its operation types are %s", strings.Join(ops, ", "))
}

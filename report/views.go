package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// MergedHistogram returns a result's latency histogram merged over all repeats: the stored merged one,
// or for an older report without it, the merge of the per-repeat ones.
func (x *Result) MergedHistogram() (*hdrhistogram.Histogram, error) {
	if x.Histogram != "" {
		return DecodeHistogram(x.Histogram)
	}
	enc := make([]string, len(x.Repeats))
	for i, rep := range x.Repeats {
		enc[i] = rep.Histogram
	}
	return MergeHistograms(enc...)
}

// QuantilePoint is one step of a latency distribution: the value (ns) at a percentile (0-100).
type QuantilePoint struct {
	Percentile float64
	Value      float64
}

// DistributionTicks is how many percentile steps each halving of the distance to 100% gets in
// Distribution: fewer than the .hgrm export (5), enough for a smooth curve, small enough for a page.
const DistributionTicks = 3

// Distribution returns h's percentile distribution on the HdrHistogram steps (each halving of the
// distance to 100% gets ticksPerHalf steps), ending at the max, with repeated steps dropped. The
// last point is the max at percentile 100.
func Distribution(h *hdrhistogram.Histogram, ticksPerHalf int32) []QuantilePoint {
	if h.TotalCount() == 0 {
		return nil
	}
	var out []QuantilePoint
	for _, b := range h.CumulativeDistributionWithTicks(ticksPerHalf) {
		p := QuantilePoint{Percentile: b.Quantile, Value: float64(b.ValueAt)}
		if n := len(out); n > 0 && out[n-1].Percentile == p.Percentile {
			out[n-1] = p
			continue
		}
		out = append(out, p)
	}
	return out
}

// PrimaryFigure is the one figure that best shows a result's repeats side by side: the p50 latency
// for results timing many operations (lookups, adapter operations), else the time per row, else per
// operation; for an open-loop result the response time p99 (what users wait, from the intended start).
func PrimaryFigure(x *Result) string {
	if _, ok := x.Figures["response_p99"]; ok && x.Load != nil {
		return "response_p99"
	}
	if x.Unit == "lookup" || x.Unit == "op" {
		if _, ok := x.Figures["p50"]; ok {
			return "p50"
		}
	}
	for _, f := range []string{"ns_per_row", "ns_per_op", "p50"} {
		if _, ok := x.Figures[f]; ok {
			return f
		}
	}
	return ""
}

// Ref is a parsed side of an evaluated assertion, "lookup.p50[a@max]".
type Ref struct {
	Workload, Figure, Target string
	// Size is the size the side was evaluated at: a number, "min", "max", or "" for the only size.
	Size string
}

// ParseRef parses "WORKLOAD.FIGURE[TARGET]" or "WORKLOAD.FIGURE[TARGET@SIZE]".
func ParseRef(s string) (Ref, error) {
	wf, rest, ok := strings.Cut(s, "[")
	if !ok || !strings.HasSuffix(rest, "]") {
		return Ref{}, fmt.Errorf("reference %q: want WORKLOAD.FIGURE[TARGET]", s)
	}
	wl, fig, ok := strings.Cut(wf, ".")
	if !ok {
		return Ref{}, fmt.Errorf("reference %q: want WORKLOAD.FIGURE[TARGET]", s)
	}
	target, size, _ := strings.Cut(strings.TrimSuffix(rest, "]"), "@")
	return Ref{Workload: wl, Figure: fig, Target: target, Size: size}, nil
}

// SizeIn resolves the reference's size against the run's sizes (0 when it cannot).
func (r Ref) SizeIn(sizes []int) int {
	if len(sizes) == 0 {
		return 0
	}
	lo, hi := sizes[0], sizes[0]
	for _, s := range sizes {
		lo, hi = min(lo, s), max(hi, s)
	}
	switch r.Size {
	case "":
		if len(sizes) == 1 {
			return sizes[0]
		}
		return 0
	case "min":
		return lo
	case "max":
		return hi
	}
	n, err := strconv.Atoi(r.Size)
	if err != nil {
		return 0
	}
	return n
}

// GrowthLimit is what a sweep assertion comparing one target's figure at two sizes allows: the
// value the left side may reach at its size, given the right side's value.
type GrowthLimit struct {
	Assertion *Assertion
	Ref       Ref // the left side
	Size      int
	Limit     float64
}

// GrowthLimits returns the limits of the assertions that compare one target's figure with itself at
// another size (growth across a sweep), relaxed as decided. Other forms are left out.
func (r *Report) GrowthLimits() []GrowthLimit {
	var out []GrowthLimit
	for i := range r.Assertions {
		a := &r.Assertions[i]
		if !a.Verdict.Decided() && a.Verdict != VerdictInconclusive || a.Right == "" {
			continue
		}
		l, err1 := ParseRef(a.Left)
		rt, err2 := ParseRef(a.Right)
		if err1 != nil || err2 != nil || l.Workload != rt.Workload || l.Figure != rt.Figure || l.Target != rt.Target {
			continue
		}
		ls, rs := l.SizeIn(r.Run.Sizes), rt.SizeIn(r.Run.Sizes)
		if ls == 0 || rs == 0 || ls == rs {
			continue
		}
		var limit float64
		switch a.Form {
		case "ratio":
			limit = a.RelaxedThreshold * a.RightValue
		case "difference":
			limit = a.RightValue + a.RelaxedThreshold
		default:
			continue
		}
		if math.IsNaN(limit) || math.IsInf(limit, 0) {
			continue
		}
		out = append(out, GrowthLimit{Assertion: a, Ref: l, Size: ls, Limit: limit})
	}
	return out
}

// MergedTail returns a latency figure from the histogram merged over all repeats (p999, max...), and
// whether the result has one. Medians over repeats of per-repeat tails understate the tail: the
// merged figure is the true tail of every operation the result timed.
func (x *Result) MergedTail(figure string) (float64, bool) {
	v, ok := x.Merged[figure]
	return v, ok
}

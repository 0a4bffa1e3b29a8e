package compare

import (
	"fmt"
	"math"

	"github.com/dbbench/dbbench/report"
)

// sideValues is one side's samples of a figure as compared and, for latency figures, its value in
// the histogram merged over all repeats of every run.
type sideValues struct {
	values []float64
	merged float64 // NaN when not a latency figure
}

// mergedFigures are the figures report.Percentiles computes from a histogram.
var mergedFigures = map[string]bool{"p50": true, "p90": true, "p99": true, "p999": true, "max": true, "min": true, "mean": true}

// series returns the samples of fig in r's repeats of run (0: every run's). With a reference result
// ref, each repeat's value is divided by the reference's value of the same repeat (same run, same
// index): targets run interleaved (A B A B ...), so repeat i of both ran back to back under the same
// machine conditions, and the ratio cancels them. The ratio keeps the figure's direction: a higher
// rows_per_s ratio is still better, a higher p99 ratio still worse.
func series(r, ref *report.Result, fig string, run int) []float64 {
	type key struct{ run, index int }
	var refBy map[key]report.Repeat
	if ref != nil {
		refBy = make(map[key]report.Repeat, len(ref.Repeats))
		for _, rep := range ref.Repeats {
			refBy[key{rep.RunIndex(), rep.Index}] = rep
		}
	}
	var out []float64
	for _, rep := range r.Repeats {
		if run != 0 && rep.RunIndex() != run {
			continue
		}
		v, ok := rep.Figures[fig]
		if !ok {
			continue
		}
		if ref != nil {
			rr, ok := refBy[key{rep.RunIndex(), rep.Index}]
			if !ok {
				continue
			}
			d, ok := rr.Figures[fig]
			if !ok || d == 0 {
				continue
			}
			v /= d
		}
		out = append(out, v)
	}
	return out
}

// mergedAcross is fig from the histograms of every run's result merged together (divided by the
// reference's, merged the same way, when normalizing); NaN when there is none.
func mergedAcross(rs, refs []*report.Result, fig string) (float64, error) {
	v, err := mergedFigure(rs, fig)
	if err != nil || refs == nil || math.IsNaN(v) {
		return v, err
	}
	d, err := mergedFigure(refs, fig)
	if err != nil || math.IsNaN(d) || d == 0 {
		return math.NaN(), err
	}
	return v / d, nil
}

func mergedFigure(rs []*report.Result, fig string) (float64, error) {
	var enc []string
	for _, r := range rs {
		n := len(enc)
		for _, rep := range r.Repeats {
			if rep.Histogram != "" {
				enc = append(enc, rep.Histogram)
			}
		}
		if len(enc) == n && r.Histogram != "" {
			enc = append(enc, r.Histogram)
		}
	}
	if len(enc) == 0 {
		return math.NaN(), nil
	}
	merged, err := report.MergeHistograms(enc...)
	if err != nil {
		return math.NaN(), fmt.Errorf("%s %s: %v", rs[0].Target, rs[0].Workload, err)
	}
	v, ok := report.Percentiles(merged)[fig]
	if !ok {
		return math.NaN(), nil
	}
	return v, nil
}

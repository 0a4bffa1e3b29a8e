package compare

import (
	"fmt"
	"math"

	"github.com/dbbench/dbbench/report"
)

// series is one figure of one result as compared: its per-repeat values and, for latency figures, its
// value in the histogram merged over all repeats.
type series struct {
	values []float64
	merged float64 // NaN when not a latency figure
}

// mergedFigures are the figures report.Percentiles computes from a histogram.
var mergedFigures = map[string]bool{"p50": true, "p90": true, "p99": true, "p999": true, "max": true, "min": true, "mean": true}

// series returns the samples of fig in r. With a reference result ref, each repeat's value is divided
// by the reference's value of the same repeat: targets run interleaved (A B A B ...), so repeat i of
// both ran back to back under the same machine conditions, and the ratio cancels them. The ratio
// keeps the figure's direction: a higher rows_per_s ratio is still better, a higher p99 ratio still
// worse.
func (c *comparer) series(name string, r, ref *report.Result, fig string) (series, error) {
	s := series{merged: math.NaN()}
	var refByIndex map[int]report.Repeat
	if ref != nil {
		refByIndex = make(map[int]report.Repeat, len(ref.Repeats))
		for _, rep := range ref.Repeats {
			refByIndex[rep.Index] = rep
		}
	}
	for _, rep := range r.Repeats {
		v, ok := rep.Figures[fig]
		if !ok {
			continue
		}
		if ref != nil {
			rr, ok := refByIndex[rep.Index]
			if !ok {
				continue
			}
			d, ok := rr.Figures[fig]
			if !ok || d == 0 {
				continue
			}
			v /= d
		}
		s.values = append(s.values, v)
	}
	if !mergedFigures[fig] || len(s.values) == 0 {
		return s, nil
	}
	m, err := c.hist.percentiles(r)
	if err != nil {
		return s, fmt.Errorf("%s: %s %s: %v", name, r.Target, r.Workload, err)
	}
	v, ok := m[fig]
	if !ok {
		return s, nil
	}
	if ref != nil {
		rm, err := c.hist.percentiles(ref)
		if err != nil {
			return s, fmt.Errorf("%s: %s %s: %v", name, ref.Target, ref.Workload, err)
		}
		d, ok := rm[fig]
		if !ok || d == 0 {
			return s, nil
		}
		v /= d
	}
	s.merged = v
	return s, nil
}

// histCache holds the percentiles of each result's merged histogram, decoded once.
type histCache map[*report.Result]map[string]float64

// percentiles merges the per-repeat histograms of r (the merged one when repeats carry none) and
// returns its percentiles keyed by figure name.
func (h *histCache) percentiles(r *report.Result) (map[string]float64, error) {
	if m, ok := (*h)[r]; ok {
		return m, nil
	}
	var enc []string
	for _, rep := range r.Repeats {
		if rep.Histogram != "" {
			enc = append(enc, rep.Histogram)
		}
	}
	if len(enc) == 0 && r.Histogram != "" {
		enc = []string{r.Histogram}
	}
	if len(enc) == 0 {
		return map[string]float64{}, nil // no latencies recorded: no percentiles to show
	}
	merged, err := report.MergeHistograms(enc...)
	if err != nil {
		return nil, err
	}
	m := report.Percentiles(merged)
	if *h == nil {
		*h = histCache{}
	}
	(*h)[r] = m
	return m, nil
}

// mergedAcross is fig from the histograms of every run's result merged together (divided by the
// reference's, merged the same way, when normalizing); NaN when there is none.
func (c *comparer) mergedAcross(rs, refs []*report.Result, fig string) (float64, error) {
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

package assertion

import (
	"math"

	"github.com/aclements/go-moremath/stats"

	"github.com/dbbench/dbbench/report"
)

// How an assertion is decided over runs (docs/verdicts.md): each run gives one value (the run's
// median of paired per-repeat ratios, differences or values); over the runs, Student's t interval
// for their mean, on log scale where the values are ratios or positive figures, at a confidence that
// shares the run's error budget among all its intervals (Bonferroni); PASS when the interval lies on
// the passing side of the threshold, FAIL when on the failing side, else undecided.

// DefaultConfidence is the family-wise confidence of a run's verdicts (verdict.confidence).
const DefaultConfidence = 0.95

// Rule is how a run decides its assertions.
type Rule struct {
	// Confidence is the family-wise confidence: the chance that no verdict of the run is wrong
	// (0: DefaultConfidence).
	Confidence float64
	// Tests is how many intervals share the error budget 1 - Confidence: the assertions decided in
	// the run (k) times the most looks it may take (L). Below 1: one.
	Tests int
}

// PerTest is each interval's confidence: 1 - (1 - Confidence) / Tests.
func (r Rule) PerTest() float64 {
	c := r.Confidence
	if c <= 0 || c >= 1 {
		c = DefaultConfidence
	}
	return 1 - (1-c)/float64(max(r.Tests, 1))
}

// TQuantile is the p quantile of Student's t distribution with df degrees of freedom (NaN for df < 1
// or p outside (0, 1)).
func TQuantile(p float64, df int) float64 {
	if df < 1 || !(p > 0 && p < 1) {
		return math.NaN()
	}
	return stats.InvCDF(stats.TDist{V: float64(df)})(p)
}

// estimate is the interval over a set of run values, on the scale it was computed on.
type estimate struct {
	n          int
	point      float64 // the one value, exactly, when n is 1
	log        bool    // computed on the logarithms of the values
	mean, sd   float64 // of the values on that scale
	half       float64 // the interval's half width on that scale
	confidence float64
}

// newEstimate is Student's t interval at confidence conf for the mean of values, on log scale when
// log is set (every value must then be positive). One value gives a point (half width 0, confidence
// 0).
func newEstimate(values []float64, log bool, conf float64) estimate {
	e := estimate{n: len(values), log: log, confidence: conf}
	xs := make([]float64, len(values))
	for i, v := range values {
		xs[i] = v
		if log {
			xs[i] = math.Log(v)
		}
	}
	for _, x := range xs {
		e.mean += x
	}
	e.mean /= float64(e.n)
	if e.n < 2 {
		e.confidence, e.point = 0, values[0]
		return e
	}
	var ss float64
	for _, x := range xs {
		ss += (x - e.mean) * (x - e.mean)
	}
	e.sd = math.Sqrt(ss / float64(e.n-1))
	e.half = halfWidth(e.sd, e.n, conf)
	return e
}

// halfWidth is the half width of a two-sided t interval at confidence conf for the mean of n values
// whose standard deviation is sd.
func halfWidth(sd float64, n int, conf float64) float64 {
	if sd == 0 {
		return 0
	}
	return TQuantile(1-(1-conf)/2, n-1) * sd / math.Sqrt(float64(n))
}

// center is the interval's centre in the assertion's terms: the mean of the values (on log scale,
// their geometric mean); with one value, that value.
func (e estimate) center() float64 {
	if e.n < 2 {
		return e.point
	}
	return e.back(e.mean)
}

// back turns a value on the estimate's scale into the assertion's terms.
func (e estimate) back(x float64) float64 {
	if e.log {
		return math.Exp(x)
	}
	return x
}

// scaled turns a threshold into the estimate's scale; ok is false when it has no place there (a
// threshold at or below 0 on log scale lies below every value).
func (e estimate) scaled(threshold float64) (float64, bool) {
	if !e.log {
		return threshold, true
	}
	if threshold <= 0 {
		return 0, false
	}
	return math.Log(threshold), true
}

// interval is the estimate as the report records it.
func (e estimate) interval() *report.Interval {
	if e.n < 2 {
		return &report.Interval{Lo: e.point, Hi: e.point, Method: "point"}
	}
	method := "t"
	if e.log {
		method = "t-log"
	}
	return &report.Interval{Lo: e.back(e.mean - e.half), Hi: e.back(e.mean + e.half), Confidence: e.confidence, Method: method}
}

// Decide is the verdict of an interval [lo, hi] against a threshold: pass when the whole interval
// satisfies the comparison, fail when no point of it does, else inconclusive. With lo = hi (one run)
// it is the point verdict.
func Decide(op string, threshold, lo, hi float64) report.Verdict {
	// For an upper bound (<=, <) the interval's top decides a pass and its bottom a failure; for a
	// lower bound the other way round.
	passAt, failAt := hi, lo
	if op == ">=" || op == ">" {
		passAt, failAt = lo, hi
	}
	switch {
	case Holds(passAt, op, threshold):
		return report.VerdictPass
	case !Holds(failAt, op, threshold):
		return report.VerdictFail
	}
	return report.VerdictInconclusive
}

// MaxMoreRuns bounds the estimate of the runs that would decide a verdict.
const MaxMoreRuns = 10000

// moreRuns estimates how many more runs would make the interval fall on one side of the threshold,
// if the mean and spread stayed as they are: the smallest n > e.n whose half width at the same
// confidence is less than the distance from the mean to the threshold, minus e.n. It returns 0 when
// the mean sits on the threshold (no number of runs decides unless the mean moves) and MaxMoreRuns
// when even that many would not.
func (e estimate) moreRuns(threshold float64) int {
	t, ok := e.scaled(threshold)
	if !ok || e.n < 2 || e.sd == 0 {
		return 0
	}
	d := math.Abs(t - e.mean)
	if d == 0 {
		return 0
	}
	decides := func(n int) bool { return halfWidth(e.sd, n, e.confidence) < d }
	// The half width falls as n grows: double until it decides, then bisect.
	lo, hi := e.n, e.n+1
	for !decides(hi) {
		if hi >= e.n+MaxMoreRuns {
			return MaxMoreRuns
		}
		lo, hi = hi, min(2*hi, e.n+MaxMoreRuns)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if decides(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi - e.n
}

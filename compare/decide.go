package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/aclements/go-moremath/stats"
)

// DefaultConfidence is the family-wise confidence of a gate's decisions: the chance that no gated
// figure is decided wrongly at any look is at least this (see Decision).
const DefaultConfidence = 0.95

// Decision is how the gate decided one gated figure: on the interval of the change, never on a point.
type Decision struct {
	// Lo and Hi bound the change (new/old - 1) with confidence Confidence; null when there is no
	// interval (a side with fewer than two samples).
	Lo Num `json:"lo"`
	Hi Num `json:"hi"`
	// Confidence is the interval's own confidence: the family-wise confidence split over the gated
	// figures and the looks (Bonferroni).
	Confidence float64 `json:"confidence"`
	// Method names the interval: "welch-t, log scale" over the samples (see the package doc).
	Method string `json:"method"`
	// RunsNeeded estimates how many samples a side would decide an inconclusive figure (0: decided,
	// or no estimate; see runsNeeded); -1 means more than maxRunsNeeded.
	RunsNeeded int `json:"runs_needed,omitempty"`
	// Why says in one line what decided it, or what would.
	Why string `json:"why"`
}

// maxRunsNeeded caps the estimate: beyond it the change sits so close to the threshold that no
// practical number of runs decides it.
const maxRunsNeeded = 1000

// welch is Welch's two-sample comparison of the means of OLD's and NEW's samples: on log scale when
// every value is positive (the difference is then the log of the ratio of geometric means, and the
// interval one of ratios), else of the raw values relative to OLD's mean.
type welch struct {
	logScale   bool
	est        float64 // mean(new) - mean(old) on the scale (relative to |mean(old)| when linear)
	se         float64 // its standard error, on the same scale
	df         float64 // Welch-Satterthwaite degrees of freedom
	sOld, sNew float64 // each side's standard deviation, on the same scale
	nOld, nNew int
}

// newWelch compares the samples; false when a side has fewer than two values (no spread, so no
// interval) or the linear scale has no OLD mean to relate to.
func newWelch(old, new []float64) (welch, bool) {
	w := welch{nOld: len(old), nNew: len(new), logScale: true}
	if w.nOld < 2 || w.nNew < 2 {
		return w, false
	}
	for _, v := range append(append([]float64(nil), old...), new...) {
		if !(v > 0) || math.IsInf(v, 0) {
			w.logScale = false
		}
	}
	scale := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = x
			if w.logScale {
				out[i] = math.Log(x)
			}
		}
		return out
	}
	o, n := scale(old), scale(new)
	mo, vo := meanVar(o)
	mn, vn := meanVar(n)
	if math.IsNaN(mo+mn+vo+vn) || math.IsInf(mo+mn+vo+vn, 0) {
		return w, false
	}
	div := 1.0
	if !w.logScale {
		if mo == 0 {
			return w, false
		}
		div = math.Abs(mo)
	}
	w.est = (mn - mo) / div
	qo, qn := vo/float64(w.nOld)/(div*div), vn/float64(w.nNew)/(div*div)
	w.se = math.Sqrt(qo + qn)
	w.sOld, w.sNew = math.Sqrt(vo)/div, math.Sqrt(vn)/div
	if w.se > 0 {
		w.df = (qo + qn) * (qo + qn) / (qo*qo/float64(w.nOld-1) + qn*qn/float64(w.nNew-1))
	}
	return w, true
}

// meanVar is the mean and the sample variance (n-1) of xs (at least two values).
func meanVar(xs []float64) (float64, float64) {
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, v / float64(len(xs)-1)
}

// bounds is the interval of the estimate on its scale at confidence conf (two-sided).
func (w welch) bounds(conf float64) (float64, float64) {
	if w.se == 0 {
		return w.est, w.est // every sample the same on each side: no spread, the point is exact
	}
	h := tQuantile(1-(1-conf)/2, w.df) * w.se
	return w.est - h, w.est + h
}

// change turns a value on the scale into a relative change (new/old - 1).
func (w welch) change(x float64) float64 {
	if w.logScale {
		return math.Expm1(x)
	}
	return x
}

// boundary is the threshold t on the scale: the change beyond which a figure is worse by more than t
// (a time or latency rising by t; a throughput falling by t). For a throughput a threshold of 100% or
// more cannot be crossed: -Inf.
func (w welch) boundary(t float64, higherBetter bool) float64 {
	b := t
	if higherBetter {
		b = -t
	}
	if !w.logScale {
		return b
	}
	if 1+b <= 0 {
		return math.Inf(-1)
	}
	return math.Log1p(b)
}

// tQuantile is the p quantile of Student's t distribution with df degrees of freedom (p in (0.5, 1)),
// by bisection on its CDF: go-moremath has the CDF but not its inverse.
func tQuantile(p, df float64) float64 {
	if df <= 0 || math.IsNaN(df) {
		return math.Inf(1)
	}
	d := stats.TDist{V: df}
	lo, hi := 0.0, 1.0
	for d.CDF(hi) < p {
		lo, hi = hi, hi*2
		if hi > 1e9 {
			return math.Inf(1)
		}
	}
	for i := 0; i < 100 && hi-lo > 1e-12*hi; i++ {
		mid := (lo + hi) / 2
		if d.CDF(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// runsNeeded estimates the samples a side that would decide the figure: the smallest m (more than
// each side has now) for which the interval's half-width, with both sides' spread as measured (their
// pooled standard deviation) and m samples a side at the same confidence, is shorter than the
// estimate's distance from the threshold, supposing the estimate stays where it is. 0 when there is
// nothing to estimate from (no spread, or an estimate exactly on the threshold is undecidable: -1),
// -1 when more than maxRunsNeeded would be needed.
func (w welch) runsNeeded(boundary, conf float64) int {
	dist := math.Abs(w.est - boundary)
	sp := math.Sqrt((w.sOld*w.sOld + w.sNew*w.sNew) / 2)
	if sp == 0 || math.IsNaN(dist) {
		return 0
	}
	if dist == 0 {
		return -1
	}
	for m := max(w.nOld, w.nNew) + 1; m <= maxRunsNeeded; m++ {
		if tQuantile(1-(1-conf)/2, float64(2*m-2))*sp*math.Sqrt(2/float64(m)) < dist {
			return m
		}
	}
	return -1
}

// decide applies the gate's rule to one figure with threshold t: FAIL when the change's whole interval
// lies beyond the threshold on the worse side, PASS when it lies wholly within it (at most t worse),
// else INCONCLUSIVE with an estimate of the samples a side that would decide. word names the samples
// ("runs", "repeats"); extra is added to the estimate (the slowest runs a side leaves out).
func decide(old, new []float64, t float64, higherBetter bool, conf float64, word string, extra int) (GateStatus, Decision) {
	d := Decision{Lo: Num(math.NaN()), Hi: Num(math.NaN()), Confidence: conf, Method: "welch-t, log scale"}
	w, ok := newWelch(old, new)
	if !ok {
		if len(old) >= 2 && len(new) >= 2 {
			d.Why = "no interval: the values are not all positive and OLD's mean is 0"
		} else {
			d.Why = fmt.Sprintf("%d and %d %s: an interval needs at least 2 a side (give 5 or more)", len(old), len(new), word)
		}
		return GateInconclusive, d
	}
	if !w.logScale {
		d.Method = "welch-t, relative to OLD's mean"
	}
	lo, hi := w.bounds(conf)
	d.Lo, d.Hi = Num(w.change(lo)), Num(w.change(hi))
	b := w.boundary(t, higherBetter)
	iv := fmt.Sprintf("interval [%s, %s]", FormatChange(w.change(lo)), FormatChange(w.change(hi)))
	th := FormatPercent(t)
	// worse lies above the boundary for times, below it for throughputs
	beyond, within := lo > b, hi <= b
	if higherBetter {
		beyond, within = hi < b, lo >= b
	}
	switch {
	case beyond:
		d.Why = iv + " lies beyond the " + th + " threshold, on the worse side"
		return GateFail, d
	case within:
		d.Why = iv + " lies within the " + th + " threshold"
		return GatePass, d
	}
	d.RunsNeeded = w.runsNeeded(b, conf)
	switch n := d.RunsNeeded; {
	case n > 0:
		d.RunsNeeded += extra
		d.Why = fmt.Sprintf("%s straddles the %s threshold%s: about %s a side (from the spread between them and the change's distance from the threshold, if both stay as measured)",
			iv, th, runsPhrase, plural(d.RunsNeeded, singular(word)))
	case n < 0:
		d.Why = fmt.Sprintf("%s straddles the %s threshold%s: none (the change sits so close to it that more than %d %s a side would be needed)",
			iv, th, runsPhrase, maxRunsNeeded, word)
	default:
		d.Why = iv + " straddles the " + th + " threshold"
	}
	return GateInconclusive, d
}

// runsPhrase introduces what would decide an undecided figure, or the gate: one number of runs a
// side, or "none". Outcome cuts a reason there, as the gate line says it for all.
const runsPhrase = "; to decide"

// singular is "run" for "runs", "repeat" for "repeats".
func singular(word string) string { return strings.TrimSuffix(word, "s") }

package compare

import (
	"errors"
	"math"
	"sort"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"
)

// assumption is benchstat's default: no distributional assumption, the median as the center and the
// Mann-Whitney U test for a difference. Benchmark timings are rarely normal, and the repeats here are
// few, so nothing stronger is justified.
var assumption = benchmath.AssumeNothing

// sampleStats is the statistical comparison of one figure between OLD and NEW.
type sampleStats struct {
	old, new benchmath.Summary
	cmp      benchmath.Comparison
	// change is new/old - 1 of the medians; lo and hi bound it (NaN when the samples are too small).
	change, lo, hi float64
	// ciConfidence is the actual confidence of [lo, hi] (at least 1 - alpha).
	ciConfidence float64
	// allEqual: every value of both samples is the same (the U test is undefined, nothing changed).
	allEqual bool
}

// compareSamples summarizes both samples and tests them against each other.
func compareSamples(oldVals, newVals []float64, alpha float64) sampleStats {
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	// NewSample sorts its argument: hand it copies so the per-repeat order stays intact for the report.
	so := benchmath.NewSample(append([]float64(nil), oldVals...), th)
	sn := benchmath.NewSample(append([]float64(nil), newVals...), th)
	s := sampleStats{
		old: assumption.Summary(so, 1-alpha),
		new: assumption.Summary(sn, 1-alpha),
		cmp: assumption.Compare(so, sn),
	}
	for _, w := range s.cmp.Warnings {
		if errors.Is(w, stats.ErrSamplesEqual) {
			s.allEqual = true
		}
	}
	s.change = ratioChange(s.old.Center, s.new.Center)
	s.lo, s.hi, s.ciConfidence = changeCI(so.Values, sn.Values, s.old.Center, alpha)
	return s
}

// ratioChange is new/old - 1, NaN when old is 0 (unless both are).
func ratioChange(old, new float64) float64 {
	if old == new {
		return 0
	}
	if old == 0 {
		return math.NaN()
	}
	return new/old - 1
}

// changeCI is the distribution-free confidence interval of the relative change that goes with the
// Mann-Whitney U test (Moses' interval around the Hodges-Lehmann shift): sort the n1*n2 pairwise
// differences new_j - old_i and cut k from each end, where k is the largest count with
// P(U < k) <= alpha/2 under the U distribution. For positive figures the differences are taken
// between logarithms, so the interval is one of ratios and is returned as ratio - 1; otherwise the
// differences are divided by |oldCenter|. Too few samples for any k give NaN bounds, just as the test
// cannot reject at alpha with them. old and new must be sorted.
func changeCI(old, new []float64, oldCenter, alpha float64) (lo, hi, confidence float64) {
	n1, n2 := len(old), len(new)
	if n1 == 0 || n2 == 0 {
		return math.NaN(), math.NaN(), 0
	}
	k, conf := uTail(n1, n2, alpha)
	if k < 0 {
		return math.NaN(), math.NaN(), 0
	}
	positive := old[0] > 0 && new[0] > 0
	diffs := make([]float64, 0, n1*n2)
	for _, o := range old {
		for _, n := range new {
			if positive {
				diffs = append(diffs, math.Log(n)-math.Log(o))
			} else {
				diffs = append(diffs, n-o)
			}
		}
	}
	sort.Float64s(diffs)
	lo, hi = diffs[k], diffs[len(diffs)-1-k]
	if positive {
		return math.Expm1(lo), math.Expm1(hi), conf
	}
	if oldCenter == 0 {
		return math.NaN(), math.NaN(), 0
	}
	return lo / math.Abs(oldCenter), hi / math.Abs(oldCenter), conf
}

// exactULimit bounds the sample sizes for which the exact U distribution is used (its cost grows
// with n1*n2*k); above it the normal approximation is as good as the data.
const exactULimit = 50

// uTail returns the 0-based index c of the interval's lower bound among the n1*n2 sorted pairwise
// differences (the upper bound is at n1*n2-1-c) and the interval's confidence: [D(c), D(n1*n2-1-c)]
// covers the true shift with probability 1 - 2 P(U <= c), so c is the largest count with
// P(U <= c) <= alpha/2. It returns c = -1 when even the extreme differences do not reach confidence
// 1 - alpha.
func uTail(n1, n2 int, alpha float64) (int, float64) {
	if n1 > exactULimit && n2 > exactULimit {
		mean := float64(n1*n2) / 2
		sd := math.Sqrt(float64(n1*n2*(n1+n2+1)) / 12)
		z := stats.NormalDist{Mu: 0, Sigma: 1}.InvCDF(1 - alpha/2)
		c := int(math.Floor(mean - z*sd))
		if c < 0 {
			return -1, 0
		}
		return c, 1 - alpha
	}
	d := stats.UDist{N1: n1, N2: n2}
	c, conf := -1, 0.0
	for u := 0; u < n1*n2/2; u++ {
		tail := d.CDF(float64(u)) // P(U <= u)
		if tail > alpha/2 {
			break
		}
		c, conf = u, 1-2*tail
	}
	return c, conf
}

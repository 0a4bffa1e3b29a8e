package stattest

import (
	"math/rand/v2"
	"testing"
)

// TestChiSquare: a fair die's throws pass against a fair die and fail against a loaded one; a count
// in a bin of probability zero fails.
func TestChiSquare(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	counts := make([]int64, 20)
	for range 200000 {
		counts[r.IntN(20)]++
	}
	fair := make([]float64, 20)
	for i := range fair {
		fair[i] = 1.0 / 20
	}
	if stat, df, crit := ChiSquare(counts, fair); stat >= crit || df != 19 {
		t.Errorf("fair against fair: chi2 %.1f, df %d, critical %.1f", stat, df, crit)
	}
	loaded := append([]float64(nil), fair...)
	loaded[0], loaded[1] = 0.06, 0.04
	if stat, _, crit := ChiSquare(counts, loaded); stat < crit {
		t.Errorf("fair against loaded passes: chi2 %.1f, critical %.1f", stat, crit)
	}
	// df 19's 0.999 quantile is 43.82.
	if _, _, crit := ChiSquare(counts, fair); crit < 43.3 || crit > 44.3 {
		t.Errorf("critical value %.2f for 19 degrees of freedom, the exact one is 43.82", crit)
	}
	zero := append([]float64(nil), fair...)
	zero[19], zero[18] = 0, 0.1
	if stat, _, crit := ChiSquare(counts, zero); stat < crit {
		t.Errorf("draws in a bin of probability zero pass: chi2 %.1f, critical %.1f", stat, crit)
	}
}

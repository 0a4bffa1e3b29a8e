// Package stattest is a test kit for generators of random values: Pearson's chi-square test of
// counts against the exact probabilities a generator's definition gives, at a fixed significance.
// A test that uses it should also run a deliberately wrong generator through the same check and
// require it to fail, so that a check accepting anything cannot pass.
package stattest

import "math"

// ChiSquare tests counts observed in bins against the bins' probabilities p (which sum to 1):
// Pearson's statistic, with the bins expected under 5 times pooled into one so that the
// approximation holds, its degrees of freedom, and the statistic's critical value at significance
// 0.001 (Wilson-Hilferty's approximation of the chi-square quantile, within 1% for df >= 10).
func ChiSquare(observed []int64, p []float64) (stat float64, df int, critical float64) {
	var n int64
	for _, o := range observed {
		n += o
	}
	var poolO, poolE float64
	bins := 0
	for i, o := range observed {
		e := p[i] * float64(n)
		if e < 5 {
			poolO += float64(o)
			poolE += e
			continue
		}
		stat += (float64(o) - e) * (float64(o) - e) / e
		bins++
	}
	if poolE > 0 || poolO > 0 {
		e := math.Max(poolE, 1e-9) // counts in bins of probability 0 make the statistic explode, as they should
		stat += (poolO - poolE) * (poolO - poolE) / e
		bins++
	}
	df = max(bins-1, 1)
	const z = 3.090232 // the standard normal's 0.999 quantile
	k := float64(df)
	critical = k * math.Pow(1-2/(9*k)+z*math.Sqrt(2/(9*k)), 3)
	return stat, df, critical
}

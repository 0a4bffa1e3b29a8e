package pgbench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dbbench/dbbench/internal/stattest"
)

// The random functions against their definitions in pgbench's documentation: 10^6 draws from a fixed
// seed over 100 values, chi-square at significance 0.001. Each check also runs a deliberately wrong
// generator (a plausible bug) through the same test and requires it to fail.

const draws = 1_000_000

type drawFunc func(r *rand.Rand, lb, ub int64, p float64) int64

// checkDist draws from f over [lb, ub] and tests the counts against the probabilities want(i).
func checkDist(t *testing.T, name string, f drawFunc, lb, ub int64, p float64, want func(i int64) float64) (ok bool) {
	t.Helper()
	n := ub - lb + 1
	counts := make([]int64, n)
	probs := make([]float64, n)
	var sum float64
	for i := range n {
		probs[i] = want(lb + i)
		sum += probs[i]
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Fatalf("%s: the definition's probabilities sum to %v", name, sum)
	}
	r := rand.New(rand.NewPCG(42, 7))
	for range draws {
		v := f(r, lb, ub, p)
		if v < lb || v > ub {
			t.Logf("%s: %d out of [%d, %d]", name, v, lb, ub)
			return false
		}
		counts[v-lb]++
	}
	stat, df, crit := stattest.ChiSquare(counts, probs)
	t.Logf("%s: chi2 %.1f, df %d, critical %.1f", name, stat, df, crit)
	return stat < crit
}

func run2(t *testing.T, name string, good, bad drawFunc, lb, ub int64, p float64, want func(int64) float64) {
	t.Helper()
	if !checkDist(t, name, good, lb, ub, p, want) {
		t.Errorf("%s does not follow its definition", name)
	}
	if checkDist(t, name+" (wrong)", bad, lb, ub, p, want) {
		t.Errorf("%s: a wrong generator passes the same check", name)
	}
}

func TestRandomUniform(t *testing.T) {
	good := func(r *rand.Rand, lb, ub int64, _ float64) int64 { return uniformRand(r, lb, ub) }
	bad := func(r *rand.Rand, lb, ub int64, _ float64) int64 { return min(lb+r.Int64N(ub-lb+2), ub) } // one value too many, folded onto ub
	run2(t, "random(-50, 49)", good, bad, -50, 49, 0, func(int64) float64 { return 1.0 / 100 })
	// The extremes of the range pgbench accepts.
	r := rand.New(rand.NewPCG(1, 1))
	for range 1000 {
		if v := uniformRand(r, math.MinInt64, math.MaxInt64-1); v == math.MaxInt64 {
			t.Fatal("random(min, max-1) drew max")
		}
	}
}

// exponentialP is the documentation's P(i) = f(i) - f(i+1), f(x) = exp(-p (x - lb) / n) / (1 - exp(-p)).
func exponentialP(lb, ub int64, p float64) func(int64) float64 {
	n := float64(ub - lb + 1)
	f := func(x float64) float64 { return math.Exp(-p*(x-float64(lb))/n) / (1 - math.Exp(-p)) }
	return func(i int64) float64 { return f(float64(i)) - f(float64(i+1)) }
}

func TestRandomExponential(t *testing.T) {
	bad := func(r *rand.Rand, lb, ub int64, p float64) int64 { // scaled to ub - lb: ub is never drawn
		cut := math.Exp(-p)
		return lb + int64(float64(ub-lb)*-math.Log(cut+(1-cut)*unitOpen(r))/p)
	}
	for _, p := range []float64{0.5, 5, 40} {
		run2(t, fmt.Sprintf("random_exponential(1, 100, %g)", p), exponentialRand, bad, 1, 100, p, exponentialP(1, 100, p))
	}
}

// gaussianP is the documentation's P(i) = f(i + 0.5) - f(i - 0.5),
// f(x) = PHI(2 p (x - mu) / n) / (2 PHI(p) - 1), mu = (lb + ub) / 2.
func gaussianP(lb, ub int64, p float64) func(int64) float64 {
	n := float64(ub - lb + 1)
	mu := float64(lb+ub) / 2
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	f := func(x float64) float64 { return phi(2*p*(x-mu)/n) / (2*phi(p) - 1) }
	return func(i int64) float64 { return f(float64(i)+0.5) - f(float64(i)-0.5) }
}

func TestRandomGaussian(t *testing.T) {
	bad := func(r *rand.Rand, lb, ub int64, p float64) int64 { // rounds onto n - 1 steps instead of flooring onto n
		z := normal(r)
		for z < -p || z >= p {
			z = normal(r)
		}
		return lb + int64(math.Round(float64(ub-lb)*(z+p)/(2*p)))
	}
	for _, p := range []float64{2, 2.5, 10} {
		run2(t, fmt.Sprintf("random_gaussian(1, 100, %g)", p), gaussianRand, bad, 1, 100, p, gaussianP(1, 100, p))
	}
}

// zipfianP is P(i) proportional to 1/(i - lb + 1)^s over [lb, ub]: the documentation's "the ratio of
// the probability of drawing k versus drawing k+1 is ((k+1)/k)**parameter".
func zipfianP(lb, ub int64, s float64) func(int64) float64 {
	var h float64
	for k := int64(1); k <= ub-lb+1; k++ {
		h += math.Pow(float64(k), -s)
	}
	return func(i int64) float64 { return math.Pow(float64(i-lb+1), -s) / h }
}

func TestRandomZipfian(t *testing.T) {
	bad := func(r *rand.Rand, lb, ub int64, s float64) int64 { // takes every candidate in range, without the rejection test
		for {
			if x := math.Floor(math.Pow(r.Float64(), -1/(s-1))); x <= float64(ub-lb+1) {
				return lb - 1 + int64(x)
			}
		}
	}
	for _, s := range []float64{1.1, 1.5, 3} {
		run2(t, fmt.Sprintf("random_zipfian(11, 110, %g)", s), zipfianRand, bad, 11, 110, s, zipfianP(11, 110, s))
	}
	// The limits: one value, and the largest parameter.
	r := rand.New(rand.NewPCG(3, 3))
	if v := zipfianRand(r, 5, 5, 1.5); v != 5 {
		t.Errorf("random_zipfian(5, 5, 1.5) = %d", v)
	}
	if v := zipfianRand(r, 1, 1000, MaxZipfianParam); v != 1 {
		t.Errorf("random_zipfian(1, 1000, 1000) = %d, want 1 (P(2) is 2^-1000)", v)
	}
}

// TestRandomThroughScripts: the functions reach a script's \set with their arguments in order
// (bounds, then parameter), and every draw is in range.
func TestRandomThroughScripts(t *testing.T) {
	s, err := Parse("r.sql", []byte(`\set u random(:lo, :hi)
\set e random_exponential(:lo, :hi, 3.0)
\set g random_gaussian(:lo, :hi, 2.5)
\set z random_zipfian(:lo, :hi, 1.07)
\set p 1 + permute(:z - 1, :hi)
SELECT :u, :e, :g, :z, :p;
`), []string{"lo", "hi"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGenerator(s, Config{Vars: map[string]Value{"lo": Int(1), "hi": Int(1000)}, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]map[int64]bool{}
	for k := range uint64(2000) {
		op, err := g.Draw(k)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range op.Steps[0].Args {
			v := a.(int64)
			if v < 1 || v > 1000 {
				t.Fatalf("operation %d, argument %d: %d out of [1, 1000]", k, i, v)
			}
			if seen[i] == nil {
				seen[i] = map[int64]bool{}
			}
			seen[i][v] = true
		}
	}
	if len(seen[0]) < 800 || len(seen[3]) > len(seen[0]) || len(seen[4]) != len(seen[3]) {
		t.Errorf("distinct values: uniform %d, zipfian %d, permuted zipfian %d", len(seen[0]), len(seen[3]), len(seen[4]))
	}
}

// TestPermute: permute is a bijection of [0, size) for every seed (pgbench's promise: no collisions,
// no holes), reads values outside modulo size, and is pgbench's own (testdata/expressions.txt holds
// values the real pgbench computed).
func TestPermute(t *testing.T) {
	for _, size := range []int64{2, 3, 4, 5, 7, 8, 100, 1000, 1 << 12, 4097} {
		for _, seed := range []int64{0, 1, -1, 5432, math.MinInt64} {
			seen := make([]bool, size)
			for i := range size {
				v := permute(i, size, seed)
				if v < 0 || v >= size || seen[v] {
					t.Fatalf("permute(%d, %d, %d) = %d: out of range or taken twice", i, size, seed, v)
				}
				seen[v] = true
				if w := permute(i+3*size, size, seed); w != v {
					t.Fatalf("permute(%d + 3 size) = %d, permute(%d) = %d", i, w, i, v)
				}
			}
		}
	}
	if permute(5, 1, 9) != 0 || permute(5, 0, 9) != 0 {
		t.Error("permute over fewer than two values is not 0")
	}
}

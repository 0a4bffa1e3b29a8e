package ycsb

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The statistical tests draw 10^6 values from a fixed seed and compare them with the distribution's
// definition at a significance of 0.001; each one also feeds a deliberately wrong generator through
// the same check and requires it to fail, so a check that accepts anything cannot pass.

const draws = 1_000_000

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 7)) }

// chiSquare returns Pearson's statistic of observed counts against expected probabilities and its
// critical value at 0.001 (Wilson-Hilferty, within 1% of the exact quantile for df >= 10). Bins
// expected under 5 are pooled so that the approximation holds.
func chiSquare(observed []int64, p []float64, n int64) (stat, crit float64) {
	var df int
	var pooledO, pooledE float64
	for i := range observed {
		e := p[i] * float64(n)
		if e < 5 {
			pooledO += float64(observed[i])
			pooledE += e
			continue
		}
		d := float64(observed[i]) - e
		stat += d * d / e
		df++
	}
	if pooledE > 0 {
		d := pooledO - pooledE
		stat += d * d / math.Max(pooledE, 1e-9)
		df++
	}
	df--
	const z = 3.0902 // the normal's 0.999 quantile
	k := float64(df)
	crit = k * math.Pow(1-2/(9*k)+z*math.Sqrt(2/(9*k)), 3)
	return stat, crit
}

// ksDistance is the largest distance between the empirical CDF of counts and the CDF of p.
func ksDistance(observed []int64, p []float64, n int64) float64 {
	var co, cp, d float64
	for i := range observed {
		co += float64(observed[i]) / float64(n)
		cp += p[i]
		d = math.Max(d, math.Abs(co-cp))
	}
	return d
}

// ksCritical is the Kolmogorov-Smirnov critical distance at 0.001 for n samples.
func ksCritical(n int64) float64 { return math.Sqrt(-math.Log(0.001/2)/2) / math.Sqrt(float64(n)) }

func exactZipf(n int, theta float64) []float64 {
	p := make([]float64, n)
	var z float64
	for i := range p {
		p[i] = math.Pow(float64(i+1), -theta)
		z += p[i]
	}
	for i := range p {
		p[i] /= z
	}
	return p
}

func TestZeta(t *testing.T) {
	// YCSB's ZipfianGenerator.ZETAN, computed there by summing 10^10 terms.
	if got, want := Zeta(ScrambledItems, 0.99), 26.46902820178302; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("Zeta(1e10, 0.99) = %.14f, want YCSB's %.14f", got, want)
	}
	for _, n := range []int64{1, 2, 1000, exactTerms + 12345} {
		if got, want := Zeta(n, 0.99), zetaRange(0, n, 0.99); math.Abs(got/want-1) > 1e-12 {
			t.Errorf("Zeta(%d) = %.15f, summed %.15f", n, got, want)
		}
	}
}

// TestZipfian: ranks against the method's exact distribution (chi-square), ranks 0 and 1 exactly
// Zipf(0.99)'s, and the whole CDF within the method's known distance of Zipf(0.99) (KS distance; the
// method approximates the tail: 0.0161 at 1,000 items). theta 0.5 fails both.
func TestZipfian(t *testing.T) {
	const n = 1000
	z, err := NewZipfian(n, ZipfianConstant)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, n)
	for k := range want {
		want[k] = z.Probability(int64(k))
	}
	zipf := exactZipf(n, 0.99)
	for k := range 2 {
		if math.Abs(want[k]/zipf[k]-1) > 1e-12 {
			t.Errorf("P(%d) = %g, Zipf(0.99) has %g", k, want[k], zipf[k])
		}
	}
	// The bound: the method's own distance from Zipf(0.99) (0.0161) plus the KS critical distance.
	exact := ksDistance(cdfCounts(want), zipf, 1<<40)
	approx := exact + ksCritical(draws)
	check := func(theta float64) (ok bool, msg string) {
		g, _ := NewZipfian(n, theta)
		r := newRand(1)
		counts := make([]int64, n)
		for range draws {
			counts[g.Next(r)]++
		}
		stat, crit := chiSquare(counts, want, draws)
		d := ksDistance(counts, zipf, draws)
		return stat < crit && d < approx, fmtf("theta %g: chi2 %.0f (critical %.0f), KS distance from Zipf(0.99) %.4f (bound %.4f)", theta, stat, crit, d, approx)
	}
	if ok, msg := check(ZipfianConstant); !ok {
		t.Error(msg)
	} else {
		t.Log(msg)
	}
	if ok, msg := check(0.5); ok {
		t.Errorf("a wrong generator passes: %s", msg)
	}
	if exact > 0.0162 {
		t.Errorf("the method's exact distance from Zipf(0.99) is %.4f, documented 0.0161", exact)
	}
}

// cdfCounts turns probabilities into counts over 2^40 draws (for ksDistance of two distributions).
func cdfCounts(p []float64) []int64 {
	c := make([]int64, len(p))
	for i := range p {
		c[i] = int64(math.Round(p[i] * (1 << 40)))
	}
	return c
}

// TestScrambledZipfian: the key frequencies are those of the zipfian over 10^10 items, moved onto
// the key space by the FNV hash: key k's probability is the sum of the ranks hashing to it (the first
// 10^6 ranks exactly, the rest, 45% of the mass spread by the hash, as an even share). A zipfian that
// is not scrambled, or scrambled by another hash, fails the same test.
func TestScrambledZipfian(t *testing.T) {
	const n = 1000
	s, err := NewScrambledZipfian(n)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, n)
	var head float64
	for i := range int64(1_000_000) {
		p := s.z.Probability(i)
		want[Scramble(i, n)] += p
		head += p
	}
	for k := range want {
		want[k] += (1 - head) / n
	}
	check := func(name string, draw func(r *rand.Rand) int64) (bool, string) {
		r := newRand(2)
		counts := make([]int64, n)
		for range draws {
			counts[draw(r)]++
		}
		stat, crit := chiSquare(counts, want, draws)
		return stat < crit, fmtf("%s: chi2 %.0f (critical %.0f)", name, stat, crit)
	}
	if ok, msg := check("scrambled", func(r *rand.Rand) int64 { return s.Next(r, n) }); !ok {
		t.Error(msg)
	}
	wrong := map[string]func(r *rand.Rand) int64{
		"not scrambled": func(r *rand.Rand) int64 { return s.z.Next(r) % n },
		"another hash":  func(r *rand.Rand) int64 { return Scramble(s.z.Next(r)+1, n) },
		"uniform":       func(r *rand.Rand) int64 { return r.Int64N(n) },
	}
	for name, draw := range wrong {
		if ok, msg := check(name, draw); ok {
			t.Errorf("a wrong generator passes: %s", msg)
		}
	}
	// Keys not inserted yet are drawn again: with 600 of 1000 records present, none beyond.
	r := newRand(3)
	for range 10000 {
		if k := s.Next(r, 600); k >= 600 {
			t.Fatalf("drew record %d of 600", k)
		}
	}
}

// TestLatest: the newest record is the most popular, record records-1-k with the zipfian's P(k), over
// the records there are after inserts (zeta extended incrementally, equal to a fresh one). Oldest-first
// fails.
func TestLatest(t *testing.T) {
	l, err := NewLatest(1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, records := range []int64{1000, 1500} {
		ref, _ := NewZipfian(records, ZipfianConstant)
		want := make([]float64, records)
		for k := range want {
			want[k] = ref.Probability(int64(k))
		}
		check := func(draw func(r *rand.Rand) int64) (bool, string) {
			r := newRand(4)
			counts := make([]int64, records)
			for range draws {
				counts[records-1-draw(r)]++
			}
			stat, crit := chiSquare(counts, want, draws)
			return stat < crit, fmtf("%d records: chi2 %.0f (critical %.0f)", records, stat, crit)
		}
		if ok, msg := check(func(r *rand.Rand) int64 { return l.Next(r, records) }); !ok {
			t.Error(msg)
		}
		if math.Abs(l.z.zetan/ref.zetan-1) > 1e-12 {
			t.Errorf("%d records: incremental zeta %.15f, fresh %.15f", records, l.z.zetan, ref.zetan)
		}
		if ok, msg := check(func(r *rand.Rand) int64 { return records - 1 - l.Next(r, records) }); ok {
			t.Errorf("oldest-first passes: %s", msg)
		}
	}
}

// TestHotspot: 80% of the operations on the first 20% of the records (within 0.5%), uniform within
// each set. Hot and cold sets swapped, or 70% of the operations, fail.
func TestHotspot(t *testing.T) {
	const n = 1000
	check := func(h *Hotspot) (bool, string) {
		r := newRand(5)
		counts := make([]int64, n)
		for range draws {
			counts[h.Next(r, n)]++
		}
		var hot int64
		want := make([]float64, n)
		for k := range want {
			if k < 200 {
				hot += counts[k]
				want[k] = 0.8 / 200
			} else {
				want[k] = 0.2 / 800
			}
		}
		share := float64(hot) / draws
		stat, crit := chiSquare(counts, want, draws)
		return math.Abs(share-0.8) < 0.005 && stat < crit, fmtf("hot share %.4f, chi2 %.0f (critical %.0f)", share, stat, crit)
	}
	h, err := NewHotspot(n, DefaultHotspotDataFraction, DefaultHotspotOpnFraction)
	if err != nil {
		t.Fatal(err)
	}
	if ok, msg := check(h); !ok {
		t.Error(msg)
	}
	for _, wrong := range [][2]float64{{0.8, 0.2}, {0.2, 0.7}, {0.25, 0.8}} {
		h, _ := NewHotspot(n, wrong[0], wrong[1])
		if ok, msg := check(h); ok {
			t.Errorf("hotspot %v passes: %s", wrong, msg)
		}
	}
	if _, err := NewHotspot(n, 1.5, 0.8); err == nil {
		t.Error("a data fraction of 1.5 was accepted")
	}
}

// TestMixes: each core workload's operation types within 0.5% of its proportions over 10^6 draws; a
// mix off by 1% fails.
func TestMixes(t *testing.T) {
	share := func(m Mix, seed uint64) [numOps]float64 {
		c, err := NewOpChooser(m)
		if err != nil {
			t.Fatal(err)
		}
		r := newRand(seed)
		var counts [numOps]float64
		for range draws {
			counts[c.Next(r)]++
		}
		for i := range counts {
			counts[i] /= draws
		}
		return counts
	}
	within := func(got [numOps]float64, want Mix) bool {
		for i := range got {
			if math.Abs(got[i]-want[i]) > 0.005 {
				return false
			}
		}
		return true
	}
	for i, w := range Core {
		if got := share(w.Mix, uint64(10+i)); !within(got, w.Mix) {
			t.Errorf("%s: drew %v, want %v", w.Name, got, w.Mix)
		}
	}
	if got := share(Mix{Read: 0.49, Update: 0.51}, 20); within(got, Mix{Read: 0.5, Update: 0.5}) {
		t.Errorf("a mix 1%% off passes: %v", got)
	}
	for _, bad := range []Mix{{}, {Read: -1, Update: 2}, {Read: math.NaN()}} {
		if _, err := NewOpChooser(bad); err == nil {
			t.Errorf("mix %v accepted", bad)
		}
	}
}

// TestGeneratorLaw: through the generator, whose operations each draw from a stream of their own,
// a uniform workload's types keep their proportions and its records and scan lengths stay uniform
// (10^6 operations); the same counts fail against a 1%-off mix and a skewed key law.
func TestGeneratorLaw(t *testing.T) {
	const n = 1000
	w := Workload{Name: "law", Mix: Mix{Read: 0.45, Update: 0.25, Scan: 0.3}, RequestDistribution: DistUniform, MaxScanLength: 100}
	g, err := NewGenerator(w, n, draws, 3)
	if err != nil {
		t.Fatal(err)
	}
	var types [numOps]int64
	keys := make([]int64, n)
	scans := make([]int64, 100)
	var scanned int64
	for range draws {
		op := g.Next()
		types[op.Type]++
		keys[op.Record]++
		if op.Type == Scan {
			scans[op.ScanLen-1]++
			scanned++
		}
	}
	mixP := func(m Mix) []float64 {
		p := make([]float64, numOps)
		for i := range m {
			p[i] = m[i]
		}
		return p
	}
	uniform := func(k int) []float64 {
		p := make([]float64, k)
		for i := range p {
			p[i] = 1 / float64(k)
		}
		return p
	}
	checks := []struct {
		name     string
		counts   []int64
		p        []float64
		n        int64
		wantPass bool
	}{
		{"types", types[:], mixP(w.Mix), draws, true},
		{"records", keys, uniform(n), draws, true},
		{"scan lengths", scans, uniform(100), scanned, true},
		{"types against a mix 1% off", types[:], mixP(Mix{Read: 0.44, Update: 0.26, Scan: 0.3}), draws, false},
		{"records against a skewed law", keys, func() []float64 {
			p := uniform(n)
			for i := range p {
				p[i] *= 0.9 + 0.2*float64(i)/n
			}
			return p
		}(), draws, false},
	}
	for _, c := range checks {
		stat, crit := chiSquare(c.counts, c.p, c.n)
		if (stat < crit) != c.wantPass {
			t.Errorf("%s: chi2 %.0f (critical %.0f), want pass %v", c.name, stat, crit, c.wantPass)
		}
	}
}

// TestScanLength: uniform over 1..100; 0..99 fails.
func TestScanLength(t *testing.T) {
	want := make([]float64, 101)
	for k := 1; k <= 100; k++ {
		want[k] = 0.01
	}
	check := func(draw func(r *rand.Rand) int64) (bool, string) {
		r := newRand(6)
		counts := make([]int64, 101)
		for range draws {
			v := draw(r)
			if v < 0 || v > 100 {
				return false, fmtf("drew %d", v)
			}
			counts[v]++
		}
		stat, crit := chiSquare(counts[1:], want[1:], draws)
		return counts[0] == 0 && stat < crit, fmtf("chi2 %.0f (critical %.0f), %d zeros", stat, crit, counts[0])
	}
	s := ScanLength{Max: 100}
	if ok, msg := check(s.Next); !ok {
		t.Error(msg)
	}
	if ok, msg := check(func(r *rand.Rand) int64 { return r.Int64N(100) }); ok {
		t.Errorf("0..99 passes: %s", msg)
	}
}

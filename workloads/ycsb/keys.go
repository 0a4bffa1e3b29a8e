// Package ycsb holds YCSB's core workloads as data (A-F: proportions, request distributions and
// defaults of CoreWorkload's properties) and the generators they draw from: the key choosers
// (uniform, zipfian, scrambled zipfian, latest, hotspot, sequential), the operation chooser of a mix
// and the scan length. The records themselves (keys, fields, checksums) are dataset.YCSB.
//
// Every generator is deterministic from the *rand.Rand it is handed and its own state, and is safe
// for one goroutine each: an open-loop run draws every operation on its dispatcher goroutine, so one
// sequence of operations follows from one seed whatever the workers do.
package ycsb

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/dbbench/dbbench/dataset"
)

// ZipfianConstant is YCSB's zipfian theta (ZipfianGenerator.ZIPFIAN_CONSTANT).
const ZipfianConstant = 0.99

// ScrambledItems is the item count YCSB's ScrambledZipfianGenerator draws from before hashing the
// item onto the key space (ITEM_COUNT, 10^10): popularity then does not depend on the key count.
const ScrambledItems = int64(10_000_000_000)

// KeyChooser picks the record number of a read, update, scan start or read-modify-write, given how
// many records exist (loaded plus inserted so far). As in YCSB, uniform, hotspot and sequential keep
// the key space they were made with (the loaded records); zipfian and latest follow inserts.
type KeyChooser interface {
	Next(r *rand.Rand, records int64) int64
}

// Uniform picks a record in [0, N) with equal probability.
type Uniform struct{ N int64 }

func (u Uniform) Next(r *rand.Rand, _ int64) int64 { return r.Int64N(u.N) }

// Sequential returns 0, 1, ... N-1 and wraps around (YCSB's SequentialGenerator).
type Sequential struct {
	N    int64
	next int64
}

func (s *Sequential) Next(_ *rand.Rand, _ int64) int64 {
	v := s.next
	s.next++
	if s.next == s.N {
		s.next = 0
	}
	return v
}

// Hotspot sends a fraction of the operations (OpnFraction) to the first DataFraction of the records
// and the rest to the others, uniformly within each set (YCSB's HotspotIntegerGenerator: the hot set
// is the low end of the record numbers, which hashed keys spread over the key space).
type Hotspot struct {
	hot, cold   int64
	opnFraction float64
}

// NewHotspot returns a hotspot chooser over n records (YCSB's defaults: 0.2 of the data, 0.8 of the
// operations).
func NewHotspot(n int64, dataFraction, opnFraction float64) (*Hotspot, error) {
	if n <= 0 || dataFraction < 0 || dataFraction > 1 || opnFraction < 0 || opnFraction > 1 {
		return nil, fmt.Errorf("hotspot: need records > 0 and fractions in [0, 1], got %d, %g, %g", n, dataFraction, opnFraction)
	}
	hot := int64(float64(n) * dataFraction)
	return &Hotspot{hot: hot, cold: n - hot, opnFraction: opnFraction}, nil
}

func (h *Hotspot) Next(r *rand.Rand, _ int64) int64 {
	if h.cold == 0 || (h.hot > 0 && r.Float64() < h.opnFraction) {
		return r.Int64N(h.hot)
	}
	return h.hot + r.Int64N(h.cold)
}

// Zipfian draws item ranks in [0, n) with P(k) ~ 1/(k+1)^theta by the method of Gray et al. ("Quickly
// generating billion-record synthetic databases", 1994) as YCSB's ZipfianGenerator does: ranks 0 and 1
// exactly, the rest from a closed form that approximates the tail (it is not exact Zipf: for n = 1000
// its CDF is within about 0.016 of Zipf(0.99)'s). The item count may grow between draws: zeta(n) is
// then extended incrementally (YCSB's nextLong(itemcount)), so inserts cost O(new items), not O(n).
type Zipfian struct {
	theta, alpha, zeta2 float64
	n                   int64 // item count zetan and eta are for
	zetan, eta          float64
}

// NewZipfian returns a zipfian over n items with the given theta (0 < theta < 1).
func NewZipfian(n int64, theta float64) (*Zipfian, error) {
	if n <= 0 || !(theta > 0 && theta < 1) {
		return nil, fmt.Errorf("zipfian: need items > 0 and 0 < theta < 1, got %d, %g", n, theta)
	}
	z := &Zipfian{theta: theta, alpha: 1 / (1 - theta), zeta2: 1 + math.Pow(0.5, theta)}
	z.resize(n, Zeta(n, theta))
	return z, nil
}

func (z *Zipfian) resize(n int64, zetan float64) {
	z.n, z.zetan = n, zetan
	// Gray et al.'s eta for n items. (YCSB keeps the first item count here after a resize; using
	// the current one keeps the tail's shape right as n grows.)
	z.eta = (1 - math.Pow(2/float64(n), 1-z.theta)) / (1 - z.zeta2/zetan)
}

// Next draws a rank over the item count the zipfian was made with.
func (z *Zipfian) Next(r *rand.Rand) int64 { return z.NextN(r, z.n) }

// NextN draws a rank in [0, n), first resizing to n items if n changed.
func (z *Zipfian) NextN(r *rand.Rand, n int64) int64 {
	if n != z.n {
		if n > z.n && n-z.n < exactTerms {
			z.resize(n, z.zetan+zetaRange(z.n, n, z.theta))
		} else {
			z.resize(n, Zeta(n, z.theta))
		}
	}
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 {
		return 0
	}
	if uz < z.zeta2 {
		return 1
	}
	k := int64(float64(n) * math.Pow(z.eta*u-z.eta+1, z.alpha))
	return min(k, n-1) // the closed form reaches n only through rounding
}

// Probability is the exact probability that Next returns rank k over the current item count, from
// the method's inverse (for the statistical tests and for anyone comparing with other generators).
func (z *Zipfian) Probability(k int64) float64 {
	return z.atLeast(k) - z.atLeast(k+1)
}

// atLeast is P(rank >= k): u below 1/zetan gives 0, below zeta2/zetan gives 1, and above that the
// closed form is at least k from u_k = 1 - (1 - (k/n)^(1-theta)) / eta on.
func (z *Zipfian) atLeast(k int64) float64 {
	switch {
	case k <= 0:
		return 1
	case k == 1:
		return 1 - 1/z.zetan
	case k >= z.n:
		return 0
	}
	uk := 1 - (1-math.Pow(float64(k)/float64(z.n), 1-z.theta))/z.eta
	return 1 - math.Max(uk, z.zeta2/z.zetan)
}

// exactTerms is how many terms Zeta sums one by one before the Euler-Maclaurin tail takes over.
const exactTerms = 1 << 20

// Zeta is the generalized harmonic number sum_{i=1..n} 1/i^theta: exact up to 2^20 terms, with an
// Euler-Maclaurin tail above (relative error under 1e-12), so that YCSB's 10^10-item zipfian costs
// milliseconds. Zeta(10^10, 0.99) is YCSB's ZETAN constant 26.46902820178302.
func Zeta(n int64, theta float64) float64 {
	m := min(n, exactTerms)
	s := zetaRange(0, m, theta)
	if n > m {
		f := func(x float64) float64 { return math.Pow(x, -theta) }
		df := func(x float64) float64 { return -theta * math.Pow(x, -theta-1) }
		a, b := float64(m), float64(n)
		// sum_{i=m+1..n} f(i) = integral_m^n f + (f(n) - f(m))/2 + (f'(n) - f'(m))/12 + ...
		s += (math.Pow(b, 1-theta)-math.Pow(a, 1-theta))/(1-theta) + (f(b)-f(a))/2 + (df(b)-df(a))/12
	}
	return s
}

// zetaRange sums 1/i^theta for i in (from, to].
func zetaRange(from, to int64, theta float64) float64 {
	var s float64
	for i := from + 1; i <= to; i++ {
		s += math.Pow(float64(i), -theta)
	}
	return s
}

// ScrambledZipfian is YCSB's zipfian request distribution: a zipfian over ScrambledItems items,
// each item hashed (dataset.FNVHash64) onto [0, N), so that the popular records are spread over
// the key space instead of being the first ones, and their popularity does not change when N does.
// As in YCSB's CoreWorkload, N is the loaded records plus the inserts expected during the run; a
// draw beyond the records that exist is drawn again.
type ScrambledZipfian struct {
	N int64
	z *Zipfian
}

// NewScrambledZipfian returns YCSB's scrambled zipfian over n keys (theta ZipfianConstant).
func NewScrambledZipfian(n int64) (*ScrambledZipfian, error) {
	if n <= 0 {
		return nil, fmt.Errorf("scrambled zipfian: need keys > 0, got %d", n)
	}
	z := &Zipfian{theta: ZipfianConstant, alpha: 1 / (1 - ZipfianConstant), zeta2: 1 + math.Pow(0.5, ZipfianConstant)}
	z.resize(ScrambledItems, scrambledZeta())
	return &ScrambledZipfian{N: n, z: z}, nil
}

// scrambledZeta is Zeta(ScrambledItems, ZipfianConstant), computed once (a million terms).
var scrambledZeta = sync.OnceValue(func() float64 { return Zeta(ScrambledItems, ZipfianConstant) })

// Scramble maps an item rank onto [0, n) as YCSB does.
func Scramble(item, n int64) int64 {
	return int64(uint64(dataset.FNVHash64(item)) % uint64(n))
}

func (s *ScrambledZipfian) Next(r *rand.Rand, records int64) int64 {
	for {
		k := Scramble(s.z.Next(r), s.N)
		if k < records || records >= s.N {
			return k
		}
	}
}

// Latest skews toward the most recently inserted records: record records-1-k with k zipfian over the
// records that exist (YCSB's SkewedLatestGenerator over the insert sequence).
type Latest struct{ z *Zipfian }

// NewLatest returns a latest chooser starting from n records.
func NewLatest(n int64) (*Latest, error) {
	z, err := NewZipfian(n, ZipfianConstant)
	if err != nil {
		return nil, err
	}
	return &Latest{z: z}, nil
}

func (l *Latest) Next(r *rand.Rand, records int64) int64 { return records - 1 - l.z.NextN(r, records) }

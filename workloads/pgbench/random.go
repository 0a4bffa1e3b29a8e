package pgbench

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// The random functions transform uniform draws from the operation's stream exactly as pgbench 15's
// getrand, getExponentialRand, getGaussianRand and getZipfianRand do; the stream itself is
// dbbench's (seeded per operation), not pgbench's per-client xoroshiro128**, so the values differ
// from a pgbench run while their distributions are the same.

// uniformRand is random(lb, ub): every integer of [lb, ub] equally likely (ub - lb + 1 fits an int64).
func uniformRand(r *rand.Rand, lb, ub int64) int64 {
	return lb + int64(r.Uint64N(uint64(ub-lb)+1))
}

// unitOpen is a uniform double in (0, 1], as pgbench's 1.0 - pg_prng_double.
func unitOpen(r *rand.Rand) float64 { return 1 - r.Float64() }

// exponentialRand is random_exponential(lb, ub, p): an exponential distribution truncated at p and
// projected onto [lb, ub], so that i is drawn with probability f(i) - f(i+1) for
// f(x) = exp(-p (x - lb) / (ub - lb + 1)) / (1 - exp(-p)).
func exponentialRand(r *rand.Rand, lb, ub int64, p float64) int64 {
	cut := math.Exp(-p)
	x := -math.Log(cut+(1-cut)*unitOpen(r)) / p // in [0, 1)
	return lb + int64(float64(ub-lb+1)*x)
}

// normal is one standard normal draw by the basic Box-Muller transform (pg_prng_double_normal).
func normal(r *rand.Rand) float64 {
	u1, u2 := unitOpen(r), unitOpen(r)
	return math.Sqrt(-2*math.Log(u1)) * math.Sin(2*math.Pi*u2)
}

// gaussianRand is random_gaussian(lb, ub, p): a standard normal truncated to [-p, p) and mapped
// onto [lb, ub], so that i is drawn with probability f(i + 0.5) - f(i - 0.5) for
// f(x) = PHI(2 p (x - mu) / (ub - lb + 1)) / (2 PHI(p) - 1), mu = (lb + ub) / 2.
func gaussianRand(r *rand.Rand, lb, ub int64, p float64) int64 {
	var z float64
	for {
		if z = normal(r); z >= -p && z < p {
			break
		}
	}
	x := (z + p) / (2 * p) // in [0, 1)
	return lb + int64(float64(ub-lb+1)*x)
}

// zipfianRand is random_zipfian(lb, ub, s): lb - 1 + k with P(k) proportional to 1/k^s over
// 1..ub-lb+1, by the rejection method of Devroye ("Non-Uniform Random Variate Generation", 1986,
// p. 550-551), which pgbench uses for s in [1.001, 1000].
func zipfianRand(r *rand.Rand, lb, ub int64, s float64) int64 {
	n := ub - lb + 1
	if n <= 1 {
		return lb
	}
	b := math.Pow(2, s-1)
	for {
		u, v := r.Float64(), r.Float64()
		x := math.Floor(math.Pow(u, -1/(s-1)))
		t := math.Pow(1+1/x, s-1)
		if v*x*(t-1)/(b-1) <= t/b && x <= float64(n) {
			return lb - 1 + int64(x)
		}
	}
}

// Hashing constants of pgbench: FNV-1a's and MurmurHash64A's.
const (
	fnvPrime       = 0x100000001b3
	fnvOffsetBasis = 0xcbf29ce484222325
	mm2Mul         = 0xc6a4a7935bd1e995
	mm2MulTimes8   = 0x35253c9ade8f4ca8
	mm2Rot         = 47
)

// hashFNV1a is pgbench's hash_fnv1a: FNV-1a over the value's 8 bytes, low byte first, from the
// offset basis xor the seed.
func hashFNV1a(v int64, seed uint64) int64 {
	h := uint64(fnvOffsetBasis) ^ seed
	u := uint64(v)
	for range 8 {
		h ^= u & 0xff
		h *= fnvPrime
		u >>= 8
	}
	return int64(h)
}

// hashMurmur2 is pgbench's hash_murmur2 (and hash): MurmurHash64A of the value's 8 bytes.
func hashMurmur2(v int64, seed uint64) int64 {
	h := seed ^ mm2MulTimes8
	k := uint64(v)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	h ^= k
	h *= mm2Mul
	h ^= h >> mm2Rot
	h *= mm2Mul
	h ^= h >> mm2Rot
	return int64(h)
}

// pgPRNG is PostgreSQL's pg_prng: xoroshiro128** seeded through splitmix64. permute draws from it so
// that permute(i, size, seed) is the value pgbench computes.
type pgPRNG struct{ s0, s1 uint64 }

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	v := *state
	v = (v ^ v>>30) * 0xBF58476D1CE4E5B9
	v = (v ^ v>>27) * 0x94D049BB133111EB
	return v ^ v>>31
}

func newPgPRNG(seed uint64) *pgPRNG {
	p := &pgPRNG{s0: splitmix64(&seed), s1: splitmix64(&seed)}
	if p.s0 == 0 && p.s1 == 0 {
		p.s0, p.s1 = 0x5851F42D4C957F2D, 0x14057B7EF767814F
	}
	return p
}

func (p *pgPRNG) uint64() uint64 {
	s0 := p.s0
	sx := p.s1 ^ s0
	v := bits.RotateLeft64(s0*5, 7) * 9
	p.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ sx<<16
	p.s1 = bits.RotateLeft64(sx, 37)
	return v
}

// uint64Range is pg_prng_uint64_range: uniform in [lo, hi] by bitmask rejection.
func (p *pgPRNG) uint64Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	span := hi - lo
	shift := bits.LeadingZeros64(span)
	for {
		if v := p.uint64() >> shift; v <= span {
			return lo + v
		}
	}
}

// permute is pgbench's permute(i, size, seed): the place of i (modulo size) in a pseudorandom
// permutation of 0..size-1 chosen by seed, by six rounds of an odd multiply, xor and rotate on the
// lower and upper overlapping halves and a random offset.
func permute(val, isize, seed int64) int64 {
	if isize < 2 {
		return 0
	}
	p := newPgPRNG(uint64(seed))
	size := uint64(isize)
	v := uint64(val) % size
	masklen := 63 - bits.LeadingZeros64(size)
	mask := uint64(1)<<masklen - 1
	rot := func(x uint64) uint64 { return (x<<1)&mask | x>>(masklen-1) }
	for range 6 {
		m := p.uint64()&mask | 1
		r := p.uint64() & mask
		if v <= mask {
			v = rot((v*m ^ r) & mask)
		}
		m = p.uint64()&mask | 1
		r = p.uint64() & mask
		if t := size - 1 - v; t <= mask {
			v = size - 1 - rot((t*m^r)&mask)
		}
		v = (v + p.uint64Range(0, size-1)) % size
	}
	return int64(v)
}

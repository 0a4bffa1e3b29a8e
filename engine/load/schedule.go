// Package load is the open-loop load model: a schedule of intended start times for a target rate
// (constant or Poisson arrivals, a ramp of stages, a duration or an operation count) and a bounded
// pool of workers, each taking the next operation and starting it at its intended time, timed on three
// clocks: response time (from the intended start: what a user waits), service time (from the actual
// start) and start lag (actual minus intended start). It knows nothing of adapters or configs: the
// engine hands it a function that draws the next operation and one that performs it.
package load

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Arrival is how intended start times are spaced.
type Arrival string

const (
	Constant Arrival = "constant" // evenly: the k-th operation at the time the rate's integral reaches k
	Poisson  Arrival = "poisson"  // exponential gaps at the current rate (as pgbench -R does)
)

// Stage is a point of a ramp: the rate (ops/s) at a time from the start. The rate is linear between
// points and holds the last point's rate after it.
type Stage struct {
	At   time.Duration
	Rate float64
}

// Schedule says when operations are meant to start.
type Schedule struct {
	Rate     float64       // ops/s; ignored when Stages are given
	Stages   []Stage       // a ramp; the first at 0
	Arrival  Arrival       // default Constant
	Duration time.Duration // intended starts fall in [0, Duration); 0: no limit (then Ops must be set)
	Ops      int64         // at most this many operations; 0: no limit (then Duration must be set)
	Seed     int64         // Poisson gaps
	// Stripe, when Total > 1, keeps a shard's share: operations Index, Index+Total, ... of the
	// schedule as one process has it (the same intended times; Ops counts the whole schedule's).
	Stripe Stripe
}

// Stripe is a shard's share of a sequence: the items k with k mod Total == Index (k6's execution
// segments, striped). The zero Stripe is the whole sequence.
type Stripe struct{ Index, Total int }

// Mine reports whether item k of the whole sequence is the stripe's.
func (s Stripe) Mine(k int64) bool { return s.Total <= 1 || k%int64(s.Total) == int64(s.Index) }

// Share is the stripe's share of a rate or count: 1/Total.
func (s Stripe) Share() float64 { return 1 / float64(max(s.Total, 1)) }

// Validate reports the first thing wrong with the schedule, phrased for a config's user.
func (s Schedule) Validate() error {
	switch s.Arrival {
	case "", Constant, Poisson:
	default:
		return fmt.Errorf("arrivals must be constant or poisson, got %q", s.Arrival)
	}
	if s.Stripe.Total > 1 && (s.Stripe.Index < 0 || s.Stripe.Index >= s.Stripe.Total) {
		return fmt.Errorf("stripe %d/%d: want 0 <= index < total", s.Stripe.Index, s.Stripe.Total)
	}
	if s.Duration < 0 || s.Ops < 0 {
		return fmt.Errorf("duration and ops must not be negative")
	}
	if s.Duration == 0 && s.Ops == 0 {
		return fmt.Errorf("an open-loop run needs a duration or an operation count")
	}
	if len(s.Stages) == 0 {
		if !(s.Rate > 0) || math.IsInf(s.Rate, 1) {
			return fmt.Errorf("rate must be a positive number of operations per second, got %g", s.Rate)
		}
		return nil
	}
	if s.Stages[0].At != 0 {
		return fmt.Errorf("the first stage must be at 0s, got %v", s.Stages[0].At)
	}
	positive := false
	for i, st := range s.Stages {
		if !(st.Rate >= 0) || math.IsInf(st.Rate, 1) {
			return fmt.Errorf("stage %d: rate must be >= 0, got %g", i+1, st.Rate)
		}
		if i > 0 && st.At <= s.Stages[i-1].At {
			return fmt.Errorf("stage %d: at %v is not after stage %d's %v", i+1, st.At, i, s.Stages[i-1].At)
		}
		positive = positive || st.Rate > 0
	}
	if !positive {
		return fmt.Errorf("every stage has rate 0")
	}
	if s.Duration == 0 && s.Stages[len(s.Stages)-1].Rate == 0 {
		return fmt.Errorf("a ramp ending at rate 0 needs a duration")
	}
	return nil
}

// segment is a piece of the ramp: from t0 (s) at rate r0, slope a (ops/s^2), with lam0 operations
// intended before t0.
type segment struct{ t0, r0, a, lam0, t1 float64 }

func (s Schedule) segments() []segment {
	st := s.Stages
	if len(st) == 0 {
		st = []Stage{{0, s.Rate}}
	}
	segs := make([]segment, len(st))
	var lam float64
	for i, p := range st {
		g := segment{t0: p.At.Seconds(), r0: p.Rate, lam0: lam, t1: math.Inf(1)}
		if i+1 < len(st) {
			g.t1 = st[i+1].At.Seconds()
			g.a = (st[i+1].Rate - p.Rate) / (g.t1 - g.t0)
			dt := g.t1 - g.t0
			lam += p.Rate*dt + g.a*dt*dt/2
		}
		segs[i] = g
	}
	return segs
}

// RateAt is the target rate at offset t.
func (s Schedule) RateAt(t time.Duration) float64 {
	x := t.Seconds()
	segs := s.segments()
	for i := len(segs) - 1; i >= 0; i-- {
		if x >= segs[i].t0 {
			g := segs[i]
			return g.r0 + g.a*(x-g.t0)
		}
	}
	return segs[0].r0
}

// Intended is how many operations the rate intends in [0, t): the integral of the rate.
func (s Schedule) Intended(t time.Duration) float64 {
	x := t.Seconds()
	segs := s.segments()
	for i := len(segs) - 1; i >= 0; i-- {
		if g := segs[i]; x >= g.t0 {
			dx := x - g.t0
			return g.lam0 + g.r0*dx + g.a*dx*dx/2
		}
	}
	return 0
}

// MeanRate is the schedule's rate (ops/s), whatever ends a run of it: the rate, or a ramp's mean
// over its time (its duration, or, when an operation count alone ends it, up to its last stage).
// Its stripe's share is the caller's to take.
func (s Schedule) MeanRate() float64 {
	span := s.Duration
	if span == 0 && len(s.Stages) > 0 {
		span = s.Stages[len(s.Stages)-1].At
	}
	switch {
	case span > 0:
		return s.Intended(span) / span.Seconds()
	case len(s.Stages) > 0:
		return s.Stages[0].Rate // one stage at 0s: its rate throughout
	}
	return s.Rate
}

// Times iterates over the intended start times of a schedule, in order.
type Times struct {
	s    Schedule
	segs []segment
	i    int     // current segment
	lam  float64 // position on the integral of the rate
	k    int64   // times of the whole schedule passed (the stripe's and the others')
	rng  *rand.Rand
	last int64 // the whole schedule's index of the last time returned
}

// Times returns the iterator of s's intended start times.
func (s Schedule) Times() (*Times, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	t := &Times{s: s, segs: s.segments()}
	if s.Arrival == Poisson {
		t.rng = rand.New(rand.NewPCG(uint64(s.Seed), 0x2545f4914f6cdd1d))
		t.lam = t.rng.ExpFloat64()
	}
	return t, nil
}

// Next returns the stripe's next intended start (an offset from the run's start), or false when the
// schedule is over; Index says its place in the whole schedule.
func (t *Times) Next() (time.Duration, bool) {
	for {
		k := t.k
		at, ok := t.next()
		if !ok || t.s.Stripe.Mine(k) {
			t.last = k
			return at, ok
		}
	}
}

// Index is the whole schedule's index of the time Next returned last.
func (t *Times) Index() int64 { return t.last }

// Passed is how many times of the whole schedule Next has gone through, the stripe's and the
// others': at the end, the whole schedule's length.
func (t *Times) Passed() int64 { return t.k }

// next returns the whole schedule's next intended start. A Poisson schedule is a Poisson process of intensity rate(t): unit-mean exponential steps
// on the rate's integral, mapped back to time (so a ramp needs no thinning).
func (t *Times) next() (time.Duration, bool) {
	if t.s.Ops > 0 && t.k >= t.s.Ops {
		return 0, false
	}
	for t.i+1 < len(t.segs) && t.lam >= t.segs[t.i+1].lam0 {
		t.i++
	}
	g := t.segs[t.i]
	if g.r0 == 0 && g.a == 0 {
		return 0, false // the last stage is at rate 0 (a pause in the middle is stepped over above)
	}
	d := t.lam - g.lam0
	x := 0.0
	if d > 0 {
		// r0 x + a x^2/2 = d, solved without cancellation; max guards rounding at a ramp-down's end.
		den := g.r0 + math.Sqrt(max(0, g.r0*g.r0+2*g.a*d))
		if den <= 0 {
			return 0, false // a last stage at rate 0: nothing more arrives
		}
		x = 2 * d / den
	}
	at := g.t0 + x
	if math.IsInf(at, 1) {
		return 0, false
	}
	off := time.Duration(math.Round(at * 1e9))
	if t.s.Duration > 0 && off >= t.s.Duration {
		return 0, false
	}
	t.k++
	if t.rng != nil {
		t.lam += t.rng.ExpFloat64()
	} else {
		t.lam = float64(t.k)
	}
	return off, true
}

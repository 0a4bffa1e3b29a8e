package engine

import (
	"time"
)

// slowdown injects a known amount of extra work into a target's timed operations, so that a user can
// check that a gate catches a regression of that size. The extra work is a calibrated busy loop, real
// CPU work like a slower implementation, not a sleep, and it reads no clock: its cost is a fixed
// fraction of each operation's measured time, however short the operation.
type slowdown struct {
	fraction   float64
	itersPerNs float64 // spin iterations per nanosecond on this machine
	clockNs    float64 // cost of one clock read, taken off the spin when the injection itself reads the clock
	sink       uint64
}

// spinCalibrationIters is long enough (a few ms) for a stable rate, short enough for start-up.
const spinCalibrationIters = 2_000_000

// newSlowdown calibrates the spin loop and the clock; nil when no slowdown is configured.
func newSlowdown(fraction float64) *slowdown {
	if fraction <= 0 {
		return nil
	}
	s := &slowdown{fraction: fraction}
	best := time.Duration(1 << 62)
	for i := 0; i < 5; i++ { // the fastest of five: the machine's undisturbed rate
		t0 := time.Now()
		s.sink ^= spin(spinCalibrationIters)
		best = min(best, time.Since(t0))
	}
	s.itersPerNs = spinCalibrationIters / float64(best.Nanoseconds())
	// The injection's own clock read is a time.Since (monotonic only), cheaper than time.Now.
	const reads = 100_000
	t0 := time.Now()
	var total time.Duration
	for i := 0; i < reads; i++ {
		total += time.Since(t0)
	}
	s.clockNs = float64(time.Since(t0).Nanoseconds()) / reads
	s.sink ^= uint64(total)
	return s
}

// spin runs n dependent multiply-adds and returns the result, so the compiler cannot drop it.
func spin(n int) uint64 {
	x := uint64(1)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// add spins for fraction x d, less the cost of clockReads clock reads the caller made only for the
// injection, and returns the extra time intended (fraction x d). A nil slowdown adds nothing.
func (s *slowdown) add(d time.Duration, clockReads int) time.Duration {
	if s == nil || d <= 0 {
		return 0
	}
	want := float64(d.Nanoseconds()) * s.fraction
	if ns := want - float64(clockReads)*s.clockNs; ns > 0 {
		s.sink ^= spin(int(ns * s.itersPerNs))
	}
	return time.Duration(want)
}

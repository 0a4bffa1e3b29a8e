package load

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestSpinBudget: each operation's spin is Spin at most and, by default, a tenth of the gap since
// the previous intended start (a tenth of a core at most): the spins of consecutive operations
// never overlap. In precise mode it is Spin, and take returns holding the claim, so that only one
// worker waits at a time (a core at most, whatever the workers).
func TestSpinBudget(t *testing.T) {
	for _, tt := range []struct {
		name    string
		s       Schedule
		precise bool
		want    time.Duration // every operation's budget after the first; 0: check the bounds only
	}{
		{"10,000/s", Schedule{Rate: 10000, Ops: 1000}, false, 10 * time.Microsecond},
		{"10,000/s precise", Schedule{Rate: 10000, Ops: 1000}, true, DefaultSpin},
		{"1,000/s", Schedule{Rate: 1000, Ops: 1000}, false, 100 * time.Microsecond},
		{"1,000/s precise", Schedule{Rate: 1000, Ops: 1000}, true, DefaultSpin},
		{"poisson precise", Schedule{Rate: 10000, Ops: 10000, Arrival: Poisson, Seed: 3}, true, DefaultSpin},
		{"poisson", Schedule{Rate: 10000, Ops: 10000, Arrival: Poisson, Seed: 3}, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := duePool(t, Config{Schedule: tt.s, Workers: 1, Precise: tt.precise})
			var prev time.Duration
			var n int
			var total time.Duration
			for {
				op, spin, _, ok := p.take(0)
				if !ok {
					break
				}
				p.free.add(0, p.now()) // as if it had performed it
				if tt.precise {
					select {
					case p.claim <- struct{}{}:
						t.Fatalf("operation %d: taken in precise mode without holding the claim", op.Seq)
					default:
						<-p.claim // what waitHolding does at the hand-off
					}
					if spin != tt.want {
						t.Fatalf("operation %d: spin %v, want %v", op.Seq, spin, tt.want)
					}
					prev, n = op.Intended, n+1
					continue
				}
				gap := op.Intended - prev
				if spin < 0 || spin > DefaultSpin || float64(spin) > SpinShare*float64(gap)+1 {
					t.Fatalf("operation %d: spin %v for a gap of %v", op.Seq, spin, gap)
				}
				if tt.want > 0 && op.Seq > 0 && spin != tt.want {
					t.Fatalf("operation %d: spin %v, want %v", op.Seq, spin, tt.want)
				}
				if op.Intended-spin < prev { // it would spin while the operation before it still waits
					t.Fatalf("operation %d spins from %v, before operation %d's start at %v", op.Seq, op.Intended-spin, op.Seq-1, prev)
				}
				prev, total, n = op.Intended, total+spin, n+1
			}
			if n != int(tt.s.Ops) {
				t.Fatalf("took %d operations of %d", n, tt.s.Ops)
			}
			// Spinning's share of the schedule's time: at most SpinShare.
			if got := float64(total) / float64(prev); got > SpinShare+1e-9 {
				t.Errorf("spinning takes %.3f of the time, want at most %.2f", got, SpinShare)
			}
		})
	}
}

// duePool is a pool of one worker for cfg whose schedule started an hour ago: every operation is due,
// so taking one never waits.
func duePool(t *testing.T, cfg Config) *pool[struct{}] {
	t.Helper()
	if err := cfg.normalize(); err != nil {
		t.Fatal(err)
	}
	times, err := cfg.Schedule.Times()
	if err != nil {
		t.Fatal(err)
	}
	return &pool[struct{}]{cfg: &cfg, ctx: context.Background(), t0: time.Now().Add(-time.Hour), times: times,
		next: noArg, claim: make(chan struct{}, 1), free: newFreeList(1)}
}

// TestOneQueue: with workers free, one slow operation delays nobody else: operations are taken by
// whichever worker is free, not by a worker that owns a stripe of the schedule. One operation of
// 2 workers takes 50 ms at 1,000 ops/s: with stripes the next 25 of its stripe would have waited.
func TestOneQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := Config{Schedule: Schedule{Rate: 1000, Duration: time.Second}, Workers: 2, Spin: -1}
		next := func(seq int64) (int, int64) { return 0, seq }
		res, err := Run(t.Context(), cfg, next, func(_ context.Context, op Op[int64]) error {
			if op.Arg == 10 {
				time.Sleep(50 * time.Millisecond)
			} else {
				time.Sleep(100 * time.Microsecond)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Completed != 1000 || res.Late != 0 || res.Waited != 0 || res.Saturation() != "" {
			t.Errorf("completed %d, late %d, waited %d, saturation %q", res.Completed, res.Late, res.Waited, res.Saturation())
		}
		if lag := res.Types[0].StartLag.Max(); lag > 1 { // the histograms' least value is 1 ns
			t.Errorf("start lag max %v, want none", time.Duration(lag))
		}
	})
}

// TestPreciseInOrder: in precise mode one worker waits at a time and hands the claim on Handoff
// before its start, so operations start in the schedule's order and on time, while a slow one
// still holds up nobody (the other workers take the next ones).
func TestPreciseInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := Config{Schedule: Schedule{Rate: 1000, Duration: time.Second}, Workers: 4, Spin: -1, Precise: true}
		var mu sync.Mutex
		var order []int64
		res, err := Run(t.Context(), cfg, func(seq int64) (int, int64) { return 0, seq }, func(_ context.Context, op Op[int64]) error {
			mu.Lock()
			order = append(order, op.Arg)
			mu.Unlock()
			if op.Arg == 10 {
				time.Sleep(20 * time.Millisecond)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Completed != 1000 || res.Late != 0 || res.Waited != 0 {
			t.Errorf("completed %d, late %d, waited %d", res.Completed, res.Late, res.Waited)
		}
		if lag := res.Types[0].StartLag.Max(); lag > 1 {
			t.Errorf("start lag max %v, want none", time.Duration(lag))
		}
		if !slices.IsSorted(order) {
			t.Errorf("operations started out of the schedule's order: %v...", order[:min(len(order), 20)])
		}
	})
}

// TestDrawAhead: an operation is drawn at most DrawAhead before its intended start, however many
// workers are free (at 100 ops/s, 8 free workers would otherwise draw 70 ms ahead), and never after it.
func TestDrawAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := Config{Schedule: Schedule{Rate: 100, Duration: time.Second}, Workers: 8, Spin: -1}
		t0 := time.Now()
		var early, late time.Duration
		next := func(seq int64) (int, struct{}) {
			ahead := time.Duration(seq)*10*time.Millisecond - time.Since(t0)
			early, late = max(early, ahead), min(late, ahead)
			return 0, struct{}{}
		}
		res, err := Run(t.Context(), cfg, next, func(context.Context, Op[struct{}]) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if res.Completed != 100 || early > DrawAhead || early < DrawAhead/2 || late < 0 {
			t.Errorf("completed %d; drawn at most %v before the intended start and %v after it, want at most %v before",
				res.Completed, early, -late, DrawAhead)
		}
	})
}

// TestWaitCounted: a wait with nothing to sleep spins until the intended start, and the spin is
// counted: more than nothing, no more than the wall time it took. One that sleeps is counted too, and
// where a thread has a CPU clock (Linux) the first sleep's system call is timed on it.
func TestWaitCounted(t *testing.T) {
	cfg := Config{Schedule: Schedule{Rate: 1, Ops: 1}, Workers: 1}
	if err := cfg.normalize(); err != nil {
		t.Fatal(err)
	}
	p := &pool[struct{}]{cfg: &cfg, ctx: context.Background(), t0: time.Now()}
	intended := p.now() + time.Millisecond
	p.wait(intended, time.Millisecond)
	took := p.now()
	if spun := time.Duration(p.spinNs.Load()); spun <= 0 || spun > took || took < intended {
		t.Errorf("spun %v, returned at %v for an intended start at %v", spun, took, intended)
	}
	if sleep, measured := p.sleepCPU(); sleep != 0 || !measured {
		t.Errorf("no sleep yet, but sleep CPU %v (measured %v)", sleep, measured)
	}

	p.wait(p.now()+2*time.Millisecond, 0)
	sleep, measured := p.sleepCPU()
	_, clock := sleepThreadCPU(0)
	if p.sleeps.Load() != 1 || measured != clock || (clock && (sleep <= 0 || sleep > 2*time.Millisecond)) {
		t.Errorf("%d sleeps, their CPU %v (measured %v, a thread CPU clock: %v)", p.sleeps.Load(), sleep, measured, clock)
	}
}

// TestReadyBlame: who is blamed for an operation that starts late. Every operation here is due
// long before it is taken (a start an hour ago), so each is taken late; the ready time says how
// much of that lateness is the target's (every worker busy) and how much the generator's.
func TestReadyBlame(t *testing.T) {
	ms := time.Millisecond
	for _, tt := range []struct {
		name    string
		policy  Policy
		free    time.Duration // when the one worker would have become free after operation 0, had it started on time
		ready   time.Duration // operation 1's (intended at 1 ms)
		waited  int64
		dropped int64
	}{
		// The worker was free from 0.5 ms and came to the claim an hour late (its thread lost the
		// CPU): the generator's lateness, not a wait for a worker.
		{"free worker reached late", Queue, ms / 2, ms, 0, 0},
		{"free worker reached late, drop", Drop, ms / 2, ms, 0, 0},
		// The worker was busy until 5 ms: the operation waited 4 ms for it (then the generator's).
		{"busy worker", Queue, 5 * ms, 5 * ms, 1, 0},
		{"busy worker, drop", Drop, 5 * ms, 0, 0, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := duePool(t, Config{Schedule: Schedule{Rate: 1000, Ops: 2}, Workers: 1, Policy: tt.policy})
			op, _, ready, ok := p.take(0)
			if !ok || op.Seq != 0 || ready != 0 {
				t.Fatalf("operation 0: seq %d, ready %v, ok %v; want ready at 0 (every worker free since the start)", op.Seq, ready, ok)
			}
			p.free.add(0, tt.free)
			op, _, ready, ok = p.take(0)
			if tt.dropped > 0 {
				if ok || p.dropped != tt.dropped {
					t.Fatalf("operation 1: taken %v, %d dropped; want it dropped", ok, p.dropped)
				}
				return
			}
			if !ok || op.Seq != 1 || ready != tt.ready || p.waited != tt.waited || p.dropped != 0 {
				t.Errorf("operation 1: ready %v, waited %d, dropped %d; want ready %v, waited %d", ready, p.waited, p.dropped, tt.ready, tt.waited)
			}
		})
	}
}

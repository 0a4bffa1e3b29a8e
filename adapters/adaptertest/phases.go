package adaptertest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/phase"
)

// phaseTries is how many times CheckPhases measures before it holds a sampled phase's estimate
// against the target (at most 0, or the phases summing above the operations' time): a sampled phase
// is an estimate whose noise (a preemption during one sample, a clock read dearer than the measured
// one) is scaled up by the sampling.
const phaseTries = 3

// sampledSlack is how far above the operations' time a sum with sampled phases may come: the
// sampling scales each sample's noise up (measured: 1.11 times the operations' time in 3 tries of
// lmdb's plain scan, 64 steps a sample, under a full go test ./... on 2 cores). A wrong scale (a
// phase counted at every step and scaled too, or scaled twice) is off by the sampling factor.
const sampledSlack = 0.25

// CheckPhases checks a target's profile (adapters.Profiler, docs/profile.md): lent a recorder, n
// operations (op, timed one by one as the engine times them) record exactly the phases named in want,
// each with time, and their sum is no more than the operations' time (a phase lies inside its
// operation; a sampled phase's estimate gets phaseTries tries and sampledSlack); taken back (Profile(nil)), the target records nothing more. It returns the totals.
func CheckPhases(tb testing.TB, tg adapters.Target, n int, op func(i int) error, want ...string) phase.Totals {
	tb.Helper()
	p, ok := tg.(adapters.Profiler)
	if !ok {
		tb.Fatalf("target %T is no adapters.Profiler", tg)
	}
	var t phase.Totals
	for try := 1; ; try++ {
		r := phase.New()
		p.Profile(r)
		var busy time.Duration
		for i := range n {
			start := time.Now()
			err := op(i)
			busy += time.Since(start)
			if err != nil {
				p.Profile(nil)
				tb.Fatalf("operation %d: %v", i, err)
			}
		}
		p.Profile(nil)
		t = r.Totals()
		if err := op(0); err != nil {
			tb.Fatalf("operation after the profile: %v", err)
		}
		if after := r.Totals(); fmt.Sprint(after) != fmt.Sprint(t) {
			tb.Fatalf("the target went on recording after Profile(nil): %+v, then %+v", t, after)
		}
		var (
			names      []string
			sum, timed int64
			sampled    bool
			noise      string // what a sampled phase's estimate got wrong this try
		)
		for _, ph := range t.Phases {
			names = append(names, ph.Name)
			sum += ph.Ns
			switch {
			case ph.Method == phase.Timed && ph.Ns <= 0:
				tb.Fatalf("timed phase %s recorded %d ns", ph.Name, ph.Ns)
			case ph.Method == phase.Timed:
				timed += ph.Ns
			default:
				sampled = true
				if ph.Ns <= 0 {
					noise = fmt.Sprintf("sampled phase %s estimated at %d ns", ph.Name, ph.Ns)
				}
			}
		}
		if !slices.Equal(names, want) {
			tb.Fatalf("phases %v, want %v", names, want)
		}
		if timed > int64(busy) {
			tb.Fatalf("timed phases sum to %d ns, more than the operations' %d ns", timed, busy)
		}
		limit := float64(busy)
		if sampled {
			limit *= 1 + sampledSlack
		}
		if noise == "" && float64(sum) > limit {
			noise = fmt.Sprintf("phases sum to %d ns, more than the operations' %d ns allow", sum, busy)
		}
		if noise == "" {
			return t
		}
		if try == phaseTries {
			tb.Fatalf("%s, in %d tries: %+v", noise, phaseTries, t.Phases)
		}
	}
}

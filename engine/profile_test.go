package engine

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/memory"
	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/workloads"
)

// phased is a test adapter whose lookups take known times: it times them itself (1000 ns each) and
// marks known phases on the recorder it was lent: get 300 ns, copy 200 ns, and txn sampled one in 4
// at 40 ns (160 ns per sampled lookup, 40 ns per lookup on average), with one Start per lookup (one
// lap). Its calls of Profile are logged, to check when the engine makes them.
type phased struct{ calls *profileCalls }

// profileCalls logs a target's Profile calls: "rec" (a recorder) or "nil".
type profileCalls struct {
	mu    sync.Mutex
	calls []string
	recs  map[*phase.Recorder]bool
	// envProfile is Env.Profile as each Open saw it.
	envProfile []bool
}

func (c *profileCalls) add(r *phase.Recorder) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r == nil {
		c.calls = append(c.calls, "nil")
		return
	}
	if c.recs[r] {
		c.calls = append(c.calls, "reused")
	}
	c.recs[r] = true
	c.calls = append(c.calls, "rec")
}

func (p phased) Info() adapters.Info {
	return adapters.Info{Name: "phased", Builtin: []string{workloads.Lookup},
		Options: []adapters.OptionSpec{{Name: "per_op", Kind: adapters.Bool}}}
}

func (p phased) Open(ctx context.Context, o adapters.Options, env adapters.Env) (adapters.Target, error) {
	inner, err := memory.New().Open(ctx, o, env)
	if err != nil {
		return nil, err
	}
	p.calls.mu.Lock()
	p.calls.envProfile = append(p.calls.envProfile, env.Profile)
	p.calls.mu.Unlock()
	t := &phasedTarget{Target: inner, calls: p.calls, env: env}
	if o.Bool("per_op") {
		return &phasedStepTarget{t}, nil
	}
	return t, nil
}

// phasedStepTarget is a phased target the engine times per lookup (a PointReader), so that it takes
// part in interleave: ops; it marks get and copy as phasedTarget does.
type phasedStepTarget struct{ t *phasedTarget }

func (s *phasedStepTarget) Load(ctx context.Context, ds *dataset.Persons) error {
	return s.t.Load(ctx, ds)
}
func (s *phasedStepTarget) Close() error              { return s.t.Close() }
func (s *phasedStepTarget) Info() map[string]any      { return s.t.Info() }
func (s *phasedStepTarget) Profile(r *phase.Recorder) { s.t.Profile(r) }

func (s *phasedStepTarget) Lookup(ctx context.Context, email []byte) (adapters.Tally, error) {
	s.t.rec.Start()
	s.t.rec.Add(phase.Get, phasedGet)
	s.t.rec.Add(phase.Copy, phasedCopy)
	return s.t.Target.(adapters.PointReader).Lookup(ctx, email)
}

type phasedTarget struct {
	adapters.Target
	calls *profileCalls
	env   adapters.Env
	rec   *phase.Recorder
}

func (t *phasedTarget) Profile(r *phase.Recorder) {
	t.calls.add(r)
	t.rec = r
}

const (
	phasedLatency = 1000 * time.Nanosecond
	phasedGet     = 300 * time.Nanosecond
	phasedCopy    = 200 * time.Nanosecond
	phasedTxn     = 40 * time.Nanosecond
	phasedEvery   = 4
)

func (t *phasedTarget) TimedLookups(ctx context.Context, ds *dataset.Persons, idx []int32, lat []time.Duration) (adapters.Tally, error) {
	var tally adapters.Tally
	for i, k := range idx {
		t.rec.Start()
		if phase.Sample(i, phasedEvery) {
			t.rec.AddSampled(phase.Txn, phasedTxn, phasedEvery)
		}
		t.rec.Add(phase.Get, phasedGet)
		t.rec.Add(phase.Copy, phasedCopy)
		tally.Rows++
		tally.Sum += ds.Sum(int(k))
		lat[i] = phasedLatency
	}
	return tally, nil
}

// profiledPlan is a plan of lookups on a phased target and a fake one (no Profiler).
func profiledPlan(t *testing.T, calls *profileCalls, profile bool, extra string) *config.Plan {
	t.Helper()
	y := fmt.Sprintf(`name: t
dataset: {persons: 300}
profile: %v
warmup: 1
repeats: 3
%s
workloads:
  - {name: lookup, ops: 400}
targets:
  - {name: p, adapter: phased}
  - {name: m, adapter: fake}
`, profile, extra)
	_, p := resolvePlan(t, "test.yaml", y, phased{calls: calls}, fake{log: &callLog{}})
	p.Verdict.Runs = 1
	return p
}

// TestProfileFiguresFromKnownPhases: a profiled run's figures are exactly those of the phases the
// target marked and the latencies it reported, the engine lends a fresh recorder for each timed
// repeat only (not the warm-up) and takes it back after, and a target that is no Profiler gets no
// phase figures.
func TestProfileFiguresFromKnownPhases(t *testing.T) {
	for _, extra := range []string{"", "interleave: ops", "isolation: rewarm"} {
		t.Run(extra, func(t *testing.T) {
			calls := &profileCalls{recs: map[*phase.Recorder]bool{}}
			rep, err := run(t, profiledPlan(t, calls, true, extra))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := fmt.Sprint(calls.calls), "[rec nil rec nil rec nil]"; got != want {
				t.Errorf("Profile calls %s, want %s (a fresh recorder before each timed repeat, nil after)", got, want)
			}
			if got := fmt.Sprint(calls.envProfile); got != "[true]" {
				t.Errorf("Env.Profile at Open: %s, want [true]", got)
			}
			x := rep.Find("p", "lookup", 0)
			if x == nil || x.Status != report.StatusOK {
				t.Fatalf("result %+v", x)
			}
			const ops = 400
			sampledPerOp := float64(phasedTxn*phasedEvery) * float64((ops+phasedEvery-1)/phasedEvery) / ops
			want := map[string]float64{
				"phase_txn_ns": sampledPerOp, "phase_get_ns": 300, "phase_copy_ns": 200,
				"phase_txn_share": sampledPerOp / 1000, "phase_get_share": 0.3, "phase_copy_share": 0.2,
				"phase_other_ns": 1000 - 300 - 200 - sampledPerOp,
			}
			for _, rp := range x.Repeats {
				for k, v := range want {
					if g, ok := rp.Figures[k]; !ok || math.Abs(g-v) > 1e-9 {
						t.Errorf("repeat %d: %s = %v (present %v), want %v", rp.Index, k, g, ok, v)
					}
				}
				if _, ok := rp.Figures[report.RoundTrip]; ok {
					t.Errorf("round_trip_ns without round trips")
				}
			}
			if x.Profile == nil {
				t.Fatal("no Result.profile")
			}
			if x.Profile.ClockNs <= 0 || x.Profile.LapsPerOp != 1 {
				t.Errorf("profile %+v: want the clock's measured cost and 1 lap per lookup", x.Profile)
			}
			if got, want := x.Figures[report.ProfileOverhead], x.Profile.LapsPerOp*x.Profile.ClockNs; math.Abs(got-want) > 1e-9 {
				t.Errorf("profile_overhead_ns %v, want laps per op × clock ns = %v", got, want)
			}
			if got := fmt.Sprint(x.Profile.Phases); got != "[{txn sampled 4} {get timed 0} {copy timed 0}]" {
				t.Errorf("phases %s", got)
			}
			m := rep.Find("m", "lookup", 0)
			for k := range m.Figures {
				if _, ok := report.LookupFigure(k); ok && (k == report.PhaseOther || k == report.ProfileOverhead || len(k) > 6 && k[:6] == "phase_") {
					t.Errorf("target without phases has figure %s", k)
				}
			}
			if m.Profile != nil {
				t.Errorf("target without phases has a profile %+v", m.Profile)
			}
			if rep.Config["profile"] != true {
				t.Errorf("config as run %v lacks profile: true", rep.Config)
			}
		})
	}
}

// TestProfileInterleavedOps: with interleave: ops two targets timed per lookup alternate their
// lookups, each with a recorder of its own: each one's phases are its own, and a share is the
// phase's time over the repeat's summed latencies.
func TestProfileInterleavedOps(t *testing.T) {
	calls := &profileCalls{recs: map[*phase.Recorder]bool{}}
	_, p := resolvePlan(t, "test.yaml", `name: t
dataset: {persons: 300}
profile: true
interleave: ops
warmup: 1
repeats: 2
workloads:
  - {name: lookup, ops: 200}
targets:
  - {name: a, adapter: phased, options: {per_op: true}}
  - {name: b, adapter: phased, options: {per_op: true}}
  - {name: m, adapter: fake}
`, phased{calls: calls}, fake{log: &callLog{}})
	p.Verdict.Runs = 1
	rep, err := run(t, p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(calls.calls), "[rec rec nil nil rec rec nil nil]"; got != want {
		t.Errorf("Profile calls %s, want %s", got, want)
	}
	for _, name := range []string{"a", "b"} {
		x := rep.Find(name, "lookup", 0)
		for _, rp := range x.Repeats {
			if rp.Figures["phase_get_ns"] != 300 || rp.Figures["phase_copy_ns"] != 200 {
				t.Errorf("%s repeat %d: get %v copy %v, want 300 and 200 (its own phases only)", name, rp.Index, rp.Figures["phase_get_ns"], rp.Figures["phase_copy_ns"])
			}
			if got, want := rp.Figures["phase_get_share"], 300*float64(rp.Ops)/float64(rp.ElapsedNs); math.Abs(got-want) > 1e-12 {
				t.Errorf("%s: get share %v, want %v", name, got, want)
			}
			other := float64(rp.ElapsedNs)/float64(rp.Ops) - 500
			if got := rp.Figures["phase_other_ns"]; math.Abs(got-max(0, other)) > 1e-6 {
				t.Errorf("%s: other %v, want %v", name, got, other)
			}
		}
	}
	if x := rep.Find("m", "lookup", 0); x.Profile != nil {
		t.Errorf("a target that is no Profiler profiled: %+v", x.Profile)
	}
}

// TestNoProfileNoCall: without profile: true the engine never calls Profile and no result has a
// phase figure, even on a target that could be profiled.
func TestNoProfileNoCall(t *testing.T) {
	calls := &profileCalls{recs: map[*phase.Recorder]bool{}}
	rep, err := run(t, profiledPlan(t, calls, false, ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(calls.calls) != 0 {
		t.Errorf("Profile called %v without profile: true", calls.calls)
	}
	if got := fmt.Sprint(calls.envProfile); got != "[false]" {
		t.Errorf("Env.Profile at Open: %s, want [false]", got)
	}
	for _, x := range rep.Results {
		if x.Profile != nil {
			t.Errorf("%s: profile %+v", x.Target, x.Profile)
		}
		for _, rp := range x.Repeats {
			for k := range rp.Figures {
				if k == report.PhaseOther || k == report.ProfileOverhead || len(k) > 6 && k[:6] == "phase_" {
					t.Errorf("%s: figure %s without profile", x.Target, k)
				}
			}
		}
	}
}

// TestRepeatProfileOf: a repeat's figures from its totals, one case per rule.
func TestRepeatProfileOf(t *testing.T) {
	for _, tt := range []struct {
		name    string
		totals  phase.Totals
		ops     int64
		busy    time.Duration
		clockNs float64
		want    map[string]float64 // nil: no profile
		overrun float64
	}{
		{"timed phases", phase.Totals{Phases: []phase.Phase{{Name: "get", Ns: 3000}, {Name: "copy", Ns: 1000}}, Laps: 30},
			10, 10 * time.Microsecond, 20,
			map[string]float64{"phase_get_ns": 300, "phase_get_share": 0.3, "phase_copy_ns": 100, "phase_copy_share": 0.1,
				"phase_other_ns": 600, "profile_overhead_ns": 60}, 0},
		{"sampled overshoot clamps other at 0", phase.Totals{Phases: []phase.Phase{{Name: "get", Ns: 12000, Method: phase.Sampled, Every: 64}}, Laps: 2},
			10, 10 * time.Microsecond, 25,
			map[string]float64{"phase_get_ns": 1200, "phase_get_share": 1.2, "phase_other_ns": 0, "profile_overhead_ns": 5}, 1.2},
		{"client phases and round trips", phase.Totals{Phases: []phase.Phase{{Name: "decode", Ns: 500, Method: phase.Client}}, RoundTripNs: 8000, RoundTrips: 4},
			4, 8 * time.Microsecond, 20,
			map[string]float64{"phase_decode_ns": 125, "phase_decode_share": 0.0625, "phase_other_ns": 1875, "round_trip_ns": 2000}, 0}, // a client's clock reads are not dbbench's to state
		{"a sampled phase's noise below 0 counts as 0", phase.Totals{Phases: []phase.Phase{{Name: "get", Ns: -50, Method: phase.Sampled, Every: 64}, {Name: "copy", Ns: 400}}},
			4, 1000, 10,
			map[string]float64{"phase_get_ns": 0, "phase_get_share": 0, "phase_copy_ns": 100, "phase_copy_share": 0.4, "phase_other_ns": 150, "profile_overhead_ns": 0}, 0},
		{"nothing recorded", phase.Totals{Laps: 5}, 10, time.Microsecond, 20, nil, 0},
		{"no operations", phase.Totals{Phases: []phase.Phase{{Name: "get", Ns: 1}}}, 0, 0, 20, nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := repeatProfileOf(tt.totals, tt.ops, tt.busy, tt.clockNs)
			if tt.want == nil {
				if p != nil {
					t.Fatalf("profile %+v, want none", p)
				}
				return
			}
			if p == nil {
				t.Fatal("no profile")
			}
			if math.Abs(p.overrun-tt.overrun) > 1e-9 {
				t.Errorf("overrun %v, want %v", p.overrun, tt.overrun)
			}
			var acc profileAcc
			acc.add(p)
			if w := acc.warning(); (w != "") != (tt.overrun > 0) || tt.overrun > 0 && !strings.Contains(w, "up to 120%") {
				t.Errorf("warning %q for overrun %v", w, tt.overrun)
			}
			if len(p.figures) != len(tt.want) {
				t.Errorf("figures %v, want %v", p.figures, tt.want)
			}
			for k, v := range tt.want {
				if g, ok := p.figures[k]; !ok || math.Abs(g-v) > 1e-9 {
					t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
				}
			}
		})
	}
}

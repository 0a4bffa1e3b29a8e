package engine

import (
	"context"
	"math"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/memory"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/workloads"
)

// fakeClock is a clock that moves only when told: the clocked adapter moves it by what its work
// would cost, so a run's progress sees a deterministic schedule however fast the machine is.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// clocked is a memory store whose every piece of work advances the fake clock by a cost that
// depends on the dataset size (k = size/1000), more steeply than real stores' costs do, so that
// growth with size matters: a scanned row as k^0.35 (the cache holds less of it), a lookup as the
// square root, a loaded person logarithmically, an insert barely, and each target by its own factor. Opening costs a constant (starting a client), closing
// too.
type clocked struct{ clock *fakeClock }

func (c clocked) Info() adapters.Info {
	return adapters.Info{
		Name: "clocked", Builtin: workloads.Builtins,
		Options: []adapters.OptionSpec{{Name: "factor", Kind: adapters.Int, Default: "1"}},
	}
}

func (c clocked) Open(ctx context.Context, o adapters.Options, env adapters.Env) (adapters.Target, error) {
	inner, err := memory.New().Open(ctx, o, env)
	if err != nil {
		return nil, err
	}
	c.clock.advance(40 * time.Millisecond)
	k := float64(env.Size) / 1000
	f := float64(o.Int("factor"))
	ns := func(v float64) time.Duration { return time.Duration(v * f) }
	return &clockedTarget{Target: inner, clock: c.clock,
		load:   ns(20e3 * (1 + 0.1*math.Log2(k))),
		row:    ns(1e3 * math.Pow(k, 0.35)),
		lookup: ns(50e3 * math.Sqrt(k)),
		insert: ns(30e3 * math.Pow(k, 0.1)),
	}, nil
}

type clockedTarget struct {
	adapters.Target
	clock                     *fakeClock
	load, row, lookup, insert time.Duration
}

func (t *clockedTarget) Load(ctx context.Context, ds *dataset.Persons) error {
	t.clock.advance(time.Duration(ds.Len()) * t.load)
	return t.Target.Load(ctx, ds)
}

func (t *clockedTarget) Close() error {
	t.clock.advance(25 * time.Millisecond)
	return t.Target.Close()
}

func (t *clockedTarget) Scan(ctx context.Context, n int) (adapters.Tally, error) {
	t.clock.advance(time.Duration(n) * t.row)
	return t.Target.(adapters.Scanner).Scan(ctx, n)
}

func (t *clockedTarget) ScansInKeyOrder() bool { return true }

func (t *clockedTarget) Lookup(ctx context.Context, email []byte) (adapters.Tally, error) {
	t.clock.advance(t.lookup)
	return t.Target.(adapters.PointReader).Lookup(ctx, email)
}

func (t *clockedTarget) NewInsertSession(ctx context.Context) (adapters.InsertSession, error) {
	s, err := t.Target.(adapters.Inserter).NewInsertSession(ctx)
	return &clockedSession{InsertSession: s, t: t}, err
}

type clockedSession struct {
	adapters.InsertSession
	t *clockedTarget
}

func (s *clockedSession) Insert(ctx context.Context, p *dataset.Person) error {
	s.t.clock.advance(s.t.insert)
	return s.InsertSession.Insert(ctx, p)
}

// estimate is one estimate of the time left, made at fake time at, with the naive one the progress
// line used to make (the time per target-repeat so far, times the target-repeats left).
type estimate struct {
	at, left, naive time.Duration
	ok              bool
}

// TestETAWithinAQuarterOfTheTruth runs a 3-size sweep through the real engine on the clocked adapter
// and checks every estimate of the time left made from the first quarter of the run on: within 25%
// of the time the run then really took, with and without re-warm runs and interleaved operations.
func TestETAWithinAQuarterOfTheTruth(t *testing.T) {
	for _, extra := range []string{"", "isolation: rewarm\nrewarm: 2\ninterleave: ops\n"} {
		name := "plain"
		if extra != "" {
			name = "rewarm, interleave ops"
		}
		t.Run(name, func(t *testing.T) {
			clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			reg, err := adapters.NewRegistry(clocked{clock})
			if err != nil {
				t.Fatal(err)
			}
			c, err := config.Parse("eta.yaml", []byte(`name: eta
dataset: {sizes: [2000, 8000, 32000]}
warmup: 1
repeats: 3
`+extra+`workloads:
  - scan
  - {name: lookup, ops: 200}
  - {name: insert, ops: 100}
  - {name: concurrent, readers: 2, rows: 1000}
targets:
  - {name: fast, adapter: clocked}
  - {name: slow, adapter: clocked, options: {factor: 3}, workloads: [scan, lookup, concurrent]}
`))
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.Resolve(reg, false)
			if err != nil {
				t.Fatal(err)
			}
			p.Verdict.Runs = 1 // the ETA of one run, in this process
			start := clock.Now()
			var seen []estimate
			shown := 0 // finished-workload events with an ETA, before the last workload
			r := &Runner{Plan: p, TempDir: t.TempDir(), Clock: clock.Now,
				Events: func(e Event) {
					if d, ok := e.(WorkloadDone); ok && d.ETA.OK && d.Run < d.Runs {
						shown++
					}
				},
				Environment: func() report.Environment { return report.Environment{} },
				observeETA: func(pr *tracker, left time.Duration, ok bool) {
					now := clock.Now()
					e := estimate{at: now.Sub(start), left: left, ok: ok}
					if pr.ticks > 1 {
						e.naive = time.Duration(float64(now.Sub(pr.measuring)) / float64(pr.ticks-1) * float64(pr.units-pr.ticks+1))
					}
					seen = append(seen, e)
				}}
			rep, err := r.Run(context.Background())
			if err != nil || rep.Verdict != "pass" {
				t.Fatalf("run: %v, verdict %s", err, rep.Verdict)
			}
			total := clock.Now().Sub(start)
			checked, naiveOff := 0, 0
			worst := 0.0
			for _, e := range seen {
				if e.ok && os.Getenv("ETA_TRACE") != "" {
					t.Logf("at %v: ETA %v truth %v naive %v", e.at, e.left, total-e.at, e.naive)
				}
				if e.at < total/4 {
					continue
				}
				truth := total - e.at
				if !e.ok {
					t.Errorf("at %v of %v: no estimate", e.at, total)
					continue
				}
				checked++
				off := math.Abs(float64(e.left-truth)) / float64(truth)
				worst = max(worst, off)
				if off > 0.25 {
					t.Errorf("at %v of %v: ETA %v, the run took %v more (%.0f%% off)", e.at, total, e.left, truth, off*100)
				}
				if math.Abs(float64(e.naive-truth))/float64(truth) > 0.25 {
					naiveOff++
				}
			}
			if checked < 30 {
				t.Errorf("only %d estimates after the first quarter of %v", checked, total)
			}
			// the schedule is one that estimating from the average turn gets wrong
			if naiveOff < checked/4 {
				t.Errorf("the naive estimate is within 25%% at %d of %d points: the schedule does not test the model", checked-naiveOff, checked)
			}
			if shown == 0 {
				t.Errorf("no finished workload's progress carries an ETA")
			}
			t.Logf("%d estimates checked over %v of fake time, at most %.1f%% off; the naive one was more than 25%% off at %d", checked, total, worst*100, naiveOff)
		})
	}
}

// TestPrice: the price of a unit of work at a size: as measured there; from one other size, the same;
// from two, scaled by the growth between them (from the nearest two), within bounds.
func TestPrice(t *testing.T) {
	sizes := []int{1000, 2000, 4000, 8000}
	measured := func(m map[int]float64) *costs { // size index -> price, for 100 units of work
		var c costs
		for si, p := range m {
			c.add(si, p*100, 100)
		}
		return &c
	}
	tests := []struct {
		name string
		c    *costs
		si   int
		want float64
		ok   bool
	}{
		{"nothing measured", measured(nil), 2, 0, false},
		{"measured there", measured(map[int]float64{1: 7, 2: 9}), 2, 9, true},
		{"one size: kept", measured(map[int]float64{0: 5}), 3, 5, true},
		{"square root growth", measured(map[int]float64{0: 10, 1: 10 * math.Sqrt2}), 3, 10 * math.Sqrt(8), true},
		{"shrinking with size", measured(map[int]float64{0: 8, 1: 4}), 2, 2, true},
		{"the nearest two sizes", measured(map[int]float64{0: 100, 1: 10, 2: 20}), 3, 40, true},
		{"backwards, a smaller size", measured(map[int]float64{2: 20, 3: 40}), 0, 5, true},
		{"growth bounded", measured(map[int]float64{0: 1, 1: 1000}), 2, 4000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.c.price(tt.si, sizes)
			if ok != tt.ok || math.Abs(got-tt.want) > 1e-9*max(1, tt.want) {
				t.Errorf("price at %d = %v, %v; want %v, %v", sizes[tt.si], got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestUnseenWorkloadPrice: a workload that has not run yet is priced from the same workload on
// another target, else from its kind on the target, else from the other kind at opRows rows an
// operation.
func TestUnseenWorkloadPrice(t *testing.T) {
	p := &config.Plan{
		Sizes: []int{1000}, Warmup: 0, Repeats: 1,
		Workloads: []config.WorkloadPlan{{Name: "scan"}, {Name: "lookup", Ops: 10}, {Name: "concurrent", Readers: 2, Rows: 100}, {Name: "insert", Ops: 10}},
		Targets:   []config.TargetPlan{{Name: "a", Workloads: []string{"scan", "lookup", "concurrent", "insert"}}, {Name: "b", Workloads: []string{"scan", "lookup", "concurrent", "insert"}}},
	}
	t0 := time.Unix(0, 0)
	e := newEstimator(p, t0)
	e.sizeStart(t0, 1000)
	e.turn(t0, "scan", 0, 0)
	e.turn(t0.Add(1000*time.Microsecond), "scan", 0, 1)   // a: 1000 rows in 1 ms, 1 µs a row
	e.turn(t0.Add(3000*time.Microsecond), "lookup", 0, 0) // b: 2 µs a row
	e.turn(t0.Add(3500*time.Microsecond), "lookup", 0, 1) // a: 10 lookups in 0.5 ms, 50 µs each
	e.prices = nil
	for _, tt := range []struct {
		what   string
		wi, ti int
		want   float64 // ns a unit
	}{
		{"measured", 0, 1, 2000},
		{"the same workload on the other target", 1, 1, 50000},
		{"its kind on the target (concurrent from scan)", 2, 0, 1000},
		{"the other kind at opRows (insert from lookups)", 3, 0, 50000},
	} {
		if got := e.turnPrice(tt.wi, tt.ti, 0); math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("%s: %v ns a unit, want %v", tt.what, got, tt.want)
		}
	}
	e2 := newEstimator(p, t0)
	e2.sizeStart(t0, 1000)
	e2.turn(t0, "scan", 0, 0)
	e2.turn(t0.Add(time.Millisecond), "scan", 0, 1)
	if got := e2.turnPrice(1, 0, 0); math.Abs(got-1000*opRows) > 1e-6 {
		t.Errorf("a lookup before any operation ran: %v ns, want %d rows' worth", got, opRows)
	}
}

package typedb_test

import (
	"context"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/adapters/typedb/typedbtest"
	"github.com/dbbench/dbbench/dataset"
)

// phaseNs returns each phase's total by name.
func phaseNs(tt phase.Totals) map[string]time.Duration {
	m := map[string]time.Duration{}
	for _, p := range tt.Phases {
		m[p.Name] = time.Duration(p.Ns)
	}
	return m
}

// TestProfilePhases: every profiled workload's requests are split into send, wait, drain and
// decode, which together fit in the operation's own time; the server's delay shows in wait and
// nowhere else; after Profile(nil) nothing more is recorded.
func TestProfilePhases(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{})
	defer srv.Close()
	ds, _ := dataset.Generate(200, 3)
	ctx := context.Background()
	for _, mode := range []string{"oneshot", "transaction"} {
		t.Run(mode, func(t *testing.T) {
			tg := mustOpen(t, map[string]any{"address": srv.URL, "lookup_mode": mode, "concurrent_mode": "open-first"})
			if err := tg.Load(ctx, ds); err != nil {
				t.Fatal(err)
			}
			prof := tg.(adapters.Profiler)
			ops := map[string]func() error{
				"lookup": func() error { _, err := tg.(adapters.PointReader).Lookup(ctx, ds.Email(7)); return err },
				"scan":   func() error { _, err := tg.(adapters.Scanner).Scan(ctx, 150); return err },
			}
			for name, op := range ops {
				for _, delay := range []time.Duration{0, 30 * time.Millisecond} {
					srv.SetQueryDelay(delay)
					r := phase.New()
					prof.Profile(r)
					t0 := time.Now()
					err := op()
					took := time.Since(t0)
					prof.Profile(nil)
					srv.SetQueryDelay(0)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					got := phaseNs(r.Totals())
					var sum time.Duration
					for _, id := range []phase.ID{phase.Send, phase.Wait, phase.Drain, phase.Decode} {
						d, ok := got[id.Name()]
						if !ok {
							t.Errorf("%s, delay %v: no phase %s in %v", name, delay, id.Name(), got)
						}
						sum += d
					}
					if len(got) != 4 {
						t.Errorf("%s: phases %v, want send, wait, drain and decode only", name, got)
					}
					if sum > took || sum <= 0 {
						t.Errorf("%s, delay %v: phases sum to %v, operation took %v", name, delay, sum, took)
					}
					if got["wait"] < delay {
						t.Errorf("%s: wait %v with the server answering after %v", name, got["wait"], delay)
					}
					if delay > 0 && got["send"]+got["drain"]+got["decode"] > delay/2 {
						t.Errorf("%s: the server's delay leaks out of wait: %v", name, got)
					}
					// Nothing more once the engine takes the recorder back.
					before := r.Totals()
					if err := op(); err != nil {
						t.Fatal(err)
					}
					if after := r.Totals(); after.Laps != before.Laps || len(after.Phases) != len(before.Phases) {
						t.Errorf("%s: recorded after Profile(nil): %+v then %+v", name, before, after)
					}
				}
			}
		})
	}
}

// TestProfileConcurrentAndInsert: the concurrent readers' phases fit in their own latencies (the
// transactions opened before the barrier are not theirs), and the insert session's requests are
// profiled too.
func TestProfileConcurrentAndInsert(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{})
	defer srv.Close()
	ds, _ := dataset.Generate(100, 3)
	ctx := context.Background()
	tg := mustOpen(t, map[string]any{"address": srv.URL})
	if err := tg.Load(ctx, ds); err != nil {
		t.Fatal(err)
	}
	prof := tg.(adapters.Profiler)

	r := phase.New()
	prof.Profile(r)
	lat := make([]time.Duration, 3)
	if _, _, err := tg.(adapters.ConcurrentScanner).ScanConcurrently(ctx, 3, 50, lat); err != nil {
		t.Fatal(err)
	}
	prof.Profile(nil)
	var sum, total time.Duration
	for _, d := range phaseNs(r.Totals()) {
		sum += d
	}
	for _, d := range lat {
		total += d
	}
	if sum <= 0 || sum > total {
		t.Errorf("concurrent: phases sum to %v, the readers took %v in all", sum, total)
	}

	sess, err := tg.(adapters.Inserter).NewInsertSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	r = phase.New()
	prof.Profile(r)
	t0 := time.Now()
	err = sess.Begin(ctx)
	for i := 0; err == nil && i < 5; i++ {
		p := ds.Person(i)
		err = sess.Insert(ctx, &p)
	}
	if err == nil {
		err = sess.Commit(ctx)
	}
	took := time.Since(t0)
	prof.Profile(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := phaseNs(r.Totals())
	sum = 0
	for _, d := range got {
		sum += d
	}
	if len(got) != 4 || sum > took {
		t.Errorf("insert: phases %v summing to %v in %v", got, sum, took)
	}
}

// TestProfileReSignIn: a token the server rejects mid-run is renewed inside the profiled request;
// the sign-in adds no phase of its own and the request's phases still fit in its time.
func TestProfileReSignIn(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{})
	defer srv.Close()
	ds, _ := dataset.Generate(50, 3)
	ctx := context.Background()
	tg := mustOpen(t, map[string]any{"address": srv.URL})
	if err := tg.Load(ctx, ds); err != nil {
		t.Fatal(err)
	}
	signIns := srv.SignIns()
	srv.ExpireTokens()
	r := phase.New()
	tg.(adapters.Profiler).Profile(r)
	t0 := time.Now()
	_, err := tg.(adapters.PointReader).Lookup(ctx, ds.Email(3))
	took := time.Since(t0)
	tg.(adapters.Profiler).Profile(nil)
	if err != nil {
		t.Fatal(err)
	}
	if srv.SignIns() != signIns+1 {
		t.Fatalf("sign-ins %d, want %d: the token was not renewed in the profiled request", srv.SignIns(), signIns+1)
	}
	got := phaseNs(r.Totals())
	var sum time.Duration
	for _, d := range got {
		sum += d
	}
	if len(got) != 4 || sum > took {
		t.Errorf("phases %v summing to %v in %v", got, sum, took)
	}
}

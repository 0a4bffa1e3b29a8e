package exec

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/exec/exectest"
	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// TestProfileClientPhases: a client offering phases is asked for them in open when the run
// profiles, and its phases reach the recorder in its order, summing to its reported times, with
// dbbench's round trip of every timed request beside them; nothing is recorded outside a profiled
// repeat.
func TestProfileClientPhases(t *testing.T) {
	ds, _ := dataset.Generate(testSize, 1)
	tg, _, err := open(t, ds, exectest.OK, "", map[string]any{"profile": true})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx := context.Background()
	if err := tg.Load(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if got := tg.Info()["client_info"].(map[string]any)["profile"]; got != true {
		t.Fatalf("open did not ask the client for its phases: client info profile = %v", got)
	}
	prof := tg.(adapters.Profiler)
	for _, tc := range []struct {
		name     string
		requests int64
		op       func() (time.Duration, error) // the client's own time
		parallel bool                          // readers' times, which overlap in the round trip
	}{
		{"scan", 1, func() (time.Duration, error) {
			_, d, err := tg.(adapters.TimedScanner).TimedScan(ctx, 200)
			return d, err
		}, false},
		{"lookup", 1, func() (time.Duration, error) {
			lat := make([]time.Duration, 20)
			_, err := tg.(adapters.TimedPointReader).TimedLookups(ctx, ds, ds.Sample(20, 1), lat)
			return sum(lat), err
		}, false},
		{"insert", 1, func() (time.Duration, error) {
			_, d, err := tg.(adapters.TimedInserter).TimedInsert(ctx, ds, 50)
			return d, err
		}, false},
		{"concurrent", 1, func() (time.Duration, error) {
			lat := make([]time.Duration, 3)
			_, _, err := tg.(adapters.TimedConcurrentScanner).TimedScanConcurrently(ctx, 3, 100, lat)
			return sum(lat), err
		}, true},
		{"run twice", 2, func() (time.Duration, error) {
			var total time.Duration
			for range 2 {
				lat := make([]time.Duration, 5)
				if _, err := tg.(adapters.TimedCustomRunner).TimedRun(ctx, "echo", nil, lat); err != nil {
					return 0, err
				}
				total += sum(lat)
			}
			return total, nil
		}, false},
	} {
		r := phase.New()
		prof.Profile(r)
		own, err := tc.op()
		prof.Profile(nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		tt := r.Totals()
		var names []string
		var got int64
		for _, p := range tt.Phases {
			names = append(names, p.Name)
			got += p.Ns
			if p.Method != phase.Client {
				t.Errorf("%s: phase %s read as %s, want client", tc.name, p.Name, p.Method)
			}
		}
		if strings.Join(names, ",") != "work,decode" || got != own.Nanoseconds() {
			t.Errorf("%s: phases %v summing to %d ns, want work then decode summing to the client's %d ns", tc.name, tt.Phases, got, own.Nanoseconds())
		}
		if tt.RoundTrips != tc.requests || !tc.parallel && time.Duration(tt.RoundTripNs) < own || tt.RoundTripNs <= 0 {
			t.Errorf("%s: %d round trips of %v in all, want %d covering the client's %v", tc.name, tt.RoundTrips, time.Duration(tt.RoundTripNs), tc.requests, own)
		}
		if tt.Laps != 0 {
			t.Errorf("%s: %d clock reads of dbbench's own counted as the profile's", tc.name, tt.Laps)
		}
		before := r.Totals()
		if _, err := tc.op(); err != nil {
			t.Fatal(err)
		}
		if after := r.Totals(); after.RoundTrips != before.RoundTrips || len(after.Phases) != len(before.Phases) || after.Phases[0].Ns != before.Phases[0].Ns {
			t.Errorf("%s: recorded after Profile(nil)", tc.name)
		}
	}
}

func sum(ds []time.Duration) (s time.Duration) {
	for _, d := range ds {
		s += d
	}
	return s
}

// TestProfileNotAsked: without --profile, open asks nothing and a correct client sends no phases;
// a client that does not offer phases is not asked even when the run profiles, its results get no
// profile at all (no phases, no round trips), and the target says so.
func TestProfileNotAsked(t *testing.T) {
	ds, _ := dataset.Generate(testSize, 1)
	for _, tc := range []struct {
		behaviour string
		profile   bool
		says      string
	}{
		{exectest.OK, false, ""},
		{exectest.V1, true, "none: the client does not offer capability phases"},
	} {
		tg, _, err := open(t, ds, tc.behaviour, "", map[string]any{"profile": tc.profile})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := tg.Load(ctx, ds); err != nil {
			t.Fatal(err)
		}
		if got := tg.Info()["client_info"].(map[string]any)["profile"]; got != false {
			t.Errorf("%s: open asked for phases (profile %v)", tc.behaviour, got)
		}
		says, _ := tg.Info()["protocol"].(map[string]any)["phases"].(string)
		if tc.says == "" && says != "" || !strings.HasPrefix(says, tc.says) {
			t.Errorf("%s: the target says of its phases %q, want %q", tc.behaviour, says, tc.says)
		}
		r := phase.New()
		tg.(adapters.Profiler).Profile(r)
		_, _, err = tg.(adapters.TimedScanner).TimedScan(ctx, 100)
		tg.(adapters.Profiler).Profile(nil)
		if err != nil {
			t.Fatal(err)
		}
		if tt := r.Totals(); len(tt.Phases) != 0 || tt.RoundTrips != 0 {
			t.Errorf("%s: %+v, want no phases and no round trip", tc.behaviour, tt)
		}
		tg.Close()
	}
}

// TestProfileBadPhases: phases that cannot be true, or that were not asked for, fail the client in
// one line (exit 3), as any other malformed reply.
func TestProfileBadPhases(t *testing.T) {
	ds, _ := dataset.Generate(testSize, 1)
	for _, tc := range []struct {
		behaviour, at string
		profile       bool
		want          string
	}{
		{exectest.PhasesOver, "scan", true, "scan reply: phases_ns sum to more than the reply's own time"},
		{exectest.PhasesOver, "lookup", true, "lookup reply: phases_ns sum to more than the reply's own time"},
		{exectest.PhasesOver, "concurrent", true, "concurrent reply: phases_ns sum to more than the reply's own time"},
		{exectest.PhasesUnasked, "scan", false, "scan reply carries phases_ns, which open did not ask for"},
		{exectest.PhasesBadName, "insert", true, `insert reply: phase name "Work-Time"`},
		{exectest.PhasesNegative, "run", true, "run reply: phase work: negative time -1 ns"},
	} {
		tg, _, err := open(t, ds, tc.behaviour, tc.at, map[string]any{"profile": tc.profile})
		if err != nil {
			t.Fatal(err)
		}
		tg.(adapters.Profiler).Profile(phase.New())
		err = exercise(tg, ds)
		tg.Close()
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || exitcode.Of(err) != exitcode.Infra {
			t.Errorf("%s at %s: %v (exit %d), want one line with %q, exit 3", tc.behaviour, tc.at, err, exitcode.Of(err), tc.want)
		}
	}
}

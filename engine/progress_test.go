package engine

import (
	"strings"
	"testing"

	"github.com/dbbench/dbbench/config"
)

// TestProgressPosition drives the tracker as the engine does: every target's turn is announced with
// which workload run of how many, which target and which repeat (warm-ups first), an ETA once a turn
// is done, and every planned target-repeat is counted once.
func TestProgressPosition(t *testing.T) {
	long := "a-target-with-a-very-long-name-" + strings.Repeat("x", 100)
	pl := &config.Plan{
		Name: "t", Sizes: []int{100, 200}, Warmup: 1, Repeats: 2,
		Workloads: []config.WorkloadPlan{{Name: "scan"}, {Name: "lookup"}},
		Targets: []config.TargetPlan{
			{Name: "a", Workloads: []string{"scan", "lookup"}},
			{Name: long, Workloads: []string{"scan"}},
		},
	}
	var events []Event
	p := newTracker(func(e Event) { events = append(events, e) }, nil)
	p.start(pl)
	if p.runs != 4 || p.units != 2*(2+1)*3 {
		t.Fatalf("planned %d workload runs and %d target-repeats, want 4 and 18", p.runs, p.units)
	}
	for _, size := range pl.Sizes {
		for _, w := range pl.Workloads {
			for rep := 0; rep < pl.Warmup+pl.Repeats; rep++ {
				p.step(w.Name, size, rep, pl.Warmup, pl.Repeats)
				for _, tp := range pl.Targets {
					if tp.Runs(w.Name) {
						p.target(tp.Name)
					}
				}
			}
		}
	}
	p.finish()
	if p.ticks != p.units {
		t.Errorf("%d target-repeats counted, %d planned", p.ticks, p.units)
	}
	if s, ok := events[0].(Started); !ok || s.Plan != pl {
		t.Errorf("first event %#v, want Started with the plan", events[0])
	}
	if _, ok := events[len(events)-1].(Finished); !ok {
		t.Errorf("last event %#v, want Finished", events[len(events)-1])
	}
	var turns []Turn
	eta := false
	for _, e := range events {
		if tu, ok := e.(Turn); ok {
			turns = append(turns, tu)
			eta = eta || tu.ETA.OK && tu.ETA.Left >= 0
		}
	}
	if len(turns) != p.units {
		t.Errorf("%d turns announced, %d planned", len(turns), p.units)
	}
	for _, want := range []Turn{
		{Position: Position{Run: 1, Runs: 4, Workload: "scan", Size: 100}, Target: "a", Repeat: 0, Warmup: 1, Repeats: 2},
		{Position: Position{Run: 1, Runs: 4, Workload: "scan", Size: 100}, Target: long, Repeat: 2, Warmup: 1, Repeats: 2},
		{Position: Position{Run: 2, Runs: 4, Workload: "lookup", Size: 100}, Target: "a", Repeat: 2, Warmup: 1, Repeats: 2},
		{Position: Position{Run: 4, Runs: 4, Workload: "lookup", Size: 200}, Target: "a", Repeat: 1, Warmup: 1, Repeats: 2},
	} {
		found := false
		for _, tu := range turns {
			tu.ETA = ETA{}
			found = found || tu == want
		}
		if !found {
			t.Errorf("no turn %+v", want)
		}
	}
	if !eta {
		t.Errorf("no turn carries an ETA")
	}
}

// TestProgressSilent: without a receiver the tracker sends nothing and estimates nothing, but still
// counts the target-repeats.
func TestProgressSilent(t *testing.T) {
	p := newTracker(nil, nil)
	pl := &config.Plan{Name: "t", Sizes: []int{10}, Repeats: 1, Workloads: []config.WorkloadPlan{{Name: "scan"}}, Targets: []config.TargetPlan{{Name: "a", Workloads: []string{"scan"}}}}
	p.start(pl)
	p.printf("a note")
	p.logf("a")("a line")
	p.step("scan", 10, 0, 0, 1)
	p.target("a")
	p.done("scan", 10, nil)
	p.finish()
	if p.est != nil || p.ticks != 1 {
		t.Errorf("silent tracker: estimator %v, %d ticks", p.est, p.ticks)
	}
}

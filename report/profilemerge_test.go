package report

import (
	"fmt"
	"math"
	"testing"
)

// TestMergeProfiles: over runs or shards, the phases of all in first-seen order and the medians.
func TestMergeProfiles(t *testing.T) {
	a := &Profile{Phases: []ProfilePhase{{Name: "txn", Method: "timed"}, {Name: "get", Method: "sampled", Every: 64}}, ClockNs: 20, LapsPerOp: 2}
	b := &Profile{Phases: []ProfilePhase{{Name: "get", Method: "sampled", Every: 64}, {Name: "copy", Method: "timed"}}, ClockNs: 30, LapsPerOp: 4}
	c := &Profile{Phases: []ProfilePhase{{Name: "txn", Method: "timed"}}, ClockNs: 25, LapsPerOp: 3}
	got := MergeProfiles([]*Profile{a, nil, b, c})
	if got == nil || got.ClockNs != 25 || got.LapsPerOp != 3 || fmt.Sprint(got.Phases) != "[{txn timed 0} {get sampled 64} {copy timed 0}]" {
		t.Errorf("merged %+v", got)
	}
	if MergeProfiles([]*Profile{nil, nil}) != nil {
		t.Error("a merge of unprofiled results has a profile")
	}
}

// TestMergeProfileFigures: a merged repeat's profile figures are those of one process doing all
// the shards' operations: per operation weighted by operations, shares by the operations' time.
func TestMergeProfileFigures(t *testing.T) {
	// Shard A: 100 ops of mean 1000 ns, get 300 ns each. Shard B: 300 ops of mean 2000 ns, get 500.
	reps := []Repeat{
		{Ops: 100, Figures: map[string]float64{"mean": 1000, "phase_get_ns": 300, "phase_get_share": 0.3, "phase_other_ns": 700, "profile_overhead_ns": 40, "p50": 1}},
		{Ops: 300, Figures: map[string]float64{"mean": 2000, "phase_get_ns": 500, "phase_get_share": 0.25, "phase_other_ns": 1500, "profile_overhead_ns": 40, "p50": 2}},
	}
	f := map[string]float64{"p50": 9}
	mergeProfileFigures(f, reps)
	// get: (100×300 + 300×500) / 400 = 450 ns; its time 180,000 ns over 700,000 ns of operations.
	want := map[string]float64{"p50": 9, "phase_get_ns": 450, "phase_get_share": 180000.0 / 700000, "phase_other_ns": 1300, "profile_overhead_ns": 40}
	if len(f) != len(want) {
		t.Errorf("figures %v, want %v", f, want)
	}
	for k, v := range want {
		if math.Abs(f[k]-v) > 1e-9 {
			t.Errorf("%s = %v, want %v", k, f[k], v)
		}
	}
}

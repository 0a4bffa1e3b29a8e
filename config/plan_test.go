package config

import (
	"reflect"
	"testing"
	"time"

	"github.com/dbbench/dbbench/report"
)

// TestRunInfo: the report's run takes every field of the plan it describes, and its order says
// how the targets alternate under each isolation and interleave.
func TestRunInfo(t *testing.T) {
	p := (&Plan{
		Source: "x.yaml", Name: "x", Seed: 9, Sizes: []int{10, 20}, Warmup: 2, Repeats: 7,
		Isolation: IsolationRewarm, Rewarm: 3, Baseline: "a", CI: true, Relax: 0.1,
	}).Normalize()
	want := report.Run{
		ConfigName: "x", ConfigPath: "x.yaml", CI: true, Relax: 0.1, Seed: 9, Sizes: []int{10, 20},
		Warmup: 2, Repeats: 7, Order: orderRepeats, Isolation: IsolationRewarm, Rewarm: 3, Baseline: "a",
	}
	if got := p.RunInfo(); !reflect.DeepEqual(got, want) {
		t.Errorf("RunInfo = %+v\nwant      %+v", got, want)
	}
	for _, tt := range []struct {
		isolation, interleave string
		order                 string
		rewarm                int
	}{
		{IsolationNone, InterleaveRepeats, "interleaved ABAB (targets in config order, each repeat)", 0},
		{IsolationNone, InterleaveOps, orderOps, 0},
		{IsolationRewarm, InterleaveOps, orderOps, DefaultRewarm},
		{IsolationProcess, InterleaveRepeats, "interleaved ABAB (targets in config order, each repeat), one process per target", DefaultRewarm},
	} {
		p := (&Plan{Isolation: tt.isolation, Interleave: tt.interleave}).Normalize()
		got := p.RunInfo()
		if got.Order != tt.order || got.Isolation != tt.isolation || got.Rewarm != tt.rewarm {
			t.Errorf("%s/%s: order %q, isolation %q, rewarm %d; want %q, %q, %d", tt.isolation, tt.interleave, got.Order, got.Isolation, got.Rewarm, tt.order, tt.isolation, tt.rewarm)
		}
	}
}

// TestNormalize: a plan built in code gets the config's defaults for what it leaves zero, keeps
// what it gives, and says how many re-warm runs precede a timed repeat only when it re-warms.
func TestNormalize(t *testing.T) {
	dv := VerdictPlan{Runs: DefaultRuns, Confidence: DefaultConfidence, MaxLooks: DefaultMaxLooks}
	for _, tt := range []struct {
		name       string
		in, want   Plan
		rewarmRuns int
	}{
		{"zero", Plan{},
			Plan{Isolation: IsolationNone, Interleave: InterleaveRepeats, Rewarm: DefaultRewarm, StallTimeout: DefaultStallTimeout, Verdict: dv}, 0},
		{"rewarm by default", Plan{Isolation: IsolationRewarm},
			Plan{Isolation: IsolationRewarm, Interleave: InterleaveRepeats, Rewarm: DefaultRewarm, StallTimeout: DefaultStallTimeout, Verdict: dv}, DefaultRewarm},
		{"given", Plan{Isolation: IsolationProcess, Interleave: InterleaveOps, Rewarm: 3, StallTimeout: 5 * time.Second,
			Verdict: VerdictPlan{Runs: 5, Confidence: 0.99, Budget: time.Minute, MaxLooks: 2}},
			Plan{Isolation: IsolationProcess, Interleave: InterleaveOps, Rewarm: 3, StallTimeout: 5 * time.Second,
				Verdict: VerdictPlan{Runs: 5, Confidence: 0.99, Budget: time.Minute, MaxLooks: 2}}, 3},
		{"rewarm runs without isolation", Plan{Isolation: IsolationNone, Rewarm: 4},
			Plan{Isolation: IsolationNone, Interleave: InterleaveRepeats, Rewarm: 4, StallTimeout: DefaultStallTimeout, Verdict: dv}, 0},
		{"negative stall timeout", Plan{StallTimeout: -time.Second},
			Plan{Isolation: IsolationNone, Interleave: InterleaveRepeats, Rewarm: DefaultRewarm, StallTimeout: DefaultStallTimeout, Verdict: dv}, 0},
		{"one run", Plan{Verdict: VerdictPlan{Runs: 1}},
			Plan{Isolation: IsolationNone, Interleave: InterleaveRepeats, Rewarm: DefaultRewarm, StallTimeout: DefaultStallTimeout,
				Verdict: VerdictPlan{Runs: 1, Confidence: DefaultConfidence, MaxLooks: DefaultMaxLooks}}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.in
			if got := p.Normalize(); got != &p {
				t.Errorf("Normalize returned another plan")
			}
			if !reflect.DeepEqual(p, tt.want) {
				t.Errorf("normalized %+v\nwant       %+v", p, tt.want)
			}
			again := p
			if again.Normalize(); !reflect.DeepEqual(again, p) {
				t.Errorf("normalizing twice changed the plan: %+v", again)
			}
			if got := p.RewarmRuns(); got != tt.rewarmRuns {
				t.Errorf("RewarmRuns = %d, want %d", got, tt.rewarmRuns)
			}
		})
	}
}

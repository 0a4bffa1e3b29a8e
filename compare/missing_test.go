package compare

import (
	"slices"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/compare/comparetest"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
)

// TestMissingEvidence: a result or a figure with values on one side only is missing evidence, never
// a silent pass. Missing in NEW fails a gate (exit 1, naming it); missing in OLD, or from a target
// NEW skipped with a reason, leaves it inconclusive (exit 4, naming it); --allow-missing accepts them
// and says so; without a threshold compare exits 0 and lists them. A figure neither side defines is
// not missing. Lies it catches: the gate passing over a result NEW lost (as it did), a FAIL for a
// skipped optional target, a missing figure dropped without a row or a line.
func TestMissingEvidence(t *testing.T) {
	vals := comparetest.Noisy(1e6, .02, 8, 1)
	res := func(target, workload string, figs ...string) ct {
		x := ct{Target: target, Workload: workload, Figures: map[string][]float64{}}
		for _, f := range figs {
			x.Figures[f] = vals
		}
		return x
	}
	full := func() *report.Report {
		return comparetest.Report("t", res("a", "lookup", "rows_per_s", "p50"), res("b", "lookup", "rows_per_s", "p50"))
	}
	withoutB := comparetest.Report("t", res("a", "lookup", "rows_per_s", "p50"))
	skippedB := comparetest.Report("t", res("a", "lookup", "rows_per_s", "p50"))
	skippedB.Targets = append(skippedB.Targets, report.Target{Name: "b", Adapter: "memory", Status: report.StatusSkipped, Reason: "no server at localhost:5432"})
	noP50 := comparetest.Report("t", res("a", "lookup", "rows_per_s", "p50"), res("b", "lookup", "rows_per_s"))
	tests := []struct {
		name         string
		old, new     *report.Report
		threshold    bool
		allowMissing bool
		wantGate     GateStatus
		wantCode     int
		wantMissing  []string // "in: target workload figures: reason"
		wantLine     string   // in the exit line (or a note with --allow-missing, or nothing)
	}{
		{"a result missing in NEW fails the gate", full(), withoutB, true, false, GateFail, exitcode.Failed,
			[]string{"new: b lookup rows_per_s,p50: only in OLD"}, "gate failed: b lookup rows_per_s: missing in NEW: only in OLD (2 of 4 gated figures failed)"},
		{"--allow-missing accepts it and says so", full(), withoutB, true, true, GatePass, exitcode.OK,
			[]string{"new: b lookup rows_per_s,p50: only in OLD"}, "--allow-missing: 2 gated figures with values on one side only not held against the gate: b lookup rows_per_s (missing in NEW), b lookup p50 (missing in NEW)"},
		{"a result missing in OLD is inconclusive", withoutB, full(), true, false, GateInconclusive, exitcode.Inconclusive,
			[]string{"old: b lookup rows_per_s,p50: only in NEW"}, "first: b lookup rows_per_s: missing in OLD: only in NEW"},
		{"a target NEW skipped with a reason is inconclusive, named", full(), skippedB, true, false, GateInconclusive, exitcode.Inconclusive,
			[]string{"new: b lookup rows_per_s,p50: NEW skipped b: no server at localhost:5432"}, "first: b lookup rows_per_s: missing in NEW: NEW skipped b: no server at localhost:5432"},
		{"a figure missing in NEW fails the gate", full(), noP50, true, false, GateFail, exitcode.Failed,
			[]string{"new: b lookup p50: values only in OLD"}, "gate failed: b lookup p50: missing in NEW: values only in OLD (1 of 4 gated figures failed)"},
		{"without a threshold: listed, exit 0", full(), withoutB, false, false, GateNone, exitcode.OK,
			[]string{"new: b lookup rows_per_s,p50: only in OLD"}, ""},
		{"a figure neither side defines is not missing", noP50, noP50, true, false, GatePass, exitcode.OK, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{PerRepeat: true, AllowMissing: tt.allowMissing}
			if tt.threshold {
				opts.Thresholds = gate10()
			}
			c, err := Compare(tt.old, tt.new, opts)
			if err != nil {
				t.Fatal(err)
			}
			var missing []string
			for _, u := range c.Unpaired {
				missing = append(missing, u.In+": "+u.Target+" "+u.Workload+" "+strings.Join(u.Figures, ",")+": "+u.Reason)
			}
			if !slices.Equal(missing, tt.wantMissing) {
				t.Errorf("missing %q, want %q", missing, tt.wantMissing)
			}
			code, line := c.Outcome()
			if c.Gate.Verdict != tt.wantGate || code != tt.wantCode {
				t.Errorf("gate %q exit %d (%q), want %q exit %d", c.Gate.Verdict, code, line, tt.wantGate, tt.wantCode)
			}
			switch {
			case tt.allowMissing:
				if !slices.Contains(c.Notes, tt.wantLine) {
					t.Errorf("notes %q, want %q", c.Notes, tt.wantLine)
				}
			case tt.wantLine != "" && !strings.Contains(line, tt.wantLine):
				t.Errorf("exit line %q, want it to contain %q", line, tt.wantLine)
			}
			var text strings.Builder
			if err := WriteText(&text, c); err != nil {
				t.Fatal(err)
			}
			for _, u := range c.Unpaired {
				if !strings.Contains(text.String(), "missing in "+sideName(c, u.In)+": "+u.Target+" "+u.Workload) {
					t.Errorf("the text does not show %s %s missing in %s:\n%s", u.Target, u.Workload, u.In, text.String())
				}
			}
		})
	}
}

// TestGateLineNamesTheWorstFailure: the error line of a failed gate names the figure that got worst
// among those that failed, never an undecided one listed before it, and how many failed.
func TestGateLineNamesTheWorstFailure(t *testing.T) {
	base := comparetest.Noisy(1e6, .01, 10, 1)
	old := comparetest.Report("t",
		ct{Target: "a", Workload: "scan", Figures: map[string][]float64{"rows_per_s": comparetest.Noisy(1e6, .30, 4, 2)}},
		ct{Target: "b", Workload: "scan", Figures: map[string][]float64{"rows_per_s": base}},
		ct{Target: "c", Workload: "scan", Figures: map[string][]float64{"rows_per_s": base}},
	)
	new := comparetest.Report("t",
		ct{Target: "a", Workload: "scan", Figures: map[string][]float64{"rows_per_s": comparetest.Noisy(0.9e6, .30, 4, 3)}}, // undecided
		ct{Target: "b", Workload: "scan", Figures: map[string][]float64{"rows_per_s": comparetest.Scale(base, 0.8)}},        // 20% worse
		ct{Target: "c", Workload: "scan", Figures: map[string][]float64{"rows_per_s": comparetest.Scale(base, 0.5)}},        // 50% worse
	)
	c, err := Compare(old, new, Options{PerRepeat: true, Thresholds: gate10()})
	if err != nil {
		t.Fatal(err)
	}
	if c.Rows[0].Gate != GateInconclusive {
		t.Fatalf("a scan: gate %q, want inconclusive for this test", c.Rows[0].Gate)
	}
	code, line := c.Outcome()
	if code != exitcode.Failed || !strings.HasPrefix(line, "gate failed: c scan rows_per_s: -50.0%: interval") || !strings.HasSuffix(line, "(2 of 3 gated figures failed)") {
		t.Errorf("exit %d %q, want 1 naming c scan (the worst) and 2 of 3 failed", code, line)
	}
}

// TestRunsToDecideIsOneNumberOrNone: the gate says what would decide all its undecided figures in
// one phrase, a number of runs a side or "none" naming the figure that sits on its threshold, and
// each figure's reason says its own in the same words.
func TestRunsToDecideIsOneNumberOrNone(t *testing.T) {
	onThreshold := comparetest.Scale(comparetest.Noisy(1e6, .04, 5, 4), 1)
	old := comparetest.Report("t",
		ct{Target: "a", Workload: "scan", Figures: map[string][]float64{"rows_per_s": comparetest.Noisy(1e6, .05, 5, 1)}},
		ct{Target: "b", Workload: "scan", Figures: map[string][]float64{"rows_per_s": onThreshold}},
	)
	new := comparetest.Report("t",
		ct{Target: "a", Workload: "scan", Figures: map[string][]float64{"rows_per_s": comparetest.Noisy(0.93e6, .05, 5, 2)}},
		ct{Target: "b", Workload: "scan", Figures: map[string][]float64{"rows_per_s": comparetest.Scale(onThreshold, 0.9)}},
	)
	c, err := Compare(old, new, Options{PerRepeat: true, Thresholds: gate10()})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := WriteText(&text, c); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	if c.Gate.Verdict != GateInconclusive || c.Gate.RunsNeeded != -1 {
		t.Fatalf("gate %q runs needed %d, want inconclusive with one figure on its threshold:\n%s", c.Gate.Verdict, c.Gate.RunsNeeded, out)
	}
	for _, want := range []string{"to decide them all: none (b scan rows_per_s sits on its threshold)", "a scan rows_per_s: interval", "; to decide: about ", "b scan rows_per_s: interval", "; to decide: none (the change sits so close"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("the text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "practical number") || strings.Contains(out, "would decide") {
		t.Errorf("the text says what would decide in other words too:\n%s", out)
	}
}

// TestNotComparableAcrossSchemaVersions: a version 2 report against a version 3 one: the load-model
// result's figures that version 3 redefined are not comparable (a note naming them), neither a row
// nor missing, and never held against the gate; its error count and the persons workloads compare.
func TestNotComparableAcrossSchemaVersions(t *testing.T) {
	mk := func(version int, loadFigs ...string) *report.Report {
		load := ct{Target: "a", Workload: "ycsb-c", Unit: "op", Figures: map[string][]float64{"errors": {2, 2, 2, 2}}}
		for _, f := range loadFigs {
			load.Figures[f] = comparetest.Noisy(1000, .01, 4, 1)
		}
		r := comparetest.Report("t", ct{Target: "a", Workload: "lookup", Figures: map[string][]float64{"rows_per_s": comparetest.Noisy(1e6, .01, 4, 2)}}, load)
		r.SchemaVersion = version
		r.Results[1].Load = &report.Load{Loop: "open"}
		return r
	}
	// version 2 recorded a closed loop's start lag as 0; version 3 has none
	old := mk(2, "achieved_rate", "response_p50", "response_p99", "start_lag_p99")
	new := mk(3, "achieved_rate", "response_p50", "response_p99")
	c, err := Compare(old, new, Options{PerRepeat: true, Thresholds: gate10(), Figures: []string{"rows_per_s", "achieved_rate", "response_p99", "start_lag_p99", "errors"}})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, r := range c.Rows {
		rows = append(rows, r.Workload+" "+r.Figure)
	}
	if want := []string{"lookup rows_per_s", "ycsb-c errors"}; !slices.Equal(rows, want) {
		t.Errorf("rows %q, want %q", rows, want)
	}
	if len(c.Unpaired) != 0 || c.Gate.Verdict != GatePass {
		t.Errorf("missing %+v, gate %q: a redefined figure is neither missing nor held against the gate", c.Unpaired, c.Gate.Verdict)
	}
	want := "not comparable (schema versions 2 and 3: version 3 counts a load-model result's operations, rates and clocks over successful operations only, " +
		"adds error_rate and generator_late, and gives a closed loop no schedule figures): a ycsb-c: achieved_rate, response_p99, start_lag_p99"
	if !slices.Contains(c.Notes, want) {
		t.Errorf("notes %q, want %q", c.Notes, want)
	}
	// Every default figure of the load-model result redefined and nothing else to compare: refused,
	// saying why.
	old.Results, new.Results = old.Results[1:], new.Results[1:]
	if _, err := Compare(old, new, Options{PerRepeat: true}); err == nil || !strings.Contains(err.Error(), "not comparable across schema versions 2 and 3") {
		t.Errorf("error %v, want one saying the figures are not comparable across versions", err)
	}
}

package compare

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/compare/comparetest"
	"github.com/dbbench/dbbench/report"
)

// driftingRuns are the results of n runs on a machine whose speed drifts from run to run (every
// target of a run shares its level), sut k times slower in lookups than its nominal speed.
func driftingRuns(rng *rand.Rand, n int, k float64) [][]ct {
	out := make([][]ct, n)
	for i := range out {
		level := 1 + .1*(2*rng.Float64()-1)
		seed := rng.Uint64()
		out[i] = []ct{
			{Target: "ref", Workload: "lookup", Figures: map[string][]float64{
				"ns_per_op": comparetest.Noisy(500*level, .02, 7, seed), "rows_per_s": comparetest.Noisy(2e6/level, .02, 7, seed+1)}},
			{Target: "sut", Workload: "lookup", Figures: map[string][]float64{
				"ns_per_op": comparetest.Noisy(800*level*k, .02, 7, seed+2), "rows_per_s": comparetest.Noisy(1.25e6/level/k, .02, 7, seed+3)}},
		}
	}
	return out
}

// v1s are the runs as separate schema 1 reports, v2 as one report holding them all.
func v1s(runs [][]ct) []*report.Report {
	out := make([]*report.Report, len(runs))
	for i, r := range runs {
		out[i] = comparetest.Report("drift", r...)
		out[i].Run.Baseline = "ref"
	}
	return out
}

func v2(runs [][]ct) *report.Report {
	r := comparetest.Runs("drift", runs...)
	r.Run.Baseline = "ref"
	return r
}

// A report holding five runs gives the same samples, intervals and decisions as the five runs in
// separate reports, normalized (each repeat paired with the reference's of the same run, although
// repeats number from 0 again in every run) or not, by median or best repeat, and mixed with
// schema 1 reports on the other side.
func TestMultiRunReportIsItsRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	old, new := driftingRuns(rng, 5, 1), driftingRuns(rng, 5, 1.08)
	var th Thresholds
	if err := th.Set("5%"); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{
		{Thresholds: &th},
		{Thresholds: &th, RunValue: report.RunBest},
		{Thresholds: &th, NoNormalize: true},
		{Thresholds: &th, DropSlowest: 1},
	} {
		want, err := CompareRuns(v1s(old), v1s(new), opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, sides := range []struct {
			name     string
			old, new []*report.Report
		}{
			{"both schema 2", []*report.Report{v2(old)}, []*report.Report{v2(new)}},
			{"schema 1 against schema 2", v1s(old), []*report.Report{v2(new)}},
			{"schema 2 split over two reports", []*report.Report{v2(old[:2]), v2(old[2:])}, v1s(new)},
		} {
			got, err := CompareRuns(sides.old, sides.new, opts)
			if err != nil {
				t.Fatalf("%s: %v", sides.name, err)
			}
			if got.Sample != SampleRuns || got.Old.Runs != 5 || got.New.Runs != 5 {
				t.Errorf("%s: sample %q, runs %d and %d, want runs, 5 and 5", sides.name, got.Sample, got.Old.Runs, got.New.Runs)
			}
			if len(got.Rows) != len(want.Rows) || len(got.Rows) == 0 {
				t.Fatalf("%s: %d rows, want %d", sides.name, len(got.Rows), len(want.Rows))
			}
			for i := range want.Rows {
				w, g := want.Rows[i], got.Rows[i]
				// as JSON: NaN bounds (too few samples) encode as null, pointers as what they point at
				wj, _ := json.Marshal(w)
				gj, _ := json.Marshal(g)
				if string(wj) != string(gj) {
					t.Errorf("%s, %+v: row %s %s differs:\n got %s\nwant %s", sides.name, opts, g.Target, g.Figure, gj, wj)
				}
			}
			if got.Gate.Verdict != want.Gate.Verdict {
				t.Errorf("%s: gate %s, want %s", sides.name, got.Gate.Verdict, want.Gate.Verdict)
			}
		}
	}
}

// A run taken later to decide some assertions holds only the workloads and targets they read: the
// result it lacks has fewer samples, the others have them all.
func TestMultiRunReportWithPartialRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	runs := driftingRuns(rng, 5, 1)
	for i := 3; i < 5; i++ {
		runs[i] = append(runs[i], ct{Target: "sut", Workload: "scan", Unit: "scan", Figures: map[string][]float64{"ns_per_row": comparetest.Noisy(50, .01, 7, 9)}})
	}
	// only runs 4 and 5 hold a scan: put it first so the report has it
	full := driftingRuns(rng, 5, 1)
	rep := comparetest.Runs("drift", append(runs[3:], runs[:3]...)...)
	rep.Run.Baseline = "ref"
	c, err := CompareRuns([]*report.Report{v2(full)}, []*report.Report{rep}, Options{Figures: []string{"ns_per_op", "ns_per_row"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Rows {
		if r.Workload == "lookup" && r.New.N() != 5 {
			t.Errorf("lookup: %d samples in NEW, want 5", r.New.N())
		}
	}
	if len(c.Unpaired) != 1 || c.Unpaired[0].Workload != "scan" {
		t.Errorf("unpaired %+v, want the scan OLD lacks", c.Unpaired)
	}
}

func TestMachineClasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	old, new := v1s(driftingRuns(rng, 5, 1)), v1s(driftingRuns(rng, 5, 2)) // a 2x regression
	for _, r := range old {
		r.Environment.CPUModel = "Intel(R) Xeon(R) Processor"
	}
	var th Thresholds
	if err := th.Set("5%"); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{
		{Thresholds: &th},
		{Thresholds: &th, Force: true},
		{Thresholds: &th, NoNormalize: true},
		{Thresholds: &th, PerRepeat: true},
	} {
		c, err := CompareRuns(old, new, opts)
		if err != nil {
			t.Fatal(err)
		}
		if c.Gate.Verdict != GateInconclusive || c.Gate.Failures != 0 || c.Gate.Inconclusive != c.Gate.Gated || c.Gate.Gated == 0 {
			t.Errorf("%+v: gate %s, %d failures, %d of %d inconclusive: want nothing decided", opts, c.Gate.Verdict, c.Gate.Failures, c.Gate.Inconclusive, c.Gate.Gated)
		}
		if !strings.Contains(c.Undecidable, "different machine classes (OLD: Intel(R) Xeon(R) Processor, 2 cores; NEW: Test CPU @ 3.00GHz, 2 cores)") ||
			!strings.Contains(c.Gate.Reasons[0], "different machine classes") {
			t.Errorf("undecidable %q, reasons %q", c.Undecidable, c.Gate.Reasons)
		}
		for _, r := range c.Rows {
			if r.Verdict != OtherMachines || (r.Gate != GateInconclusive && r.Threshold != nil) || float64(r.New.Median) == 0 {
				t.Errorf("row %s %s: verdict %s gate %s: want every figure shown and none decided", r.Target, r.Figure, r.Verdict, r.Gate)
			}
		}
		if code, msg := c.Outcome(); code != 4 || !strings.Contains(msg, "different machine classes") {
			t.Errorf("outcome %d %q, want 4", code, msg)
		}
	}
	// Without a gate it still decides nothing, and says so with exit 4.
	c, err := CompareRuns(old, new, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if code, msg := c.Outcome(); code != 4 || !strings.HasPrefix(msg, "INCONCLUSIVE: different machine classes") {
		t.Errorf("no gate: outcome %d %q", code, msg)
	}
	// The runs of one side must share a class.
	mixed := v1s(driftingRuns(rng, 5, 1))
	mixed[3].Environment.Cores = 8
	_, err = CompareRuns(mixed, new, Options{OldFiles: []string{"a.json", "b.json", "c.json", "d.json", "e.json"}})
	if err == nil || !strings.Contains(err.Error(), "OLD: its runs come from different machine classes (a.json: Test CPU @ 3.00GHz, 2 cores; d.json: Test CPU @ 3.00GHz, 8 cores)") {
		t.Errorf("a side of two classes: %v", err)
	}
}

func TestMachineSlug(t *testing.T) {
	for class, want := range map[string]string{
		"Intel(R) Xeon(R) Processor, 2 cores":               "intel-xeon-processor-2-cores",
		"AMD EPYC, 2 cores":                                 "amd-epyc-2-cores",
		"Intel(R) Core(TM) i7-8565U CPU @ 1.80GHz, 8 cores": "intel-core-i7-8565u-cpu-1-80ghz-8-cores",
		"arm64, 4 cores":                                    "arm64-4-cores",
		" , 0 cores":                                        "0-cores",
		"../..":                                             "unknown",
	} {
		if got := MachineSlug(class); got != want {
			t.Errorf("MachineSlug(%q) = %q, want %q", class, got, want)
		}
	}
}

// A baseline whose own results failed, or whose run erred, is refused with the run named.
func TestBaselineThatFailedIsRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	good := func() []*report.Report { return v1s(driftingRuns(rng, 5, 1)) }
	failed := good()
	failed[2].Results[1].Status, failed[2].Results[1].Error = report.StatusFailed, "verification failed: checksum 01, want 02"
	erred := good()
	erred[4].Verdict, erred[4].Run.Errors = report.VerdictError, []string{"interrupted"}
	files := []string{"b/run-1.json", "b/run-2.json", "b/run-3.json", "b/run-4.json", "b/run-5.json"}
	for _, tt := range []struct {
		name string
		old  []*report.Report
		want string
	}{
		{"a failed result", failed, "OLD b/run-3.json: sut lookup failed (verification failed: checksum 01, want 02): a baseline whose own results failed is refused"},
		{"an erred run", erred, "OLD b/run-5.json: its verdict is error (interrupted): a baseline that erred is refused"},
	} {
		for _, force := range []bool{false, true} {
			_, err := CompareRuns(tt.old, good(), Options{OldFiles: files, Force: force})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s (force %t): %v, want %q", tt.name, force, err, tt.want)
			}
		}
	}
	// The same failure in NEW is compared, and fails a gate.
	var th Thresholds
	if err := th.Set("5%"); err != nil {
		t.Fatal(err)
	}
	c, err := CompareRuns(good(), failed, Options{Thresholds: &th})
	if err != nil {
		t.Fatal(err)
	}
	if c.Gate.Verdict != GateFail || len(c.Failed) != 1 || c.Failed[0].In != "new" {
		t.Errorf("a failure in NEW: gate %s, failed %+v", c.Gate.Verdict, c.Failed)
	}
}

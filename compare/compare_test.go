package compare

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/compare/comparetest"
	"github.com/dbbench/dbbench/report"
)

type ct = comparetest.Result

// one builds a report with a single result "sut lookup" holding one figure.
func one(figure string, vals []float64) *report.Report {
	return comparetest.Report("t", ct{Target: "sut", Workload: "lookup", Figures: map[string][]float64{figure: vals}})
}

func gate10() *Thresholds {
	var th Thresholds
	if err := th.Set("10%"); err != nil {
		panic(err)
	}
	return &th
}

func TestVerdicts(t *testing.T) {
	tests := []struct {
		name       string
		figure     string
		old, new   []float64
		want       Verdict
		wantGate   GateStatus
		wantChange float64 // approximate true change; NaN: don't check
	}{
		{"throughput regression", "rows_per_s", comparetest.Noisy(1e6, .02, 10, 1), comparetest.Noisy(0.8e6, .02, 10, 2), Worse, GateFail, -0.2},
		{"throughput improvement", "rows_per_s", comparetest.Noisy(1e6, .02, 10, 1), comparetest.Noisy(1.25e6, .02, 10, 2), Better, GatePass, 0.25},
		{"noise only", "rows_per_s", comparetest.Noisy(1e6, .05, 10, 3), comparetest.Noisy(1e6, .05, 10, 4), Same, GatePass, 0},
		{"significant but within threshold", "rows_per_s", comparetest.Noisy(1e6, .01, 10, 1), comparetest.Noisy(0.95e6, .01, 10, 2), Worse, GatePass, -0.05},
		{"latency regression", "ns_per_row", comparetest.Noisy(100, .02, 10, 1), comparetest.Noisy(120, .02, 10, 2), Worse, GateFail, 0.2},
		{"latency improvement", "p50", comparetest.Noisy(100, .02, 10, 1), comparetest.Noisy(70, .02, 10, 2), Better, GatePass, -0.3},
		// The U test cannot reject with 3 a side; the interval decides a 50% drop through 2% noise.
		{"too few repeats for the U test", "rows_per_s", comparetest.Noisy(1e6, .02, 3, 1), comparetest.Noisy(0.5e6, .02, 3, 2), TooFew, GateFail, -0.5},
		{"one repeat each: no interval", "rows_per_s", []float64{1e6}, []float64{2e6}, TooFew, GateInconclusive, 1},
		// 9% worse through ±5% noise, 4 a side: the interval reaches both sides of 10%.
		{"straddles the threshold", "ns_per_row", comparetest.Noisy(100, .05, 4, 5), comparetest.Noisy(109, .05, 4, 6), Worse, GateInconclusive, 0.09},
		{"identical constant samples", "rows_per_s", []float64{5, 5, 5, 5, 5}, []float64{5, 5, 5, 5, 5}, Same, GatePass, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(one(tt.figure, tt.old), one(tt.figure, tt.new), Options{PerRepeat: true, Figures: []string{tt.figure}, Thresholds: gate10()})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Rows) != 1 {
				t.Fatalf("got %d rows, want 1", len(c.Rows))
			}
			r := c.Rows[0]
			if r.Verdict != tt.want || r.Gate != tt.wantGate {
				t.Errorf("verdict %s gate %q, want %s gate %q (p=%.4f change %v)", r.Verdict, r.Gate, tt.want, tt.wantGate, r.P, r.Change)
			}
			if d := math.Abs(float64(r.Change) - tt.wantChange); d > 0.04 {
				t.Errorf("change %.3f, want about %.3f", float64(r.Change), tt.wantChange)
			}
			if r.Old.N() != len(tt.old) || r.New.N() != len(tt.new) {
				t.Errorf("n = %d+%d, want %d+%d", r.Old.N(), r.New.N(), len(tt.old), len(tt.new))
			}
			switch tt.want {
			case Worse, Better:
				lo, hi := float64(r.ChangeLo), float64(r.ChangeHi)
				if !(lo <= tt.wantChange+0.02 && tt.wantChange-0.02 <= hi) || lo*hi <= 0 {
					t.Errorf("CI [%.3f, %.3f] should hold about %.3f and exclude 0 for a significant change", lo, hi, tt.wantChange)
				}
			case TooFew:
				if !strings.Contains(r.Reason, "need >= 4 samples") {
					t.Errorf("reason %q should say how many samples are needed", r.Reason)
				}
				if !math.IsNaN(float64(r.ChangeLo)) {
					t.Errorf("CI lower bound %v, want none with 3 samples", r.ChangeLo)
				}
			}
			wantVerdict := map[GateStatus]GateStatus{GateFail: GateFail, GatePass: GatePass, GateInconclusive: GateInconclusive}[tt.wantGate]
			if c.Gate.Verdict != wantVerdict {
				t.Errorf("gate verdict %q, want %q (reasons %q)", c.Gate.Verdict, wantVerdict, c.Gate.Reasons)
			}
		})
	}
}

func TestWithoutThresholdsNothingIsGated(t *testing.T) {
	c, err := Compare(one("rows_per_s", comparetest.Noisy(1e6, .02, 10, 1)), one("rows_per_s", comparetest.Noisy(0.5e6, .02, 10, 2)), Options{PerRepeat: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Gate.Enabled || c.Gate.Verdict != "" || c.Rows[0].Gate != GateNone || c.Rows[0].Verdict != Worse {
		t.Errorf("gate %+v, row gate %q verdict %s: compare without thresholds reports but never gates", c.Gate, c.Rows[0].Gate, c.Rows[0].Verdict)
	}
}

// pair builds a report with a reference target and a target whose figures are ratio times the
// reference's, repeat by repeat (plus a little noise of its own).
func pair(ref []float64, ratio float64, seed uint64, figure string) *report.Report {
	own := comparetest.Noisy(1, 0.005, len(ref), seed)
	sut := make([]float64, len(ref))
	for i := range ref {
		sut[i] = ref[i] * ratio * own[i]
	}
	return comparetest.Report("t",
		ct{Target: "ref", Workload: "scan", Unit: "scan", Figures: map[string][]float64{figure: ref}},
		ct{Target: "sut", Workload: "scan", Unit: "scan", Figures: map[string][]float64{figure: sut}},
	)
}

func TestNormalize(t *testing.T) {
	fast := comparetest.Noisy(1e6, 0.10, 12, 1) // a noisy machine: ±10% from repeat to repeat
	slowMachine := comparetest.Scale(comparetest.Noisy(1e6, 0.10, 12, 2), 0.5)
	tests := []struct {
		name       string
		figure     string
		old, new   *report.Report
		normalize  string
		want       Verdict
		wantChange float64
	}{
		// The same code on a machine twice as slow: absolute figures say worse, ratios say nothing changed.
		{"slower machine, absolute", "rows_per_s", pair(fast, 0.5, 3, "rows_per_s"), pair(slowMachine, 0.5, 4, "rows_per_s"), "", Worse, -0.5},
		{"slower machine, normalized", "rows_per_s", pair(fast, 0.5, 3, "rows_per_s"), pair(slowMachine, 0.5, 4, "rows_per_s"), "ref", Same, 0},
		// The target itself got 20% slower (throughput 1/1.2): the ratio falls, and for a
		// higher-is-better figure a falling ratio is worse.
		{"target slowdown, throughput", "rows_per_s", pair(fast, 0.5, 3, "rows_per_s"), pair(slowMachine, 0.5/1.2, 4, "rows_per_s"), "ref", Worse, 1/1.2 - 1},
		// For a lower-is-better figure the ratio rises, and that is worse too.
		{"target slowdown, latency", "ns_per_row", pair(fast, 2, 3, "ns_per_row"), pair(slowMachine, 2.4, 4, "ns_per_row"), "ref", Worse, 0.2},
		{"target speed-up, latency", "ns_per_row", pair(fast, 2, 3, "ns_per_row"), pair(slowMachine, 1.5, 4, "ns_per_row"), "ref", Better, -0.25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(tt.old, tt.new, Options{PerRepeat: true, Figures: []string{tt.figure}, NormalizeBy: tt.normalize})
			if err != nil {
				t.Fatal(err)
			}
			var row *Row
			for i := range c.Rows {
				if c.Rows[i].Target == "sut" {
					row = &c.Rows[i]
				}
				if tt.normalize != "" && c.Rows[i].Target == tt.normalize {
					t.Errorf("the reference target %s is compared with itself", tt.normalize)
				}
			}
			if row == nil {
				t.Fatal("no row for sut")
			}
			if row.Verdict != tt.want {
				t.Errorf("verdict %s (change %.3f, p %.4f), want %s", row.Verdict, float64(row.Change), row.P, tt.want)
			}
			if d := math.Abs(float64(row.Change) - tt.wantChange); d > 0.03 {
				t.Errorf("change %.3f, want about %.3f", float64(row.Change), tt.wantChange)
			}
			if (tt.normalize != "") != (row.Unit == "ratio") {
				t.Errorf("unit %q with normalize-by %q", row.Unit, tt.normalize)
			}
		})
	}
}

func TestNormalizePairsRepeatsByIndex(t *testing.T) {
	ref := comparetest.Noisy(1e6, 0.3, 10, 1)
	old, new := pair(ref, 0.5, 3, "rows_per_s"), pair(comparetest.Noisy(1e6, 0.3, 10, 2), 0.5, 4, "rows_per_s")
	want, err := Compare(old, new, Options{PerRepeat: true, Figures: []string{"rows_per_s"}, NormalizeBy: "ref"})
	if err != nil {
		t.Fatal(err)
	}
	// Same repeats, listed in another order: pairing must follow Index, not position.
	slices.Reverse(new.Results[0].Repeats)
	got, err := Compare(old, new, Options{PerRepeat: true, Figures: []string{"rows_per_s"}, NormalizeBy: "ref"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows[0].Verdict != want.Rows[0].Verdict || got.Rows[0].New.Median != want.Rows[0].New.Median {
		t.Errorf("reordered repeats changed the result: %s %v, want %s %v", got.Rows[0].Verdict, got.Rows[0].New.Median, want.Rows[0].Verdict, want.Rows[0].New.Median)
	}
	if m := float64(got.Rows[0].New.Median); math.Abs(m-0.5) > 0.01 {
		t.Errorf("normalized median %.4f, want about 0.5 (ratios of the same repeat)", m)
	}
}

func TestMergedPercentiles(t *testing.T) {
	lat := comparetest.Latencies(1000, 0.5, 6, 200, 1)
	mk := func(scale float64) *report.Report {
		scaled := make([][]int64, len(lat))
		p99 := make([]float64, len(lat))
		for i, rep := range lat {
			h := report.NewHistogram()
			for _, l := range rep {
				scaled[i] = append(scaled[i], int64(float64(l)*scale))
				_ = h.RecordValue(int64(float64(l) * scale))
			}
			p99[i] = float64(h.ValueAtQuantile(99))
		}
		return comparetest.Report("t", ct{Target: "sut", Workload: "lookup", Latencies: scaled, Figures: map[string][]float64{"p99": p99}})
	}
	old, new := mk(1), mk(1.5)
	c, err := Compare(old, new, Options{PerRepeat: true, Figures: []string{"p99"}})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Rows[0]
	if r.Old.Merged == nil || r.New.Merged == nil {
		t.Fatal("p99 row has no merged values")
	}
	for _, x := range []struct {
		rep *report.Report
		got float64
	}{{old, *r.Old.Merged}, {new, *r.New.Merged}} {
		var enc []string
		for _, rep := range x.rep.Results[0].Repeats {
			enc = append(enc, rep.Histogram)
		}
		h, _ := report.MergeHistograms(enc...)
		if want := float64(h.ValueAtQuantile(99)); x.got != want {
			t.Errorf("merged p99 %v, want %v from the merged histogram", x.got, want)
		}
	}
	if r.Verdict != Worse {
		t.Errorf("verdict %s, want worse for latencies 1.5x", r.Verdict)
	}
}

func TestDefaultFigures(t *testing.T) {
	rep := comparetest.Report("t",
		ct{Target: "a", Workload: "lookup", Figures: map[string][]float64{"rows_per_s": {1, 2, 3, 4}, "p50": {1, 2, 3, 4}, "p99": {1, 2, 3, 4}, "ns_per_op": {1, 2, 3, 4}}},
		ct{Target: "a", Workload: "scan", Unit: "scan", Figures: map[string][]float64{"rows_per_s": {1, 2, 3, 4}, "p50": {1, 2, 3, 4}, "p99": {1, 2, 3, 4}}},
		ct{Target: "a", Workload: "page", Unit: "op", Figures: map[string][]float64{"ops_per_s": {1, 2, 3, 4}, "p50": {1, 2, 3, 4}}},
	)
	c, err := Compare(rep, rep, Options{PerRepeat: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range c.Rows {
		got = append(got, r.Workload+"."+r.Figure)
	}
	want := []string{"lookup.rows_per_s", "lookup.p50", "lookup.p99", "scan.rows_per_s", "page.ops_per_s", "page.p50"}
	if !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v (no percentiles for a scan: one latency per repeat)", got, want)
	}
}

func TestIncompatibleReports(t *testing.T) {
	base := func() *report.Report {
		return comparetest.Report("t",
			ct{Target: "ref", Workload: "lookup", Figures: map[string][]float64{"rows_per_s": {1, 2, 3, 4}}},
			ct{Target: "sut", Workload: "lookup", Figures: map[string][]float64{"rows_per_s": {1, 2, 3, 4}}},
		)
	}
	newer := base()
	newer.SchemaVersion = report.SchemaVersion + 1
	otherTargets := comparetest.Report("t", ct{Target: "x", Workload: "lookup", Figures: map[string][]float64{"rows_per_s": {1, 2, 3, 4}}})
	otherWorkloads := comparetest.Report("t", ct{Target: "sut", Workload: "insert", Figures: map[string][]float64{"rows_per_s": {1, 2, 3, 4}}})
	bigger := comparetest.Report("t",
		ct{Target: "ref", Workload: "lookup", Size: 5000, Figures: map[string][]float64{"rows_per_s": {1, 2, 3, 4}}},
		ct{Target: "sut", Workload: "lookup", Size: 5000, Figures: map[string][]float64{"rows_per_s": {1, 2, 3, 4}}},
	)
	sweep := comparetest.Report("t",
		ct{Target: "sut", Workload: "lookup", Size: 1000, Figures: map[string][]float64{"rows_per_s": {1, 2, 3, 4}}},
		ct{Target: "sut", Workload: "lookup", Size: 2000, Figures: map[string][]float64{"rows_per_s": {1, 2, 3, 4}}},
	)
	badHist := comparetest.Report("t", ct{Target: "sut", Workload: "lookup", Latencies: [][]int64{{1, 2}, {3, 4}}, Figures: map[string][]float64{"p50": {1, 3}}})
	badHist.Results[0].Repeats[1].Histogram = "HISTFAAAAnotbase64!"
	skippedRef := base()
	skippedRef.Targets[0].Status, skippedRef.Targets[0].Reason = "skipped", "no server"
	tests := []struct {
		name     string
		old, new *report.Report
		opts     Options
		wantErr  string
	}{
		{"schema version", base(), newer, Options{PerRepeat: true}, fmt.Sprintf("a report has schema version %d; this dbbench reads 1 to %d", report.SchemaVersion+1, report.SchemaVersion)},
		{"no common targets", base(), otherTargets, Options{PerRepeat: true}, "no common targets: OLD has ref, sut; NEW has x"},
		{"only the reference in common", base(), comparetest.Report("t", ct{Target: "ref", Workload: "lookup", Figures: map[string][]float64{"rows_per_s": {1}}}), Options{PerRepeat: true, NormalizeBy: "ref"}, "no common targets besides the reference ref"},
		{"no common workloads", base(), otherWorkloads, Options{PerRepeat: true}, "no common workloads: OLD ran lookup; NEW ran insert"},
		{"dataset sizes", base(), bigger, Options{PerRepeat: true}, "dataset sizes differ: OLD has 1000, NEW has 5000 (pass --allow-size-mismatch"},
		{"sizes cannot pair", base(), sweep, Options{PerRepeat: true, AllowSizeMismatch: true}, "cannot pair dataset sizes: OLD has 1 (1000), NEW has 2 (1000/2000)"},
		{"unknown reference", base(), base(), Options{PerRepeat: true, NormalizeBy: "nosuch"}, "--normalize-by nosuch: OLD has no target nosuch (targets: ref, sut)"},
		{"skipped reference", base(), skippedRef, Options{PerRepeat: true, NormalizeBy: "ref"}, "--normalize-by ref: the target was skipped in NEW (no server)"},
		{"unknown figure", base(), base(), Options{PerRepeat: true, Figures: []string{"speed"}}, `unknown figure "speed"`},
		{"misspelt figure", base(), base(), Options{PerRepeat: true, Figures: []string{"p5O"}}, `unknown figure "p5O": did you mean p50?`},
		{"figure nowhere", base(), base(), Options{PerRepeat: true, Figures: []string{"p999"}}, "nothing to compare: no result has figures p999 in both reports"},
		{"bad alpha", base(), base(), Options{PerRepeat: true, Alpha: 2}, "alpha 2: want a significance level between 0 and 1"},
		{"corrupt histogram", badHist, badHist, Options{PerRepeat: true, Figures: []string{"p50"}}, "OLD: sut lookup: decode histogram:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(tt.old, tt.new, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestAllowSizeMismatch(t *testing.T) {
	small := comparetest.Report("t", ct{Target: "sut", Workload: "lookup", Size: 1000, Figures: map[string][]float64{"rows_per_s": comparetest.Noisy(10, .01, 6, 1)}})
	big := comparetest.Report("t", ct{Target: "sut", Workload: "lookup", Size: 5000, Figures: map[string][]float64{"rows_per_s": comparetest.Noisy(10, .01, 6, 2)}})
	c, err := Compare(small, big, Options{PerRepeat: true, AllowSizeMismatch: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 1 || c.Rows[0].Size != 5000 || c.Rows[0].OldSize != 1000 {
		t.Fatalf("rows %+v, want one row pairing size 1000 with 5000", c.Rows)
	}
}

func TestGateEdges(t *testing.T) {
	vals := comparetest.Noisy(1e6, .02, 8, 1)
	ok := func(target string) ct {
		return ct{Target: target, Workload: "lookup", Figures: map[string][]float64{"rows_per_s": vals}}
	}
	failed := func(target string) ct {
		x := ok(target)
		x.Status, x.Error = "failed", "verification failed: 3 persons found, want 4"
		return x
	}
	var p99Only Thresholds
	if err := p99Only.Set("lookup.p999=20%"); err != nil {
		t.Fatal(err)
	}
	var mixed Thresholds
	if err := mixed.Set("10%,insert.rows_per_s=30%"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		old, new  *report.Report
		th        *Thresholds
		want      GateStatus
		wantErr   string
		wantNote  string
		wantInMsg string
	}{
		{"failed in NEW fails the gate", comparetest.Report("t", ok("a"), ok("b")), comparetest.Report("t", ok("a"), failed("b")), gate10(), GateFail, "", "", "b lookup failed in NEW: verification failed"},
		{"failed in OLD: the baseline is refused", comparetest.Report("t", ok("a"), failed("b")), comparetest.Report("t", ok("a"), ok("b")), gate10(), "", "OLD run 1: b lookup failed (verification failed: 3 persons found, want 4): a baseline whose own results failed is refused", "", ""},
		{"threshold on nothing compared", comparetest.Report("t", ok("a")), comparetest.Report("t", ok("a")), &p99Only, "", "the gate would check nothing", "", ""},
		{"unused threshold key is noted", comparetest.Report("t", ok("a")), comparetest.Report("t", ok("a")), &mixed, GatePass, "", "threshold insert.rows_per_s=30% applies to no compared figure", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(tt.old, tt.new, Options{PerRepeat: true, Thresholds: tt.th})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Gate.Verdict != tt.want {
				t.Errorf("gate %q, want %q (%q)", c.Gate.Verdict, tt.want, c.Gate.Reasons)
			}
			if tt.wantNote != "" && !slices.Contains(c.Notes, tt.wantNote) {
				t.Errorf("notes %q, want %q", c.Notes, tt.wantNote)
			}
			if tt.wantInMsg != "" && !slices.ContainsFunc(c.Gate.Reasons, func(s string) bool { return strings.Contains(s, tt.wantInMsg) }) {
				t.Errorf("reasons %q, want one containing %q", c.Gate.Reasons, tt.wantInMsg)
			}
		})
	}
}

func TestUnpairedAndNotes(t *testing.T) {
	vals := comparetest.Noisy(1e6, .02, 6, 1)
	old := comparetest.Report("base",
		ct{Target: "a", Workload: "lookup", Figures: map[string][]float64{"rows_per_s": vals}, Params: map[string]any{"ops": 300}},
		ct{Target: "a", Workload: "insert", Figures: map[string][]float64{"rows_per_s": vals}},
	)
	new := comparetest.Report("head",
		ct{Target: "a", Workload: "lookup", Figures: map[string][]float64{"rows_per_s": vals}, Params: map[string]any{"ops": 1000}},
		ct{Target: "a", Workload: "scan", Figures: map[string][]float64{"rows_per_s": vals}},
	)
	new.Targets[0].Slowdown = 0.2
	c, err := Compare(old, new, Options{PerRepeat: true, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	var unpaired []string
	for _, u := range c.Unpaired {
		unpaired = append(unpaired, u.Workload+": "+u.Reason)
	}
	if want := []string{"scan: only in NEW", "insert: only in OLD"}; !slices.Equal(unpaired, want) {
		t.Errorf("unpaired %q, want %q", unpaired, want)
	}
	for _, want := range []string{
		`compared despite different configs (OLD ran "base", NEW ran "head") (--force)`,
		"injected slowdown of a differs: OLD none, NEW 20%",
		"lookup parameters differ: OLD ops=300, NEW ops=1,000",
	} {
		if !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("notes %q lack %q", c.Notes, want)
		}
	}
}

func TestChangeCI(t *testing.T) {
	// n1 = n2 = 5: P(U <= 2) = 4/252 <= 0.025 < P(U <= 3) = 7/252, so the interval cuts 2 of the 25
	// differences from each end, with confidence 1 - 8/252.
	c, conf := uTail(5, 5, 0.05)
	if c != 2 || math.Abs(conf-(1-8.0/252)) > 1e-12 {
		t.Errorf("uTail(5, 5) = %d, %.5f; want 2, %.5f", c, conf, 1-8.0/252)
	}
	// 3 and 3: even the extremes reach only 1 - 2/20 = 90%.
	if c, _ := uTail(3, 3, 0.05); c != -1 {
		t.Errorf("uTail(3, 3) = %d, want -1 (no 95%% interval)", c)
	}
	// 4 and 4: P(U = 0) = 1/70, the whole range is a 97% interval.
	if c, _ := uTail(4, 4, 0.05); c != 0 {
		t.Errorf("uTail(4, 4) = %d, want 0", c)
	}
	// Large samples use the normal approximation and stay close to the exact cut.
	exact, _ := uTail(50, 50, 0.05)
	approx, _ := uTail(51, 51, 0.05)
	if exact <= 0 || math.Abs(float64(approx-exact))/float64(exact) > 0.1 {
		t.Errorf("uTail(50,50) = %d, uTail(51,51) = %d: approximation far from exact", exact, approx)
	}

	// A pure 25% shift: every interval holds it.
	old := []float64{90, 95, 100, 105, 110, 115}
	new := comparetest.Scale(old, 1.25)
	lo, hi, _ := changeCI(old, new, 102.5, 0.05)
	if !(lo <= 0.25 && 0.25 <= hi) {
		t.Errorf("CI [%.3f, %.3f] misses the true +25%%", lo, hi)
	}
	// Non-positive values fall back to differences relative to the old median.
	lo, hi, _ = changeCI([]float64{-2, -1, 0, 1, 2}, []float64{8, 9, 10, 11, 12}, 0, 0.05)
	if !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("CI [%v, %v] relative to a zero median, want undefined", lo, hi)
	}
	lo, hi, _ = changeCI([]float64{0, 9, 10, 11, 12}, []float64{18, 19, 20, 21, 22}, 10, 0.05)
	if !(lo > 0 && lo <= 1 && hi >= 1) {
		t.Errorf("CI [%v, %v], want around +100%% of the old median", lo, hi)
	}
}

func TestWorsening(t *testing.T) {
	tests := []struct {
		change       float64
		higherBetter bool
		want         float64
	}{
		{-0.2, true, 0.2},
		{0.2, true, -0.2},
		{0.2, false, 0.2},
		{math.NaN(), false, math.Inf(1)},
	}
	for _, tt := range tests {
		if got := Worsening(Row{Change: Num(tt.change), HigherBetter: tt.higherBetter}); got != tt.want {
			t.Errorf("Worsening(%v, higherBetter %t) = %v, want %v", tt.change, tt.higherBetter, got, tt.want)
		}
	}
}

// TestOddReportsNeverPanic compares many randomly damaged report pairs (missing figures and
// repeats, zeros, failed results, empty histograms): every outcome is a comparison or an error,
// and every comparison renders.
func TestOddReportsNeverPanic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	figs := []string{"rows_per_s", "ns_per_row", "p50", "p99", "errors"}
	mk := func() *report.Report {
		var rs []ct
		for _, target := range []string{"ref", "a", "b"} {
			for _, w := range []string{"scan", "lookup"} {
				if rng.IntN(4) == 0 {
					continue
				}
				n := rng.IntN(7)
				x := ct{Target: target, Workload: w, Figures: map[string][]float64{}}
				if w == "scan" {
					x.Unit = "scan"
				}
				for _, f := range figs {
					if rng.IntN(3) == 0 {
						continue
					}
					vals := make([]float64, n)
					for i := range vals {
						if rng.IntN(5) > 0 {
							vals[i] = float64(rng.IntN(3)) * rng.Float64() * 1000
						}
					}
					x.Figures[f] = vals
				}
				if rng.IntN(6) == 0 {
					x.Status, x.Error = "failed", "boom"
				}
				rs = append(rs, x)
			}
		}
		return comparetest.Report("odd", rs...)
	}
	var th Thresholds
	if err := th.Set("10%"); err != nil {
		t.Fatal(err)
	}
	compared := 0
	for i := 0; i < 300; i++ {
		old, new := mk(), mk()
		opts := Options{PerRepeat: true, Thresholds: &th}
		if i%2 == 0 {
			opts.NormalizeBy = "ref"
		}
		if i%3 == 0 {
			opts.Figures = figs
		}
		c, err := Compare(old, new, opts)
		if err != nil {
			continue
		}
		compared++
		for _, f := range Formats {
			if err := Render(io.Discard, c, f); err != nil {
				t.Fatalf("render %s: %v", f, err)
			}
		}
	}
	if compared < 50 {
		t.Errorf("only %d of 300 random pairs were comparable: the generator is too harsh to test much", compared)
	}
}

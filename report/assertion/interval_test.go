package assertion

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/report"
)

// TestTQuantile checks Student's t quantiles against closed forms (1 and 2 degrees of freedom) and
// published table values.
func TestTQuantile(t *testing.T) {
	tests := []struct {
		p    float64
		df   int
		want float64
	}{
		// df 1 is the Cauchy distribution: tan(pi (p - 1/2)).
		{0.975, 1, math.Tan(math.Pi * 0.475)},
		{0.99875, 1, math.Tan(math.Pi * 0.49875)},
		// df 2: (2p - 1) / sqrt(2 p (1 - p)).
		{0.975, 2, 0.95 / math.Sqrt(2*0.975*0.025)},
		{0.99875, 2, 0.9975 / math.Sqrt(2*0.99875*0.00125)},
		// tables (NIST/SEMATECH e-Handbook, 1.3.6.7.2)
		{0.975, 4, 2.776},
		{0.975, 10, 2.228},
		{0.995, 5, 4.032},
		{0.95, 20, 1.725},
		{0.999, 30, 3.385},
		{0.975, 100, 1.984},
		{0.5, 7, 0},
		{0.025, 10, -2.228},
	}
	for _, tt := range tests {
		got := TQuantile(tt.p, tt.df)
		tol := 5e-4 // the tables' rounding
		if tt.df <= 2 {
			tol = 1e-9 * math.Max(1, math.Abs(tt.want))
		}
		if math.Abs(got-tt.want) > tol {
			t.Errorf("TQuantile(%v, %d) = %.6f, want %.6f", tt.p, tt.df, got, tt.want)
		}
	}
	for _, bad := range []struct {
		p  float64
		df int
	}{{0.975, 0}, {0, 3}, {1, 3}, {math.NaN(), 3}} {
		if got := TQuantile(bad.p, bad.df); !math.IsNaN(got) {
			t.Errorf("TQuantile(%v, %d) = %v, want NaN", bad.p, bad.df, got)
		}
	}
}

// TestBonferroni: the error budget 1 - confidence is shared equally among k assertions times L
// looks, so each interval is wider than a lone one.
func TestBonferroni(t *testing.T) {
	tests := []struct {
		rule Rule
		want float64
	}{
		{Rule{Confidence: 0.95, Tests: 1}, 0.95},
		{Rule{Confidence: 0.95, Tests: 20}, 0.9975}, // 5 assertions x 4 looks
		{Rule{Confidence: 0.95, Tests: 16}, 0.996875},
		{Rule{Confidence: 0.90, Tests: 4}, 0.975},
		{Rule{}, 0.95},                               // the default confidence, one test
		{Rule{Confidence: 0.99, Tests: 0}, 0.99},     // no tests counted: one
		{Rule{Confidence: 1.5, Tests: 2}, 0.975},     // not a confidence: the default
		{Rule{Confidence: 0.95, Tests: 100}, 0.9995}, // many assertions: narrow error each
	}
	for _, tt := range tests {
		if got := tt.rule.PerTest(); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%+v: per test %v, want %v", tt.rule, got, tt.want)
		}
	}
	// In an evaluation: three runs whose interval decides alone (one test) straddle the threshold
	// when the budget is split 20 ways, and the interval records the confidence it was taken at.
	r := runsReport(map[string][][]float64{"a/p50": {{100}, {110}, {120}}})
	a, _ := Parse("scan.p50[a] <= 150")
	alone := a.Evaluate(r, 0, Rule{Confidence: 0.95, Tests: 1})[0]
	shared := a.Evaluate(r, 0, Rule{Confidence: 0.95, Tests: 20})[0]
	if alone.Verdict != "pass" || alone.Interval.Confidence != 0.95 {
		t.Errorf("alone: %s at %v (%+v)", alone.Verdict, alone.Interval.Confidence, alone.Interval)
	}
	if shared.Verdict != "inconclusive" || math.Abs(shared.Interval.Confidence-0.9975) > 1e-12 || shared.Interval.Hi <= alone.Interval.Hi {
		t.Errorf("shared: %s at %v (%+v), want inconclusive on a wider interval than %+v", shared.Verdict, shared.Interval.Confidence, shared.Interval, alone.Interval)
	}
}

// TestIntervalKnownValues: Student's t interval for the mean of 1, 2, 3 at 95% is 2 -+ 4.3027/sqrt(3)
// (sd 1); on log scale the same holds for the logarithms of e, e^2, e^3.
func TestIntervalKnownValues(t *testing.T) {
	half := 4.302652729911275 / math.Sqrt(3)
	lin := newEstimate([]float64{1, 2, 3}, false, 0.95).interval()
	if math.Abs(lin.Lo-(2-half)) > 1e-9 || math.Abs(lin.Hi-(2+half)) > 1e-9 || lin.Method != "t" || lin.Confidence != 0.95 {
		t.Errorf("linear: %+v, want [%v, %v] t at 0.95", lin, 2-half, 2+half)
	}
	lg := newEstimate([]float64{math.E, math.Exp(2), math.Exp(3)}, true, 0.95)
	iv := lg.interval()
	if math.Abs(iv.Lo-math.Exp(2-half)) > 1e-9 || math.Abs(iv.Hi-math.Exp(2+half)) > 1e-6 || iv.Method != "t-log" {
		t.Errorf("log: %+v, want [%v, %v] t-log", iv, math.Exp(2-half), math.Exp(2+half))
	}
	if c := lg.center(); math.Abs(c-math.Exp(2)) > 1e-9 {
		t.Errorf("log centre %v, want the geometric mean e^2", c)
	}
	// one value is a point, exactly (no round trip through the logarithm)
	pt := newEstimate([]float64{0.9}, true, 0.95)
	if iv := pt.interval(); iv.Lo != 0.9 || iv.Hi != 0.9 || iv.Method != "point" || iv.Confidence != 0 || pt.center() != 0.9 {
		t.Errorf("point: %+v, centre %v", iv, pt.center())
	}
	// identical runs: an interval of zero width
	if iv := newEstimate([]float64{5, 5, 5}, false, 0.99).interval(); iv.Lo != 5 || iv.Hi != 5 {
		t.Errorf("identical runs: %+v", iv)
	}
}

// TestDecide covers every side of every operator: an interval entirely on the passing side passes, one
// entirely on the failing side fails, one across the threshold is undecided; a point is today's
// verdict, the strict operators excluding the threshold itself.
func TestDecide(t *testing.T) {
	const T = 10.0
	tests := []struct {
		op     string
		lo, hi float64
		want   report.Verdict
	}{
		{"<=", 5, 9, "pass"}, {"<=", 5, 10, "pass"}, {"<=", 5, 11, "inconclusive"}, {"<=", 10, 11, "inconclusive"},
		{"<=", 10.5, 11, "fail"}, {"<=", 10, 10, "pass"}, {"<=", 11, 11, "fail"},
		{"<", 5, 9, "pass"}, {"<", 5, 10, "inconclusive"}, {"<", 10, 11, "fail"}, {"<", 9, 11, "inconclusive"},
		{"<", 10, 10, "fail"}, {"<", 9, 9, "pass"},
		{">=", 11, 15, "pass"}, {">=", 10, 15, "pass"}, {">=", 9, 15, "inconclusive"}, {">=", 9, 10, "inconclusive"},
		{">=", 5, 9.5, "fail"}, {">=", 10, 10, "pass"}, {">=", 9, 9, "fail"},
		{">", 11, 15, "pass"}, {">", 10, 15, "inconclusive"}, {">", 5, 10, "fail"}, {">", 9, 11, "inconclusive"},
		{">", 10, 10, "fail"}, {">", 11, 11, "pass"},
	}
	for _, tt := range tests {
		if got := Decide(tt.op, T, tt.lo, tt.hi); got != tt.want {
			t.Errorf("[%v, %v] %s %v: %s, want %s", tt.lo, tt.hi, tt.op, T, got, tt.want)
		}
	}
}

// TestMoreRuns: the estimate of the runs that would decide, against a hand computation: mean 10, sd
// 2 over 3 runs, threshold 12 at 95%: n runs decide once t(0.975, n-1) * 2 / sqrt(n) < 2, i.e.
// t(0.975, n-1) < sqrt(n): n = 6 gives 2.571 against 2.449 (no), n = 7 gives 2.447 against 2.646
// (yes): 4 more runs.
func TestMoreRuns(t *testing.T) {
	e := newEstimate([]float64{8, 10, 12}, false, 0.95)
	if got := e.moreRuns(12); got != 4 {
		t.Errorf("more runs %d, want 4", got)
	}
	if got := e.moreRuns(10); got != 0 {
		t.Errorf("mean on the threshold: %d more runs, want 0 (none decides)", got)
	}
	if got := e.moreRuns(10.0001); got != MaxMoreRuns {
		t.Errorf("a hair from the threshold: %d more runs, want the cap %d", got, MaxMoreRuns)
	}
	// far from the threshold, few more runs; nearer, more
	if near, far := e.moreRuns(11), e.moreRuns(14); !(far < near) || far < 1 {
		t.Errorf("near %d, far %d", near, far)
	}
}

// runsReport is a report with target/figure values per run: each run a list of repeat values of the
// scan result.
func runsReport(series map[string][][]float64) *report.Report {
	r := &report.Report{Run: report.Run{Sizes: []int{10}}}
	for key, runs := range series {
		target, figure, _ := strings.Cut(key, "/")
		if r.TargetByName(target) == nil {
			r.Targets = append(r.Targets, report.Target{Name: target, Status: "ok"})
		}
		res := r.Find(target, "scan", 10)
		if res == nil {
			r.Results = append(r.Results, report.Result{Target: target, Workload: "scan", Size: 10, Status: "ok"})
			res = &r.Results[len(r.Results)-1]
		}
		i := 0
		for k, reps := range runs {
			for j, v := range reps {
				if i == len(res.Repeats) {
					res.Repeats = append(res.Repeats, report.Repeat{Index: j, Run: k + 1, Figures: map[string]float64{}})
				}
				res.Repeats[i].Figures[figure] = v
				i++
			}
		}
	}
	return r
}

// TestEvaluateOverRuns: each run's value is the median of that run's paired per-repeat ratios (not of
// all repeats pooled), the interval is over the run values on log scale for a ratio and linear for a
// difference, and each side's value is the median over runs of its per-run medians.
func TestEvaluateOverRuns(t *testing.T) {
	r := runsReport(map[string][][]float64{
		// run 1: ratios 0.9, 0.5, 0.95 -> 0.9; run 2: 0.8 x3 -> 0.8; run 3: 1.0, 0.7, 0.85 -> 0.85
		"go/rows_per_s": {{90, 25, 95}, {80, 80, 80}, {100, 70, 85}},
		"c/rows_per_s":  {{100, 50, 100}, {100, 100, 100}, {100, 100, 100}},
		"go/ns_per_row": {{120, 130, 125}, {200, 210, 190}, {150, 150, 150}},
		"c/ns_per_row":  {{30, 35, 20}, {100, 100, 100}, {50, 60, 40}},
	})
	ratio, _ := Parse("scan.rows_per_s[go] >= 0.5 * scan.rows_per_s[c]")
	g := ratio.Evaluate(r, 0, Rule{Confidence: 0.95, Tests: 1})[0]
	if fmt.Sprint(g.RunValues) != "[0.9 0.8 0.85]" || g.Runs != 3 || len(g.PerRepeat) != 9 {
		t.Errorf("run values %v (%d runs, %d per repeat), want [0.9 0.8 0.85]", g.RunValues, g.Runs, len(g.PerRepeat))
	}
	want := newEstimate([]float64{0.9, 0.8, 0.85}, true, 0.95).interval()
	if g.Interval.Method != "t-log" || math.Abs(g.Interval.Lo-want.Lo) > 1e-12 || math.Abs(g.Interval.Hi-want.Hi) > 1e-12 || g.Verdict != "pass" {
		t.Errorf("ratio: %s on %+v, want pass on %+v", g.Verdict, g.Interval, want)
	}
	if gm := math.Cbrt(0.9 * 0.8 * 0.85); math.Abs(g.Value-gm) > 1e-12 {
		t.Errorf("value %v, want the geometric mean %v", g.Value, gm)
	}
	if g.LeftValue != 85 || g.RightValue != 100 { // medians over the runs' medians 90, 80, 85 and 100, 100, 100
		t.Errorf("sides %v and %v, want 85 and 100", g.LeftValue, g.RightValue)
	}
	// differences: run values 95, 100, 100 -> linear interval
	diff, _ := Parse("scan.ns_per_row[go] - scan.ns_per_row[c] <= 500")
	g = diff.Evaluate(r, 0, Rule{Confidence: 0.95, Tests: 1})[0]
	wantD := newEstimate([]float64{95, 100, 100}, false, 0.95).interval()
	if fmt.Sprint(g.RunValues) != "[95 100 100]" || g.Interval.Method != "t" || *g.Interval != *wantD || g.Verdict != "pass" {
		t.Errorf("difference: %v on %+v (%s), want [95 100 100] on %+v", g.RunValues, g.Interval, g.Verdict, wantD)
	}
	if !strings.Contains(g.Why, "95% interval over 3 runs lies within the threshold") {
		t.Errorf("why %q", g.Why)
	}
	// undecided: says how many more runs would decide
	tight, _ := Parse("scan.ns_per_row[go] - scan.ns_per_row[c] <= 101")
	g = tight.Evaluate(r, 0, Rule{Confidence: 0.95, Tests: 1})[0]
	if g.Verdict != "inconclusive" || g.MoreRuns < 1 || !strings.Contains(g.Why, fmt.Sprintf("about %d more runs would decide", g.MoreRuns)) {
		t.Errorf("tight: %s, %d more runs, why %q", g.Verdict, g.MoreRuns, g.Why)
	}
	// a run in which only one side ran gives no pair
	r2 := runsReport(map[string][][]float64{"go/p50": {{1}, {2}, {3}}, "c/p50": {{1}, {1}}})
	pair, _ := Parse("scan.p50[go] <= 10 * scan.p50[c]")
	if g := pair.Evaluate(r2, 0, Rule{})[0]; fmt.Sprint(g.RunValues) != "[1 2]" {
		t.Errorf("unpaired run: run values %v, want [1 2]", g.RunValues)
	}
}

// TestEvaluateRunBest: under run_value best a run's value compares the sides' best repeats, so a
// repeat another process slowed down (run 1's 400 on go) moves nothing; the median of the paired
// ratios it gives instead is pulled along with it.
func TestEvaluateRunBest(t *testing.T) {
	r := runsReport(map[string][][]float64{
		"go/ns_per_row": {{400, 100, 300}, {110, 120, 130}, {105, 300, 500}},
		"c/ns_per_row":  {{100, 100, 100}, {100, 110, 100}, {100, 100, 100}},
		"go/rows_per_s": {{10, 40, 20}, {30, 30, 30}, {20, 20, 20}},
		"c/rows_per_s":  {{50, 40, 40}, {30, 60, 30}, {40, 40, 40}},
	})
	tests := []struct {
		check, runValue string
		want            string // the run values
	}{
		{"scan.ns_per_row[go] <= 1.2 * scan.ns_per_row[c]", "", "[3 1.1 3]"},
		{"scan.ns_per_row[go] <= 1.2 * scan.ns_per_row[c]", report.RunBest, "[1 1.1 1.05]"},
		{"scan.ns_per_row[go] - scan.ns_per_row[c] <= 50", report.RunBest, "[0 10 5]"},
		{"scan.ns_per_row[go] <= 200", report.RunBest, "[100 110 105]"},
		{"scan.rows_per_s[go] >= 0.5 * scan.rows_per_s[c]", report.RunBest, "[0.8 0.5 0.5]"}, // higher is better: the largest
	}
	for _, tt := range tests {
		a, err := Parse(tt.check)
		if err != nil {
			t.Fatal(err)
		}
		a.RunValue = tt.runValue
		g := a.Evaluate(r, 0, Rule{Confidence: 0.95, Tests: 1})[0]
		if got := fmt.Sprint(g.RunValues); got != tt.want {
			t.Errorf("%s (run_value %q): run values %s, want %s", tt.check, tt.runValue, got, tt.want)
		}
		if g.RunValue != tt.runValue {
			t.Errorf("%s: the report says run_value %q, want %q", tt.check, g.RunValue, tt.runValue)
		}
	}
}

// TestEvaluateSignedFigureIsLinear: a memory growth per operation is a difference of two readings,
// near 0 when nothing leaks: its interval is linear even when every run value is positive (on log
// scale, run values of 6 to 21 bytes per operation spread by a factor of 3.5, and <= 32 stays undecided).
func TestEvaluateSignedFigureIsLinear(t *testing.T) {
	r := runsReport(map[string][][]float64{
		"client/bytes_retained_per_op": {{28, 7, 5}, {40, 6, -1}, {24, 9, 3}, {38, 21, 2}},
		"leaky/bytes_retained_per_op":  {{635, 614, 629}, {648, 624, 584}, {673, 604, 623}, {612, 590, 605}},
		"client/rows_per_s":            {{28, 7, 5}, {40, 6, -1}, {24, 9, 3}, {38, 21, 2}},
	})
	rule := Rule{Confidence: 0.95, Tests: 4}
	for _, tt := range []struct {
		expr, method string
		verdict      report.Verdict
	}{
		{"scan.bytes_retained_per_op[client] <= 32", "t", report.VerdictPass},
		{"scan.bytes_retained_per_op[leaky] <= 64", "t", report.VerdictFail},
		{"scan.rows_per_s[client] <= 32", "t-log", report.VerdictInconclusive}, // the same values as a rate: by factors
	} {
		a, err := Parse(tt.expr)
		if err != nil {
			t.Fatal(err)
		}
		g := a.Evaluate(r, 0, rule)[0]
		if g.Interval == nil || g.Interval.Method != tt.method || g.Verdict != tt.verdict {
			t.Errorf("%s: %s on %+v, want %s by method %s", tt.expr, g.Verdict, g.Interval, tt.verdict, tt.method)
		}
	}
}

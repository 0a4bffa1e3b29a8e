package compare

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/compare/comparetest"
	"github.com/dbbench/dbbench/report"
)

func TestTQuantile(t *testing.T) {
	// Student's t table values.
	for _, tt := range []struct{ p, df, want float64 }{
		{0.975, 1, 12.706}, {0.975, 10, 2.228}, {0.995, 5, 4.032}, {0.95, 30, 1.697}, {0.9995, 8, 5.041},
		{0.975, 1e6, 1.960}, // the normal limit
	} {
		if got := tQuantile(tt.p, tt.df); math.Abs(got-tt.want) > 0.002 {
			t.Errorf("tQuantile(%g, %g) = %.4f, want %.3f", tt.p, tt.df, got, tt.want)
		}
	}
	if !math.IsInf(tQuantile(0.975, 0), 1) {
		t.Error("no degrees of freedom must give an infinite quantile (no interval)")
	}
}

// around returns n values whose mean is exactly m and whose sample standard deviation is exactly s
// (a fixed pattern, scaled), so that the interval and the decision are known in advance.
func around(m, s float64, n int) []float64 {
	raw := make([]float64, n)
	for i := range raw {
		raw[i] = float64(i) - float64(n-1)/2
	}
	_, v := meanVar(raw)
	out := make([]float64, n)
	for i, r := range raw {
		out[i] = m + s*r/math.Sqrt(v)
	}
	return out
}

// logAround is around on log scale: values whose logs have mean log(m) and deviation s.
func logAround(m, s float64, n int) []float64 {
	out := around(math.Log(m), s, n)
	for i := range out {
		out[i] = math.Exp(out[i])
	}
	return out
}

func TestDecide(t *testing.T) {
	const conf = 0.95
	tests := []struct {
		name         string
		old, new     []float64
		t            float64
		higherBetter bool
		want         GateStatus
		wantWhy      string
	}{
		{"a time, clearly within", logAround(100, .01, 6), logAround(101, .01, 6), .05, false, GatePass, "lies within the 5% threshold"},
		{"a time, clearly beyond", logAround(100, .01, 6), logAround(112, .01, 6), .05, false, GateFail, "lies beyond the 5% threshold, on the worse side"},
		{"a time, straddling", logAround(100, .03, 5), logAround(104, .03, 5), .05, false, GateInconclusive, "straddles the 5% threshold; to decide: about"},
		{"a time much faster", logAround(100, .01, 6), logAround(50, .01, 6), .05, false, GatePass, "within"},
		{"a throughput that fell beyond", logAround(1e6, .01, 6), logAround(0.88e6, .01, 6), .05, true, GateFail, "beyond"},
		{"a throughput that fell within", logAround(1e6, .01, 6), logAround(0.98e6, .01, 6), .05, true, GatePass, "within"},
		{"a throughput straddling", logAround(1e6, .03, 5), logAround(0.96e6, .03, 5), .05, true, GateInconclusive, "straddles"},
		{"a throughput that rose a lot", logAround(1e6, .01, 6), logAround(2e6, .01, 6), .05, true, GatePass, "within"},
		{"no spread: the point decides", []float64{5, 5, 5}, []float64{5.1, 5.1, 5.1}, .01, false, GateFail, "beyond"},
		{"no spread, within", []float64{5, 5, 5}, []float64{5.01, 5.01, 5.01}, .01, false, GatePass, "within"},
		{"one sample a side: no interval", []float64{100}, []float64{200}, .05, false, GateInconclusive, "1 and 1 runs: an interval needs at least 2 a side"},
		{"values not all positive: relative to OLD's mean", around(-1, .1, 5), around(0, .1, 5), .05, false, GateFail, "beyond"},
		{"not all positive, OLD's mean 0: no interval", around(0, .1, 5), around(1, .1, 5), .05, false, GateInconclusive, "OLD's mean is 0"},
		{"a throughput of 100% threshold cannot fail", logAround(1e6, .01, 6), logAround(1e3, .01, 6), 1, true, GatePass, "within"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, d := decide(tt.old, tt.new, tt.t, tt.higherBetter, conf, "runs", 0)
			if got != tt.want || !strings.Contains(d.Why, tt.wantWhy) {
				t.Errorf("decide = %s (%s), want %s (%q)", got, d.Why, tt.want, tt.wantWhy)
			}
			if d.Confidence != conf {
				t.Errorf("confidence %g, want %g", d.Confidence, conf)
			}
			if got == GateInconclusive && strings.Contains(d.Why, "straddles") && d.RunsNeeded <= len(tt.old) {
				t.Errorf("runs needed %d: want more than the %d a side it has", d.RunsNeeded, len(tt.old))
			}
			if got != GateInconclusive && d.RunsNeeded != 0 {
				t.Errorf("decided, yet %d runs needed", d.RunsNeeded)
			}
		})
	}
}

// The interval is Welch's at the confidence asked: for known samples its bounds are the mean
// difference of the logs ± t(df) x se, with the Welch-Satterthwaite df.
func TestDecideIntervalIsWelchs(t *testing.T) {
	old, new := logAround(100, .02, 5), logAround(110, .04, 7)
	_, d := decide(old, new, .5, false, .9, "runs", 0)
	se := math.Sqrt(.02*.02/5 + .04*.04/7)
	df := math.Pow(se, 4) / (math.Pow(.02*.02/5, 2)/4 + math.Pow(.04*.04/7, 2)/6)
	h := tQuantile(.95, df) * se
	est := math.Log(1.1)
	if lo, hi := float64(d.Lo), float64(d.Hi); math.Abs(lo-math.Expm1(est-h)) > 1e-9 || math.Abs(hi-math.Expm1(est+h)) > 1e-9 {
		t.Errorf("interval [%.6f, %.6f], want [%.6f, %.6f]", lo, hi, math.Expm1(est-h), math.Expm1(est+h))
	}
	if d.Method != "welch-t, log scale" {
		t.Errorf("method %q", d.Method)
	}
}

// The estimate of the runs that would decide is what it claims: with that many runs a side, the same
// means and spreads decide; with one fewer they do not yet.
func TestRunsNeededDecides(t *testing.T) {
	for _, tt := range []struct {
		name         string
		m, s         float64
		higherBetter bool
	}{
		{"a time 3% worse against 5%", 1.03, .03, false},
		{"a time 8% worse against 5%", 1.08, .04, false},
		{"a throughput 3% lower against 5%", 0.97, .02, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const conf = 0.99
			st, d := decide(logAround(1, tt.s, 3), logAround(tt.m, tt.s, 3), .05, tt.higherBetter, conf, "runs", 0)
			if st != GateInconclusive || d.RunsNeeded < 4 {
				t.Fatalf("%s with %d runs needed: want a straddle to start from (%s)", st, d.RunsNeeded, d.Why)
			}
			n := d.RunsNeeded
			if st, _ := decide(logAround(1, tt.s, n), logAround(tt.m, tt.s, n), .05, tt.higherBetter, conf, "runs", 0); st == GateInconclusive {
				t.Errorf("%d runs a side, as estimated, still do not decide", n)
			}
			if st, _ := decide(logAround(1, tt.s, n-1), logAround(tt.m, tt.s, n-1), .05, tt.higherBetter, conf, "runs", 0); st != GateInconclusive {
				t.Errorf("%d runs a side already decide: the estimate of %d is not the smallest", n-1, n)
			}
		})
	}
	// The slowest runs a side leaves out are added back, and a change right on the threshold is said
	// to be undecidable rather than given a number.
	_, d := decide(logAround(1, .03, 3), logAround(1.03, .03, 3), .05, false, .99, "runs", 1)
	_, d0 := decide(logAround(1, .03, 3), logAround(1.03, .03, 3), .05, false, .99, "runs", 0)
	if d.RunsNeeded != d0.RunsNeeded+1 {
		t.Errorf("dropping 1 slowest: %d runs needed, want %d", d.RunsNeeded, d0.RunsNeeded+1)
	}
	if st, d := decide(logAround(1, .03, 4), logAround(1.05, .03, 4), .05, false, .99, "runs", 0); st != GateInconclusive || d.RunsNeeded != -1 || !strings.Contains(d.Why, "more than 1000 runs a side") {
		t.Errorf("a change on the threshold: %s, %d runs needed (%s)", st, d.RunsNeeded, d.Why)
	}
}

// The gate splits its confidence over the gated figures and the looks: each interval is wider the
// more figures and looks share the error budget, and a figure near its threshold can turn from
// decided to inconclusive because of it.
func TestGateConfidenceIsShared(t *testing.T) {
	mk := func(k float64) []*report.Report {
		rng := rand.New(rand.NewPCG(7, uint64(k*100)))
		return dayRuns(rng, 6, .02, k)
	}
	old, new := mk(1), mk(1)
	var th Thresholds
	if err := th.Set("rows_per_s=3%"); err != nil {
		t.Fatal(err)
	}
	width := func(looks int) (float64, *Comparison) {
		c, err := CompareRuns(old, new, Options{NoNormalize: true, Thresholds: &th, Looks: looks, Figures: []string{"rows_per_s"}})
		if err != nil {
			t.Fatal(err)
		}
		r := sutRow(t, c)
		want := 1 - 0.05/float64(c.Gate.Gated*looks)
		if c.Gate.Gated != 2 || math.Abs(r.Decision.Confidence-want) > 1e-12 || c.Gate.Looks != looks || c.Gate.Confidence != DefaultConfidence {
			t.Fatalf("looks %d: %d gated, confidence %g, want 2 and %g", looks, c.Gate.Gated, r.Decision.Confidence, want)
		}
		return float64(r.Decision.Hi - r.Decision.Lo), c
	}
	w1, _ := width(1)
	w4, _ := width(4)
	if !(w4 > w1) {
		t.Errorf("interval width %g with 4 looks, %g with 1: more looks must widen it", w4, w1)
	}
	if _, err := CompareRuns(old, new, Options{Thresholds: &th, Looks: -1}); err == nil {
		t.Error("negative looks accepted")
	}
	if _, err := CompareRuns(old, new, Options{Thresholds: &th, Confidence: 1}); err == nil {
		t.Error("confidence 1 accepted")
	}
}

// A run whose figures are all the same on both sides still decides (instruction counts): the point
// is exact.
func TestGateOnExactCounts(t *testing.T) {
	counts := func(v float64) *report.Report {
		return comparetest.Report("t", ct{Target: "sut", Workload: "lookup", Figures: map[string][]float64{"instr_per_op": {v, v, v, v, v}}})
	}
	var th Thresholds
	if err := th.Set("1%"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		new  float64
		want GateStatus
	}{{3687.3, GatePass}, {3687.3 * 1.005, GatePass}, {3687.3 * 1.02, GateFail}} {
		c, err := Compare(counts(3687.3), counts(tt.new), Options{PerRepeat: true, Figures: []string{"instr_per_op"}, Thresholds: &th})
		if err != nil {
			t.Fatal(err)
		}
		if c.Gate.Verdict != tt.want {
			t.Errorf("%g instructions against 3687.3: gate %s, want %s (%q)", tt.new, c.Gate.Verdict, tt.want, c.Gate.Reasons)
		}
	}
}

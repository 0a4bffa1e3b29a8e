package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/assertion"
)

// oneResult is a report with targets a and b, each with one lookup result whose p50 and rows_per_s
// are the given medians (one repeat).
func oneResult(aP50, bP50 float64) *report.Report {
	r := &report.Report{Run: report.Run{Sizes: []int{100}}, Environment: report.Environment{CPUModel: "Test CPU", Cores: 2}}
	for _, x := range []struct {
		name string
		p50  float64
	}{{"a", aP50}, {"b", bP50}} {
		r.Targets = append(r.Targets, report.Target{Name: x.name, Status: "ok"})
		r.Results = append(r.Results, report.Result{
			Target: x.name, Workload: "lookup", Size: 100, Status: "ok",
			Repeats: []report.Repeat{{Figures: map[string]float64{"p50": x.p50, "rows_per_s": 1e9 / x.p50}}},
		})
	}
	return r
}

// TestAssertionLineStatesTheRelationThatHolds: a FAIL line says how the value actually relates to
// the threshold (the negated operator), a PASS line the operator itself, and the threshold is labelled
// allowed (an upper bound) or required (a lower bound), for every operator and form, with the verdict
// decided by the real evaluator.
func TestAssertionLineStatesTheRelationThatHolds(t *testing.T) {
	tests := []struct {
		expr     string
		a, b     float64 // lookup.p50 medians of a and b, in ns
		relax    float64
		verdict  report.Verdict
		want     string
		machines map[string]float64 // thresholds keyed by machine class (oneResult's is "Test CPU, 2 cores")
	}{
		{"lookup.p50[a] - lookup.p50[b] <= 250", 451, 100, 0.1, "fail", "median diff 351 ns > 275 ns allowed (relaxed from 250 ns)", nil},
		{"lookup.p50[a] - lookup.p50[b] <= 250", 220, 100, 0.1, "pass", "median diff 120 ns <= 275 ns allowed (relaxed from 250 ns)", nil},
		{"lookup.p50[a] - lookup.p50[b] < 250", 350, 100, 0, "fail", "median diff 250 ns >= 250 ns allowed", nil},
		{"lookup.p50[a] - lookup.p50[b] < 250", 349, 100, 0, "pass", "median diff 249 ns < 250 ns allowed", nil},
		{"lookup.p50[a] >= 2000", 1500, 1, 0, "fail", "median 1.50 µs < 2.00 µs required", nil},
		{"lookup.p50[a] >= 2000", 2500, 1, 0, "pass", "median 2.50 µs >= 2.00 µs required", nil},
		{"lookup.p50[a] > 2000", 2000, 1, 0, "fail", "median 2.00 µs <= 2.00 µs required", nil},
		{"lookup.rows_per_s[a] >= 0.5 * lookup.rows_per_s[b]", 400, 100, 0.1, "fail", "median ratio 0.25 < 0.45 required (relaxed from 0.5)", nil},
		{"lookup.rows_per_s[a] >= 0.5 * lookup.rows_per_s[b]", 100, 100, 0.1, "pass", "median ratio 1 >= 0.45 required (relaxed from 0.5)", nil},
		{"lookup.p50[a] <= 1.1 * lookup.p50[b]", 200, 100, 0, "fail", "median ratio 2 > 1.1 allowed", nil},
		{"lookup.p50[a] - lookup.p50[b] <= 250", 451, 100, 0.1, "pass", "median diff 351 ns <= 550 ns allowed (relaxed from 500 ns; threshold for Test CPU, 2 cores; elsewhere 250 ns)",
			map[string]float64{"Test CPU, 2 cores": 500, "Other CPU, 2 cores": 100}},
		{"lookup.p50[a] - lookup.p50[b] <= 250", 451, 100, 0, "fail", "median diff 351 ns > 250 ns allowed",
			map[string]float64{"Test CPU, 4 cores": 500}},
	}
	for _, tt := range tests {
		t.Run(tt.expr+"/"+string(tt.verdict), func(t *testing.T) {
			a, err := assertion.Parse(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			a.Machines = tt.machines
			r := oneResult(tt.a, tt.b)
			r.Assertions = a.Evaluate(r, tt.relax, assertion.Rule{})
			if got := r.Assertions[0].Verdict; got != tt.verdict {
				t.Fatalf("verdict %s, want %s", got, tt.verdict)
			}
			if got := decidedOn(r.Assertions[0]); got != tt.want {
				t.Errorf("decided on %q, want %q", got, tt.want)
			}
			var b bytes.Buffer
			Assertions(&b, r, Style{})
			// the verdict line, then the detail, which may wrap onto more indented lines: read it whole
			lines := strings.Split(strings.TrimSpace(b.String()), "\n")
			detail := strings.Join(strings.Fields(strings.Join(lines[min(2, len(lines)):], " ")), " ")
			if len(lines) < 3 || !strings.HasPrefix(lines[1], strings.ToUpper(string(tt.verdict))+" ") || !strings.HasSuffix(detail, ": "+tt.want) {
				t.Errorf("assertions table:\n%s", b.String())
			}
		})
	}
}

// TestAssertionLineSaysBestRepeat: under run_value best the line names the statistic it decided on.
func TestAssertionLineSaysBestRepeat(t *testing.T) {
	a, err := assertion.Parse("lookup.p50[a] <= 1.1 * lookup.p50[b]")
	if err != nil {
		t.Fatal(err)
	}
	a.RunValue = report.RunBest
	r := oneResult(200, 100)
	r.Assertions = a.Evaluate(r, 0, assertion.Rule{})
	if got, want := decidedOn(r.Assertions[0]), "best-repeat ratio 2 > 1.1 allowed"; got != want {
		t.Errorf("decided on %q, want %q", got, want)
	}
	r.Assertions[0].Runs, r.Assertions[0].Interval = 3, &report.Interval{Lo: 1.5, Hi: 2.5, Confidence: 0.99, Method: "t-log"}
	if got := decidedOn(r.Assertions[0]); !strings.HasPrefix(got, "mean best-repeat ratio 2 [1.5, 2.5] > 1.1 allowed") {
		t.Errorf("over runs: decided on %q", got)
	}
}

func TestSpacedUnit(t *testing.T) {
	for in, want := range map[string]string{
		"351ns": "351 ns", "-1ns": "-1 ns", "4.21µs": "4.21 µs", "1.00ms": "1.00 ms", "2.50s": "2.50 s",
		"96.5M/s": "96.5M/s", "812/s": "812/s", "1.20k": "1.20k", "-": "-", "0.45": "0.45",
	} {
		if got := spacedUnit(in); got != want {
			t.Errorf("spacedUnit(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTrimFloatNoExponent: thresholds print as plain digits, also when relaxing makes them tiny.
func TestTrimFloatNoExponent(t *testing.T) {
	for in, want := range map[float64]string{9e-05: "0.00009", 1.23456e-7: "0.0000001235", 0.5: "0.5", 1.106: "1.106", 2e6: "2000000", -0.0: "0"} {
		if got := trimFloat(in); got != want {
			t.Errorf("trimFloat(%v) = %q, want %q", in, got, want)
		}
	}
}

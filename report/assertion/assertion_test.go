package assertion

import (
	"math"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/report"
)

func TestParse(t *testing.T) {
	tests := []struct {
		expr    string
		form    Form
		op      string
		k       float64
		left    string
		right   string
		wantErr string
	}{
		{expr: "scan.rows_per_s[lmdb-go] >= 0.5 * scan.rows_per_s[lmdb-c]", form: Ratio, op: ">=", k: 0.5, left: "scan.rows_per_s[lmdb-go]", right: "scan.rows_per_s[lmdb-c]"},
		{expr: "scan.rows_per_s[a] >= scan.rows_per_s[b] * 80%", form: Ratio, op: ">=", k: 0.8, left: "scan.rows_per_s[a]", right: "scan.rows_per_s[b]"},
		{expr: "lookup.p50[go] <= 1.1 x lookup.p50[c]", form: Ratio, op: "<=", k: 1.1, left: "lookup.p50[go]", right: "lookup.p50[c]"},
		{expr: "lookup.p50[go] < lookup.p50[c]", form: Ratio, op: "<", k: 1, left: "lookup.p50[go]", right: "lookup.p50[c]"},
		{expr: "scan.ns_per_row[go] - scan.ns_per_row[c] <= 110", form: Difference, op: "<=", k: 110, left: "scan.ns_per_row[go]", right: "scan.ns_per_row[c]"},
		{expr: "insert.ns_per_row[go]-insert.ns_per_row[c]<=-5", form: Difference, op: "<=", k: -5, left: "insert.ns_per_row[go]", right: "insert.ns_per_row[c]"},
		{expr: "scan.rows_per_s[memory] > 1e6", form: Absolute, op: ">", k: 1e6, left: "scan.rows_per_s[memory]"},
		{expr: "page_all.p50[indexed@max] <= 2 * page_all.p50[indexed@min]", form: Ratio, op: "<=", k: 2, left: "page_all.p50[indexed@max]", right: "page_all.p50[indexed@min]"},
		{expr: "page_all.p50[indexed@3000000] <= 2 * page_all.p50[indexed@30_000]", form: Ratio, op: "<=", k: 2, left: "page_all.p50[indexed@3000000]", right: "page_all.p50[indexed@30_000]"},
		{expr: "scan.rows_per_s[a]", wantErr: "no comparison"},
		{expr: "scan.rows_per_s[a] == scan.rows_per_s[b]", wantErr: "unsupported operator"},
		{expr: "scan.rows_per_s[a] >= 0 * scan.rows_per_s[b]", wantErr: "must be positive"},
		{expr: "scan.rows_per_s[a] >= 1 <= 2", wantErr: "more than one comparison"},
		{expr: "scan[a] >= 1", wantErr: "cannot read"},
		{expr: "2 * scan.p50[a] >= scan.p50[b]", wantErr: "cannot read"},
		{expr: "scan.p50[a@tiny] >= 1", wantErr: "bad size"},
		{expr: "scan.p50[a] - scan.p50[b] >= scan.p50[c]", wantErr: "cannot read"},
		// figures per operation type, durations as thresholds
		{expr: "ycsb-a.read.response_p99[sqlite] <= 2ms", form: Absolute, op: "<=", k: 2e6, left: "ycsb-a.read.response_p99[sqlite]"},
		{expr: "ycsb-a.achieved_rate[sqlite] >= 0.99 * ycsb-a.target_rate[sqlite]", form: Ratio, op: ">=", k: 0.99, left: "ycsb-a.achieved_rate[sqlite]", right: "ycsb-a.target_rate[sqlite]"},
		{expr: "ycsb-a.read.response_p99[pg] <= 1.5 * ycsb-a.read.response_p99[sqlite]", form: Ratio, op: "<=", k: 1.5, left: "ycsb-a.read.response_p99[pg]", right: "ycsb-a.read.response_p99[sqlite]"},
		{expr: "ycsb-f.readmodifywrite.service_p99[a] - ycsb-f.readmodifywrite.service_p99[b] <= 250us", form: Difference, op: "<=", k: 250e3, left: "ycsb-f.readmodifywrite.service_p99[a]", right: "ycsb-f.readmodifywrite.service_p99[b]"},
		{expr: "ycsb-a.update.start_lag_p99[memory] < 100µs", form: Absolute, op: "<", k: 100e3, left: "ycsb-a.update.start_lag_p99[memory]"},
		{expr: "ycsb-a.response_p999[a@max] <= 1.5s", form: Absolute, op: "<=", k: 1.5e9, left: "ycsb-a.response_p999[a@max]"},
		{expr: "lookup.p50[go] - lookup.p50[c] >= -20ns", form: Difference, op: ">=", k: -20, left: "lookup.p50[go]", right: "lookup.p50[c]"},
		{expr: "ycsb-a.dropped[a] <= 0", form: Absolute, op: "<=", k: 0, left: "ycsb-a.dropped[a]"},
		{expr: "ycsb-a.read.achieved_rate[a] >= 1", wantErr: `names operation type "read", but achieved_rate is not kept per operation type`},
		{expr: "lookup.read.p50[a] <= 1", wantErr: "p50 is not kept per operation type"},
		{expr: "ycsb-a.read.response_p90[a] <= 1ms", wantErr: `ycsb-a.read.response_p90[a]: unknown figure "response_p90"`},
		{expr: "ycsb-a.achieved_rate[a] >= 2ms", wantErr: "2ms is a duration, but achieved_rate is in 1/s"},
		{expr: "ycsb-a.late[a] <= 1s", wantErr: "1s is a duration, but late is in count"},
		{expr: "lookup.p50[a] <= 2ms * lookup.p50[b]", wantErr: "the factor 2ms has a unit"},
		{expr: "lookup.p50[a] <= lookup.p50[b] * 1.5s", wantErr: "the factor 1.5s has a unit"},
		{expr: "lookup.p50[a] <= 2ms_x", wantErr: "a unit (ns, us, ms, s) ends the number"},
		{expr: "lookup.p50[a] <= 2min", wantErr: "cannot read"},
		{expr: "lookup.p50[a] <= 1e300s", wantErr: "bad number"},
		{expr: "ycsb-a.read.[a] <= 1", wantErr: "cannot read"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			a, err := Parse(tt.expr)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if a.Form != tt.form || a.Op != tt.op || math.Abs(a.K-tt.k) > 1e-12 || a.Left.String() != tt.left {
				t.Errorf("got form=%s op=%s k=%v left=%s", a.Form, a.Op, a.K, a.Left)
			}
			if tt.right != "" && a.Right.String() != tt.right {
				t.Errorf("right = %s, want %s", a.Right, tt.right)
			}
		})
	}
}

// A ref with an operation type reads the figure OP.FIGURE; without one, the figure itself.
func TestRefParts(t *testing.T) {
	tests := []struct {
		expr                            string
		workload, op, figure, key, size string
	}{
		{"ycsb-a.read.response_p99[sqlite] <= 2ms", "ycsb-a", "read", "response_p99", "read.response_p99", ""},
		{"ycsb-a.response_p99[sqlite@max] <= 2ms", "ycsb-a", "", "response_p99", "response_p99", "max"},
		{"page_all.p50[pg@30_000] <= 2ms", "page_all", "", "p50", "p50", "30_000"},
	}
	for _, tt := range tests {
		a, err := Parse(tt.expr)
		if err != nil {
			t.Fatalf("%s: %v", tt.expr, err)
		}
		l := a.Left
		if l.Workload != tt.workload || l.Op != tt.op || l.Figure != tt.figure || l.Key() != tt.key || l.Size != tt.size {
			t.Errorf("%s: got %+v (key %s)", tt.expr, l, l.Key())
		}
	}
}

// A threshold written apart from the check (machines:) reads as the check's own numbers, durations
// included, and only where the check could hold one.
func TestReadThreshold(t *testing.T) {
	tests := []struct {
		check, threshold string
		want             float64
		wantErr          string
	}{
		{"ycsb-a.read.response_p99[a] <= 2ms", "3ms", 3e6, ""},
		{"ycsb-a.read.response_p99[a] <= 2ms", "2500000", 2.5e6, ""},
		{"lookup.p50[a] - lookup.p50[b] <= 250", " 600ns ", 600, ""},
		{"lookup.p50[a] - lookup.p50[b] <= 250", "-1.5us", -1500, ""},
		{"lookup.p50[a] <= 1.1 * lookup.p50[b]", "1.3", 1.3, ""},
		{"lookup.p50[a] <= 1.1 * lookup.p50[b]", "2ms", 0, "the factor 2ms has a unit"},
		{"lookup.p50[a] <= 1.1 * lookup.p50[b]", "-1", 0, "must be positive"},
		{"ycsb-a.achieved_rate[a] >= 900", "1s", 0, "1s is a duration, but achieved_rate is in 1/s"},
		{"ycsb-a.achieved_rate[a] >= 900", "2 ms", 0, "bad number"},
	}
	for _, tt := range tests {
		a, err := Parse(tt.check)
		if err != nil {
			t.Fatal(err)
		}
		k, err := a.ReadThreshold(tt.threshold)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s, %q: error %v, want containing %q", tt.check, tt.threshold, err, tt.wantErr)
			}
			continue
		}
		if err != nil || math.Abs(k-tt.want) > 1e-9 {
			t.Errorf("%s, %q: %v, %v; want %v", tt.check, tt.threshold, k, err, tt.want)
		}
		if p, err := ParseThreshold(tt.threshold); err != nil || p != k {
			t.Errorf("ParseThreshold(%q) = %v, %v; want %v as ReadThreshold", tt.threshold, p, err, k)
		}
	}
}

func TestRelaxed(t *testing.T) {
	tests := []struct {
		expr  string
		relax float64
		want  float64
	}{
		{"scan.rows_per_s[a] >= 0.8 * scan.rows_per_s[b]", 0.1, 0.72},
		{"lookup.p50[a] <= 1.1 * lookup.p50[b]", 0.1, 1.21},
		{"scan.ns_per_row[a] - scan.ns_per_row[b] <= 110", 0.1, 121},
		{"scan.ns_per_row[a] - scan.ns_per_row[b] >= -100", 0.1, -110},
		{"scan.rows_per_s[a] >= 1000", 0.1, 900},
		{"scan.rows_per_s[a] >= 1000", 0, 1000},
	}
	for _, tt := range tests {
		a, err := Parse(tt.expr)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Relaxed(tt.relax); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s relaxed %v = %v, want %v", tt.expr, tt.relax, got, tt.want)
		}
	}
}

// fakeReport builds a report with per-repeat values of one figure per (target, workload, size).
func fakeReport(sizes []int, series map[string][]float64) *report.Report {
	r := &report.Report{Run: report.Run{Sizes: sizes}}
	seen := map[string]bool{}
	for key, vals := range series {
		// key: target/workload/size/figure
		parts := strings.Split(key, "/")
		target, workload, figure := parts[0], parts[1], parts[3]
		size := 0
		for _, c := range parts[2] {
			size = size*10 + int(c-'0')
		}
		if !seen[target] {
			r.Targets = append(r.Targets, report.Target{Name: target, Status: "ok"})
			seen[target] = true
		}
		res := r.Find(target, workload, size)
		if res == nil {
			r.Results = append(r.Results, report.Result{Target: target, Workload: workload, Size: size, Status: "ok"})
			res = &r.Results[len(r.Results)-1]
		}
		for i, v := range vals {
			if i == len(res.Repeats) {
				res.Repeats = append(res.Repeats, report.Repeat{Index: i, Figures: map[string]float64{}})
			}
			res.Repeats[i].Figures[figure] = v
		}
	}
	return r
}

func TestEvaluate(t *testing.T) {
	r := fakeReport([]int{100}, map[string][]float64{
		// Paired ratios go: 0.9, 0.5, 0.95 -> median 0.9. The ratio of medians would be 90/100 too,
		// but the pairing matters when drift hits one repeat: repeat 2 is slow for both.
		"go/scan/100/rows_per_s": {90, 25, 95},
		"c/scan/100/rows_per_s":  {100, 50, 100},
		"go/scan/100/ns_per_row": {120, 130, 125},
		"c/scan/100/ns_per_row":  {30, 35, 20},
	})
	tests := []struct {
		expr    string
		relax   float64
		verdict report.Verdict
		value   float64
	}{
		{"scan.rows_per_s[go] >= 0.8 * scan.rows_per_s[c]", 0, "pass", 0.9},
		{"scan.rows_per_s[go] >= 0.95 * scan.rows_per_s[c]", 0, "fail", 0.9},
		{"scan.rows_per_s[go] >= 0.95 * scan.rows_per_s[c]", 0.1, "pass", 0.9}, // 0.855
		{"scan.ns_per_row[go] - scan.ns_per_row[c] <= 100", 0, "pass", 95},
		{"scan.ns_per_row[go] - scan.ns_per_row[c] <= 90", 0, "fail", 95},
		{"scan.ns_per_row[go] - scan.ns_per_row[c] <= 90", 0.1, "pass", 95}, // 99
		{"scan.ns_per_row[go] <= 125", 0, "pass", 125},
		{"scan.ns_per_row[go] < 125", 0, "fail", 125},
		{"scan.ns_per_row[missing] <= 1", 0, "error", 0},
		{"lookup.p50[go] <= 1", 0, "error", 0},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			a, err := Parse(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			got := a.Evaluate(r, tt.relax, Rule{})
			if len(got) != 1 {
				t.Fatalf("got %d verdicts", len(got))
			}
			if got[0].Verdict != tt.verdict {
				t.Fatalf("verdict %s (%s), want %s", got[0].Verdict, got[0].Reason, tt.verdict)
			}
			if tt.verdict != "error" && (got[0].Value != tt.value || got[0].Interval.Method != "point" || got[0].Runs != 1) {
				t.Errorf("value %v (%+v over %d runs), want the point value %v", got[0].Value, got[0].Interval, got[0].Runs, tt.value)
			}
		})
	}
}

// A threshold keyed to the run's machine class replaces the check's own, on that class only, and the
// verdict says which it used; relaxation applies to it as to the check's own.
func TestEvaluateMachineThreshold(t *testing.T) {
	r := fakeReport([]int{100}, map[string][]float64{
		"go/scan/100/ns_per_row": {120, 130, 125},
		"c/scan/100/ns_per_row":  {30, 35, 20},
	}) // paired differences 90, 95, 105: median 95
	r.Environment.CPUModel, r.Environment.Cores = "AMD EPYC", 2
	tests := []struct {
		name     string
		machines map[string]float64
		relax    float64
		verdict  report.Verdict
		used     float64
		class    string
	}{
		{"no key", nil, 0, "fail", 90, ""},
		{"keyed to this class", map[string]float64{"AMD EPYC, 2 cores": 100}, 0, "pass", 100, "AMD EPYC, 2 cores"},
		{"keyed, relaxed", map[string]float64{"AMD EPYC, 2 cores": 90}, 0.1, "pass", 99, "AMD EPYC, 2 cores"},
		{"keyed to another class", map[string]float64{"AMD EPYC, 4 cores": 100}, 0, "fail", 90, ""},
		{"stricter on this class", map[string]float64{"AMD EPYC, 2 cores": 50}, 0, "fail", 50, "AMD EPYC, 2 cores"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Parse("scan.ns_per_row[go] - scan.ns_per_row[c] <= 90")
			if err != nil {
				t.Fatal(err)
			}
			a.Machines = tt.machines
			got := a.Evaluate(r, tt.relax, Rule{})[0]
			if got.Verdict != tt.verdict || math.Abs(got.RelaxedThreshold-tt.used) > 1e-9 || got.MachineClass != tt.class {
				t.Fatalf("verdict %s, threshold %v, class %q; want %s, %v, %q", got.Verdict, got.RelaxedThreshold, got.MachineClass, tt.verdict, tt.used, tt.class)
			}
			if tt.class != "" && got.DefaultThreshold != 90 {
				t.Errorf("default threshold %v, want the check's own 90", got.DefaultThreshold)
			}
		})
	}
}

func TestEvaluateSweep(t *testing.T) {
	r := fakeReport([]int{30, 300, 3000}, map[string][]float64{
		"ix/page/30/p50":   {100, 110, 90},
		"ix/page/300/p50":  {120, 130, 110},
		"ix/page/3000/p50": {250, 260, 240},
		"tx/page/30/p50":   {1000, 1100, 900},
		"tx/page/300/p50":  {10000, 11000, 9000},
		"tx/page/3000/p50": {100000, 110000, 90000},
	})
	growth, _ := Parse("page.p50[ix@max] <= 2 * page.p50[ix@min]")
	got := growth.Evaluate(r, 0, Rule{})
	if len(got) != 1 || got[0].Verdict != "fail" || math.Abs(got[0].Value-2.5) > 1e-9 {
		t.Fatalf("growth: %+v", got)
	}
	if got[0].Left != "page.p50[ix@max]" {
		t.Errorf("left = %s", got[0].Left)
	}
	per, _ := Parse("page.p50[tx] >= 10 * page.p50[ix]")
	got = per.Evaluate(r, 0, Rule{})
	if len(got) != 3 {
		t.Fatalf("per-size verdicts: %d, want 3", len(got))
	}
	want := []report.Verdict{report.VerdictPass, report.VerdictPass, report.VerdictPass}
	for i, g := range got {
		if g.Verdict != want[i] {
			t.Errorf("size %d: %s (value %v)", r.Run.Sizes[i], g.Verdict, g.Value)
		}
	}
	if got[2].Left != "page.p50[tx@3000]" {
		t.Errorf("sized name = %s", got[2].Left)
	}
	bad, _ := Parse("page.p50[ix@31] <= 1")
	if g := bad.Evaluate(r, 0, Rule{}); g[0].Verdict != "error" || !strings.Contains(g[0].Reason, "not run") {
		t.Errorf("unknown size: %+v", g[0])
	}
}

// Nothing unmeasured passes: a side whose target was skipped (an optional target, absent) leaves the
// assertion out; a failed result, a missing figure, a zero denominator or a value that is not a
// number is an error naming what is missing; never a pass, whatever the threshold.
func TestEvaluateNothingUnmeasuredPasses(t *testing.T) {
	newReport := func() *report.Report {
		r := fakeReport([]int{10}, map[string][]float64{
			"a/scan/10/p50": {1, 2, 3}, "b/scan/10/p50": {1, 2, 3}, "c/scan/10/p50": {1, 2, 3},
			"d/scan/10/p50": {1, 2, 3}, "z/scan/10/p50": {1, 0, 3}, "n/scan/10/p50": {1, math.NaN(), 3},
			"o/scan/10/p50": {0, 0, 0},
		})
		r.Targets = append(r.Targets, report.Target{Name: "e", Status: "ok", Instances: []report.Instance{{Size: 10, Skipped: "declined the size"}}})
		a := r.TargetByName("a")
		a.Status, a.Reason = "skipped", "no docker"
		for i := range r.Results {
			switch r.Results[i].Target {
			case "b":
				r.Results[i].Status, r.Results[i].Error = "failed", "checksum\nmismatch"
			case "d":
				delete(r.Results[i].Repeats[1].Figures, "p50")
			}
		}
		return r
	}
	tests := []struct {
		expr    string
		verdict report.Verdict
		reason  string
	}{
		{"scan.p50[a] <= 1000", "left_out", "target a was skipped: no docker"},
		{"scan.p50[c] <= 1000 * scan.p50[a]", "left_out", "target a was skipped: no docker"},
		{"scan.p50[e] <= 1000", "left_out", "target e was skipped at size 10: declined the size"},
		{"scan.p50[b] <= 1000", "error", "b scan failed, so scan.p50[b] was not measured: checksum mismatch"},
		{"scan.p50[c] - scan.p50[b] <= 1000", "error", "b scan failed"},
		{"scan.p50[d] <= 1000", "error", "figure p50 is missing in d scan (run 1, repeat 2)"},
		{"scan.p50[c] <= 1000 * scan.p50[z]", "error", "scan.p50[z] is 0 in run 1, repeat 2: a zero denominator"},
		{"scan.p50[n] <= 1000", "error", "figure p50 of n scan is not a number (NaN) in run 1"},
		{"scan.p50[c] >= 0.001 * scan.p50[n]", "error", "not a number"},
		{"scan.p50[zz] <= 1000", "error", `no target "zz" in the report`},
		{"lookup.p50[c] <= 1000", "error", "c did not run lookup, so lookup.p50[c] was not measured"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			a, err := Parse(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			for _, rule := range []Rule{{}, {Confidence: 0.95, Tests: 4}} {
				g := a.Evaluate(newReport(), 0, rule)[0]
				if g.Verdict != tt.verdict || !strings.Contains(g.Reason, tt.reason) || !strings.Contains(g.Why, tt.reason) || g.Interval != nil {
					t.Errorf("verdict %s, reason %q, why %q, interval %v; want %s naming %q and no interval", g.Verdict, g.Reason, g.Why, g.Interval, tt.verdict, tt.reason)
				}
			}
		})
	}
	// a ratio whose numerator is 0 is defined: 0 against a lower bound fails
	a, _ := Parse("scan.p50[o] >= 0.5 * scan.p50[c]")
	if g := a.Evaluate(newReport(), 0, Rule{})[0]; g.Verdict != "fail" {
		t.Errorf("numerator 0: %s (%s)", g.Verdict, g.Reason)
	}
}

// An open-loop workload's figures: per operation type the assertion reads that type's clock, not
// the workload's; a type not in the mix, or a closed-loop workload, is an error naming what is there.
func TestEvaluateOpenLoopFigures(t *testing.T) {
	r := fakeReport([]int{100}, map[string][]float64{
		"s/ycsb-a/100/read.response_p99":   {1.5e6, 1.8e6, 1.7e6},
		"s/ycsb-a/100/update.response_p99": {3e6, 3.2e6, 2.9e6},
		"s/ycsb-a/100/response_p99":        {2.5e6, 2.6e6, 2.4e6},
		"s/ycsb-a/100/achieved_rate":       {995, 990, 999},
		"s/ycsb-a/100/target_rate":         {1000, 1000, 1000},
		"p/ycsb-a/100/achieved_rate":       {700, 720, 650},
		"p/ycsb-a/100/target_rate":         {1000, 1000, 1000},
		"p/ycsb-a/100/read.response_p99":   {3.4e6, 3.6e6, 3.5e6},
		"s/lookup/100/p50":                 {900, 950, 1000},
	})
	for i := range r.Results {
		if r.Results[i].Workload == "ycsb-a" {
			r.Results[i].Load = &report.Load{Types: []report.LoadType{{Op: "read"}, {Op: "update"}}}
		}
	}
	tests := []struct {
		expr    string
		verdict report.Verdict
		value   float64
		reason  string
	}{
		{"ycsb-a.read.response_p99[s] <= 2ms", "pass", 1.7e6, ""},
		{"ycsb-a.response_p99[s] <= 2ms", "fail", 2.5e6, ""},
		{"ycsb-a.update.response_p99[s] <= 2ms", "fail", 3e6, ""},
		{"ycsb-a.achieved_rate[s] >= 0.99 * ycsb-a.target_rate[s]", "pass", 0.995, ""},
		{"ycsb-a.achieved_rate[p] >= 0.99 * ycsb-a.target_rate[p]", "fail", 0.7, ""},
		{"ycsb-a.read.response_p99[p] <= 2.5 * ycsb-a.read.response_p99[s]", "pass", 3.5 / 1.7, ""}, // paired: 2.27, 2.0, 2.06
		{"ycsb-a.insert.response_p99[s] <= 2ms", "error", 0, "figure insert.response_p99 is missing in s ycsb-a (run 1, repeat 1): its operation types are read, update"},
		{"lookup.response_p99[s] <= 2ms", "error", 0, "figure response_p99 is missing in s lookup (run 1, repeat 1): it is a load-model figure, and this workload is not one"},
		{"lookup.p90[s] <= 2ms", "error", 0, "figure p90 is missing in s lookup (run 1, repeat 1)"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			a, err := Parse(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			g := a.Evaluate(r, 0, Rule{})[0]
			if g.Verdict != tt.verdict {
				t.Fatalf("verdict %s (%s), want %s", g.Verdict, g.Reason, tt.verdict)
			}
			if tt.reason != "" && g.Reason != tt.reason {
				t.Errorf("reason %q, want %q", g.Reason, tt.reason)
			}
			if tt.verdict != "error" && math.Abs(g.Value-tt.value) > 1e-9*tt.value {
				t.Errorf("value %v, want %v", g.Value, tt.value)
			}
		})
	}
}

package render

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/lmdb"
	"github.com/dbbench/dbbench/adapters/memory"
	"github.com/dbbench/dbbench/baselines/lmdbc"
	"github.com/dbbench/dbbench/compare/comparetest"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render/browsertest"
)

// htmlReports are the pages checked: a real four-target LMDB run (dbbench run -c configs/lmdb.yaml),
// a two-size sweep with a failed result, a skipped target and a growth assertion, and an open-loop
// run of two targets, one saturated (testdata/genload.go), and a profiled run with memory figures
// (testdata/genprofile.go).
var htmlReports = []string{"lmdb.json", "sweep.json", "load.json", "profile.json"}

// testKinds are the option kinds of the adapters the test reports use, from their own specs.
func testKinds(t *testing.T) OptionKinds {
	t.Helper()
	reg, err := adapters.NewRegistry(lmdb.New(), lmdbc.New(), memory.New())
	if err != nil {
		t.Fatal(err)
	}
	return OptionKindsOf(reg)
}

func readReport(t *testing.T, name string) *report.Report {
	t.Helper()
	r, err := report.Read(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// expectations turns the page's chart model into what the browser must show: every series with
// its points, and on a percentile axis the labels up to the highest percentile plotted.
func expectations(secs []Section) []browsertest.Expect {
	var out []browsertest.Expect
	for _, s := range secs {
		for _, c := range s.Charts {
			e := browsertest.Expect{ID: c.ID, XCategories: c.XCategories != nil}
			top := 0.0
			for _, se := range c.Series {
				e.Series = append(e.Series, browsertest.SeriesSeen{Name: se.Name, Points: len(se.Points)})
				for _, p := range se.Points {
					top = max(top, p.X)
				}
			}
			if c.XScale == InvTail {
				e.XLabels = percentileLabels(top)
			}
			out = append(out, e)
		}
	}
	return out
}

// percentileLabels are the labels a percentile axis must carry for data up to the percentile top:
// 50%, 90%, 99%, ... up to the first at or above top.
func percentileLabels(top float64) []string {
	var out []string
	for _, p := range []struct {
		v     float64
		label string
	}{{50, "50%"}, {90, "90%"}, {99, "99%"}, {99.9, "99.9%"}, {99.99, "99.99%"}, {99.999, "99.999%"}, {99.9999, "99.9999%"}} {
		out = append(out, p.label)
		if p.v >= top {
			break
		}
	}
	return out
}

// TestHTMLInBrowser opens each page in headless Chromium: every chart drawn with its series and
// points inside the chart, no request, no console message (a CSP violation would show there).
func TestHTMLInBrowser(t *testing.T) {
	for _, name := range htmlReports {
		t.Run(name, func(t *testing.T) {
			r := readReport(t, name)
			var b bytes.Buffer
			if err := HTML(&b, r, testKinds(t)); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "report.html")
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			page := browsertest.Open(t, path)
			secs, err := ReportCharts(r)
			if err != nil {
				t.Fatal(err)
			}
			if page.Title != "dbbench "+r.Run.ConfigName {
				t.Errorf("title %q", page.Title)
			}
			browsertest.Check(t, page, expectations(secs))
			browsertest.CheckBars(t, page, barExpectations(secs))
			browsertest.SaveArtifact(t, "report-"+strings.TrimSuffix(name, ".json")+".png", page.Screenshot)
		})
	}
}

// TestHTMLHumanUnits: the page shows numbers as people read them: sizes a config gave in bytes as
// binary units (the adapter's spec says map_size is a size; txn_size is a count), dataset sizes
// with separators, no exponent anywhere.
func TestHTMLHumanUnits(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, readReport(t, "lmdb.json"), testKinds(t)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"adapter lmdb-c durable=false map_size=1 GiB max_readers=126 txn_size=0; ok",
		"adapter lmdb batch=256 durable=false map_size=1 GiB max_readers=126 raw_read=true txn_size=0; ok",
		"<td>100,000 persons</td>", "23.5 GiB memory",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if m := regexp.MustCompile(`[0-9]e[+-][0-9]`).FindString(page); m != "" {
		t.Errorf("the page shows a number in exponent notation: %q", m)
	}
	// without the specs a size is still a plain number, never 1.073741824e+09
	b.Reset()
	if err := HTML(&b, readReport(t, "lmdb.json"), nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "map_size=1,073,741,824 ") {
		t.Error("without option kinds map_size is not shown as a whole number")
	}
}

// TestHTMLSelfContained: nothing to fetch, a size budget, and every chart the model has.
func TestHTMLSelfContained(t *testing.T) {
	for _, name := range htmlReports {
		r := readReport(t, name)
		var b bytes.Buffer
		if err := HTML(&b, r, nil); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if name == "lmdb.json" && b.Len() > 300_000 {
			t.Errorf("%s: the page is %d bytes, over the 300 KB budget", name, b.Len())
		}
		for _, bad := range []string{"http://", "https://", "src=", "<script", "<link", "@import", "url("} {
			if strings.Contains(page, bad) {
				t.Errorf("%s: the page contains %q: it must load nothing", name, bad)
			}
		}
		if !strings.Contains(page, "default-src 'none'") {
			t.Errorf("%s: no content security policy", name)
		}
		secs, _ := ReportCharts(r)
		for _, e := range expectations(secs) {
			if !strings.Contains(page, `id="`+e.ID+`"`) {
				t.Errorf("%s: chart %s missing", name, e.ID)
			}
		}
	}
}

// TestReportCharts checks the chart model against the report's own data.
func TestReportCharts(t *testing.T) {
	r := readReport(t, "sweep.json")
	secs, err := ReportCharts(r)
	if err != nil {
		t.Fatal(err)
	}
	charts := map[string]Chart{}
	for _, s := range secs {
		for _, c := range s.Charts {
			charts[c.ID] = c
		}
	}
	for _, x := range r.Results {
		if len(x.Repeats) == 0 {
			continue
		}
		rc, ok := charts[chartID("repeats", x.Workload, x.Size)]
		if !ok {
			t.Fatalf("no repeats chart for %s %d", x.Workload, x.Size)
		}
		fig := report.PrimaryFigure(&x)
		found := false
		for _, s := range rc.Series {
			if s.Name != x.Target {
				continue
			}
			found = true
			if len(s.Points) != len(x.Repeats) {
				t.Errorf("%s %s %d: %d repeat points, want %d", x.Target, x.Workload, x.Size, len(s.Points), len(x.Repeats))
			}
			for i, p := range s.Points {
				if p.X != float64(i+1) || p.Y != x.Repeats[i].Figures[fig] {
					t.Errorf("%s %s repeat %d: point (%v, %v), want (%d, %v)", x.Target, x.Workload, i, p.X, p.Y, i+1, x.Repeats[i].Figures[fig])
				}
			}
		}
		if !found {
			t.Errorf("%s %s %d: no series in the repeats chart", x.Target, x.Workload, x.Size)
		}
		dc := charts[chartID("dist", x.Workload, x.Size)]
		h, _ := x.MergedHistogram()
		for _, s := range dc.Series {
			if s.Name != x.Target {
				continue
			}
			first, last := s.Points[0], s.Points[len(s.Points)-1]
			if !h.ValuesAreEquivalent(int64(first.Y), h.Min()) || last.Y != float64(h.Max()) {
				t.Errorf("%s %s: distribution from %v to %v, want min %d to max %d", x.Target, x.Workload, first.Y, last.Y, h.Min(), h.Max())
			}
			for i := 1; i < len(s.Points); i++ {
				if s.Points[i].X <= s.Points[i-1].X || s.Points[i].Y < s.Points[i-1].Y || s.Points[i].X >= 100 {
					t.Errorf("%s %s: distribution point %d goes backwards or reaches 100%%: %+v", x.Target, x.Workload, i, s.Points[i])
				}
			}
		}
	}
	// the growth assertion (lookup.p50[a@max] <= 0.0001 * lookup.p50[a@min]) is drawn at the largest size
	sc, ok := charts[chartID("sweep", "lookup", "p50")]
	if !ok {
		t.Fatal("no sweep chart for lookup p50")
	}
	if len(sc.Marks) != 1 || sc.Marks[0].Y != 0.0001*176 || !sc.Marks[0].Bad {
		t.Errorf("growth marks %+v, want one limit at 0.0001 x 176ns", sc.Marks)
	}
	if len(sc.Series) != 2 || len(sc.Series[0].Points) != 2 {
		t.Errorf("lookup sweep: %d series, want a and b over 2 sizes", len(sc.Series))
	}
}

func TestHTMLEscapes(t *testing.T) {
	r := readReport(t, "sweep.json")
	r.Results[0].Target = `<script>alert(1)</script>`
	r.Run.ConfigName = `"><img src=x>`
	var b bytes.Buffer
	if err := HTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Contains(s, "<script>") || strings.Contains(s, "<img") {
		t.Error("names are not escaped")
	}
}

// TestHTMLEdgeCases: pages for reports with nothing measured, one repeat, one operation or a constant
// value render without NaN or infinite coordinates.
func TestHTMLEdgeCases(t *testing.T) {
	one := comparetest.Report("one",
		comparetest.Result{Target: "a", Workload: "lookup", Latencies: [][]int64{{500}}, Figures: map[string][]float64{"p50": {500}}},
		comparetest.Result{Target: "b", Workload: "lookup", Latencies: [][]int64{{500, 500, 500}}, Figures: map[string][]float64{"p50": {500}}},
		comparetest.Result{Target: "c", Workload: "scan", Status: "failed", Error: "boom"},
	)
	empty := comparetest.Report("empty")
	empty.Verdict = "error"
	for name, r := range map[string]*report.Report{"one": one, "empty": empty} {
		var b bytes.Buffer
		if err := HTML(&b, r, nil); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s := b.String(); strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
			t.Errorf("%s: the page has NaN or Inf coordinates", name)
		}
	}
}

// TestHTMLAssertionVerdicts: every verdict of a schema 2 report shows in the assertions table with
// what it was decided on (one value per run) or, where nothing was decided, why.
func TestHTMLAssertionVerdicts(t *testing.T) {
	r := readReport(t, "sweep.json")
	base := report.Assertion{Expr: "scan.ns_per_row[a] <= 100", Left: "scan.ns_per_row[a]", Form: "absolute", Op: "<=",
		Threshold: 100, RelaxedThreshold: 100, Runs: 3, Value: 93, LeftValue: 93, Interval: &report.Interval{Lo: 80, Hi: 120, Confidence: 0.99, Method: "t"}}
	tests := []struct {
		verdict report.Verdict
		edit    func(*report.Assertion)
		want    []string
	}{
		{report.VerdictPass, func(a *report.Assertion) { a.RunValues = []float64{91, 93, 95} }, []string{"PASS", "runs: 91ns 93ns 95ns"}},
		{report.VerdictInconclusive, func(a *report.Assertion) {
			a.RunValues, a.Why = []float64{81, 99, 117}, "about 7 more runs would decide"
		}, []string{"INCONCLUSIVE", "runs: 81ns 99ns 117ns", "about 7 more runs would decide"}},
		{report.VerdictError, func(a *report.Assertion) { a.Why = "scan.ns_per_row[a] is missing" }, []string{"ERROR", "scan.ns_per_row[a] is missing"}},
		{report.VerdictLeftOut, func(a *report.Assertion) { a.Reason = "optional target b is absent" }, []string{"LEFT_OUT", "optional target b is absent"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.verdict), func(t *testing.T) {
			a := base
			a.Verdict = tt.verdict
			tt.edit(&a)
			r.Assertions = []report.Assertion{a}
			var b bytes.Buffer
			if err := HTML(&b, r, nil); err != nil {
				t.Fatal(err)
			}
			s := b.String()
			for _, w := range tt.want {
				if !strings.Contains(s, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
		})
	}
}

// TestResultsLegend: the results table says what its medians are over: repeats for one run, runs
// (and how many) for several, and the range of them when results rest on different numbers of runs
// (a run made to decide measures only what its assertions read).
func TestResultsLegend(t *testing.T) {
	for _, tt := range []struct {
		runs []int // each result's runs; the last applies to the rest
		want string
	}{
		{[]int{1}, "medians over repeats"},
		{[]int{3}, "medians over 3 runs of each run's medians"},
		{[]int{3, 2}, "medians over 2-3 runs (per result) of each run's medians"},
	} {
		r := readReport(t, "sweep.json")
		r.Run.Runs = nil
		for k := 1; k <= 3; k++ {
			r.Run.Runs = append(r.Run.Runs, report.RunEntry{Index: k, Why: "initial"})
		}
		for i := range r.Results {
			n := tt.runs[min(i, len(tt.runs)-1)]
			for j := range r.Results[i].Repeats {
				r.Results[i].Repeats[j].Run = j%n + 1
			}
		}
		if got := resultsLegend(r); !strings.Contains(got, tt.want) || len(got) > 120 {
			t.Errorf("runs %v: legend %q, want it to say %q within 120 columns", tt.runs, got, tt.want)
		}
	}
}

// TestLoadCharts checks the open-loop charts against the report's own intervals: the target and
// achieved rate of every interval, and the response percentiles of every interval where operations
// completed, each from its own field.
func TestLoadCharts(t *testing.T) {
	r := readReport(t, "load.json")
	secs, err := ReportCharts(r)
	if err != nil {
		t.Fatal(err)
	}
	charts := map[string]Chart{}
	for _, s := range secs {
		for _, c := range s.Charts {
			charts[c.ID] = c
		}
	}
	loads := 0
	for i := range r.Results {
		x := &r.Results[i]
		if x.Load == nil {
			continue
		}
		loads++
		iv := x.Load.Intervals
		rate, ok := charts[chartID("load-rate", x.Target, x.Workload, x.Size)]
		if !ok || len(rate.Series) != 2 {
			t.Fatalf("%s: rate chart %+v, want target and achieved", x.Target, rate.Series)
		}
		resp, ok := charts[chartID("load-response", x.Target, x.Workload, x.Size)]
		if !ok || len(resp.Series) != 3 {
			t.Fatalf("%s: response chart with %d series, want p50, p99, p99.9", x.Target, len(resp.Series))
		}
		want := map[string]func(report.LoadInterval) float64{
			"target rate":   func(v report.LoadInterval) float64 { return v.TargetRate },
			"achieved rate": func(v report.LoadInterval) float64 { return v.Achieved },
			"p50":           func(v report.LoadInterval) float64 { return v.ResponseP50 },
			"p99":           func(v report.LoadInterval) float64 { return v.ResponseP99 },
			"p99.9":         func(v report.LoadInterval) float64 { return v.ResponseP999 },
		}
		for _, s := range append(rate.Series, resp.Series...) {
			get := want[s.Name]
			var pts []Point
			for _, v := range iv {
				if get == nil || s.Name[0] == 'p' && v.Achieved == 0 {
					continue
				}
				pts = append(pts, Pt(float64(v.StartNs)/1e9, get(v), ""))
			}
			if len(s.Points) != len(pts) || len(pts) == 0 {
				t.Fatalf("%s %s: %d points, want %d", x.Target, s.Name, len(s.Points), len(pts))
			}
			for j, p := range s.Points {
				if p.X != pts[j].X || p.Y != pts[j].Y {
					t.Errorf("%s %s point %d: (%v, %v), want (%v, %v)", x.Target, s.Name, j, p.X, p.Y, pts[j].X, pts[j].Y)
				}
			}
		}
	}
	if loads != 2 {
		t.Fatalf("%d open-loop results in load.json, want 2", loads)
	}
	// the repeats of an open-loop result show the response time, not a p50 of no named clock
	rc := charts[chartID("repeats", "ycsb-a", 1000)]
	if len(rc.Series) != 2 {
		t.Fatalf("repeats chart: %d series, want memory and sqlite", len(rc.Series))
	}
	for i, s := range rc.Series {
		if want := r.Results[i].Repeats[0].Figures["response_p99"]; len(s.Points) != 1 || s.Points[0].Y != want {
			t.Errorf("repeats chart %s: %+v, want response_p99 %v", s.Name, s.Points, want)
		}
	}
}

// TestHTMLClocks: the page's clocks table has, per operation type, a row per clock under its name
// with that clock's own p50, p99, p99.9 and max; and the saturated target says so.
func TestHTMLClocks(t *testing.T) {
	r := readReport(t, "load.json")
	var b bytes.Buffer
	if err := HTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, x := range r.Results {
		for _, op := range x.Load.Types {
			for i, sum := range []map[string]float64{op.Response, op.Service, op.StartLag} {
				name, count, errs, lead := []string{"response", "service", "start lag"}[i], "", "", "<td></td>"
				if i == 0 {
					count, errs, lead = fmt.Sprint(op.Count), fmt.Sprint(op.Errors), "<td>"+op.Op+"</td>"
				}
				row := fmt.Sprintf("<tr>%s<td>%s</td><td class=n>%s</td><td class=n>%s</td><td class=n>%s</td><td class=n>%s</td><td class=n>%s</td><td class=n>%s</td></tr>",
					lead, name, count, errs, Ns(sum["p50"]), Ns(sum["p99"]), Ns(sum["p999"]), Ns(sum["max"]))
				if !strings.Contains(page, row) {
					t.Errorf("%s %s: no row %s", x.Target, op.Op, row)
				}
			}
		}
	}
	if !strings.Contains(page, `sqlite ycsb-a: <span class="fail">TARGET SATURATED`) || !strings.Contains(page, `memory ycsb-a: <span class="pass">not saturated`) {
		t.Error("the saturation of each target is not shown")
	}
}

// TestConfigText: the page names a run's config once, and says where it came from.
func TestConfigText(t *testing.T) {
	for _, tt := range []struct{ name, path, want string }{
		{"lmdb", "(built-in) lmdb", "lmdb (built-in)"},
		{"lmdb", "configs/lmdb.yaml", "lmdb (configs/lmdb.yaml)"},
		{"x", "(built-in) lmdb", "x (built-in lmdb)"},
		{"lmdb", "", "lmdb"},
		{"", "a.yaml", "a.yaml"},
	} {
		if got := configText(report.Run{ConfigName: tt.name, ConfigPath: tt.path}); got != tt.want {
			t.Errorf("configText(%q, %q) = %q, want %q", tt.name, tt.path, got, tt.want)
		}
	}
	r := readReport(t, "sweep.json")
	r.Run.ConfigName, r.Run.ConfigPath = "lmdb", "(built-in) lmdb"
	var b bytes.Buffer
	if err := HTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "<td>lmdb (built-in)</td>") || strings.Contains(s, "((built-in)") {
		t.Error("the page does not name the built-in config as lmdb (built-in)")
	}
}

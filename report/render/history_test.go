package render

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/compare/comparetest"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render/browsertest"
)

// historyDir writes four runs of one config, out of order on disk, the third without target b's
// lookup (failed), plus a compare JSON and a text file that history must leave out.
func historyDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i, k := range []float64{1, 1.1, 0.9, 1.3} {
		var status report.Status
		if i == 2 {
			status = report.StatusFailed
		}
		r := comparetest.Report("hist",
			comparetest.Result{Target: "a", Workload: "scan", Unit: "scan", Figures: map[string][]float64{"rows_per_s": comparetest.Noisy(1e6*k, 0.01, 4, uint64(i))}},
			comparetest.Result{Target: "b", Workload: "lookup", Status: status, Figures: map[string][]float64{"ops_per_s": comparetest.Noisy(2e5*k, 0.01, 4, uint64(i)), "p50": comparetest.Noisy(500/k, 0.01, 4, uint64(i)), "p99": comparetest.Noisy(900/k, 0.01, 4, uint64(i))}},
		)
		r.Run.StartedAt = comparetest.Started.Add(time.Duration(i) * time.Hour)
		if err := report.Write(filepath.Join(dir, []string{"d.json", "b.json", "a.json", "c.json"}[i]), r); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "compare.json"), []byte(`{"schema_version": 1, "rows": []}`), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	return dir
}

func TestHistories(t *testing.T) {
	reps, paths, err := report.ReadDir(historyDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 4 || filepath.Base(paths[0]) != "d.json" || filepath.Base(paths[3]) != "c.json" {
		t.Fatalf("read %v, want the four reports in start order d, b, a, c", paths)
	}
	hs := report.Histories(reps, paths, nil)
	if len(hs) != 1 || len(hs[0].Runs) != 4 {
		t.Fatalf("histories %+v", hs)
	}
	want := map[string]int{"a scan rows_per_s": 4, "b lookup ops_per_s": 3, "b lookup p50": 3, "b lookup p99": 3}
	if len(hs[0].Trends) != len(want) {
		t.Errorf("%d trends, want %d", len(hs[0].Trends), len(want))
	}
	for _, tr := range hs[0].Trends {
		n := 0
		for _, v := range tr.Values {
			if !math.IsNaN(v) {
				n++
			}
		}
		if key := tr.Target + " " + tr.Workload + " " + tr.Figure; want[key] != n || len(tr.Values) != 4 {
			t.Errorf("%s: %d of %d values, want %d of 4", key, n, len(tr.Values), want[key])
		}
		if tr.Figure == "ops_per_s" && !math.IsNaN(tr.Values[2]) {
			t.Error("the failed run's value is in the trend")
		}
	}
}

func TestHistoryTextGolden(t *testing.T) {
	dir := historyDir(t)
	reps, paths, err := report.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range paths {
		paths[i] = filepath.Base(paths[i])
	}
	var b bytes.Buffer
	if err := HistoryText(&b, report.Histories(reps, paths, nil)); err != nil {
		t.Fatal(err)
	}
	golden(t, "history.txt", b.Bytes())
}

func TestHistoryHTMLInBrowser(t *testing.T) {
	reps, paths, err := report.ReadDir(historyDir(t))
	if err != nil {
		t.Fatal(err)
	}
	hs := report.Histories(reps, paths, nil)
	var b bytes.Buffer
	if err := HistoryHTML(&b, hs); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "history.html")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	page := browsertest.Open(t, p)
	browsertest.Check(t, page, expectations(HistoryCharts(hs)))
	browsertest.SaveArtifact(t, "history.png", page.Screenshot)
}

// TestHistoryChangeIsDecidedOverRuns: history calls a change worse or better only where a
// Mann-Whitney U test over the first and the latest report's runs decides it; else it is "changed"
// (one run a report never decides, however large the change). Across a schema version that
// redefined the figure it is "not comparable". The lie it catches: a -5.8% change of single runs
// labelled "worse" without a test, as history did.
func TestHistoryChangeIsDecidedOverRuns(t *testing.T) {
	runs := func(level float64, spread []float64, seed uint64) *report.Report {
		var rs [][]comparetest.Result
		for k, s := range spread {
			rs = append(rs, []comparetest.Result{{Target: "a", Workload: "scan", Unit: "scan",
				Figures: map[string][]float64{"rows_per_s": comparetest.Noisy(1e6*level*s, 0.002, 3, seed+uint64(k))}}})
		}
		return comparetest.Runs("hist", rs...)
	}
	one := func(level float64) *report.Report { return runs(level, []float64{1}, 1) }
	five := []float64{0.97, 0.99, 1, 1.01, 1.03}
	load := func(version int, achieved float64) *report.Report {
		r := comparetest.Report("hist", comparetest.Result{Target: "a", Workload: "ycsb-c", Unit: "op", Figures: map[string][]float64{"ops_per_s": {achieved, achieved}}})
		r.SchemaVersion, r.Results[0].Load = version, &report.Load{Loop: "open"}
		return r
	}
	tests := []struct {
		name        string
		first, last *report.Report
		want        string
	}{
		{"one run a report, 5.8% slower: changed, not worse", one(1), one(0.942), "-5.8% changed"},
		{"one run a report, 2x slower: still undecided", one(1), one(0.5), "-50.0% changed"},
		{"5 runs a report, 2x slower: worse", runs(1, five, 1), runs(0.5, five, 11), "% worse"},
		{"5 runs a report, 2x faster: better", runs(1, five, 1), runs(2, five, 11), "% better"},
		{"5 runs a report, their spread overlapping: changed", runs(1, five, 1), runs(1.01, five, 11), "% changed"},
		{"across schema versions 2 and 3, a load-model figure: not comparable", load(2, 1000), load(3, 900), "not comparable"},
		{"within version 3: changed", load(3, 1000), load(3, 900), "-10.0% changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.last.Run.StartedAt = tt.first.Run.StartedAt.Add(time.Hour)
			hs := report.Histories([]*report.Report{tt.first, tt.last}, []string{"first.json", "last.json"}, nil)
			var b bytes.Buffer
			if err := HistoryText(&b, hs); err != nil {
				t.Fatal(err)
			}
			row := ""
			for _, l := range strings.Split(b.String(), "\n") {
				if strings.HasPrefix(l, "a ") {
					row = strings.Join(strings.Fields(l), " ")
				}
			}
			if !strings.Contains(row, tt.want+" ") || (!strings.HasPrefix(tt.want, "%") && !strings.Contains(row, " "+tt.want+" ")) {
				t.Errorf("row %q, want CHANGE %q:\n%s", row, tt.want, b.String())
			}
			if tt.want == "not comparable" && !strings.Contains(b.String(), "not comparable: schema versions 2 and 3") {
				t.Errorf("no note says why:\n%s", b.String())
			}
		})
	}
}

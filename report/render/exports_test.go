package render

import (
	"bufio"
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbbench/dbbench/compare/comparetest"
	"github.com/dbbench/dbbench/report"
)

func exportReport() *report.Report {
	return comparetest.Report("lmdb",
		comparetest.Result{Target: "lmdb-go", Workload: "scan", Unit: "scan", Size: 20000, Figures: map[string][]float64{
			"ns_per_op": {1.44e6, 1.41e6, 1.5e6}, "ns_per_row": {72, 70.5, 75}, "rows_per_s": {13.9e6, 14.2e6, 13.3e6}, "p50": {1.44e6, 1.41e6, 1.5e6},
		}},
		comparetest.Result{Target: "lmdb-go", Workload: "lookup", Size: 20000, Latencies: comparetest.Latencies(500, 0.2, 3, 300, 1), Figures: map[string][]float64{
			"ns_per_op": {534, 529.5, 541}, "ops_per_s": {1.87e6, 1.89e6, 1.85e6}, "p50": {513, 510, 520}, "p99": {760, 790, 801},
		}},
		comparetest.Result{Target: "broken", Workload: "scan", Unit: "scan", Size: 20000, Status: "failed", Error: "verification failed", Figures: map[string][]float64{"ns_per_op": {1}}},
	)
}

func TestBenchstatGolden(t *testing.T) {
	for _, perRepeat := range []bool{false, true} {
		var b bytes.Buffer
		if err := Benchstat(&b, exportReport(), perRepeat); err != nil {
			t.Fatal(err)
		}
		name := "report.benchstat.golden"
		if perRepeat {
			name = "report.benchstat-per-repeat.golden"
		}
		golden(t, name, b.Bytes())
	}
}

// exportLine is one benchmark line as golang.org/x/perf's own reader (what benchstat sees) reads it.
type exportLine struct {
	name  string
	iters int
	vals  map[string]float64
}

// readBench reads an export back with golang.org/x/perf's reader; better maps units to their
// direction.
func readBench(t *testing.T, b *bytes.Buffer, pkg string) (lines []exportLine, better map[string]string) {
	t.Helper()
	rd := benchfmt.NewReader(b, "report.txt")
	better = map[string]string{}
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("benchfmt rejects the export: %v", rec)
		case *benchfmt.UnitMetadata:
			better[rec.OrigUnit] = rec.Value
		case *benchfmt.Result:
			if cfg := rec.GetConfig("pkg"); cfg != pkg {
				t.Errorf("pkg config %q, want %s", cfg, pkg)
			}
			l := exportLine{name: string(rec.Name.Full()), iters: rec.Iters, vals: map[string]float64{}}
			for _, v := range rec.Values {
				u, x := v.OrigUnit, v.OrigValue
				if u == "" {
					u, x = v.Unit, v.Value
				}
				l.vals[u] = x
			}
			lines = append(lines, l)
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return lines, better
}

// TestBenchstatParses reads the export back with golang.org/x/perf's own reader: what benchstat
// sees. By default one line per run, its values the run's medians over its repeats (a report of 3
// runs gives 3 lines a result); with perRepeat one line per repeat.
func TestBenchstatParses(t *testing.T) {
	var b bytes.Buffer
	if err := Benchstat(&b, exportReport(), false); err != nil {
		t.Fatal(err)
	}
	got, better := readBench(t, &b, "dbbench/lmdb")
	if len(got) != 2 {
		t.Fatalf("got %d benchmark lines, want 2 (one run x 2 ok results; the failed one left out)", len(got))
	}
	scan, lookup := got[0], got[1]
	if scan.name != "Scan/target=lmdb-go/size=20000" || scan.iters != 1 || scan.vals["ns/op"] != 1.44e6 || scan.vals["ns/row"] != 72 || scan.vals["rows/s"] != 13.9e6 {
		t.Errorf("scan line %+v, want the medians over the repeats", scan)
	}
	if lookup.name != "Lookup/target=lmdb-go/size=20000" || lookup.iters != 300 || lookup.vals["p99-ns"] != 790 || lookup.vals["ops/s"] != 1.87e6 {
		t.Errorf("lookup line %+v, want iterations = ops per repeat and the medians over the repeats", lookup)
	}
	for unit, want := range map[string]string{"rows/s": "higher", "ops/s": "higher", "ns/row": "lower", "p99-ns": "lower"} {
		if better[unit] != want {
			t.Errorf("Unit %s better=%q, want %q", unit, better[unit], want)
		}
	}

	b.Reset()
	if err := Benchstat(&b, exportReport(), true); err != nil {
		t.Fatal(err)
	}
	got, _ = readBench(t, &b, "dbbench/lmdb")
	if len(got) != 6 {
		t.Fatalf("per repeat: got %d benchmark lines, want 6 (3 repeats x 2 ok results)", len(got))
	}
	if first, lookup := got[0], got[3]; first.vals["ns/op"] != 1.44e6 || lookup.iters != 300 || lookup.vals["p99-ns"] != 760 {
		t.Errorf("per repeat: first line %+v, first lookup %+v: want the first repeat's figures", first, lookup)
	}

	// A report of 3 runs (2 repeats each): a line per run, each the median of that run's repeats.
	runs := comparetest.Runs("lmdb",
		[]comparetest.Result{{Target: "a", Workload: "scan", Unit: "scan", Figures: map[string][]float64{"ns_per_row": {10, 12}}}},
		[]comparetest.Result{{Target: "a", Workload: "scan", Unit: "scan", Figures: map[string][]float64{"ns_per_row": {20, 22}}}},
		[]comparetest.Result{{Target: "a", Workload: "scan", Unit: "scan", Figures: map[string][]float64{"ns_per_row": {30, 34}}}},
	)
	b.Reset()
	if err := Benchstat(&b, runs, false); err != nil {
		t.Fatal(err)
	}
	got, _ = readBench(t, &b, "dbbench/lmdb")
	var perRun []float64
	for _, l := range got {
		perRun = append(perRun, l.vals["ns/row"])
	}
	if want := []float64{11, 21, 32}; !slices.Equal(perRun, want) {
		t.Errorf("3 runs: ns/row per line %v, want each run's median %v", perRun, want)
	}
}

func TestBenchmarkName(t *testing.T) {
	tests := []struct {
		target, workload, want string
	}{
		{"lmdb-go", "scan", "BenchmarkScan/target=lmdb-go/size=10"},
		{"indexed", "page_all", "BenchmarkPage_all/target=indexed/size=10"},
		{"a b/c=d", "lookup", "BenchmarkLookup/target=a_b_c_d/size=10"},
	}
	for _, tt := range tests {
		if got := BenchmarkName(report.Result{Target: tt.target, Workload: tt.workload, Size: 10}); got != tt.want {
			t.Errorf("BenchmarkName(%s, %s) = %q, want %q", tt.target, tt.workload, got, tt.want)
		}
	}
}

func hgrmHistogram() *hdrhistogram.Histogram {
	h := report.NewHistogram()
	for _, rep := range comparetest.Latencies(500, 0.5, 4, 250, 7) {
		for _, v := range rep {
			_ = h.RecordValue(v)
		}
	}
	_ = h.RecordValue(250_000) // one outlier for the tail
	return h
}

func TestPercentileDistributionGolden(t *testing.T) {
	var b bytes.Buffer
	if err := PercentileDistribution(&b, hgrmHistogram(), HGRMUnits["us"]); err != nil {
		t.Fatal(err)
	}
	golden(t, "lookup.hgrm.golden", b.Bytes())
}

// TestPercentileDistributionFormat checks the structure HdrHistogram tools parse: a header, value
// lines with a percentile fraction and a cumulative count that only grow, a last line at percentile
// 1 without the 1/(1-p) column, and the footer.
func TestPercentileDistributionFormat(t *testing.T) {
	h := hgrmHistogram()
	var b bytes.Buffer
	if err := PercentileDistribution(&b, h, 1); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&b)
	sc.Scan()
	if head := strings.Fields(sc.Text()); strings.Join(head, " ") != "Value Percentile TotalCount 1/(1-Percentile)" {
		t.Fatalf("header %q", sc.Text())
	}
	sc.Scan()
	if sc.Text() != "" {
		t.Fatalf("no blank line after the header: %q", sc.Text())
	}
	var lastP, lastV float64
	var lastCount int64
	var lines, footer int
	var last []string
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if strings.HasPrefix(sc.Text(), "#[") {
			footer++
			continue
		}
		lines++
		last = f
		v, _ := strconv.ParseFloat(f[0], 64)
		p, _ := strconv.ParseFloat(f[1], 64)
		n, _ := strconv.ParseInt(f[2], 10, 64)
		if v < lastV || p < lastP || n < lastCount || p > 1 {
			t.Errorf("line %q goes backwards", sc.Text())
		}
		if p < 1 && len(f) != 4 {
			t.Errorf("line %q: want 4 columns below percentile 1", sc.Text())
		}
		lastV, lastP, lastCount = v, p, n
	}
	if lines < 20 || footer != 3 {
		t.Errorf("%d value lines and %d footer lines, want many and 3", lines, footer)
	}
	if len(last) != 3 || last[1] != "1.000000000000" || last[2] != strconv.FormatInt(h.TotalCount(), 10) {
		t.Errorf("last line %q, want percentile 1 with the total count and no inverse column", last)
	}
	if lastV != float64(h.Max()) {
		t.Errorf("last value %v, want the max %d", lastV, h.Max())
	}
}

// TestBucketLayout compares the bucket footer with the one hdrhistogram-go prints for the same
// histogram (the Go implementation keeps the counts private).
func TestBucketLayout(t *testing.T) {
	footer := regexp.MustCompile(`Buckets = +(\d+), SubBuckets += +(\d+)`)
	for _, h := range []*hdrhistogram.Histogram{
		report.NewHistogram(),
		hdrhistogram.New(1, 1000, 2),
		hdrhistogram.New(1000, 10_000_000, 3),
		hdrhistogram.New(1, 1<<62, 5),
	} {
		var theirs, ours bytes.Buffer
		if _, err := h.PercentilesPrint(&theirs, 5, 1); err != nil {
			t.Fatal(err)
		}
		if err := PercentileDistribution(&ours, h, 1); err != nil {
			t.Fatal(err)
		}
		want, got := footer.FindStringSubmatch(theirs.String()), footer.FindStringSubmatch(ours.String())
		if want == nil || got == nil || want[1] != got[1] || want[2] != got[2] {
			t.Errorf("range %d..%d, %d digits: bucket footer %q, hdrhistogram-go says %q", h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures(), got, want)
		}
	}
}

func TestHGRMFileName(t *testing.T) {
	x := report.Result{Target: "lmdb-go", Workload: "page all", Size: 500}
	if got := HGRMFileName(x, false); got != "lmdb-go_page_all.hgrm" {
		t.Errorf("got %q", got)
	}
	if got := HGRMFileName(x, true); got != "lmdb-go_page_all_500.hgrm" {
		t.Errorf("sweep: got %q", got)
	}
	if got := HGRMFileName(report.Result{Target: "../x", Workload: "scan"}, false); strings.Contains(got, "/") {
		t.Errorf("file name %q escapes the directory", got)
	}
}

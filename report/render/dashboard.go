package render

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/dbbench/dbbench/report"
)

// Dashboard exports: one value per figure per target (the median over repeats, with the range the
// repeats spanned), in the formats benchmark dashboards read. Failed results are left out: their
// figures cannot be trusted.

// dashboardFigures are the figures exported, with the units dashboards show.
var dashboardFigures = []struct {
	figure, unit, measure string
}{
	{"rows_per_s", "rows/s", "rows-per-s"},
	{"ops_per_s", "ops/s", "ops-per-s"},
	{"ns_per_row", "ns/row", "ns-per-row"},
	{"ns_per_op", "ns/op", "ns-per-op"},
	{"p50", "ns", "latency-p50"},
	{"p99", "ns", "latency-p99"},
	{"p999", "ns", "latency-p999"},
}

// DashboardName names a result's figure as an assertion would: "scan.rows_per_s[lmdb-go]", with the
// size in a sweep ("scan.rows_per_s[lmdb-go@100000]").
func DashboardName(r *report.Report, x *report.Result, figure string) string {
	return fmt.Sprintf("%s.%s[%s]", x.Workload, figure, dashboardTarget(r, x))
}

func dashboardTarget(r *report.Report, x *report.Result) string {
	if len(r.Run.Sizes) > 1 {
		return fmt.Sprintf("%s@%d", x.Target, x.Size)
	}
	return x.Target
}

// repeatRange returns the smallest and largest per-repeat value of a figure.
func repeatRange(x *report.Result, figure string) (lo, hi float64, n int) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, rep := range x.Repeats {
		if v, ok := rep.Figures[figure]; ok {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			n++
		}
	}
	return lo, hi, n
}

// GitHubBenchmarkEntry is one entry of github-action-benchmark's custom JSON formats
// (tool: customBiggerIsBetter or customSmallerIsBetter): name, unit and value, with optional range
// and extra (shown in the chart's tooltip).
type GitHubBenchmarkEntry struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
	Range string  `json:"range,omitempty"`
	Extra string  `json:"extra,omitempty"`
}

// GitHubBenchmark writes the figures of one direction as github-action-benchmark's custom JSON:
// higherBetter selects the throughputs (for tool: customBiggerIsBetter), otherwise the times and
// latencies (customSmallerIsBetter). The action takes one direction per file, so a report makes two.
func GitHubBenchmark(w io.Writer, r *report.Report, higherBetter bool) error {
	entries := []GitHubBenchmarkEntry{}
	for i := range r.Results {
		x := &r.Results[i]
		if x.Status != report.StatusOK {
			continue
		}
		for _, d := range dashboardFigures {
			info, _ := report.LookupFigure(d.figure)
			v, ok := x.Figures[d.figure]
			if !ok || info.HigherBetter != higherBetter || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			lo, hi, n := repeatRange(x, d.figure)
			e := GitHubBenchmarkEntry{Name: DashboardName(r, x, d.figure), Unit: d.unit, Value: v}
			if n > 0 {
				e.Range = "± " + trimFloat(math.Max(hi-v, v-lo))
				e.Extra = fmt.Sprintf("median of %s, range %s to %s; config %s, size %d", Plural(n, "repeat"), trimFloat(lo), trimFloat(hi), r.Run.ConfigName, x.Size)
			}
			entries = append(entries, e)
		}
	}
	return writeJSON(w, entries)
}

// BencherMetric is one measure of a benchmark in the Bencher Metric Format.
type BencherMetric struct {
	Value      float64  `json:"value"`
	LowerValue *float64 `json:"lower_value,omitempty"`
	UpperValue *float64 `json:"upper_value,omitempty"`
}

// Bencher writes the report in the Bencher Metric Format (BMF): one benchmark per result, named
// "workload[target]" ("workload[target@size]" in a sweep), with one measure per figure: the median as
// value, the smallest and largest repeat as lower_value and upper_value. Measures are slugs Bencher
// creates on first use (rows-per-s, ns-per-op, latency-p99...).
func Bencher(w io.Writer, r *report.Report) error {
	out := map[string]map[string]BencherMetric{}
	for i := range r.Results {
		x := &r.Results[i]
		if x.Status != report.StatusOK {
			continue
		}
		name := fmt.Sprintf("%s[%s]", x.Workload, dashboardTarget(r, x))
		m := map[string]BencherMetric{}
		for _, d := range dashboardFigures {
			v, ok := x.Figures[d.figure]
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			bm := BencherMetric{Value: v}
			if lo, hi, n := repeatRange(x, d.figure); n > 0 {
				bm.LowerValue, bm.UpperValue = &lo, &hi
			}
			m[d.measure] = bm
		}
		if len(m) > 0 {
			out[name] = m
		}
	}
	return writeJSON(w, out)
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// DashboardFormats are the export formats of this file, as `dbbench report --format` names them.
var DashboardFormats = []string{"customBiggerIsBetter", "customSmallerIsBetter", "bencher"}

// Dashboard writes format (one of DashboardFormats).
func Dashboard(w io.Writer, r *report.Report, format string) error {
	switch format {
	case "customBiggerIsBetter":
		return GitHubBenchmark(w, r, true)
	case "customSmallerIsBetter":
		return GitHubBenchmark(w, r, false)
	case "bencher":
		return Bencher(w, r)
	}
	return fmt.Errorf("unknown dashboard format %q (formats: %s)", format, strings.Join(DashboardFormats, ", "))
}

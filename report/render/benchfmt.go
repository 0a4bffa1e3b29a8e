package render

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
)

// benchUnits maps report figures to the units of Go's benchmark format, in output order. Units with a
// "ns" token are scaled to seconds by benchstat ("ns/op" -> "sec/op", "p99-ns" -> "p99-sec").
var benchUnits = []struct {
	figure, unit string
	higherBetter bool
}{
	{"ns_per_op", "ns/op", false},
	{"ns_per_row", "ns/row", false},
	{"rows_per_s", "rows/s", true},
	{"ops_per_s", "ops/s", true},
	{"p50", "p50-ns", false},
	{"p90", "p90-ns", false},
	{"p99", "p99-ns", false},
	{"p999", "p99.9-ns", false},
}

// Benchstat writes r in the Go benchmark format (golang.org/design/14313-benchmark-format) so
// benchstat and other Go tools read dbbench reports, one line per run of each result: the run's
// figures (its median over its repeats), as compare takes a run's value. The run is the unit of
// evidence (docs/verdicts.md): the repeats of one run share that moment's machine, and a test over
// them calls identical code different. perRepeat writes one line per repeat instead (the old form,
// for reports made back to back on an idle machine, as compare --per-repeat):
//
//	BenchmarkScan/target=lmdb-go/size=20000  1  1234567 ns/op  617.3 ns/row  1620000 rows/s ...
//
// The iteration count is a repeat's number of timed operations (a run's line: the median over its
// repeats), so ns/op is elapsed/ops as in `go test -bench`. target and size are sub-benchmark keys:
// `benchstat -col /target FILE` compares targets of one run, `benchstat OLD NEW` two sets of runs.
// Unit lines say which direction is better; failed results are left out (their figures cannot be
// trusted).
func Benchstat(w io.Writer, r *report.Report, perRepeat bool) error {
	ew := NewErrWriter(w)
	fmt.Fprintf(ew, "goos: %s\ngoarch: %s\n", r.Environment.OS, r.Environment.Arch)
	if cpu := exitcode.OneLine(r.Environment.CPUModel); cpu != "" {
		fmt.Fprintf(ew, "cpu: %s\n", cpu)
	}
	fmt.Fprintf(ew, "pkg: dbbench/%s\n", exitcode.OneLine(r.Run.ConfigName))
	if r.Tool.Commit != "" && r.Tool.Commit != "unknown" {
		fmt.Fprintf(ew, "dbbench-commit: %s\n", exitcode.OneLine(r.Tool.Commit))
	}
	fmt.Fprintf(ew, "dbbench-ci: %t\n", r.Run.CI)
	sample := "run"
	if perRepeat {
		sample = "repeat"
	}
	fmt.Fprintf(ew, "dbbench-sample: %s\n", sample)
	for _, u := range benchUnits {
		if u.unit == "ns/op" {
			continue // benchstat knows ns/op
		}
		better := "lower"
		if u.higherBetter {
			better = "higher"
		}
		fmt.Fprintf(ew, "Unit %s better=%s\n", u.unit, better)
	}
	fmt.Fprintln(ew)
	for _, x := range r.Results {
		if x.Status != report.StatusOK {
			continue
		}
		name := BenchmarkName(x)
		if perRepeat {
			for _, rep := range x.Repeats {
				benchLine(ew, name, rep.Ops, func(fig string) (float64, bool) { v, ok := rep.Figures[fig]; return v, ok })
			}
			continue
		}
		for _, k := range x.RunIndices() {
			var ops []float64
			for _, rep := range x.Repeats {
				if rep.RunIndex() == k {
					ops = append(ops, float64(rep.Ops))
				}
			}
			benchLine(ew, name, int64(math.Round(report.Median(ops))), func(fig string) (float64, bool) { return x.RunFigure(k, fig) })
		}
	}
	return ew.Err()
}

// benchLine writes one benchmark line: the name, the iterations (at least 1) and every figure
// there is.
func benchLine(w io.Writer, name string, iters int64, figure func(string) (float64, bool)) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\t%d", name, max(iters, 1))
	for _, u := range benchUnits {
		if v, ok := figure(u.figure); ok {
			fmt.Fprintf(&b, "\t%s %s", strconv.FormatFloat(v, 'f', -1, 64), u.unit)
		}
	}
	fmt.Fprintln(w, b.String())
}

// BenchmarkName is a result's name in the Go benchmark format: "BenchmarkScan/target=lmdb-go/size=20000".
func BenchmarkName(x report.Result) string {
	wl := nameSafe(x.Workload)
	r, n := utf8.DecodeRuneInString(wl)
	wl = string(unicode.ToUpper(r)) + wl[n:]
	return fmt.Sprintf("Benchmark%s/target=%s/size=%d", wl, nameSafe(x.Target), x.Size)
}

// nameSafe replaces what a benchmark name cannot hold (spaces, '/' and '=' inside a part).
func nameSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '/' || r == '=' {
			return '_'
		}
		return r
	}, s)
}

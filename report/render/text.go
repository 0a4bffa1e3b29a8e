// Package render prints reports for people: a summary table of results and a table of assertions.
// It only formats; every figure is computed by package report.
package render

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/dbbench/dbbench/report"
)

// Summary writes the results table, warnings, failures and the assertions table.
func Summary(w io.Writer, r *report.Report) error {
	ew := NewErrWriter(w)
	Results(ew, r)
	Assertions(ew, r)
	VerdictLine(ew, r)
	return ew.Err()
}

// Results writes one row per target, workload (and size, in a sweep).
func Results(w io.Writer, r *report.Report) {
	sweep := len(r.Run.Sizes) > 1
	head := []string{"TARGET", "WORKLOAD"}
	if sweep {
		head = append(head, "SIZE")
	}
	first := len(head)
	head = append(head, "OPS", "ROWS/S", "NS/ROW", "P50", "P90", "P99", "P99.9", "MAX", "ERRORS", "")
	t := newTable(head...)
	for i := first - 1; i < len(head)-1; i++ {
		if i >= first || sweep {
			t.alignRight(i)
		}
	}
	for _, x := range r.Results {
		f := x.Figures
		row := []string{x.Target, x.Workload}
		if sweep {
			row = append(row, fmt.Sprint(x.Size))
		}
		if len(x.Repeats) == 0 {
			row = append(row, "-", "-", "-", "-", "-", "-", "-", "-", "-", strings.ToUpper(x.Status))
		} else {
			row = append(row,
				Count(f["ops"]), rate(f, "rows_per_s"), ns(f, "ns_per_row"),
				ns(f, "p50"), ns(f, "p90"), ns(f, "p99"), ns(f, "p999"), ns(f, "max"),
				Count(f["errors"]), statusMark(x.Status))
		}
		t.add(row...)
	}
	t.write(w)
	for _, t := range r.Targets {
		if t.Status == "skipped" {
			fmt.Fprintf(w, "skipped %s: %s\n", t.Name, t.Reason)
			continue
		}
		for _, in := range t.Instances {
			if in.Skipped != "" {
				fmt.Fprintf(w, "skipped %s at size %d: %s\n", t.Name, in.Size, in.Skipped)
			}
		}
	}
	for _, x := range r.Results {
		if x.Status != "ok" {
			fmt.Fprintf(w, "FAILED %s %s%s: %s\n", x.Target, x.Workload, sizeSuffix(r, x.Size), x.Error)
		}
		for _, warn := range x.Warnings {
			fmt.Fprintf(w, "warning %s %s%s: %s\n", x.Target, x.Workload, sizeSuffix(r, x.Size), warn)
		}
	}
}

func sizeSuffix(r *report.Report, size int) string {
	if len(r.Run.Sizes) > 1 {
		return fmt.Sprintf(" @%d", size)
	}
	return ""
}

func statusMark(s string) string {
	if s == "ok" {
		return ""
	}
	return strings.ToUpper(s)
}

func ns(f map[string]float64, k string) string {
	v, ok := f[k]
	if !ok {
		return "-"
	}
	return Ns(v)
}

func rate(f map[string]float64, k string) string {
	v, ok := f[k]
	if !ok {
		return "-"
	}
	return Rate(v)
}

// Assertions writes one row per evaluated assertion: the check, both sides, the decided value against
// the (relaxed) threshold, and the verdict.
func Assertions(w io.Writer, r *report.Report) {
	if len(r.Assertions) == 0 {
		return
	}
	fmt.Fprintln(w)
	t := newTable("ASSERTION", "LEFT", "RIGHT", "DECIDED ON", "VERDICT").alignRight(1, 2)
	for _, a := range r.Assertions {
		check := a.Expr
		if a.Name != "" {
			check = a.Name + ": " + a.Expr
		}
		if len(r.Run.Sizes) > 1 && !strings.Contains(a.Expr, a.Left) {
			check += "  (" + a.Left
			if a.Right != "" {
				check += " vs " + a.Right
			}
			check += ")"
		}
		if a.Verdict == "skipped" {
			t.add(check, "-", "-", a.Reason, "SKIPPED")
			continue
		}
		left := FigureValue(figureOf(a.Left), a.LeftValue)
		right := "-"
		if a.Form != "absolute" {
			right = FigureValue(figureOf(a.Right), a.RightValue)
		}
		t.add(check, left, right, decidedOn(a), strings.ToUpper(a.Verdict))
	}
	t.write(w)
}

// decidedOn explains the comparison: "ratio 0.57 >= 0.45 (0.5 relaxed 10%)".
func decidedOn(a report.Assertion) string {
	var s string
	switch a.Form {
	case "ratio":
		s = fmt.Sprintf("median ratio %s %s %s", trimFloat(a.Value), a.Op, trimFloat(a.RelaxedThreshold))
	case "difference":
		u := figureOf(a.Left)
		s = fmt.Sprintf("median diff %s %s %s", FigureValue(u, a.Value), a.Op, FigureValue(u, a.RelaxedThreshold))
	default:
		u := figureOf(a.Left)
		s = fmt.Sprintf("median %s %s %s", FigureValue(u, a.Value), a.Op, FigureValue(u, a.RelaxedThreshold))
	}
	if a.RelaxedThreshold != a.Threshold {
		s += fmt.Sprintf(" (relaxed from %s)", trimFloat(a.Threshold))
	}
	return s
}

// figureOf extracts the figure name from "workload.figure[target]".
func figureOf(ref string) string {
	_, rest, ok := strings.Cut(ref, ".")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "[")
	return name
}

// FigureValue formats a value of the named figure in its unit.
func FigureValue(figure string, v float64) string {
	info, ok := report.LookupFigure(figure)
	if !ok {
		return trimFloat(v)
	}
	switch info.Unit {
	case "ns":
		return Ns(v)
	case "1/s":
		return Rate(v)
	}
	return Count(v)
}

// trimFloat prints a threshold or ratio compactly: four significant digits, no exponent for large values.
func trimFloat(v float64) string {
	if math.Abs(v) >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	s := strconv.FormatFloat(v, 'g', 4, 64)
	if s == "-0" {
		s = "0"
	}
	return s
}

// VerdictLine writes the one-line outcome.
func VerdictLine(w io.Writer, r *report.Report) {
	pass, fail, skip := 0, 0, 0
	for _, a := range r.Assertions {
		switch a.Verdict {
		case "pass":
			pass++
		case "fail":
			fail++
		default:
			skip++
		}
	}
	fmt.Fprintln(w)
	switch r.Verdict {
	case "error":
		if len(r.Results) == 0 {
			fmt.Fprintln(w, "verdict: ERROR: every target was skipped, so nothing was measured (see skipped above)")
			break
		}
		fmt.Fprintln(w, "verdict: ERROR: a target or workload failed, so its figures cannot be trusted (see FAILED above)")
	case "fail":
		fmt.Fprintf(w, "verdict: FAIL: %d of %d assertions failed\n", fail, len(r.Assertions))
	default:
		switch {
		case len(r.Assertions) == 0:
			fmt.Fprintln(w, "verdict: PASS (no assertions)")
		case skip > 0:
			fmt.Fprintf(w, "verdict: PASS: %d assertions hold, %d skipped\n", pass, skip)
		default:
			fmt.Fprintf(w, "verdict: PASS: all %d assertions hold\n", pass)
		}
	}
}

// ErrWriter remembers the first write error so renderers can write freely and check once.
type ErrWriter struct {
	w   io.Writer
	err error
}

// NewErrWriter wraps w.
func NewErrWriter(w io.Writer) *ErrWriter { return &ErrWriter{w: w} }

// Err is the first write error, if any.
func (e *ErrWriter) Err() error { return e.err }

func (e *ErrWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/dbbench/dbbench/report"
)

// memoryColumn is one column of the memory table: its heading and the figure it shows.
type memoryColumn struct{ head, figure string }

// memoryColumns are the memory figures (docs/memory.md) in table order.
var memoryColumns = []memoryColumn{
	{"ALLOC/OP", "bytes_allocated_per_op"},
	{"RETAINED/OP", "bytes_retained_per_op"},
	{"GO HEAP/OP", "go_heap_retained_per_op"},
	{"C HEAP/OP", "c_heap_retained_per_op"},
	{"RSS/OP", "rss_growth_per_op"},
	{"PEAK RSS", "peak_rss_bytes"},
	{"SERVER RSS/OP", "server_rss_growth_per_op"},
	{"SERVER PEAK", "server_peak_rss_bytes"},
}

// memoryShown are the memory columns some result of the report has (none: it measured no memory).
func memoryShown(r *report.Report) []memoryColumn {
	var out []memoryColumn
	for _, c := range memoryColumns {
		for _, x := range r.Results {
			if _, ok := x.Figures[c.figure]; ok {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// memoryHeadlineFigures are the memory figures the HTML results table shows beside the times (issue
// 23: "the memory figures in the results table"): what an operation allocates and keeps, and the
// process's peak, the three an assertion on a leak or a footprint reads first. All eight would make
// the table twenty columns wide, so the Memory table below it keeps the breakdown (Go heap, C heap,
// resident set, server).
var memoryHeadlineFigures = []string{"bytes_allocated_per_op", "bytes_retained_per_op", "peak_rss_bytes"}

// memoryHeadlineNote says where the rest of the memory figures are.
const memoryHeadlineNote = "alloc/op, retained/op, peak rss: memory per operation and the process's peak; the Memory table below breaks them down"

// memoryHeadline are the headline memory columns some result of the report has.
func memoryHeadline(r *report.Report) []memoryColumn {
	var out []memoryColumn
	for _, c := range memoryShown(r) {
		if slices.Contains(memoryHeadlineFigures, c.figure) {
			out = append(out, c)
		}
	}
	return out
}

// memoryCells are a result's cells in the shown columns ("-": not measured for it, such as the Go
// heap of a client in another process).
func memoryCells(x *report.Result, cols []memoryColumn) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = "-"
		if v, ok := x.Figures[c.figure]; ok {
			out[i] = FigureValue(c.figure, v)
		}
	}
	return out
}

// memoryLegend says what the memory figures are, in a line.
const memoryLegend = "memory per operation: the change over each timed repeat after a forced GC, divided by its operations; " +
	"in process: Go heap and C malloc, exec: the client's resident set (docs/memory.md)"

// BytesPerOp formats a byte count that may be a fraction or negative: "608 B", "-0.48 B", "2.4 KiB".
func BytesPerOp(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.Abs(v) < 1024:
		return trimFloat(roundTo3(v)) + " B"
	}
	return Bytes(int64(math.Round(v)))
}

// roundTo3 rounds to three significant digits.
func roundTo3(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

// resultHeads are the columns that name a result in a table: TARGET, WORKLOAD and, in a size
// sweep, SIZE.
func resultHeads(r *report.Report) (head []string, sweep bool) {
	sweep = len(r.Run.Sizes) > 1
	head = []string{"TARGET", "WORKLOAD"}
	if sweep {
		head = append(head, "SIZE")
	}
	return head, sweep
}

// resultLead are a result's cells in the resultHeads columns.
func resultLead(x *report.Result, sweep bool) []string {
	if sweep {
		return []string{x.Target, x.Workload, fmt.Sprint(x.Size)}
	}
	return []string{x.Target, x.Workload}
}

// Memory writes the memory figures, one row per result, when the run measured them (memory: true).
func Memory(w io.Writer, r *report.Report, st Style) {
	writeSection(w, memoryTable(r), memoryLegend, st)
}

// memoryTable is the table Memory writes, nil when the run measured no memory.
func memoryTable(r *report.Report) *Table {
	cols := memoryShown(r)
	if len(cols) == 0 {
		return nil
	}
	head, sweep := resultHeads(r)
	first := len(head)
	for _, c := range cols {
		head = append(head, c.head)
	}
	t := NewTable(head...)
	for i := first; i < len(head); i++ {
		t.AlignRight(i)
	}
	for i := range r.Results {
		x := &r.Results[i]
		t.Add(append(resultLead(x, sweep), memoryCells(x, cols)...)...)
	}
	return t
}

// htmlMemory is Memory's table in the HTML report.
func htmlMemory(w io.Writer, r *report.Report) {
	cols := memoryShown(r)
	if len(cols) == 0 {
		return
	}
	sweep := len(r.Run.Sizes) > 1
	fmt.Fprint(w, "<h2>Memory</h2>\n<table>\n<tr><th>target</th><th>workload</th>")
	if sweep {
		fmt.Fprint(w, "<th class=n>size</th>")
	}
	for _, c := range cols {
		fmt.Fprintf(w, "<th class=n>%s</th>", esc(strings.ToLower(c.head)))
	}
	fmt.Fprintln(w, "</tr>")
	for i := range r.Results {
		htmlResultRowStart(w, &r.Results[i], sweep)
		for _, c := range memoryCells(&r.Results[i], cols) {
			fmt.Fprintf(w, "<td class=n>%s</td>", esc(c))
		}
		fmt.Fprintln(w, "</tr>")
	}
	fmt.Fprintln(w, "</table>")
	fmt.Fprintf(w, "<p class=\"note\">%s</p>\n", esc(memoryLegend))
}

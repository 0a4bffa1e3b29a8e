package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/report"
)

func memoryReport(figs ...map[string]float64) *report.Report {
	r := &report.Report{Run: report.Run{Sizes: []int{100}}}
	for i, f := range figs {
		r.Results = append(r.Results, report.Result{Target: []string{"inproc", "client"}[i], Workload: "lookup", Size: 100,
			Status: report.StatusOK, Figures: f, Repeats: []report.Repeat{{Figures: f}}})
	}
	return r
}

// TestMemoryTable: the memory table shows the columns some result has, "-" where a result lacks
// one, byte values in bytes; a report without memory figures has no table.
func TestMemoryTable(t *testing.T) {
	r := memoryReport(
		map[string]float64{"ops": 20000, "bytes_allocated_per_op": 0.574, "bytes_retained_per_op": 608, "go_heap_retained_per_op": -0.0572,
			"c_heap_retained_per_op": 608, "rss_growth_per_op": 595.4, "peak_rss_bytes": 93.4 * 1024 * 1024},
		map[string]float64{"ops": 20000, "bytes_retained_per_op": 2.05, "rss_growth_per_op": 2.05, "peak_rss_bytes": 19.9 * 1024 * 1024},
	)
	var text, html bytes.Buffer
	Memory(&text, r, Style{Width: 120})
	htmlMemory(&html, r)
	for _, want := range []string{"ALLOC/OP", "RETAINED/OP", "C HEAP/OP", "PEAK RSS", "608 B", "-0.0572 B", "93.4 MiB", "595 B"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text table lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "SERVER") {
		t.Errorf("a column no result has is shown:\n%s", text.String())
	}
	lines := strings.Split(text.String(), "\n")
	if client := lines[3]; !strings.HasPrefix(client, "client") || !strings.Contains(client, " - ") {
		t.Errorf("the client's row does not show - for the in-process figures: %q", client)
	}
	if !strings.Contains(html.String(), "<h2>Memory</h2>") || !strings.Contains(html.String(), "<td class=n>608 B</td>") {
		t.Errorf("HTML memory table:\n%s", html.String())
	}
	text.Reset()
	html.Reset()
	none := memoryReport(map[string]float64{"ops": 10, "p50": 100})
	Memory(&text, none, Style{Width: 120})
	htmlMemory(&html, none)
	if text.Len() != 0 || html.Len() != 0 {
		t.Errorf("a report without memory figures has a memory table: %q %q", text.String(), html.String())
	}
}

func TestBytesPerOp(t *testing.T) {
	for _, tt := range []struct {
		in   float64
		want string
	}{{608, "608 B"}, {-0.0572, "-0.0572 B"}, {0, "0 B"}, {1023.4, "1020 B"}, {2458, "2.4 KiB"}, {-40960, "-40 KiB"}} {
		if got := BytesPerOp(tt.in); got != tt.want {
			t.Errorf("BytesPerOp(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

package report

import (
	"testing"
	"time"
)

// TestMergeStatements: two shards' statements of one repeat merge by transaction and place, their
// counts and errors summed and their percentiles those of the histograms added; the figures follow.
func TestMergeStatements(t *testing.T) {
	hist := func(ds ...time.Duration) (h *LoadStatement) {
		x := NewHistogram()
		for _, d := range ds {
			Record(x, d)
		}
		s := NewLoadStatement("tx", 1, 7, "SELECT 1", x, 1)
		return &s
	}
	a, b := hist(10*time.Microsecond, 20*time.Microsecond), hist(30*time.Microsecond, 40*time.Microsecond)
	other := NewLoadStatement("tx", 2, 8, "SELECT 2", NewHistogram(), 2)
	m := MergeStatements([]LoadStatement{*a, other}, []LoadStatement{*b})
	if len(m) != 2 || m[0].Index != 1 || m[1].Index != 2 {
		t.Fatalf("%+v", m)
	}
	if m[0].Count != 4 || m[0].Errors != 2 || m[0].Line != 7 || m[0].Text != "SELECT 1" {
		t.Errorf("statement 1: %+v", m[0])
	}
	if mean := m[0].Latency["mean"]; mean < 24_000 || mean > 26_000 {
		t.Errorf("merged mean %v ns, want 25 us (of 10, 20, 30, 40)", mean)
	}
	if m[1].Count != 0 || m[1].Errors != 2 || len(m[1].Latency) != 0 {
		t.Errorf("statement 2: %+v", m[1])
	}
	f := map[string]float64{}
	StatementFigures(f, m)
	if f["tx.stmt1_errors"] != 2 || f["tx.stmt1_mean"] != m[0].Latency["mean"] || f["tx.stmt2_errors"] != 2 {
		t.Errorf("figures %v", f)
	}
	if _, ok := f["tx.stmt2_mean"]; ok {
		t.Error("a statement that never succeeded has no time")
	}
}

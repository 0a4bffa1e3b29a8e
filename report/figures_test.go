package report

import (
	"maps"
	"strings"
	"testing"
)

func TestMedianFigures(t *testing.T) {
	tests := []struct {
		name string
		sets []map[string]float64
		want map[string]float64
	}{
		{"none", nil, map[string]float64{}},
		{"one set", []map[string]float64{{"p50": 3, "rows_per_s": 10}}, map[string]float64{"p50": 3, "rows_per_s": 10}},
		{"odd count, unsorted", []map[string]float64{{"p50": 9}, {"p50": 1}, {"p50": 4}}, map[string]float64{"p50": 4}},
		{"even count: the mean of the middle two", []map[string]float64{{"p50": 1}, {"p50": 8}, {"p50": 2}, {"p50": 4}},
			map[string]float64{"p50": 3}},
		// A figure some sets lack (a failed repeat's throughput) is the median over those that hold it.
		{"a figure some sets lack", []map[string]float64{{"p50": 1, "rows_per_s": 100}, {"p50": 5}, {"p50": 3, "rows_per_s": 300}},
			map[string]float64{"p50": 3, "rows_per_s": 200}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := MedianFigures(tc.sets...)
			if got == nil || !maps.Equal(got, tc.want) {
				t.Errorf("MedianFigures = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestLookupStatementFigure: a sql workload's statement figures are known per transaction (any
// transaction name an assertion can write), with their unit; malformed ones are not.
func TestLookupStatementFigure(t *testing.T) {
	for name, unit := range map[string]string{
		"tpcb-like.stmt3_mean": "ns", "by_owner.stmt1_p99": "ns", "T2.stmt12_errors": "count", "stmt2_p50": "ns",
		"read.response_p99": "ns", "tpcb-like.response_p99": "ns", "_x.count": "count",
	} {
		f, ok := LookupFigure(name)
		if !ok || f.Unit != unit || f.Name != name {
			t.Errorf("%s: %+v %v, want unit %s", name, f, ok, unit)
		}
	}
	for _, name := range []string{"tx.stmt0_mean", "tx.stmt01_mean", "tx.stmt_mean", "tx.stmt2_p90", "tx.stmtx_mean",
		"OP.stmtN_mean", "-tx.stmt1_mean", "1tx.count", "tx.stmt12345_mean", "t x.count"} {
		if f, ok := LookupFigure(name); ok {
			t.Errorf("%s is known: %+v", name, f)
		}
	}
	if f, _ := LookupFigure("t.stmt7_mean"); !strings.Contains(f.Help, "statement 7 of") {
		t.Errorf("help %q does not name statement 7", f.Help)
	}
	if !PerOp("stmt4_p99") || PerOp("stmt4_p98") {
		t.Error("statement figures are kept per operation type")
	}
}

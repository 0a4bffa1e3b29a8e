package report

import (
	"maps"
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

package report

import (
	"strings"
	"testing"
)

// TestNotComparable: across the 2|3 boundary every figure of a load-model result but its error
// counts is not comparable, on either side and whichever side is the older; within a version, and
// for the persons workloads, nothing is; a figure that only version 3 defines (error_rate) is not
// comparable either, never missing.
func TestNotComparable(t *testing.T) {
	loadModel := &Result{Load: &Load{Loop: "open"}}
	persons := &Result{Unit: "lookup"}
	tests := []struct {
		figure   string
		versions []int
		results  []*Result
		want     bool
	}{
		{"achieved_rate", []int{2, 3}, []*Result{loadModel, loadModel}, true},
		{"achieved_rate", []int{3, 2, 3}, []*Result{loadModel}, true},
		{"response_p99", []int{1, 3}, []*Result{loadModel}, true},
		{"read.response_p99", []int{2, 3}, []*Result{loadModel}, true},
		{"error_rate", []int{2, 3}, []*Result{nil, loadModel}, true},
		{"start_lag_p99", []int{3, 2}, []*Result{loadModel, nil}, true},
		{"errors", []int{2, 3}, []*Result{loadModel}, false},
		{"read.errors", []int{2, 3}, []*Result{loadModel}, false},
		{"timed_out", []int{2, 3}, []*Result{loadModel}, false},
		{"achieved_rate", []int{3, 3}, []*Result{loadModel}, false},
		{"achieved_rate", []int{1, 2}, []*Result{loadModel}, false},
		{"rows_per_s", []int{2, 3}, []*Result{persons, persons}, false},
		{"p50", []int{2, 3}, []*Result{nil, persons}, false},
		{"p50", nil, []*Result{loadModel}, false},
	}
	for _, tt := range tests {
		why := NotComparable(tt.figure, tt.versions, tt.results...)
		if (why != "") != tt.want {
			t.Errorf("NotComparable(%s, %v) = %q, want not comparable: %t", tt.figure, tt.versions, why, tt.want)
		}
		if why != "" && !strings.Contains(why, "successful operations only") {
			t.Errorf("NotComparable(%s, %v) = %q: should say what changed", tt.figure, tt.versions, why)
		}
	}
}

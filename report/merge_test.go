package report

import (
	"fmt"
	"testing"
	"time"
)

// TestMergeSeriesPercentiles merges three shards' time series (1 s intervals): shard 1 began 40 ms
// after shard 0, shard 2 1.8 s late. Each merged interval's response p50, p99 and p99.9 are those
// of the histogram of every value the shards recorded in that second (built value by value), the
// late shard's two seconds on, and its rates are the shards' sums. Lies it catches: averaging the
// shards' percentiles, keeping one shard's, leaving them 0, or adding the late shard's intervals
// by index.
func TestMergeSeriesPercentiles(t *testing.T) {
	start := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	lates := []time.Duration{0, 40 * time.Millisecond, 1800 * time.Millisecond}
	perSecond := map[int64][]int64{}
	rate := map[int64]float64{}
	var names []string
	var parts []*Report
	for i, late := range lates {
		l := &Load{Loop: "open", Types: []LoadType{}, Intervals: []LoadInterval{}}
		all := NewHistogram()
		for k := range 3 {
			h := NewHistogram()
			for v := range 40 + 25*i {
				// shard 2 is slow: its values dominate the upper percentiles of the seconds it is in
				value := int64(20_000*(1+k) + 300*v + 5_000_000*(i/2))
				_ = h.RecordValue(value)
				_ = all.RecordValue(value)
				at := int64(k+int(late.Round(time.Second)/time.Second)) * 1e9
				perSecond[at] = append(perSecond[at], value)
			}
			enc, _ := EncodeHistogram(h)
			iv := LoadInterval{StartNs: int64(k) * 1e9, LengthNs: 1e9, TargetRate: 100, Achieved: float64(h.TotalCount()), Histogram: enc}
			iv.SetResponse(h)
			l.Intervals = append(l.Intervals, iv)
			rate[int64(k+int(late.Round(time.Second)/time.Second))*1e9] += iv.Achieved
		}
		enc, _ := EncodeHistogram(all)
		r := &Report{
			Run: Run{Seed: 7, StartedAt: start, Shard: &Shard{Index: i, Total: len(lates), StartedAt: start.Add(late), BuildHash: "abc"}},
			Results: []Result{{Target: "memory", Workload: "ycsb-c", Unit: "op", Status: StatusOK, Histogram: enc, Load: l,
				Repeats: []Repeat{{Index: 1, Run: 1, Ops: all.TotalCount(), Histogram: enc, Figures: Percentiles(all)}}}},
		}
		names, parts = append(names, fmt.Sprintf("shard-%d.json", i)), append(parts, r)
	}
	m, missing, err := MergeShards(names, parts)
	if err != nil || len(missing) > 0 {
		t.Fatalf("merge: %v, missing %v", err, missing)
	}
	ivs := m.Results[0].Load.Intervals
	if len(ivs) != 5 {
		t.Fatalf("%d merged intervals, want 5 (seconds 0-4: the late shard's two on)", len(ivs))
	}
	for _, iv := range ivs {
		want := NewHistogram()
		for _, v := range perSecond[iv.StartNs] {
			_ = want.RecordValue(v)
		}
		p50, p99, p999 := float64(want.ValueAtQuantile(50)), float64(want.ValueAtQuantile(99)), float64(want.ValueAtQuantile(99.9))
		if want.TotalCount() == 0 || iv.ResponseP50 != p50 || iv.ResponseP99 != p99 || iv.ResponseP999 != p999 {
			t.Errorf("interval at %v: p50 %v p99 %v p99.9 %v, want those of the shards' %d values: %v %v %v",
				time.Duration(iv.StartNs), iv.ResponseP50, iv.ResponseP99, iv.ResponseP999, want.TotalCount(), p50, p99, p999)
		}
		if iv.Achieved != rate[iv.StartNs] || iv.Histogram != "" {
			t.Errorf("interval at %v: achieved %v, want the sum %v; histogram kept: %t", time.Duration(iv.StartNs), iv.Achieved, rate[iv.StartNs], iv.Histogram != "")
		}
	}

	// a shard report without the intervals' histograms (made before they were kept) leaves the
	// percentiles of the intervals it is in unknown (0), never those of the other shards alone
	parts[1].Results[0].Load.Intervals[0].Histogram = ""
	m, _, _ = MergeShards(names, parts)
	if iv := m.Results[0].Load.Intervals[0]; iv.ResponseP99 != 0 {
		t.Errorf("interval 0 with one shard's histogram missing: p99 %v, want 0", iv.ResponseP99)
	}
}

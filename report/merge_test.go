package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
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
	m, missing, shares, err := MergeShards(names, parts)
	if err != nil || len(missing)+len(shares) > 0 {
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
	m, _, _, _ = MergeShards(names, parts)
	if iv := m.Results[0].Load.Intervals[0]; iv.ResponseP99 != 0 {
		t.Errorf("interval 0 with one shard's histogram missing: p99 %v, want 0", iv.ResponseP99)
	}
}

// loadShard is shard i of n of an open loop that completed ops operations, one a millisecond-ish,
// evenly over its span of span (1 s intervals), beginning late after the earliest shard, its
// generator working work ns per operation.
func loadShard(i, n int, start time.Time, late, span time.Duration, ops int64, work float64, host string, clockKnown bool) *Report {
	rate := float64(ops) / span.Seconds()
	l := &Load{Loop: "open", TargetRate: rate, Achieved: rate, SpanNs: span.Nanoseconds(), DurationNs: span.Nanoseconds(),
		Scheduled: ops, Completed: ops, Generator: LoadGenerator{WorkPerOpNs: work}, Types: []LoadType{}, Intervals: []LoadInterval{}}
	h := NewHistogram()
	for s := time.Duration(0); s < span; s += time.Second {
		length := min(time.Second, span-s)
		k := int64(float64(ops) * length.Seconds() / span.Seconds())
		l.Intervals = append(l.Intervals, LoadInterval{StartNs: s.Nanoseconds(), LengthNs: time.Second.Nanoseconds(), TargetRate: rate, Achieved: float64(k)})
	}
	for v := range ops {
		_ = h.RecordValue(1000 + v)
	}
	enc, _ := EncodeHistogram(h)
	figs := Percentiles(h)
	for k, v := range map[string]float64{"ops": float64(ops), "achieved_rate": rate, "ops_per_s": rate, "target_rate": rate, "elapsed": float64(span.Nanoseconds()), "generator_work_per_op": work} {
		figs[k] = v
	}
	return &Report{
		Run:     Run{Seed: 7, StartedAt: start, Shard: &Shard{Index: i, Total: n, StartedAt: start.Add(late), BuildHash: "abc", Host: host, Clock: Clock{Source: "adjtimex", Known: clockKnown}}},
		Targets: []Target{{Name: "memory", Status: StatusOK}},
		Results: []Result{{Target: "memory", Workload: "ycsb-c", Unit: "op", Status: StatusOK, Histogram: enc, Load: l,
			Repeats: []Repeat{{Index: 1, Run: 1, Ops: ops, ElapsedNs: span.Nanoseconds(), Histogram: enc, Figures: figs}}}},
	}
}

// TestMergeRatesOverTheUnionOfSpans: a merged load-model result's rates are its operations over the
// union of the shards' spans, each placed at its shard's recorded start, so that they agree (within
// 5%) with the merged per-second series' mean over that union, whether the shards ran together or
// not; shards whose spans overlap by less than 90% of the shorter are named in a warning, and on
// several hosts an unknown clock offset is said beside the rates. The generator's work per
// operation is weighted by the operations each shard completed, in the merged repeat and load
// alike. The lie it catches: rates summed as if the shards had run together (two shards 1.26 s
// apart, 1 s each, read "500/s" where the series shows 250/s in two separate seconds).
func TestMergeRatesOverTheUnionOfSpans(t *testing.T) {
	start := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		lates     []time.Duration
		spans     []time.Duration
		ops       []int64
		hosts     []string
		known     []bool
		wantApart string // in a warning; "" for none
		wantClock bool
	}{
		{"together", []time.Duration{0, 30 * time.Millisecond}, []time.Duration{2 * time.Second, 2 * time.Second}, []int64{500, 500},
			[]string{"a", "a"}, []bool{false, false}, "", false},
		{"1.26 s apart, 1 s each", []time.Duration{0, 1260 * time.Millisecond}, []time.Duration{time.Second, time.Second}, []int64{250, 250},
			[]string{"a", "a"}, []bool{false, false}, "shards 0 and 1 of 2 ran apart: their spans overlap by 0% of the shorter", false},
		{"half overlapping, on two hosts, one clock unknown", []time.Duration{0, 0, 1500 * time.Millisecond}, []time.Duration{3 * time.Second, 3 * time.Second, 3 * time.Second}, []int64{300, 600, 300},
			[]string{"a", "a", "b"}, []bool{true, true, false}, "shards 0 and 2 of 3 ran apart: their spans overlap by 50% of the shorter", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var names []string
			var parts []*Report
			var lo, hi time.Duration
			var work, ops float64
			for i := range tt.lates {
				w := 100 * float64(i+1)
				parts = append(parts, loadShard(i, len(tt.lates), start, tt.lates[i], tt.spans[i], tt.ops[i], w, tt.hosts[i], tt.known[i]))
				names = append(names, fmt.Sprintf("shard-%d.json", i))
				if i == 0 || tt.lates[i] < lo {
					lo = tt.lates[i]
				}
				hi = max(hi, tt.lates[i]+tt.spans[i])
				work, ops = work+w*float64(tt.ops[i]), ops+float64(tt.ops[i])
			}
			m, missing, shares, err := MergeShards(names, parts)
			if err != nil || len(missing)+len(shares) > 0 {
				t.Fatalf("merge: %v, missing %v %v", err, missing, shares)
			}
			x := m.Results[0]
			union := (hi - lo).Seconds()
			var completed float64
			for _, iv := range x.Load.Intervals {
				completed += iv.Achieved * time.Duration(iv.LengthNs).Seconds()
			}
			series := completed / union // the merged per-second series' mean over the union span
			for what, got := range map[string]float64{"repeat achieved_rate": x.Repeats[0].Figures["achieved_rate"], "repeat ops_per_s": x.Repeats[0].Figures["ops_per_s"],
				"result achieved_rate": x.Figures["achieved_rate"], "load achieved": x.Load.Achieved} {
				if math.Abs(got/series-1) > 0.05 {
					t.Errorf("%s %.1f/s, the merged per-second series' mean over the union %.1f/s", what, got, series)
				}
			}
			if x.Load.SpanNs != (hi-lo).Nanoseconds() || x.Repeats[0].ElapsedNs != (hi-lo).Nanoseconds() {
				t.Errorf("span %v and elapsed %v, want the union %v", time.Duration(x.Load.SpanNs), time.Duration(x.Repeats[0].ElapsedNs), hi-lo)
			}
			if want := work / ops; x.Load.Generator.WorkPerOpNs != want || x.Repeats[0].Figures["generator_work_per_op"] != want {
				t.Errorf("generator work per op: load %v, repeat %v; want both %v (weighted by operations completed)",
					x.Load.Generator.WorkPerOpNs, x.Repeats[0].Figures["generator_work_per_op"], want)
			}
			apart := slices.ContainsFunc(x.Warnings, func(w string) bool { return tt.wantApart != "" && strings.Contains(w, tt.wantApart) })
			noted := slices.ContainsFunc(x.Warnings, func(w string) bool { return strings.Contains(w, "ran apart") })
			if apart != (tt.wantApart != "") || noted != apart {
				t.Errorf("warnings %q, want one with %q", x.Warnings, tt.wantApart)
			}
			clock := slices.ContainsFunc(x.Warnings, func(w string) bool { return strings.Contains(w, "the clock offset of shard 2 of 3 is unknown") })
			if clock != tt.wantClock {
				t.Errorf("warnings %q: clock caveat %t, want %t", x.Warnings, clock, tt.wantClock)
			}
		})
	}
}

// TestMergeMissingShare: a complete shard without a result the others have is a missing share,
// named by shard, target, workload (and size in a sweep); the merged report is partial and still
// holds the result from the shards that have it, and the target list is every shard's.
func TestMergeMissingShare(t *testing.T) {
	start := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	var parts []*Report
	for i := range 2 {
		r := loadShard(i, 2, start, 0, time.Second, 250, 100, "a", true)
		sqlite := r.Results[0]
		sqlite.Target = "sqlite"
		r.Results = append(r.Results, sqlite)
		r.Targets = append(r.Targets, Target{Name: "sqlite", Status: StatusOK})
		parts = append(parts, r)
	}
	// shard 1 has sqlite first and no memory result: shard 0's order must not decide what is merged
	parts[1].Results = parts[1].Results[1:]
	parts[1].Targets = []Target{{Name: "sqlite", Status: StatusOK}, {Name: "memory", Status: StatusSkipped, Reason: "left out"}}
	m, missing, shares, err := MergeShards([]string{"s0.json", "s1.json"}, parts)
	if err != nil || len(missing) > 0 {
		t.Fatalf("merge: %v, missing %v", err, missing)
	}
	if want := []MissingShare{{Shard: 1, Target: "memory", Workload: "ycsb-c"}}; !slices.Equal(shares, want) {
		t.Fatalf("missing shares %+v, want %+v", shares, want)
	}
	if got := shares[0].String(2, false); got != "shard 1 of 2 has no memory ycsb-c result" {
		t.Errorf("named %q", got)
	}
	if !m.Run.Merge.Partial || !slices.Equal(m.Run.Merge.MissingShares, shares) || len(m.Results) != 2 {
		t.Errorf("merge record %+v with %d results, want partial, naming the share, with both results", m.Run.Merge, len(m.Results))
	}
	if x := m.Find("sqlite", "ycsb-c", 0); x == nil || x.Repeats[0].Ops != 500 {
		t.Errorf("sqlite: %+v, want both shards' 500 operations", x)
	}
	if x := m.Find("memory", "ycsb-c", 0); x == nil || x.Repeats[0].Ops != 250 {
		t.Errorf("memory: want shard 0's 250 operations only")
	}
	if len(m.Targets) != 2 || m.TargetByName("memory").Status != StatusOK {
		t.Errorf("targets %+v, want memory (ok: it ran in shard 0) and sqlite", m.Targets)
	}
}

// closedShard is shard i of n of a closed loop (schema version 3: no schedule, so no start lag)
// whose reads all succeeded and whose updates failed errs times out of updates.
func closedShard(i, n int, start time.Time, reads, updates, errs int64) *Report {
	enc := func(n int64, base int64) string {
		h := NewHistogram()
		for v := range n {
			_ = h.RecordValue(base + v)
		}
		s, _ := EncodeHistogram(h)
		return s
	}
	types := []LoadType{
		{Op: "read", Count: reads, Histogram: LoadHistograms{Response: enc(reads, 1000), Service: enc(reads, 1000)}},
		{Op: "update", Count: updates - errs, Errors: errs,
			Histogram: LoadHistograms{Response: enc(updates-errs, 2000), Service: enc(updates-errs, 2000), Failed: enc(errs, 5000)}},
	}
	ops := reads + updates - errs
	figs := map[string]float64{"ops": float64(ops), "errors": float64(errs), "error_rate": float64(errs) / float64(reads+updates),
		"achieved_rate": float64(ops), "ops_per_s": float64(ops), "elapsed": 1e9, "timed_out": 0}
	l := &Load{Loop: "closed", Workers: 2, Achieved: float64(ops), SpanNs: 1e9, Scheduled: reads + updates, Completed: ops, Errors: errs,
		ErrorRate: float64(errs) / float64(reads+updates), Types: types, Intervals: []LoadInterval{{StartNs: 0, LengthNs: 1e9, Achieved: float64(ops), Errors: errs}}}
	return &Report{
		Run:     Run{Seed: 7, StartedAt: start, Shard: &Shard{Index: i, Total: n, StartedAt: start, BuildHash: "abc", Host: "a"}},
		Targets: []Target{{Name: "pg", Status: StatusOK}},
		Results: []Result{{Target: "pg", Workload: "ycsb-a", Unit: "op", Status: StatusOK, Histogram: enc(ops, 1000), Load: l,
			Repeats: []Repeat{{Index: 1, Run: 1, Ops: ops, Errors: errs, ElapsedNs: 1e9, Histogram: enc(ops, 1000), Figures: figs, Types: types}}}},
	}
}

// TestMergeErrorsAndClosedLoops: shards' errors merge into one error rate over every operation
// performed (not a sum or a mean of the shards' rates), the failed operations' histograms add, and
// a closed loop's merged figures and load have no start lag or schedule counts (absent, not 0).
func TestMergeErrorsAndClosedLoops(t *testing.T) {
	start := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	parts := []*Report{closedShard(0, 2, start, 100, 100, 100), closedShard(1, 2, start, 300, 100, 0)}
	m, missing, shares, err := MergeShards([]string{"shard-0.json", "shard-1.json"}, parts)
	if err != nil || len(missing)+len(shares) > 0 {
		t.Fatalf("merge: %v, missing %v %v", err, missing, shares)
	}
	x := m.Results[0]
	f := x.Repeats[0].Figures
	if f["errors"] != 100 || f["ops"] != 500 || f["error_rate"] != 100.0/600 || f["update.error_rate"] != 0.5 || f["read.error_rate"] != 0 {
		t.Errorf("errors %v, ops %v, error rate %v (update %v, read %v); want 100, 500, 1/6, 0.5, 0", f["errors"], f["ops"], f["error_rate"], f["update.error_rate"], f["read.error_rate"])
	}
	if x.Load.ErrorRate != 100.0/600 || x.Load.Errors != 100 || x.Load.Intervals[0].Errors != 100 {
		t.Errorf("load error rate %v, errors %d, interval errors %d", x.Load.ErrorRate, x.Load.Errors, x.Load.Intervals[0].Errors)
	}
	for _, k := range []string{"start_lag_p99", "read.start_lag_p99", "late", "waited", "dropped", "target_rate", "generator_late"} {
		if v, ok := f[k]; ok {
			t.Errorf("a merged closed loop has %s = %v", k, v)
		}
	}
	up := x.Load.Types[1]
	failed, _ := DecodeHistogram(up.Histogram.Failed)
	if up.StartLag != nil || up.Histogram.StartLag != "" || failed == nil || failed.TotalCount() != 100 || up.Failed == nil {
		t.Errorf("merged update type: start lag %v %q, failed %v", up.StartLag, up.Histogram.StartLag, up.Failed)
	}
}

// TestMergeSQLStatements: a sql workload's statements merge as its operation types do: each
// statement's executions and failures added, its figures from the sum of the shards' histograms
// (not a mean of the shards' percentiles), in the repeat and in the load alike, and the checks'
// counts added.
func TestMergeSQLStatements(t *testing.T) {
	start := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	stmt := func(base int64, n, errs int64) LoadStatement {
		h := NewHistogram()
		for v := range n {
			_ = h.RecordValue(base + v)
		}
		return NewLoadStatement("pay", 1, 7, "UPDATE accounts SET balance = balance + :delta WHERE aid = :aid", h, errs)
	}
	var parts []*Report
	for i, s := range []LoadStatement{stmt(1000, 100, 1), stmt(1_000_000, 300, 0)} {
		r := closedShard(i, 2, start, 50, 50, 0)
		x := &r.Results[0]
		x.Repeats[0].Statements = []LoadStatement{s}
		x.Load.Statements = []LoadStatement{s}
		x.Load.Checks = LoadChecks{Expects: 10, Comparisons: 5}
		parts = append(parts, r)
	}
	m, _, _, err := MergeShards([]string{"shard-0.json", "shard-1.json"}, parts)
	if err != nil {
		t.Fatal(err)
	}
	x := m.Results[0]
	whole := stmt(1000, 100, 1)
	sum, _ := DecodeHistogram(whole.Histogram)
	other, _ := DecodeHistogram(stmt(1_000_000, 300, 0).Histogram)
	sum.Merge(other)
	want := float64(sum.ValueAtQuantile(50))
	f := x.Repeats[0].Figures
	if f["pay.stmt1_errors"] != 1 || f["pay.stmt1_p50"] != want || len(x.Repeats[0].Statements) != 1 || x.Repeats[0].Statements[0].Count != 400 {
		t.Errorf("repeat: errors %v, p50 %v (want %v from the merged histogram), statements %+v", f["pay.stmt1_errors"], f["pay.stmt1_p50"], want, x.Repeats[0].Statements)
	}
	if len(x.Load.Statements) != 1 || x.Load.Statements[0].Count != 400 || x.Load.Statements[0].Errors != 1 || x.Load.Statements[0].Latency["p50"] != want {
		t.Errorf("load statements %+v", x.Load.Statements)
	}
	if c := x.Load.Checks; c.Expects != 20 || c.Comparisons != 10 {
		t.Errorf("checks %+v, want the shards' added", c)
	}
}

package report

import (
	"slices"
	"sort"
	"strings"
)

// FigureInfo describes a figure: its unit and which direction is better.
type FigureInfo struct {
	Name         string
	Unit         string // "ns", "1/s", "count"
	HigherBetter bool
	Help         string
}

// Figures lists every figure a result carries, in display order.
var Figures = append([]FigureInfo{
	{"rows_per_s", "1/s", true, "rows decoded per second of elapsed time"},
	{"ops_per_s", "1/s", true, "operations per second of elapsed time"},
	{"ns_per_row", "ns", false, "elapsed ns per row (per key/value pair)"},
	{"ns_per_op", "ns", false, "elapsed ns per operation"},
	{"elapsed", "ns", false, "wall time of the repeat (a whole scan, all lookups, the insert txn, all readers)"},
	{"p50", "ns", false, "median operation latency"},
	{"p90", "ns", false, "90th percentile latency"},
	{"p99", "ns", false, "99th percentile latency"},
	{"p999", "ns", false, "99.9th percentile latency"},
	{"max", "ns", false, "largest latency"},
	{"min", "ns", false, "smallest latency"},
	{"mean", "ns", false, "mean latency"},
	{"ops", "count", true, "operations done"},
	{"rows", "count", true, "rows read or written"},
	{"errors", "count", false, "failed operations"},
	{"instr_per_op", "count", false, "instructions per operation, counted by callgrind (dbbench run --instructions; this process only)"},
	{"instr_per_row", "count", false, "instructions per row, counted by callgrind (dbbench run --instructions; this process only)"},
}, loadFigures...)

// loadFigures are an open-loop workload's (report/load.go). The three clocks are never one name:
// response time from the intended start, service time from the actual start, start lag between.
var loadFigures = []FigureInfo{
	{"achieved_rate", "1/s", true, "open loop: operations completed per second of the run's span"},
	{"target_rate", "1/s", true, "open loop: the schedule's mean rate, operations per second"},
	{"late", "count", false, "open loop: operations started more than late_after after their intended start"},
	{"dropped", "count", false, "open loop: operations never sent (drop policy, no free worker)"},
	{"response_p50", "ns", false, "open loop: median response time, from the intended start (per type: OP.response_p50)"},
	{"response_p99", "ns", false, "open loop: 99th percentile response time, from the intended start"},
	{"response_p999", "ns", false, "open loop: 99.9th percentile response time, from the intended start"},
	{"response_max", "ns", false, "open loop: largest response time, from the intended start"},
	{"service_p50", "ns", false, "open loop: median service time, from the actual start (per type: OP.service_p50)"},
	{"service_p99", "ns", false, "open loop: 99th percentile service time, from the actual start"},
	{"service_p999", "ns", false, "open loop: 99.9th percentile service time, from the actual start"},
	{"service_max", "ns", false, "open loop: largest service time, from the actual start"},
	{"start_lag_p50", "ns", false, "open loop: median start lag, actual minus intended start (per type: OP.start_lag_p50)"},
	{"start_lag_p99", "ns", false, "open loop: 99th percentile start lag, actual minus intended start"},
	{"start_lag_p999", "ns", false, "open loop: 99.9th percentile start lag, actual minus intended start"},
	{"start_lag_max", "ns", false, "open loop: largest start lag, actual minus intended start"},
}

// OpenLoop reports whether a figure ("OP.FIGURE" too) is one only an open-loop workload has.
func OpenLoop(name string) bool {
	if _, fig, ok := strings.Cut(name, "."); ok {
		name = fig
	}
	return slices.ContainsFunc(loadFigures, func(f FigureInfo) bool { return f.Name == name })
}

// PerOp reports whether a figure is also recorded per operation type, as "OP.FIGURE" in a repeat's
// figures: the three clocks of an open-loop workload.
func PerOp(figure string) bool {
	for _, p := range []string{"response_", "service_", "start_lag_"} {
		if strings.HasPrefix(figure, p) {
			_, ok := LookupFigure(figure)
			return ok
		}
	}
	return false
}

// LookupFigure returns the FigureInfo for a name: a figure, or "OP.FIGURE" for a figure recorded
// per operation type (read.response_p99 is response_p99's).
func LookupFigure(name string) (FigureInfo, bool) {
	if op, fig, ok := strings.Cut(name, "."); ok {
		if op == "" || !PerOp(fig) {
			return FigureInfo{}, false
		}
		name = fig
	}
	for _, f := range Figures {
		if f.Name == name {
			return f, true
		}
	}
	return FigureInfo{}, false
}

// FigureNames returns the names of all figures.
func FigureNames() []string {
	n := make([]string, len(Figures))
	for i, f := range Figures {
		n[i] = f.Name
	}
	return n
}

// Median returns the median of xs (the mean of the middle two for even counts); 0 for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// Find returns the result for (target, workload, size); size 0 matches the only size.
func (r *Report) Find(target, workload string, size int) *Result {
	for i := range r.Results {
		x := &r.Results[i]
		if x.Target == target && x.Workload == workload && (size == 0 || x.Size == size) {
			return x
		}
	}
	return nil
}

// TargetByName returns the target entry with the given name.
func (r *Report) TargetByName(name string) *Target {
	for i := range r.Targets {
		if r.Targets[i].Name == name {
			return &r.Targets[i]
		}
	}
	return nil
}

// RunIndices returns the runs the result's repeats come from, in order.
func (x *Result) RunIndices() []int {
	var out []int
	for _, rep := range x.Repeats {
		if k := rep.RunIndex(); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// RunFigure returns a figure of one run of the result: the run's recorded figures, or for a report
// without them (version 1, one run) the median over the run's repeats; ok is false when the run has
// no such figure.
func (x *Result) RunFigure(run int, figure string) (float64, bool) {
	for _, rf := range x.Runs {
		if rf.Run == run {
			v, ok := rf.Figures[figure]
			return v, ok
		}
	}
	var xs []float64
	for _, rep := range x.Repeats {
		if rep.RunIndex() != run {
			continue
		}
		v, ok := rep.Figures[figure]
		if !ok {
			return 0, false
		}
		xs = append(xs, v)
	}
	if len(xs) == 0 {
		return 0, false
	}
	return Median(xs), true
}

// TargetNames lists the report's targets in their order, then any that only its results name (older
// reports have no targets list).
func (r *Report) TargetNames() []string {
	var names []string
	for _, t := range r.Targets {
		names = append(names, t.Name)
	}
	for _, x := range r.Results {
		if !slices.Contains(names, x.Target) {
			names = append(names, x.Target)
		}
	}
	return names
}

// WorkloadNames lists the workloads of the report's results in the order they first appear.
func (r *Report) WorkloadNames() []string {
	var names []string
	for _, x := range r.Results {
		if !slices.Contains(names, x.Workload) {
			names = append(names, x.Workload)
		}
	}
	return names
}

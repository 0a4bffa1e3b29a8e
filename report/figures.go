package report

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
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
}, append(append(memoryFigures, loadFigures...), statementFigures...)...)

// memoryFigures are a repeat's memory figures, measured with memory: true or --memory outside the
// timed operations (docs/memory.md). Per operation: the change over the repeat divided by its
// operations.
var memoryFigures = []FigureInfo{
	{"bytes_allocated_per_op", "bytes", false, "Go heap bytes allocated per operation (in-process targets; dbbench run --memory)"},
	{"bytes_retained_per_op", "bytes", false, "bytes still held per operation after the repeat: Go heap live after a GC plus C malloc in use (in process), or the client's resident set growth (exec) (--memory)"},
	{"go_heap_retained_per_op", "bytes", false, "Go heap live after a GC, growth per operation (in-process targets; --memory)"},
	{"c_heap_retained_per_op", "bytes", false, "C malloc bytes in use (glibc mallinfo2), growth per operation; not mmap, so not LMDB's map (in-process targets; --memory)"},
	{"rss_growth_per_op", "bytes", false, "resident set growth per operation of the process doing the work: dbbench, or the client (--memory)"},
	{"peak_rss_bytes", "bytes", false, "peak resident set of the process doing the work: dbbench, or the client with its children (--memory)"},
	{"server_rss_growth_per_op", "bytes", false, "resident set growth per operation of the server dbbench started, all its processes (--memory)"},
	{"server_peak_rss_bytes", "bytes", false, "peak resident set of the server dbbench started, its processes summed (--memory)"},
}

// loadFigures are an open-loop (or closed-loop YCSB) workload's (report/load.go, docs/load.md). The
// three clocks are never one name: response time from the intended start, service time from the
// actual start, start lag between.
var loadFigures = []FigureInfo{
	{"achieved_rate", "1/s", true, "operations completed without an error per second of the run phase's span (load model)"},
	{"target_rate", "1/s", true, "the schedule's rate, ops/s (a ramp's mean; open loop only)"},
	{"error_rate", "ratio", false, "share of the operations performed that failed: errors / (ops + errors)"},
	{"late", "count", false, "operations sent more than late_after after their intended start (open loop only)"},
	{"dropped", "count", false, "operations never sent: no free worker at their intended start (policy drop; open loop only)"},
	{"waited", "count", false, "operations that waited for a worker, every worker busy (policy queue; open loop only)"},
	{"generator_late", "count", false, "operations the generator itself started late with a worker free (open loop only)"},
	{"timed_out", "count", false, "operations that outlasted load.timeout (errors too)"},
	{"response_p50", "ns", false, "median response time: from the intended start to the end (what a user waits)"},
	{"response_p99", "ns", false, "99th percentile response time (from the intended start)"},
	{"response_p999", "ns", false, "99.9th percentile response time (from the intended start)"},
	{"service_p50", "ns", false, "median service time: from the actual start to the end (what the store took)"},
	{"service_p99", "ns", false, "99th percentile service time (from the actual start)"},
	{"start_lag_p99", "ns", false, "99th percentile start lag: actual minus intended start"},
	{"generator_work_per_op", "ns", false, "the generator's work per operation, waiting excluded"},
}

// statementFigures are a sql workload's figures per statement (pgbench -r's), each kept per
// transaction: OP.stmtN_FIGURE, N the statement's place in transaction OP (1, 2, ...), e.g.
// tpcb-like.stmt3_mean. Their names here are patterns, for the list of figures; LookupFigure
// reads the real ones (statementFigure).
var statementFigures = []FigureInfo{
	{"OP.stmtN_mean", "ns", false, "mean execution time of statement N of transaction OP (sql workloads, as pgbench -r's latency average)"},
	{"OP.stmtN_p50", "ns", false, "median execution time of statement N of transaction OP (sql workloads)"},
	{"OP.stmtN_p99", "ns", false, "99th percentile execution time of statement N of transaction OP (sql workloads)"},
	{"OP.stmtN_errors", "count", false, "executions of statement N of transaction OP that failed (sql workloads)"},
}

// StatementFigure reports whether a figure (without its OP.) is a statement's, kept per transaction
// only.
func StatementFigure(name string) bool {
	_, ok := statementFigure(name)
	return ok
}

// statementFigure returns the FigureInfo of a statement figure, stmtN_FIGURE (N from 1).
func statementFigure(name string) (FigureInfo, bool) {
	rest, ok := strings.CutPrefix(name, "stmt")
	if !ok {
		return FigureInfo{}, false
	}
	n, fig, ok := strings.Cut(rest, "_")
	if !ok || n == "" || len(n) > 4 || n[0] == '0' || strings.Trim(n, "0123456789") != "" {
		return FigureInfo{}, false
	}
	for _, f := range statementFigures {
		if strings.TrimPrefix(f.Name, "OP.stmtN_") == fig {
			f.Name = name
			f.Help = strings.Replace(f.Help, "statement N", "statement "+n, 1)
			return f, true
		}
	}
	return FigureInfo{}, false
}

// Signed reports whether a figure may be negative: a memory growth or retention per operation
// (memory handed back during a repeat, such as a Go heap that shrank or pages the runtime returned).
func Signed(name string) bool {
	return strings.HasSuffix(name, "_retained_per_op") || strings.HasSuffix(name, "_growth_per_op")
}

// OpFigures are the figures an open-loop workload also carries per operation type, named
// OP.FIGURE (read.response_p99, update.service_p50, ...): its count and errors, and the three clocks.
var OpFigures = func() []FigureInfo {
	out := []FigureInfo{
		{"count", "count", true, "operations of this type completed without an error"},
		{"errors", "count", false, "operations of this type that failed"},
		{"error_rate", "ratio", false, "share of the operations of this type performed that failed"},
	}
	for _, f := range loadFigures {
		if strings.HasPrefix(f.Name, "response_") || strings.HasPrefix(f.Name, "service_") || strings.HasPrefix(f.Name, "start_lag_") {
			f.Help += ", of this operation type"
			out = append(out, f)
		}
	}
	return out
}()

// ScheduleFigure reports whether a figure ("OP.FIGURE" too) is one only an open loop measures: what
// its schedule asked and how it was kept. A closed loop has none of them.
func ScheduleFigure(name string) bool {
	if _, fig, ok := strings.Cut(name, "."); ok {
		name = fig
	}
	switch name {
	case "target_rate", "late", "dropped", "waited", "generator_late", "generator_work_per_op":
		return true
	}
	return strings.HasPrefix(name, "start_lag_")
}

// OpenLoop reports whether a figure ("OP.FIGURE" too) is one only a load-model workload has.
func OpenLoop(name string) bool {
	if _, fig, ok := strings.Cut(name, "."); ok {
		return PerOp(fig)
	}
	return slices.ContainsFunc(loadFigures, func(f FigureInfo) bool { return f.Name == name })
}

// PerOp reports whether a figure is also recorded per operation type, as "OP.FIGURE" in a repeat's
// figures (a statement's figures only so).
func PerOp(figure string) bool {
	if _, ok := statementFigure(figure); ok {
		return true
	}
	return slices.ContainsFunc(OpFigures, func(f FigureInfo) bool { return f.Name == figure })
}

// LookupFigure returns the FigureInfo for a name: one of Figures, a statement's figure
// (stmtN_FIGURE), or OP.FIGURE with FIGURE one of OpFigures or a statement's (OP an operation type:
// YCSB's, or a sql workload's transaction: letters, digits, '_' and '-', as an assertion names it).
func LookupFigure(name string) (FigureInfo, bool) {
	for _, f := range Figures {
		if f.Name == name && !strings.HasPrefix(f.Name, "OP.") {
			return f, true
		}
	}
	if f, ok := profileFigure(name); ok {
		return f, true
	}
	if f, ok := statementFigure(name); ok {
		return f, true
	}
	op, fig, ok := strings.Cut(name, ".")
	if !ok || !validOp(op) {
		return FigureInfo{}, false
	}
	if f, ok := statementFigure(fig); ok {
		f.Name = name
		return f, true
	}
	for _, f := range OpFigures {
		if f.Name == fig {
			f.Name = name
			return f, true
		}
	}
	return FigureInfo{}, false
}

// validOp says whether a name may be an operation type in a figure's name: a letter or '_', then
// letters, digits, '_' and '-'.
func validOp(op string) bool {
	if op == "" || !(op[0] == '_' || op[0] >= 'a' && op[0] <= 'z' || op[0] >= 'A' && op[0] <= 'Z') {
		return false
	}
	return strings.Trim(op, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == ""
}

// FigureNames returns the names of all figures.
func FigureNames() []string {
	n := make([]string, len(Figures))
	for i, f := range Figures {
		n[i] = f.Name
	}
	return n
}

// MedianFigures is each figure's median over sets, such as a result's repeats or its runs: every
// figure that any set holds, over the sets that hold it. It is never nil.
func MedianFigures(sets ...map[string]float64) map[string]float64 {
	per := map[string][]float64{}
	for _, set := range sets {
		for f, v := range set {
			per[f] = append(per[f], v)
		}
	}
	out := make(map[string]float64, len(per))
	for f, vs := range per {
		out[f] = Median(vs)
	}
	return out
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

// What a run contributes as its value, to compare's samples (--run-value) and to an assertion's
// interval (run_value:).
const (
	// RunMedian is the median over the run's repeats (of the paired per-repeat ratios or differences
	// where two sides are compared).
	RunMedian = "median"
	// RunBest is the run's best repeat of each side (the smallest time, the largest throughput), then
	// their ratio or difference: on a shared machine other work only ever adds time, so the best
	// repeat is the one least disturbed, and it moves far less from run to run than the median does
	// when the machine is busy.
	RunBest = "best"
)

// Best returns the best of a figure's values: the largest where higher is better, else the smallest
// (NaN for none). On a shared machine other work only ever adds time, so the best repeat of a run
// is its least disturbed one.
func Best(fig string, xs []float64) float64 {
	info, _ := LookupFigure(fig)
	b := math.NaN()
	for _, v := range xs {
		if math.IsNaN(b) || (info.HigherBetter && v > b) || (!info.HigherBetter && v < b) {
			b = v
		}
	}
	return b
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

// RepeatFigures are the figures of one repeat from what it measured: its latency histogram, its
// operations, rows and errors, its wall time and (when counted) its instructions. One run computes
// them (the engine) and so does a merge of shards (MergeShards): one definition for both.
func RepeatFigures(h *hdrhistogram.Histogram, ops, rows, errors int64, elapsed time.Duration, instructions int64) map[string]float64 {
	figs := Percentiles(h)
	figs["ops"] = float64(ops)
	figs["rows"] = float64(rows)
	figs["errors"] = float64(errors)
	figs["elapsed"] = float64(elapsed.Nanoseconds())
	if s := elapsed.Seconds(); s > 0 {
		figs["ops_per_s"] = float64(ops) / s
		if rows > 0 {
			figs["rows_per_s"] = float64(rows) / s
		}
	}
	if ops > 0 {
		figs["ns_per_op"] = float64(elapsed.Nanoseconds()) / float64(ops)
	}
	if rows > 0 {
		figs["ns_per_row"] = float64(elapsed.Nanoseconds()) / float64(rows)
	}
	if instructions > 0 {
		if ops > 0 {
			figs["instr_per_op"] = float64(instructions) / float64(ops)
		}
		if rows > 0 {
			figs["instr_per_row"] = float64(instructions) / float64(rows)
		}
	}
	return figs
}

// RepeatsMedian is MedianFigures over the repeats' figures: a result's figures, for a run and a merge alike.
func RepeatsMedian(repeats []Repeat) map[string]float64 {
	sets := make([]map[string]float64, len(repeats))
	for i, rep := range repeats {
		sets[i] = rep.Figures
	}
	return MedianFigures(sets...)
}

// ClockFigures sets a load-model workload's clock figures (prefix "" for all operation types,
// "OP." for one) from its three histograms; startLag nil (a closed loop) sets no start lag.
func ClockFigures(f map[string]float64, prefix string, response, service, startLag *hdrhistogram.Histogram) {
	f[prefix+"response_p50"] = float64(response.ValueAtQuantile(50))
	f[prefix+"response_p99"] = float64(response.ValueAtQuantile(99))
	f[prefix+"response_p999"] = float64(response.ValueAtQuantile(99.9))
	f[prefix+"service_p50"] = float64(service.ValueAtQuantile(50))
	f[prefix+"service_p99"] = float64(service.ValueAtQuantile(99))
	if startLag != nil {
		f[prefix+"start_lag_p99"] = float64(startLag.ValueAtQuantile(99))
	}
}

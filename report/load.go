package report

import (
	"encoding/json"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The load model's part of a result (docs/load.md): an open-loop run of a workload against one target.
// A Result with Load set is one open-loop workload (Unit "op"); its Repeats carry, per run, the flat
// figures assertions read, named so that no clock is confused with another:
//
//	achieved_rate, target_rate (ops/s), late, dropped, errors (operations), error_rate
//	response_p50, response_p99, response_p999, service_p50, service_p99, start_lag_p99 (ns), all types
//	OP.response_p99, OP.service_p99, OP.start_lag_p99, OP.error_rate, ... : the same per operation type OP
//
// so that an assertion reads e.g. ycsb-a.read.response_p99[sqlite] <= 2ms. Since schema version 3
// the counts, rates and clocks are of the operations that succeeded (errors are a count and a rate
// of their own), and a closed loop's figures leave out what only a schedule measures.

// Load is what an open-loop workload did on one target: the schedule asked, the rate achieved, the
// three clocks per operation type and the time series. For several runs it is the last run's.
type Load struct {
	// Loop is "open" (operations at intended start times from a schedule) or "closed" (no rate:
	// each worker starts its next operation when its last one ends; response time = service time,
	// and nothing measured of a schedule: its JSON has no arrivals, policy, target rate, duration,
	// late, waited, dropped, late_after_ns, saturation or generator, and its types no start lag).
	Loop       string  `json:"loop"`
	Arrivals   string  `json:"arrivals"` // constant or poisson (open loop)
	Policy     string  `json:"policy"`   // queue or drop
	Workers    int     `json:"workers"`
	TargetRate float64 `json:"target_rate"`   // the schedule's mean rate, ops/s (0: closed loop)
	Achieved   float64 `json:"achieved_rate"` // completed operations over the span, ops/s
	DurationNs int64   `json:"duration_ns"`   // the schedule's span (intended starts in [0, duration))
	SpanNs     int64   `json:"span_ns"`       // start to the later of the schedule's end and the last completion
	Scheduled  int64   `json:"scheduled"`
	Completed  int64   `json:"completed"` // without an error
	Late       int64   `json:"late"`      // sent more than LateAfterNs after the intended start
	Waited     int64   `json:"waited"`    // waited for a free worker, every worker busy (queue policy)
	Dropped    int64   `json:"dropped"`   // never sent (drop policy)
	Errors     int64   `json:"errors"`
	ErrorRate  float64 `json:"error_rate"` // errors / (completed + errors)
	TimedOut   int64   `json:"timed_out"`
	LateAfter  int64   `json:"late_after_ns"`
	// Saturation is "", "target saturated", "generator stalled" (late hand-overs it recovered from) or
	// "generator saturated" (then the figures say nothing of
	// the target, and the run exits 5).
	Saturation string         `json:"saturation,omitempty"`
	Generator  LoadGenerator  `json:"generator"`
	Types      []LoadType     `json:"types"`
	Intervals  []LoadInterval `json:"intervals"`
	// Hlog is the HdrHistogram interval log beside the report (a path relative to the report's
	// directory), empty when none was written.
	Hlog string `json:"hlog,omitempty"`
	// LoadPhase is the YCSB load phase before the run phases (untimed: its rate is the store's bulk
	// path), nil when there was none.
	LoadPhase *LoadPhase `json:"load_phase,omitempty"`
	// Checks says what was verified, outside the timed region, over all run phases.
	Checks LoadChecks `json:"checks"`
	// Statements are a sql workload's statements, per transaction (pgbench -r): the last run
	// phase's (report/statements.go).
	Statements []LoadStatement `json:"statements,omitempty"`
}

// MarshalJSON leaves out of a closed loop's section the fields only a schedule measures, so that a
// figure that was not measured is absent rather than 0 (a reader gets zero values back).
func (l Load) MarshalJSON() ([]byte, error) {
	type plain Load
	if l.Loop != "closed" {
		return json.Marshal(plain(l))
	}
	// A field of the outer struct hides the embedded one of the same JSON name; nil, it is omitted.
	type none *struct{}
	return json.Marshal(struct {
		plain
		Arrivals   none `json:"arrivals,omitempty"`
		Policy     none `json:"policy,omitempty"`
		TargetRate none `json:"target_rate,omitempty"`
		DurationNs none `json:"duration_ns,omitempty"`
		Late       none `json:"late,omitempty"`
		Waited     none `json:"waited,omitempty"`
		Dropped    none `json:"dropped,omitempty"`
		LateAfter  none `json:"late_after_ns,omitempty"`
		Saturation none `json:"saturation,omitempty"`
		Generator  none `json:"generator,omitempty"`
	}{plain: plain(l)})
}

// LoadPhase is the YCSB load phase: records stored with the store's bulk path, in a fresh table.
type LoadPhase struct {
	Records     int64   `json:"records"`
	Ns          int64   `json:"ns"`
	RecordsPerS float64 `json:"records_per_s"`
}

// LoadChecks counts what the verification checked: reads against the versions their record could
// hold (reads past a memory budget are counted unchecked), scans against the records in key order
// (inexact: a write overlapped the range, so only the row count was checked), and the records
// written during the run read back after it. A sql workload's: the results checked against their
// statement's expect, the results of check: same statements compared with the first execution
// with the same arguments, the first results kept to compare with, and the results of arguments
// met after the memory budget was spent (neither kept nor compared).
type LoadChecks struct {
	Reads          int64 `json:"reads"`
	ReadsUnchecked int64 `json:"reads_unchecked,omitempty"`
	Scans          int64 `json:"scans,omitempty"`
	ScansInexact   int64 `json:"scans_inexact,omitempty"`
	ReadBack       int64 `json:"read_back"`
	Expects        int64 `json:"expects,omitempty"`
	Comparisons    int64 `json:"comparisons,omitempty"`
	FirstResults   int64 `json:"first_results,omitempty"`
	SameUnchecked  int64 `json:"same_unchecked,omitempty"`
}

// LoadGenerator is what the generator cost (the workers' waiting for their operations' starts, engine/load): its CPU (spinning included) and its work
// per operation with waiting excluded.
type LoadGenerator struct {
	CPUNs       int64   `json:"cpu_ns,omitempty"`
	CPUMeasured bool    `json:"cpu_measured"`
	CPUShare    float64 `json:"cpu_share"` // CPUNs over the span: the share of one core
	WorkPerOpNs float64 `json:"work_per_op_ns"`
	Late        int64   `json:"late"` // operations started late with a worker free: the generator's own lateness
	MaxLagNs    int64   `json:"max_lag_ns"`
}

// LoadType is one operation type's count and three clocks, of the operations that succeeded, and
// the response times of those that failed. Each summary holds p50, p90, p99, p99.9, max and mean in
// ns (keys as Result.Merged's); the histograms are HdrHistogram V2 compressed, base64, as
// Result.Histogram.
type LoadType struct {
	Op        string             `json:"op"`
	Count     int64              `json:"count"` // succeeded
	Errors    int64              `json:"errors"`
	Response  map[string]float64 `json:"response"`            // from the intended start: what a user waits
	Service   map[string]float64 `json:"service"`             // from the actual start: what the store took
	StartLag  map[string]float64 `json:"start_lag,omitempty"` // actual minus intended start (open loop)
	Failed    map[string]float64 `json:"failed,omitempty"`    // the failed operations' response times
	Histogram LoadHistograms     `json:"histograms"`
}

// LoadHistograms are one operation type's full histograms.
type LoadHistograms struct {
	Response string `json:"response"`
	Service  string `json:"service"`
	StartLag string `json:"start_lag,omitempty"`
	Failed   string `json:"failed,omitempty"`
}

// LoadInterval is one step of the time series (default 1 s), over all operation types: what the
// schedule intended, what completed, and the response time percentiles of what completed in it.
type LoadInterval struct {
	StartNs      int64   `json:"start_ns"`
	LengthNs     int64   `json:"length_ns"`
	TargetRate   float64 `json:"target_rate,omitempty"` // ops/s the schedule intended over the interval (none: 0, or a closed loop)
	Achieved     float64 `json:"achieved_rate"`         // completed without an error in the interval, per second
	Errors       int64   `json:"errors,omitempty"`
	Dropped      int64   `json:"dropped,omitempty"`
	Late         int64   `json:"late,omitempty"`
	ResponseP50  float64 `json:"response_p50"`
	ResponseP99  float64 `json:"response_p99"`
	ResponseP999 float64 `json:"response_p999"`
	// Histogram (a shard's report only) is the interval's response times, all types, encoded as
	// Result.Histogram: dbbench merge adds the shards' and takes the percentiles from the sum.
	Histogram string `json:"histogram,omitempty"`
}

// SetResponse sets the interval's response percentiles from the histogram of what completed in
// it (a run's interval, or the sum of the shards' in a merge); none when nothing completed.
func (li *LoadInterval) SetResponse(h *hdrhistogram.Histogram) {
	li.ResponseP50, li.ResponseP99, li.ResponseP999 = 0, 0, 0
	if h.TotalCount() > 0 {
		li.ResponseP50 = float64(h.ValueAtQuantile(50))
		li.ResponseP99 = float64(h.ValueAtQuantile(99))
		li.ResponseP999 = float64(h.ValueAtQuantile(99.9))
	}
}

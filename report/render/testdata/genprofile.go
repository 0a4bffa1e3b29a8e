//go:build ignore

// genprofile writes profile.json, the profiled report the render tests read (dbbench run --profile
// --memory, made up): at 10,000 persons, 5 repeats,
//   - lmdb-c: the C baseline, which times itself and has no profile;
//   - lmdb-go: lookup in txn, get (sampled 1 in 64: cheaper than a clock read) and copy; scan too;
//   - typedb: lookup over HTTP in send, wait, drain and decode;
//   - go-client: an exec client that timed its own txn, get and copy, with dbbench's round trip;
//
// and the memory figures of in-process and exec targets. Figure names come from report's own
// helpers (PhaseFigure, PhaseShareFigure, PhaseOther, RoundTrip, ProfileOverhead) so that the
// fixture names what the engine writes. Run from report/render: go run testdata/genprofile.go
package main

import (
	"log"
	"math/rand/v2"
	"time"

	"github.com/dbbench/dbbench/compare/comparetest"
	"github.com/dbbench/dbbench/report"
)

const repeats = 5

// phase is one phase of a made-up profile: its ns per operation and how it was read.
type phase struct {
	name   string
	ns     float64
	method string
	every  int
}

// target is one made-up result: its phases (none: not profiled), the time no phase covers, the
// round trip dbbench timed (exec) and the clock reads per operation.
type target struct {
	name, adapter, workload string
	unit                    string
	phases                  []phase
	other, roundTrip, laps  float64
	memory                  map[string]float64
}

const clockNs = 21.4

var targets = []target{
	{name: "lmdb-c", adapter: "lmdb-c", workload: "lookup",
		memory: map[string]float64{"bytes_allocated_per_op": 0.41, "go_heap_retained_per_op": -0.02, "c_heap_retained_per_op": 0, "bytes_retained_per_op": -0.02, "rss_growth_per_op": 0, "peak_rss_bytes": 96.2 * 1024 * 1024}},
	{name: "lmdb-go", adapter: "lmdb", workload: "lookup", laps: 4.03, other: 61,
		phases: []phase{{"txn", 212, "timed", 0}, {"get", 143, "sampled", 64}, {"copy", 118, "timed", 0}},
		memory: map[string]float64{"bytes_allocated_per_op": 48.6, "go_heap_retained_per_op": 0.31, "c_heap_retained_per_op": 0, "bytes_retained_per_op": 0.31, "rss_growth_per_op": 0, "peak_rss_bytes": 96.2 * 1024 * 1024}},
	{name: "typedb", adapter: "typedb", workload: "lookup", laps: 5, other: 3900,
		phases: []phase{{"send", 8400, "timed", 0}, {"wait", 182000, "timed", 0}, {"drain", 5100, "timed", 0}, {"decode", 14700, "timed", 0}},
		memory: map[string]float64{"bytes_allocated_per_op": 6120, "go_heap_retained_per_op": 1.9, "c_heap_retained_per_op": 0, "bytes_retained_per_op": 1.9, "rss_growth_per_op": 0, "peak_rss_bytes": 96.2 * 1024 * 1024}},
	{name: "go-client", adapter: "exec", workload: "lookup", roundTrip: 6840, other: 140,
		phases: []phase{{"txn", 230, "client", 0}, {"get", 410, "client", 0}, {"copy", 125, "client", 0}},
		memory: map[string]float64{"bytes_retained_per_op": 2.05, "rss_growth_per_op": 2.05, "peak_rss_bytes": 19.9 * 1024 * 1024}},
	{name: "lmdb-c", adapter: "lmdb-c", workload: "scan", unit: "scan"},
	{name: "lmdb-go", adapter: "lmdb", workload: "scan", unit: "scan", laps: 10316, other: 1.2e6, // copy timed on every row, get on 1 in 64

		phases: []phase{{"txn", 9400, "timed", 0}, {"get", 1.07e6, "sampled", 64}, {"copy", 1.51e6, "timed", 0}}},
}

func main() {
	rng := rand.New(rand.NewPCG(23, 4))
	noisy := func(v float64) float64 { return v * (1 + 0.04*(2*rng.Float64()-1)) }
	var results []comparetest.Result
	for _, t := range targets {
		results = append(results, t.result(noisy))
	}
	r := comparetest.Report("profile", results...)
	r.Run.Harness = report.Harness{TimerNs: 23, LoopNs: 71.9}
	for i, t := range targets {
		if tt := r.TargetByName(t.name); tt != nil {
			tt.Adapter = t.adapter
		}
		r.Results[i].Profile = t.profile()
	}
	r.Run.FinishedAt = r.Run.StartedAt.Add(42 * time.Second)
	if err := report.Write("testdata/profile.json", r); err != nil {
		log.Fatal(err)
	}
}

// result is t's made-up result: per repeat its times, then its phases, then its memory figures.
func (t target) result(noisy func(float64) float64) comparetest.Result {
	figs := map[string][]float64{}
	add := func(name string, v float64) { figs[name] = append(figs[name], v) }
	var lat [][]int64
	for range repeats {
		lat = append(lat, t.addTimes(noisy, add))
		t.addPhases(noisy, add)
	}
	for k, v := range t.memory {
		for range repeats {
			figs[k] = append(figs[k], v)
		}
	}
	unit := t.unit
	if unit == "" {
		unit = "lookup"
	}
	return comparetest.Result{Target: t.name, Workload: t.workload, Size: 10000, Unit: unit, Figures: figs, Latencies: lat}
}

// addTimes adds one repeat's time figures (its operations' total: the phases and the rest, or the
// C baseline's own clock) and returns its latencies.
func (t target) addTimes(noisy func(float64) float64, add func(string, float64)) []int64 {
	total := t.other
	for _, p := range t.phases {
		total += p.ns
	}
	if len(t.phases) == 0 { // what the C baseline's own clock says
		total = map[string]float64{"lookup": 398, "scan": 2.31e6}[t.workload]
	}
	ops := map[string]int{"lookup": 2000, "scan": 1}[t.workload]
	rows := map[string]float64{"lookup": 1, "scan": 10000}[t.workload]
	h := report.NewHistogram()
	var rep []int64
	for range ops {
		v := int64(noisy(total))
		rep = append(rep, v)
		report.Record(h, time.Duration(v))
	}
	for k, v := range report.Percentiles(h) {
		add(k, v)
	}
	mean := report.Percentiles(h)["mean"]
	add("ops", float64(ops))
	add("errors", 0)
	add("rows", rows*float64(ops))
	add("ns_per_op", mean)
	add("ns_per_row", mean/rows)
	add("rows_per_s", rows*1e9/mean)
	return rep
}

// addPhases adds one repeat's phase figures, when t is profiled.
func (t target) addPhases(noisy func(float64) float64, add func(string, float64)) {
	if len(t.phases) == 0 {
		return
	}
	ns := map[string]float64{}
	sum := 0.0
	for _, p := range t.phases {
		ns[p.name] = noisy(p.ns)
		sum += ns[p.name]
	}
	other := noisy(t.other)
	sum += other
	for _, p := range t.phases {
		add(report.PhaseFigure(p.name), ns[p.name])
		add(report.PhaseShareFigure(p.name), ns[p.name]/sum)
	}
	add(report.PhaseOther, other)
	if t.roundTrip > 0 {
		add(report.RoundTrip, noisy(t.roundTrip))
	}
	if t.laps > 0 { // a client's own clock reads are its own: dbbench cannot price them
		add(report.ProfileOverhead, t.laps*clockNs)
	}
}

// profile is t's report.Profile: its phases and how each was read; nil when t is not profiled.
func (t target) profile() *report.Profile {
	if len(t.phases) == 0 {
		return nil
	}
	p := &report.Profile{ClockNs: clockNs, LapsPerOp: t.laps}
	for _, ph := range t.phases {
		p.Phases = append(p.Phases, report.ProfilePhase{Name: ph.name, Method: ph.method, Every: ph.every})
	}
	return p
}

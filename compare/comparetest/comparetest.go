// Package comparetest builds small, deterministic dbbench reports with known per-repeat samples for
// tests of the comparison, the gate and the exports.
package comparetest

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbbench/dbbench/report"
)

// Result describes one synthetic result.
type Result struct {
	Target, Workload string
	Size             int    // default 1000
	Unit             string // default "lookup" (one latency per operation)
	// Figures holds each figure's per-repeat values; all slices must have the same length, the number
	// of repeats.
	Figures map[string][]float64
	// Latencies optionally holds each repeat's recorded latencies (ns) for its histogram.
	Latencies [][]int64
	Status    report.Status // default ok
	Error     string
	Params    map[string]any
}

// Started is the start time of every synthetic report, so renderings are reproducible.
var Started = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// Report assembles a report of config name from results; targets are listed in order of first
// appearance, sizes from the results.
func Report(config string, results ...Result) *report.Report {
	r := &report.Report{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.Tool{Name: "dbbench", Version: "test", Commit: "unknown"},
		Environment: report.Environment{
			GoVersion: "go1.26", OS: "linux", Arch: "amd64", CPUModel: "Test CPU @ 3.00GHz", Cores: 2,
			GOMAXPROCS: 2, MemoryBytes: 8 << 30, Hostname: "test",
		},
		Run: report.Run{
			ConfigName: config, ConfigPath: config + ".yaml", Seed: 1, Warmup: 1,
			Order: "interleaved ABAB", StartedAt: Started, FinishedAt: Started.Add(time.Minute),
		},
		Config:     map[string]any{"name": config},
		Results:    []report.Result{},
		Assertions: []report.Assertion{},
		Verdict:    report.VerdictPass,
	}
	for _, x := range results {
		x = x.withDefaults()
		if !slices.Contains(r.Run.Sizes, x.Size) {
			r.Run.Sizes = append(r.Run.Sizes, x.Size)
		}
		if r.TargetByName(x.Target) == nil {
			r.Targets = append(r.Targets, report.Target{Name: x.Target, Adapter: "memory", Options: map[string]any{}, Status: report.StatusOK})
		}
		res := x.result()
		r.Run.Repeats = max(r.Run.Repeats, len(res.Repeats))
		r.Results = append(r.Results, res)
	}
	slices.Sort(r.Run.Sizes)
	return r
}

// withDefaults fills in what a Result leaves out: size 1000, unit lookup, status ok.
func (x Result) withDefaults() Result {
	if x.Size == 0 {
		x.Size = 1000
	}
	if x.Unit == "" {
		x.Unit = "lookup"
	}
	if x.Status == "" {
		x.Status = report.StatusOK
	}
	return x
}

// result builds the report's result: a repeat per value (or latencies), the figures' medians over
// them, and the merged histogram when latencies are given.
func (x Result) result() report.Result {
	res := report.Result{
		Target: x.Target, Workload: x.Workload, Size: x.Size, Unit: x.Unit, Params: x.Params,
		Status: x.Status, Error: x.Error,
	}
	n := 0
	for _, v := range x.Figures {
		n = max(n, len(v))
	}
	n = max(n, len(x.Latencies))
	// Histograms only when latencies are given: an empty encoded histogram ("") is valid and
	// keeps reports without latencies small and quick to build.
	merged := report.NewHistogram()
	for i := 0; i < n; i++ {
		res.Repeats = append(res.Repeats, x.repeat(i, merged))
	}
	perRepeat := make([]map[string]float64, len(res.Repeats))
	for i, rep := range res.Repeats {
		perRepeat[i] = rep.Figures
	}
	res.Figures = report.MedianFigures(perRepeat...)
	if merged.TotalCount() > 0 {
		res.Histogram, _ = report.EncodeHistogram(merged)
		res.Merged = report.Percentiles(merged)
	}
	return res
}

// repeat is repeat i: its value of each figure, and its latencies' histogram, also merged into
// merged, when latencies are given.
func (x Result) repeat(i int, merged *hdrhistogram.Histogram) report.Repeat {
	rep := report.Repeat{Index: i, Ops: 1, Rows: 1, Figures: map[string]float64{}}
	for f, v := range x.Figures {
		if i < len(v) {
			rep.Figures[f] = v[i]
		}
	}
	if i < len(x.Latencies) {
		h := report.NewHistogram()
		for _, l := range x.Latencies[i] {
			report.Record(h, time.Duration(l))
		}
		rep.Ops = int64(len(x.Latencies[i]))
		merged.Merge(h)
		rep.Histogram, _ = report.EncodeHistogram(h)
	}
	return rep
}

// Noisy returns n values spread uniformly within center x (1 ± spread), reproducibly for a seed.
func Noisy(center, spread float64, n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, n)
	for i := range out {
		out[i] = center * (1 + spread*(2*rng.Float64()-1))
	}
	return out
}

// Scale returns xs multiplied by k.
func Scale(xs []float64, k float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * k
	}
	return out
}

// Latencies returns n repeats of ops latencies (ns) around center, spread ± spread, reproducibly.
func Latencies(center, spread float64, n, ops int, seed uint64) [][]int64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([][]int64, n)
	for i := range out {
		out[i] = make([]int64, ops)
		for j := range out[i] {
			out[i][j] = int64(center * (1 + spread*(2*rng.Float64()-1)))
		}
	}
	return out
}

// Runs assembles a report of schema 2's shape that holds several runs of config name, as `dbbench run
// --runs N` writes one: runs[k] are the results of run k+1 (a later run may hold fewer, as a run taken
// to decide some assertions does). Each repeat records its run and numbers from 0 again within it;
// each result lists its runs' own figures (the median over the run's repeats), and its headline
// figures are the median over runs of those.
func Runs(config string, runs ...[]Result) *report.Report {
	if len(runs) == 0 {
		return Report(config)
	}
	out := Report(config, runs[0]...)
	out.Run.Runs = nil
	for i := range out.Results {
		out.Results[i].Repeats = nil
	}
	for k, results := range runs {
		one := Report(config, results...)
		entry := report.RunEntry{Index: k + 1, StartedAt: Started.Add(time.Duration(k) * time.Minute),
			FinishedAt: Started.Add(time.Duration(k+1) * time.Minute), Why: "initial"}
		if k > 0 && len(results) < len(runs[0]) {
			entry.Why = "to decide: test"
		}
		for _, x := range one.Results {
			if !slices.Contains(entry.Workloads, x.Workload) {
				entry.Workloads = append(entry.Workloads, x.Workload)
			}
			if !slices.Contains(entry.Targets, x.Target) {
				entry.Targets = append(entry.Targets, x.Target)
			}
			dst := resultFor(out, x)
			for _, rep := range x.Repeats {
				rep.Run = k + 1
				dst.Repeats = append(dst.Repeats, rep)
			}
			dst.Runs = append(dst.Runs, report.RunFigures{Run: k + 1, Figures: x.Figures})
		}
		out.Run.Runs = append(out.Run.Runs, entry)
	}
	for i := range out.Results {
		x := &out.Results[i]
		perRun := make([]map[string]float64, len(x.Runs))
		for k, r := range x.Runs {
			perRun[k] = r.Figures
		}
		x.Figures = report.MedianFigures(perRun...)
		var hists []string
		for _, rep := range x.Repeats {
			if rep.Histogram != "" {
				hists = append(hists, rep.Histogram)
			}
		}
		if len(hists) > 0 {
			if h, err := report.MergeHistograms(hists...); err == nil && h.TotalCount() > 0 {
				x.Histogram, _ = report.EncodeHistogram(h)
				x.Merged = report.Percentiles(h)
			}
		}
	}
	out.Run.FinishedAt = Started.Add(time.Duration(len(runs)) * time.Minute)
	return out
}

// resultFor is r's result of x's target, workload and size.
func resultFor(r *report.Report, x report.Result) *report.Result {
	for i := range r.Results {
		y := &r.Results[i]
		if y.Target == x.Target && y.Workload == x.Workload && y.Size == x.Size {
			return y
		}
	}
	panic("comparetest.Runs: a later run has a result the first does not: " + x.Target + " " + x.Workload)
}

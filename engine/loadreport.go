package engine

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbbench/dbbench/engine/load"
	"github.com/dbbench/dbbench/report"
)

// loadPhase is a YCSB workload's load phase on one target.
type loadPhase struct {
	records int64
	took    time.Duration
}

// loadAcc is what a result of a load-model workload accumulates beside its repeats.
type loadAcc struct {
	loadPhase *loadPhase
	last      *report.Load // the last run phase's
	hlog      string
	readBack  int64
	checked   int64
	unchecked int64

	scansChecked, scansInexact int64
	// A sql workload's checks (engine/sqlverify.go).
	expects, comparisons, firsts, sameUnchecked int64
}

// addLoad records one measured run phase: its flat figures (report/load.go) in a repeat, its
// response times in the result's merged histogram, and its report.Load as the result's.
func (a *resultAcc) addLoad(index int, res *load.Result, cfg load.Config, open, shard bool) {
	resp := report.NewHistogram()
	for _, t := range res.Types {
		resp.Merge(t.Response)
	}
	a.merged.Merge(resp)
	figs := report.Percentiles(resp)
	for k, v := range loadFigures(res, open) {
		figs[k] = v
	}
	enc, _ := report.EncodeHistogram(resp)
	rep := report.Repeat{
		Index: index, ElapsedNs: res.Span.Nanoseconds(), Ops: res.Completed, Errors: res.Errors,
		Figures: figs, Histogram: enc,
	}
	if shard { // dbbench merge recomputes this repeat's figures from its clocks
		rep.Types = loadTypes(res)
	}
	a.repeats = append(a.repeats, rep)
	a.last = loadReport(res, cfg, open, shard)
}

// loadFigures are a run phase's flat figures, so that assertions and the runs machinery read them
// as any other: totals, the clocks over all types, and the same per type as OP.FIGURE. Counts,
// rates and clocks are of the operations that succeeded; errors are a count and a rate of their
// own. What only a schedule measures (target rate, late, waited, dropped, start lag, the
// generator's figures) is absent from a closed loop's, never 0.
func loadFigures(res *load.Result, open bool) map[string]float64 {
	f := map[string]float64{
		"ops": float64(res.Completed), "errors": float64(res.Errors), "error_rate": res.ErrorRate(),
		"elapsed": float64(res.Span.Nanoseconds()), "ops_per_s": res.Achieved, "achieved_rate": res.Achieved,
		"timed_out": float64(res.TimedOut),
	}
	if open {
		f["target_rate"] = res.Target
		f["late"], f["dropped"], f["waited"] = float64(res.Late), float64(res.Dropped), float64(res.Waited)
		f["generator_work_per_op"] = float64(res.Generator.WorkPerOp(res.Scheduled).Nanoseconds())
		f["generator_late"] = float64(res.Generator.Late)
	}
	all := load.Clocks[*hdrhistogram.Histogram]{Response: report.NewHistogram(), Service: report.NewHistogram()}
	if open {
		all.StartLag = report.NewHistogram()
	}
	for _, t := range res.Types {
		all.Response.Merge(t.Response)
		all.Service.Merge(t.Service)
		if open {
			all.StartLag.Merge(t.StartLag)
		}
		f[t.Name+".count"] = float64(t.Count)
		f[t.Name+".errors"] = float64(t.Errors)
		if n := t.Count + t.Errors; n > 0 {
			f[t.Name+".error_rate"] = float64(t.Errors) / float64(n)
		}
		if t.Count > 0 {
			report.ClockFigures(f, t.Name+".", t.Response, t.Service, t.StartLag)
		}
	}
	if res.Completed > 0 {
		report.ClockFigures(f, "", all.Response, all.Service, all.StartLag)
	}
	return f
}

// loadReport is a run phase as report.Load holds it (a shard's with its intervals' histograms).
func loadReport(res *load.Result, cfg load.Config, open, shard bool) *report.Load {
	interval := cfg.Interval
	if interval <= 0 {
		interval = load.DefaultInterval
	}
	lateAfter := cfg.LateAfter
	if lateAfter <= 0 {
		lateAfter = load.DefaultLateAfter
	}
	l := &report.Load{
		Loop: "closed", Workers: cfg.Workers, Achieved: res.Achieved,
		SpanNs: res.Span.Nanoseconds(), Scheduled: res.Scheduled, Completed: res.Completed,
		Errors: res.Errors, ErrorRate: res.ErrorRate(), TimedOut: res.TimedOut, Intervals: []report.LoadInterval{},
	}
	if open {
		l.Late, l.Waited, l.Dropped, l.LateAfter, l.Saturation = res.Late, res.Waited, res.Dropped, lateAfter.Nanoseconds(), res.Saturation()
		l.Loop, l.Arrivals, l.Policy = "open", string(cfg.Schedule.Arrival), string(cfg.Policy)
		if l.Arrivals == "" {
			l.Arrivals = string(load.Constant)
		}
		if l.Policy == "" {
			l.Policy = string(load.Queue)
		}
		l.TargetRate, l.DurationNs = res.Target, cfg.Schedule.Duration.Nanoseconds()
		g := res.Generator
		l.Generator = report.LoadGenerator{CPUNs: g.CPU.Nanoseconds(), CPUMeasured: g.CPUMeasured,
			WorkPerOpNs: float64(g.WorkPerOp(res.Scheduled).Nanoseconds()), Late: g.Late, MaxLagNs: g.MaxLag.Nanoseconds()}
		if res.Span > 0 {
			l.Generator.CPUShare = g.CPU.Seconds() / res.Span.Seconds()
		}
	}
	l.Types = loadTypes(res)
	for _, iv := range res.Intervals {
		li := report.LoadInterval{StartNs: iv.Start.Nanoseconds(), LengthNs: interval.Nanoseconds(),
			TargetRate: iv.Target / interval.Seconds(), Achieved: float64(iv.Completed) / interval.Seconds(),
			Errors: iv.Errors, Dropped: iv.Dropped, Late: iv.Late}
		h := report.NewHistogram()
		for _, c := range iv.Types {
			if c.Response != nil {
				c.Response.MergeInto(h)
			}
		}
		li.SetResponse(h)
		if shard { // dbbench merge adds the shards' and takes the percentiles from the sum
			li.Histogram, _ = report.EncodeHistogram(h)
		}
		l.Intervals = append(l.Intervals, li)
	}
	return l
}

// loadTypes are a run phase's operation types as the report holds them: counts, and each clock's
// percentiles and histogram (a closed loop has no start lag), and the failed operations' response
// times apart.
func loadTypes(res *load.Result) []report.LoadType {
	out := []report.LoadType{}
	for _, t := range res.Types {
		lt := report.LoadType{Op: t.Name, Count: t.Count, Errors: t.Errors,
			Response: report.Percentiles(t.Response), Service: report.Percentiles(t.Service)}
		lt.Histogram.Response, _ = report.EncodeHistogram(t.Response)
		lt.Histogram.Service, _ = report.EncodeHistogram(t.Service)
		if t.StartLag != nil {
			lt.StartLag = report.Percentiles(t.StartLag)
			lt.Histogram.StartLag, _ = report.EncodeHistogram(t.StartLag)
		}
		if t.Errors > 0 {
			lt.Failed = report.Percentiles(t.Failed)
			lt.Histogram.Failed, _ = report.EncodeHistogram(t.Failed)
		}
		out = append(out, lt)
	}
	return out
}

// finishLoad gives a finished result its report.Load: the last run phase's, with the load phase,
// the checks and the interval log.
func (a *resultAcc) finishLoad(r *report.Result) {
	if a.last == nil && a.loadPhase == nil {
		return
	}
	l := a.last
	if l == nil {
		l = &report.Load{Types: []report.LoadType{}, Intervals: []report.LoadInterval{}}
	}
	if p := a.loadPhase; p != nil {
		l.LoadPhase = &report.LoadPhase{Records: p.records, Ns: p.took.Nanoseconds()}
		if p.took > 0 {
			l.LoadPhase.RecordsPerS = float64(p.records) / p.took.Seconds()
		}
	}
	l.Hlog = a.hlog
	l.Checks = report.LoadChecks{Reads: a.checked, ReadsUnchecked: a.unchecked, Scans: a.scansChecked, ScansInexact: a.scansInexact, ReadBack: a.readBack,
		Expects: a.expects, Comparisons: a.comparisons, FirstResults: a.firsts, SameUnchecked: a.sameUnchecked}
	r.Load = l
}

package report

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// MergeRefused is a set of shard reports that are not shares of one run: different configs,
// binaries, seeds or totals, a duplicate index, or a report that is no shard's.
type MergeRefused struct{ Msg string }

func (e *MergeRefused) Error() string { return e.Msg }

// MergeShards makes one report of the shard reports parts (names say which file each came from,
// for the refusals): per target, workload and size one result whose repeat k merges every shard's
// repeat k (every recorded value counts: their histograms merged, counts summed), with every figure
// then computed as one run's are (RepeatFigures, ClockFigures, MedianFigures). A partial shard
// (interrupted, or stopped by an error) is left out like a missing one: missing lists both, by
// index. The shards' plan is every (target, workload, size) a complete shard has a result of: a
// complete shard without one of them is a missing share (shares). The assertions are the first
// shard's, still to be decided on the merged report (report/assertion.Redecide).
func MergeShards(names []string, parts []*Report) (merged *Report, missing []int, shares []MissingShare, err error) {
	if len(parts) == 0 {
		return nil, nil, nil, &MergeRefused{"no shard reports to merge"}
	}
	byIndex := map[int]int{}
	first := parts[0]
	for i, p := range parts {
		s := p.Run.Shard
		if s == nil {
			return nil, nil, nil, &MergeRefused{fmt.Sprintf("%s is not a shard's report (no run.shard: it was made without --shard)", names[i])}
		}
		f := first.Run.Shard
		switch {
		case s.Total != f.Total:
			return nil, nil, nil, &MergeRefused{fmt.Sprintf("%s is shard %d of %d, %s of %d: different shard totals", names[i], s.Index, s.Total, names[0], f.Total)}
		case s.BuildHash != f.BuildHash:
			return nil, nil, nil, &MergeRefused{fmt.Sprintf("%s and %s were made by different dbbench binaries (build hash %.12s, %.12s)", names[0], names[i], f.BuildHash, s.BuildHash)}
		case p.Run.Seed != first.Run.Seed:
			return nil, nil, nil, &MergeRefused{fmt.Sprintf("%s and %s have different seeds (%d, %d)", names[0], names[i], first.Run.Seed, p.Run.Seed)}
		case !reflect.DeepEqual(p.Config, first.Config) || p.Run.CI != first.Run.CI:
			return nil, nil, nil, &MergeRefused{fmt.Sprintf("%s and %s ran different configs", names[0], names[i])}
		}
		if j, dup := byIndex[s.Index]; dup {
			return nil, nil, nil, &MergeRefused{fmt.Sprintf("%s and %s are both shard %d of %d", names[j], names[i], s.Index, s.Total)}
		}
		byIndex[s.Index] = i
	}
	total := first.Run.Shard.Total
	var got []*Report
	for k := range total {
		i, ok := byIndex[k]
		if !ok || parts[i].Run.Interrupted || len(parts[i].Run.Errors) > 0 {
			missing = append(missing, k)
			continue
		}
		got = append(got, parts[i])
	}
	if len(got) == 0 {
		return nil, missing, nil, nil
	}
	plan := shardPlan(got)
	for _, p := range got {
		for _, k := range plan {
			if p.Find(k.Target, k.Workload, k.Size) == nil {
				shares = append(shares, MissingShare{Shard: p.Run.Shard.Index, Target: k.Target, Workload: k.Workload, Size: k.Size})
			}
		}
	}
	return mergeReports(got, total, missing, shares, plan), missing, shares, nil
}

// MissingShare is a result of the shards' plan that a complete shard's report lacks (a target it
// skipped, a workload it did not run): the merged result lacks that shard's share of it.
type MissingShare struct {
	Shard    int    `json:"shard"`
	Target   string `json:"target"`
	Workload string `json:"workload"`
	Size     int    `json:"size"`
}

// String names it: "shard 1 of 2 has no sqlite ycsb-c result" (" at size N" in a sweep).
func (m MissingShare) String(total int, sweep bool) string {
	size := ""
	if sweep {
		size = fmt.Sprintf(" at size %d", m.Size)
	}
	return fmt.Sprintf("%s has no %s %s result%s", ShardName(m.Shard, total), m.Target, m.Workload, size)
}

// shardPlan is every (target, workload, size) any of the shards has a result of, in the order they
// first appear (shard by shard): what every shard's share holds once --targets has chosen.
func shardPlan(got []*Report) []MissingShare {
	var plan []MissingShare
	for _, p := range got {
		for _, x := range p.Results {
			k := MissingShare{Target: x.Target, Workload: x.Workload, Size: x.Size}
			if !slices.Contains(plan, k) {
				plan = append(plan, k)
			}
		}
	}
	return plan
}

// mergeReports merges complete shard reports, in index order, result by result of plan.
func mergeReports(got []*Report, total int, missing []int, shares []MissingShare, plan []MissingShare) *Report {
	rep := *got[0]
	rep.Run.Shard, rep.Run.Verdict = nil, nil
	rep.Assertions = slices.Clone(got[0].Assertions)
	m := &Merge{Total: total, Missing: missing, MissingShares: shares, Partial: len(missing)+len(shares) > 0}
	var firstStart, lastStart time.Time
	for _, p := range got {
		s := *p.Run.Shard
		m.Shards = append(m.Shards, s)
		if s.Late {
			m.Late = append(m.Late, s.Index)
		}
		if !s.StartedAt.IsZero() {
			if firstStart.IsZero() || s.StartedAt.Before(firstStart) {
				firstStart = s.StartedAt
			}
			if s.StartedAt.After(lastStart) {
				lastStart = s.StartedAt
			}
		}
		if p.Run.StartedAt.Before(rep.Run.StartedAt) {
			rep.Run.StartedAt = p.Run.StartedAt
		}
		if p.Run.FinishedAt.After(rep.Run.FinishedAt) {
			rep.Run.FinishedAt = p.Run.FinishedAt
		}
		rep.Run.PeakRSSBytes = max(rep.Run.PeakRSSBytes, p.Run.PeakRSSBytes)
	}
	m.SkewNs = lastStart.Sub(firstStart).Nanoseconds()
	rep.Run.Merge = m
	if len(got[0].Run.Runs) > 0 {
		e := got[0].Run.Runs[0]
		e.Index, e.StartedAt, e.FinishedAt = 1, rep.Run.StartedAt, rep.Run.FinishedAt
		rep.Run.Runs = []RunEntry{e}
	}
	rep.Targets = mergeTargets(got)
	rep.Results = []Result{}
	clocks := clockCaveat(m.Shards, total)
	for _, k := range plan {
		var shards []shardResult
		for _, p := range got {
			if o := p.Find(k.Target, k.Workload, k.Size); o != nil {
				shards = append(shards, shardResult{x: *o, shard: p.Run.Shard.Index, late: startedLater(p.Run.Shard.StartedAt, firstStart)})
			}
		}
		x := mergeShardResults(shards, total)
		if x.Load != nil && clocks != "" {
			x.Warnings = append(x.Warnings, clocks)
		}
		rep.Results = append(rep.Results, x)
	}
	return &rep
}

// mergeTargets lists every target any shard lists, in order of first sight: failed when it failed
// in any shard, skipped only when every shard that lists it skipped it.
func mergeTargets(got []*Report) []Target {
	var out []Target
	for _, p := range got {
		for _, t := range p.Targets {
			i := slices.IndexFunc(out, func(o Target) bool { return o.Name == t.Name })
			switch {
			case i < 0:
				out = append(out, t)
			case t.Status == StatusFailed && out[i].Status != StatusFailed:
				out[i].Status, out[i].Reason = StatusFailed, t.Reason
			case t.Status != StatusSkipped && out[i].Status == StatusSkipped:
				out[i] = t // it ran somewhere: the shards that skipped it lack their shares
			}
		}
	}
	return out
}

// clockCaveat says, when the shards ran on more than one host and some clock's offset is unknown,
// that the merged rates rest on recorded starts the clocks may disagree on ("" otherwise: on one
// host every shard reads the same clock).
func clockCaveat(shards []Shard, total int) string {
	hosts := map[string]bool{}
	var unknown []string
	for _, s := range shards {
		hosts[s.Host] = true
		if !s.Clock.Known {
			unknown = append(unknown, fmt.Sprint(s.Index))
		}
	}
	if len(hosts) < 2 || len(unknown) == 0 {
		return ""
	}
	return fmt.Sprintf("the rates are over the union of the shards' spans from their recorded starts, on %d hosts, and the clock offset of shard %s of %d is unknown: they are off by as much as the clocks differ",
		len(hosts), strings.Join(unknown, ", "), total)
}

// startedLater is how much later than the earliest shard a shard began (0 when either is unknown).
func startedLater(at, first time.Time) time.Duration {
	if at.IsZero() || first.IsZero() {
		return 0
	}
	return at.Sub(first)
}

// shardResult is one shard's share of a result: its index, and how much later than the earliest
// shard it began (its repeats and intervals are placed that much later on the merged time line).
type shardResult struct {
	x     Result
	shard int
	late  time.Duration
}

// mergeShardResults merges one result's shares (of total shards). A load-model result's rates are
// over the union of the shards' spans, each placed at its shard's start; shards whose spans overlap
// less than minOverlap of the shorter one are named in a warning.
func mergeShardResults(xs []shardResult, total int) Result {
	x := xs[0].x
	x.Repeats, x.Warnings = []Repeat{}, nil
	all, errs := NewHistogram(), NewHistogram()
	var loads []*Load
	var loadLates []time.Duration
	for _, s := range xs {
		o := s.x
		if o.Status != StatusOK && x.Status == StatusOK {
			x.Status, x.Error = o.Status, o.Error
		}
		for _, w := range o.Warnings {
			if !slices.Contains(x.Warnings, w) {
				x.Warnings = append(x.Warnings, w)
			}
		}
		if o.Load != nil {
			loads, loadLates = append(loads, o.Load), append(loadLates, s.late)
		}
		mergeEncoded(errs, o.ErrorHistogram)
	}
	results := make([]Result, len(xs))
	for i, s := range xs {
		results[i] = s.x
	}
	x.Verification = mergeVerification(results)
	var indexes []int
	for _, s := range xs {
		for _, r := range s.x.Repeats {
			if !slices.Contains(indexes, r.Index) {
				indexes = append(indexes, r.Index)
			}
		}
	}
	slices.Sort(indexes)
	var apart *overlap // the least overlap of any repeat's shards, when below minOverlap
	for _, k := range indexes {
		var reps []Repeat
		var at []shardSpan
		for _, s := range xs {
			for _, r := range s.x.Repeats {
				if r.Index == k {
					reps = append(reps, r)
					at = append(at, shardSpan{shard: s.shard, start: s.late, span: time.Duration(r.ElapsedNs)})
				}
			}
		}
		r := mergeRepeats(reps, at, len(loads) > 0)
		mergeEncoded(all, r.Histogram)
		x.Repeats = append(x.Repeats, r)
		if o := leastOverlap(at); len(loads) > 0 && o.share < minOverlap && (apart == nil || o.share < apart.share) {
			apart = &o
		}
	}
	if apart != nil {
		x.Warnings = append(x.Warnings, fmt.Sprintf("shards %d and %d of %d ran apart: their spans overlap by %.0f%% of the shorter: the rates are the operations over the union of the shards' spans, from their recorded starts",
			apart.a, apart.b, total, 100*apart.share))
	}
	x.Figures = RepeatsMedian(x.Repeats)
	x.Runs = []RunFigures{{Run: 1, Figures: x.Figures}}
	x.Merged = Percentiles(all)
	x.Histogram, _ = EncodeHistogram(all)
	x.ErrorHistogram = ""
	if errs.TotalCount() > 0 {
		x.ErrorHistogram, _ = EncodeHistogram(errs)
	}
	x.Load = mergeLoads(loads, loadLates)
	profiles := make([]*Profile, len(xs))
	for i, s := range xs {
		profiles[i] = s.x.Profile
	}
	x.Profile = MergeProfiles(profiles)
	return x
}

// minOverlap is the least overlap of two shards' spans, as a share of the shorter, below which the
// merged report says they ran apart: summed as if together, their rates would cover time the
// shards did not.
const minOverlap = 0.9

// shardSpan is a shard's span of one repeat on the merged time line: it began start after the
// earliest shard and lasted span.
type shardSpan struct {
	shard       int
	start, span time.Duration
}

// unionSpan is the time the spans cover from the earliest start to the latest end: what the
// shards' operations together took, the denominator of a merged rate.
func unionSpan(at []shardSpan) time.Duration {
	if len(at) == 0 {
		return 0
	}
	lo, hi := at[0].start, at[0].start+at[0].span
	for _, s := range at[1:] {
		lo, hi = min(lo, s.start), max(hi, s.start+s.span)
	}
	return hi - lo
}

// overlap is two shards' spans' overlap as a share of the shorter.
type overlap struct {
	a, b  int
	share float64
}

// leastOverlap is the pair of spans that overlap least, as a share of the shorter of the two (1
// for a single span, or spans of no length).
func leastOverlap(at []shardSpan) overlap {
	least := overlap{share: 1}
	for i := range at {
		for j := i + 1; j < len(at); j++ {
			a, b := at[i], at[j]
			shorter := min(a.span, b.span)
			if shorter <= 0 {
				continue
			}
			both := max(0, min(a.start+a.span, b.start+b.span)-max(a.start, b.start))
			if share := float64(both) / float64(shorter); share < least.share {
				least = overlap{a: a.shard, b: b.shard, share: share}
			}
		}
	}
	return least
}

// mergeEncoded merges an encoded histogram into h (an undecodable one was refused when the
// report was read).
func mergeEncoded(h *hdrhistogram.Histogram, enc string) {
	if d, err := DecodeHistogram(enc); err == nil {
		h.Merge(d)
	}
}

// mergeVerification: checked everywhere, and the expectations added up (checksums add).
func mergeVerification(xs []Result) Verification {
	v := xs[0].Verification
	v.ExpectedRows = 0
	var sum uint64
	for _, o := range xs {
		v.OK = v.OK && o.Verification.OK
		v.ExpectedRows += o.Verification.ExpectedRows
		s, _ := strconv.ParseUint(o.Verification.Expected, 16, 64)
		sum += s
	}
	if v.Expected != "" {
		v.Expected = fmt.Sprintf("%016x", sum)
	}
	return v
}

// mergeRepeats merges the shards' repeat k (at: each one's place on the merged time line): its
// histogram from all of theirs, operations, rows and errors summed, its checksum the sum, and its
// figures computed from those as one run's are. Its wall time is the longest shard's for the persons
// workloads (whose repeats no common clock places), and the union of the spans for a load-model
// repeat, whose rates are over it.
func mergeRepeats(reps []Repeat, at []shardSpan, loadModel bool) Repeat {
	out := Repeat{Index: reps[0].Index, Run: 1}
	h := NewHistogram()
	var sum uint64
	for _, r := range reps {
		mergeEncoded(h, r.Histogram)
		out.Ops += r.Ops
		out.Rows += r.Rows
		out.Errors += r.Errors
		out.ElapsedNs = max(out.ElapsedNs, r.ElapsedNs)
		s, _ := strconv.ParseUint(r.Checksum, 16, 64)
		sum += s
	}
	if reps[0].Checksum != "" {
		out.Checksum = fmt.Sprintf("%016x", sum)
	}
	out.Histogram, _ = EncodeHistogram(h)
	if !loadModel {
		out.Figures = RepeatFigures(h, out.Ops, out.Rows, out.Errors, time.Duration(out.ElapsedNs), 0)
		mergeProfileFigures(out.Figures, reps)
		return out
	}
	span := unionSpan(at)
	out.ElapsedNs = span.Nanoseconds()
	out.Figures, out.Types = loadRepeatFigures(reps, h, span)
	var stmts [][]LoadStatement
	for _, r := range reps {
		stmts = append(stmts, r.Statements)
	}
	if out.Statements = MergeStatements(stmts...); len(out.Statements) == 0 {
		out.Statements = nil
	}
	StatementFigures(out.Figures, out.Statements)
	return out
}

// loadCounts are a load-model repeat's figures that add across shards: counts of operations, and
// the schedule's rate (each shard kept its share of one schedule).
var loadCounts = []string{"ops", "errors", "late", "dropped", "waited", "generator_late", "timed_out", "target_rate"}

// addCounts adds the shards' counts (loadCounts) into f, those some shard has.
func addCounts(f map[string]float64, reps []Repeat) {
	for _, r := range reps {
		for _, k := range loadCounts {
			if v, ok := r.Figures[k]; ok {
				f[k] += v
			}
		}
	}
}

// loadRepeatFigures are a load-model repeat's figures over its shards: counts summed (addCounts),
// the rates the operations completed over span (the union of the shards' spans, as its wall time),
// the generator's work per operation (workPerOp), and every clock's percentiles from the shards'
// histograms merged, per operation type and over all.
func loadRepeatFigures(reps []Repeat, response *hdrhistogram.Histogram, span time.Duration) (map[string]float64, []LoadType) {
	f := Percentiles(response)
	addCounts(f, reps)
	rated := slices.ContainsFunc(reps, func(r Repeat) bool { _, ok := r.Figures["error_rate"]; return ok }) // schema 3's
	if rated {
		f["error_rate"] = errorRate(int64(f["ops"]), int64(f["errors"]))
	}
	f["elapsed"] = float64(span.Nanoseconds())
	for _, k := range []string{"achieved_rate", "ops_per_s"} {
		if slices.ContainsFunc(reps, func(r Repeat) bool { _, ok := r.Figures[k]; return ok }) && span > 0 {
			f[k] = f["ops"] / span.Seconds()
		}
	}
	var perOp, ops []float64
	for _, r := range reps {
		if v, ok := r.Figures["generator_work_per_op"]; ok {
			perOp, ops = append(perOp, v), append(ops, r.Figures["ops"])
		}
	}
	if v, ok := workPerOp(perOp, ops); ok {
		f["generator_work_per_op"] = v
	}
	var lists [][]LoadType
	for _, r := range reps {
		lists = append(lists, r.Types)
	}
	types := mergeTypes(lists...)
	allResp, allSvc, allLag := NewHistogram(), NewHistogram(), NewHistogram()
	var completed int64
	for _, t := range types {
		resp, svc, lag := typeHistograms(t)
		allResp.Merge(resp)
		allSvc.Merge(svc)
		if lag == nil { // a closed loop measures no start lag
			allLag = nil
		} else if allLag != nil {
			allLag.Merge(lag)
		}
		f[t.Op+".count"] = float64(t.Count)
		f[t.Op+".errors"] = float64(t.Errors)
		if rated && t.Count+t.Errors > 0 {
			f[t.Op+".error_rate"] = errorRate(t.Count, t.Errors)
		}
		if t.Count > 0 {
			ClockFigures(f, t.Op+".", resp, svc, lag)
		}
		completed += t.Count
	}
	if completed > 0 {
		ClockFigures(f, "", allResp, allSvc, allLag)
	}
	return f, types
}

// errorRate is errors over the operations performed (completed without an error, plus errors).
func errorRate(completed, errors int64) float64 {
	if n := completed + errors; n > 0 {
		return float64(errors) / float64(n)
	}
	return 0
}

// workPerOp is the generator's work per operation over the shards: each shard's weighted by the
// operations it completed, for a merged repeat and the merged load alike (one weighting, so that the
// merged load's figure is its last repeat's); false when no operation completed.
func workPerOp(perOp, completed []float64) (float64, bool) {
	var work, n float64
	for i, v := range perOp {
		work += v * completed[i]
		n += completed[i]
	}
	if n <= 0 {
		return 0, false
	}
	return work / n, true
}

// typeHistograms decodes an operation type's clocks; lag is nil when the type has none (a closed
// loop's, since schema version 3).
func typeHistograms(t LoadType) (resp, svc, lag *hdrhistogram.Histogram) {
	resp, svc = NewHistogram(), NewHistogram()
	mergeEncoded(resp, t.Histogram.Response)
	mergeEncoded(svc, t.Histogram.Service)
	if t.Histogram.StartLag != "" {
		lag = NewHistogram()
		mergeEncoded(lag, t.Histogram.StartLag)
	}
	return resp, svc, lag
}

// mergeTypes merges operation types by name: counts summed, histograms merged (the start lag only
// where every shard's type has one; the failed operations' where any failed), percentiles
// recomputed.
func mergeTypes(lists ...[]LoadType) []LoadType {
	var order []string
	hists := map[string][4]*hdrhistogram.Histogram{} // response, service, start lag, failed
	merged := map[string]*LoadType{}
	for _, l := range lists {
		for _, t := range l {
			m, ok := merged[t.Op]
			if !ok {
				order = append(order, t.Op)
				m = &LoadType{Op: t.Op}
				merged[t.Op] = m
				hists[t.Op] = [4]*hdrhistogram.Histogram{NewHistogram(), NewHistogram(), NewHistogram(), NewHistogram()}
			}
			m.Count += t.Count
			m.Errors += t.Errors
			h := hists[t.Op]
			r, s, g := typeHistograms(t)
			h[0].Merge(r)
			h[1].Merge(s)
			if g == nil {
				h[2] = nil
			} else if h[2] != nil {
				h[2].Merge(g)
			}
			mergeEncoded(h[3], t.Histogram.Failed)
			hists[t.Op] = h
		}
	}
	out := []LoadType{}
	for _, op := range order {
		m, h := merged[op], hists[op]
		m.Response, m.Service = Percentiles(h[0]), Percentiles(h[1])
		m.Histogram.Response, _ = EncodeHistogram(h[0])
		m.Histogram.Service, _ = EncodeHistogram(h[1])
		if h[2] != nil {
			m.StartLag = Percentiles(h[2])
			m.Histogram.StartLag, _ = EncodeHistogram(h[2])
		}
		if h[3].TotalCount() > 0 {
			m.Failed = Percentiles(h[3])
			m.Histogram.Failed, _ = EncodeHistogram(h[3])
		}
		out = append(out, *m)
	}
	return out
}

// mergeLoads merges the shards' load sections (each its last run phase): counts, workers and the
// generator's CPU summed, the target rate summed (each shard kept its share of one schedule), the
// achieved rate the operations completed over the union of the shards' spans, each placed lates[i]
// after the earliest shard's start (their span that union), the saturation the worst any shard
// showed, the types merged, and the time series added up interval by interval: the shards started
// together, so interval k of each covers the same seconds, except that a shard that began lates[i]
// after the earliest has its intervals moved on by that time in whole intervals (to the nearest,
// as the merged .hlog places them: report/hlog.Merge). Rates and counts add; the response
// percentiles are those of the sum of the intervals' histograms (SetResponse, as a run's), when
// every shard's interval carries one.
func mergeLoads(ls []*Load, lates []time.Duration) *Load {
	if len(ls) == 0 {
		return nil
	}
	out := *ls[0]
	out.TargetRate, out.Achieved, out.Workers = 0, 0, 0
	out.Scheduled, out.Completed, out.Late, out.Waited, out.Dropped, out.Errors, out.TimedOut = 0, 0, 0, 0, 0, 0, 0
	out.Generator = LoadGenerator{CPUMeasured: true}
	out.Checks = LoadChecks{}
	out.Hlog = ""
	var lists [][]LoadType
	var perOp, completed []float64
	at := make([]shardSpan, len(ls))
	for i, l := range ls {
		out.addTotals(l)
		perOp, completed = append(perOp, l.Generator.WorkPerOpNs), append(completed, float64(l.Completed))
		lists = append(lists, l.Types)
		at[i] = shardSpan{start: lates[i], span: time.Duration(l.SpanNs)}
	}
	out.SpanNs = unionSpan(at).Nanoseconds()
	if out.SpanNs > 0 {
		out.Achieved = float64(out.Completed) / time.Duration(out.SpanNs).Seconds()
	}
	out.Generator.WorkPerOpNs, _ = workPerOp(perOp, completed)
	out.ErrorRate = errorRate(out.Completed, out.Errors)
	out.Types = mergeTypes(lists...)
	var stmts [][]LoadStatement
	for _, l := range ls {
		stmts = append(stmts, l.Statements)
	}
	if out.Statements = MergeStatements(stmts...); len(out.Statements) == 0 {
		out.Statements = nil
	}
	out.Intervals = mergeIntervals(ls, lates)
	return &out
}

// saturationRank orders a load's saturation from none to the worst: a merged load says the worst.
var saturationRank = map[string]int{"": 0, "generator stalled": 1, "target saturated": 2, "generator saturated": 3}

// addTotals adds one shard's counts, generator and checks to l (a sum, a maximum or the worst of
// each); its rate and span are the caller's, over the union of the shards' spans.
func (l *Load) addTotals(s *Load) {
	l.TargetRate += s.TargetRate
	l.Workers += s.Workers
	l.Scheduled += s.Scheduled
	l.Completed += s.Completed
	l.Late += s.Late
	l.Waited += s.Waited
	l.Dropped += s.Dropped
	l.Errors += s.Errors
	l.TimedOut += s.TimedOut
	l.DurationNs = max(l.DurationNs, s.DurationNs)
	if saturationRank[s.Saturation] > saturationRank[l.Saturation] {
		l.Saturation = s.Saturation
	}
	g := s.Generator
	l.Generator.CPUNs += g.CPUNs
	l.Generator.CPUMeasured = l.Generator.CPUMeasured && g.CPUMeasured
	l.Generator.CPUShare += g.CPUShare
	l.Generator.Late += g.Late
	l.Generator.MaxLagNs = max(l.Generator.MaxLagNs, g.MaxLagNs)
	c := s.Checks
	l.Checks.Reads += c.Reads
	l.Checks.ReadsUnchecked += c.ReadsUnchecked
	l.Checks.Scans += c.Scans
	l.Checks.ScansInexact += c.ScansInexact
	l.Checks.ReadBack += c.ReadBack
	l.Checks.Expects += c.Expects
	l.Checks.Comparisons += c.Comparisons
	l.Checks.FirstResults += c.FirstResults
	l.Checks.SameUnchecked += c.SameUnchecked
}

// mergeIntervals adds the shards' time series interval by interval, shard i's moved on by lates[i]
// in whole intervals; an interval's response percentiles are those of its histograms' sum when every
// shard's interval there carries one.
func mergeIntervals(ls []*Load, lates []time.Duration) []LoadInterval {
	ivs := map[int64]*LoadInterval{}
	hists := map[int64]*hdrhistogram.Histogram{} // nil: a shard's interval had no histogram
	var starts []int64
	for i, l := range ls {
		for _, iv := range l.Intervals {
			at := iv.StartNs
			if iv.LengthNs > 0 {
				at += int64(math.Round(float64(lates[i])/float64(iv.LengthNs))) * iv.LengthNs
			}
			m, ok := ivs[at]
			if !ok {
				m = &LoadInterval{StartNs: at, LengthNs: iv.LengthNs}
				ivs[at] = m
				starts = append(starts, at)
				hists[at] = NewHistogram()
			}
			if h := hists[at]; h != nil {
				if d, err := DecodeHistogram(iv.Histogram); err == nil && iv.Histogram != "" {
					h.Merge(d)
				} else {
					hists[at] = nil
				}
			}
			m.TargetRate += iv.TargetRate
			m.Achieved += iv.Achieved
			m.Dropped += iv.Dropped
			m.Late += iv.Late
			m.Errors += iv.Errors
		}
	}
	slices.Sort(starts)
	merged := []LoadInterval{}
	for _, s := range starts {
		if h := hists[s]; h != nil {
			ivs[s].SetResponse(h)
		}
		merged = append(merged, *ivs[s])
	}
	return merged
}

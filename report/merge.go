package report

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// MergeRefused is a set of shard reports that are not shares of one run: different configs,
// binaries, seeds or totals, a duplicate index, or a report that is no shard's.
type MergeRefused struct{ Msg string }

func (e *MergeRefused) Error() string { return e.Msg }

// MergeShards makes one report of the shard reports parts (names say which file each came from,
// for the refusals): per target, workload and size one result whose repeat k merges every shard's
// repeat k (every recorded value counts: their histograms merged, counts and rates summed), with
// every figure then computed as one run's are (RepeatFigures, ClockFigures, MedianFigures). A
// partial shard (interrupted, or stopped by an error) is left out like a missing one: missing
// lists both, by index. The assertions are the first shard's, still to be decided on the merged
// report (report/assertion.Redecide).
func MergeShards(names []string, parts []*Report) (*Report, []int, error) {
	if len(parts) == 0 {
		return nil, nil, &MergeRefused{"no shard reports to merge"}
	}
	byIndex := map[int]int{}
	first := parts[0]
	for i, p := range parts {
		s := p.Run.Shard
		if s == nil {
			return nil, nil, &MergeRefused{fmt.Sprintf("%s is not a shard's report (no run.shard: it was made without --shard)", names[i])}
		}
		f := first.Run.Shard
		switch {
		case s.Total != f.Total:
			return nil, nil, &MergeRefused{fmt.Sprintf("%s is shard %d of %d, %s of %d: different shard totals", names[i], s.Index, s.Total, names[0], f.Total)}
		case s.BuildHash != f.BuildHash:
			return nil, nil, &MergeRefused{fmt.Sprintf("%s and %s were made by different dbbench binaries (build hash %.12s, %.12s)", names[0], names[i], f.BuildHash, s.BuildHash)}
		case p.Run.Seed != first.Run.Seed:
			return nil, nil, &MergeRefused{fmt.Sprintf("%s and %s have different seeds (%d, %d)", names[0], names[i], first.Run.Seed, p.Run.Seed)}
		case !reflect.DeepEqual(p.Config, first.Config) || p.Run.CI != first.Run.CI:
			return nil, nil, &MergeRefused{fmt.Sprintf("%s and %s ran different configs", names[0], names[i])}
		}
		if j, dup := byIndex[s.Index]; dup {
			return nil, nil, &MergeRefused{fmt.Sprintf("%s and %s are both shard %d of %d", names[j], names[i], s.Index, s.Total)}
		}
		byIndex[s.Index] = i
	}
	total := first.Run.Shard.Total
	var missing []int
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
		return nil, missing, nil
	}
	return mergeReports(got, total, missing), missing, nil
}

// mergeReports merges complete shard reports, in index order.
func mergeReports(got []*Report, total int, missing []int) *Report {
	rep := *got[0]
	rep.Run.Shard, rep.Run.Verdict = nil, nil
	rep.Assertions = slices.Clone(got[0].Assertions)
	m := &Merge{Total: total, Missing: missing, Partial: len(missing) > 0}
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
	rep.Targets = nil
	for _, t := range got[0].Targets {
		for _, p := range got[1:] {
			if o := p.TargetByName(t.Name); o != nil && o.Status == StatusFailed && t.Status != StatusFailed {
				t.Status, t.Reason = StatusFailed, o.Reason
			}
		}
		rep.Targets = append(rep.Targets, t)
	}
	rep.Results = []Result{}
	for _, x := range got[0].Results {
		xs, lates := []Result{}, []time.Duration{}
		for _, p := range got {
			if o := p.Find(x.Target, x.Workload, x.Size); o != nil {
				xs = append(xs, *o)
				lates = append(lates, startedLater(p.Run.Shard.StartedAt, firstStart))
			}
		}
		rep.Results = append(rep.Results, mergeShardResults(xs, lates))
	}
	return &rep
}

// startedLater is how much later than the earliest shard a shard began (0 when either is unknown).
func startedLater(at, first time.Time) time.Duration {
	if at.IsZero() || first.IsZero() {
		return 0
	}
	return at.Sub(first)
}

// mergeShardResults merges one result's shares; lates[i] is how much later than the earliest
// shard xs[i]'s shard began.
func mergeShardResults(xs []Result, lates []time.Duration) Result {
	x := xs[0]
	x.Repeats, x.Warnings = []Repeat{}, nil
	all, errs := NewHistogram(), NewHistogram()
	var loads []*Load
	var loadLates []time.Duration
	for i, o := range xs {
		if o.Status != StatusOK && x.Status == StatusOK {
			x.Status, x.Error = o.Status, o.Error
		}
		for _, w := range o.Warnings {
			if !slices.Contains(x.Warnings, w) {
				x.Warnings = append(x.Warnings, w)
			}
		}
		if o.Load != nil {
			loads, loadLates = append(loads, o.Load), append(loadLates, lates[i])
		}
		mergeEncoded(errs, o.ErrorHistogram)
	}
	x.Verification = mergeVerification(xs)
	var indexes []int
	for _, o := range xs {
		for _, r := range o.Repeats {
			if !slices.Contains(indexes, r.Index) {
				indexes = append(indexes, r.Index)
			}
		}
	}
	slices.Sort(indexes)
	for _, k := range indexes {
		var reps []Repeat
		for _, o := range xs {
			for _, r := range o.Repeats {
				if r.Index == k {
					reps = append(reps, r)
				}
			}
		}
		r := mergeRepeats(reps, len(loads) > 0)
		mergeEncoded(all, r.Histogram)
		x.Repeats = append(x.Repeats, r)
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
	for i, o := range xs {
		profiles[i] = o.Profile
	}
	x.Profile = MergeProfiles(profiles)
	return x
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

// mergeRepeats merges the shards' repeat k: its histogram from all of theirs, operations, rows and
// errors summed, its wall time the longest (the shards ran together), its checksum the sum, and
// its figures computed from those as one run's are.
func mergeRepeats(reps []Repeat, loadModel bool) Repeat {
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
	out.Figures, out.Types = loadRepeatFigures(reps, h)
	return out
}

// loadRepeatFigures are a load-model repeat's figures over its shards: counts and rates summed
// (each shard kept its share of the schedule), the wall time the longest, the generator's work per
// operation weighted by operations, and every clock's percentiles from the shards' histograms
// merged, per operation type and over all.
func loadRepeatFigures(reps []Repeat, response *hdrhistogram.Histogram) (map[string]float64, []LoadType) {
	f := Percentiles(response)
	var work, ops float64
	for _, r := range reps {
		for _, k := range []string{"ops", "errors", "late", "dropped", "waited", "timed_out", "achieved_rate", "ops_per_s", "target_rate"} {
			if v, ok := r.Figures[k]; ok {
				f[k] += v
			}
		}
		f["elapsed"] = max(f["elapsed"], r.Figures["elapsed"])
		if v, ok := r.Figures["generator_work_per_op"]; ok {
			work += v * r.Figures["ops"]
			ops += r.Figures["ops"]
		}
	}
	if ops > 0 {
		f["generator_work_per_op"] = work / ops
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
		allLag.Merge(lag)
		f[t.Op+".count"] = float64(t.Count)
		f[t.Op+".errors"] = float64(t.Errors)
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

func typeHistograms(t LoadType) (resp, svc, lag *hdrhistogram.Histogram) {
	resp, svc, lag = NewHistogram(), NewHistogram(), NewHistogram()
	mergeEncoded(resp, t.Histogram.Response)
	mergeEncoded(svc, t.Histogram.Service)
	mergeEncoded(lag, t.Histogram.StartLag)
	return resp, svc, lag
}

// mergeTypes merges operation types by name: counts summed, histograms merged, percentiles
// recomputed.
func mergeTypes(lists ...[]LoadType) []LoadType {
	var order []string
	hists := map[string][3]*hdrhistogram.Histogram{}
	merged := map[string]*LoadType{}
	for _, l := range lists {
		for _, t := range l {
			m, ok := merged[t.Op]
			if !ok {
				order = append(order, t.Op)
				m = &LoadType{Op: t.Op}
				merged[t.Op] = m
				hists[t.Op] = [3]*hdrhistogram.Histogram{NewHistogram(), NewHistogram(), NewHistogram()}
			}
			m.Count += t.Count
			m.Errors += t.Errors
			r, s, g := typeHistograms(t)
			hists[t.Op][0].Merge(r)
			hists[t.Op][1].Merge(s)
			hists[t.Op][2].Merge(g)
		}
	}
	out := []LoadType{}
	for _, op := range order {
		m, h := merged[op], hists[op]
		m.Response, m.Service, m.StartLag = Percentiles(h[0]), Percentiles(h[1]), Percentiles(h[2])
		m.Histogram.Response, _ = EncodeHistogram(h[0])
		m.Histogram.Service, _ = EncodeHistogram(h[1])
		m.Histogram.StartLag, _ = EncodeHistogram(h[2])
		out = append(out, *m)
	}
	return out
}

// mergeLoads merges the shards' load sections (each its last run phase): counts, rates, workers
// and the generator's CPU summed, spans the longest, the saturation the worst any shard showed,
// the types merged, and the time series added up interval by interval: the shards started
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
	var work float64
	var lists [][]LoadType
	for _, l := range ls {
		out.addTotals(l)
		work += l.Generator.WorkPerOpNs * float64(l.Scheduled)
		lists = append(lists, l.Types)
	}
	if out.Scheduled > 0 {
		out.Generator.WorkPerOpNs = work / float64(out.Scheduled)
	}
	out.Types = mergeTypes(lists...)
	out.Intervals = mergeIntervals(ls, lates)
	return &out
}

// saturationRank orders a load's saturation from none to the worst: a merged load says the worst.
var saturationRank = map[string]int{"": 0, "generator stalled": 1, "target saturated": 2, "generator saturated": 3}

// addTotals adds one shard's counts, generator and checks to l (a sum, a maximum or the worst of each).
func (l *Load) addTotals(s *Load) {
	l.TargetRate += s.TargetRate
	l.Achieved += s.Achieved
	l.Workers += s.Workers
	l.Scheduled += s.Scheduled
	l.Completed += s.Completed
	l.Late += s.Late
	l.Waited += s.Waited
	l.Dropped += s.Dropped
	l.Errors += s.Errors
	l.TimedOut += s.TimedOut
	l.SpanNs = max(l.SpanNs, s.SpanNs)
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

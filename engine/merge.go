package engine

import (
	"fmt"
	"maps"
	"slices"

	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/report"
)

// mergeRuns merges the reports of a plan's runs (runs.go) into what one report holds: per target,
// workload and size one result whose repeats are every run's, each marked with its run, whose runs
// hold each run's own figures, and whose figures are the median over runs of those; the targets as
// the runs left them (failed in any run: failed; skipped in every run that had it: skipped); the
// largest peak RSS, and the harness as the first run measured it.
func mergeRuns(p *config.Plan, parts []runPart) measured {
	m := measured{runs: []report.RunEntry{}}
	results := map[resultKey][]runResult{}
	var keys []resultKey
	targets := map[string][]report.Target{}
	for _, part := range parts {
		m.runs = append(m.runs, part.entry)
		if part.rep == nil {
			continue
		}
		if m.harness == nil {
			h := part.rep.Run.Harness
			m.harness = &h
		}
		m.peakRSS = max(m.peakRSS, part.rep.Run.PeakRSSBytes)
		for _, t := range part.rep.Targets {
			targets[t.Name] = append(targets[t.Name], t)
		}
		for _, x := range part.rep.Results {
			k := resultKey{target: x.Target, workload: x.Workload, size: x.Size}
			if _, ok := results[k]; !ok {
				keys = append(keys, k)
			}
			results[k] = append(results[k], runResult{run: part.entry.Index, res: x})
		}
	}
	for _, t := range p.Targets {
		if ts, ok := targets[t.Name]; ok {
			m.targets = append(m.targets, mergeTarget(ts))
		}
	}
	order := func(k resultKey) []int {
		return []int{slices.Index(p.Sizes, k.size), workloadIndex(p, k.workload), slices.IndexFunc(p.Targets, func(t config.TargetPlan) bool { return t.Name == k.target })}
	}
	slices.SortStableFunc(keys, func(a, b resultKey) int { return slices.Compare(order(a), order(b)) })
	for _, k := range keys {
		m.results = append(m.results, mergeResult(results[k]))
	}
	return m
}

// runResult is one run's result of a target, workload and size.
type runResult struct {
	run int
	res report.Result
}

// mergeTarget merges one target's entries from the runs that had it: the first one's, failed if it
// failed in any run, skipped only if it was skipped in every one.
func mergeTarget(ts []report.Target) report.Target {
	t := ts[0]
	t.Instances = slices.Clone(t.Instances)
	for _, x := range ts {
		if x.Status == report.StatusFailed && t.Status != report.StatusFailed {
			t.Status, t.Reason = report.StatusFailed, x.Reason
		}
		if x.Status != report.StatusSkipped && t.Status == report.StatusSkipped {
			t.Status, t.Reason = x.Status, x.Reason
			t.Instances = slices.Clone(x.Instances)
		}
	}
	return t
}

// mergeResult merges one result's runs.
func mergeResult(rs []runResult) report.Result {
	x := rs[0].res
	x.Repeats, x.Runs, x.Warnings = []report.Repeat{}, nil, nil
	x.Merged = nil
	var hists, errHists []string
	var perRun []map[string]float64
	var profiles []*report.Profile
	for _, r := range rs {
		profiles = append(profiles, r.res.Profile)
		for _, rep := range r.res.Repeats {
			rep.Run = r.run
			x.Repeats = append(x.Repeats, rep)
		}
		x.Runs = append(x.Runs, report.RunFigures{Run: r.run, Figures: maps.Clone(r.res.Figures)})
		perRun = append(perRun, r.res.Figures)
		if r.res.Status != report.StatusOK && x.Status == report.StatusOK {
			x.Status, x.Error = r.res.Status, fmt.Sprintf("run %d: %s", r.run, r.res.Error)
		}
		x.Verification.OK = x.Verification.OK && r.res.Verification.OK
		for _, w := range r.res.Warnings {
			if !slices.Contains(x.Warnings, w) {
				x.Warnings = append(x.Warnings, w)
			}
		}
		hists = append(hists, r.res.Histogram)
		if r.res.ErrorHistogram != "" {
			errHists = append(errHists, r.res.ErrorHistogram)
		}
	}
	x.Figures = report.MedianFigures(perRun...)
	x.Profile = report.MergeProfiles(profiles)
	x.Load = rs[len(rs)-1].res.Load // report.Load is the last run's
	if h, err := report.MergeHistograms(hists...); err == nil {
		x.Merged = report.Percentiles(h)
		x.Histogram, _ = report.EncodeHistogram(h)
	}
	if h, err := report.MergeHistograms(errHists...); err == nil && h.TotalCount() > 0 {
		x.ErrorHistogram, _ = report.EncodeHistogram(h)
	}
	return x
}

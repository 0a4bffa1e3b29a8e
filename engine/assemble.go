package engine

import (
	"maps"
	"time"

	"github.com/dbbench/dbbench/internal/procmem"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/assertion"
)

// The report of a run is assembled here and only here, whether its targets ran in this process or
// in worker processes (isolation: process), and whether the run finished or was stopped: header
// starts it before anything runs, complete finishes it from what was measured.

// instructionsNote is the report's run.instructions when instructions are counted.
const instructionsNote = "callgrind: collection on around each timed repeat (the workload's operations with the engine's per-operation bookkeeping; for insert also the fresh store and its read-back), after a GC; this process only: a server in another process is not counted"

// header starts the report of a run: the plan's part of run (config.Plan.RunInfo), the config as
// run, the machine and the start time. The harness's own cost is the measuring process's: the
// caller that measures here calibrates; runs take it from the first run's report.
func (r *Runner) header() *report.Report {
	rep := &report.Report{
		SchemaVersion: report.SchemaVersion,
		Environment:   r.environment(),
		Config:        r.Plan.AsRun,
		Run:           r.Plan.RunInfo(),
		Results:       []report.Result{},
		Assertions:    []report.Assertion{},
	}
	rep.Run.StartedAt = time.Now().UTC()
	if r.Instructions != nil {
		rep.Run.Instructions = instructionsNote
	}
	if sp := r.Plan.Shard; sp != nil {
		rep.Run.Shard = shardRecord(sp)
	}
	return rep
}

func (r *Runner) environment() report.Environment {
	if r.Environment != nil {
		return r.Environment()
	}
	return report.CollectEnvironment()
}

// measured is what a run measured so far: every target (its instances, and the status the run gave
// it), the results in the order one process runs them (by size, workload, target), and the peak
// RSS of the process or processes that measured them. A report of several runs (runs.go) also
// brings the runs, the harness their first one measured, and the assertions as decided look by look.
type measured struct {
	targets []report.Target
	results []report.Result
	peakRSS int64

	runs       []report.RunEntry
	harness    *report.Harness
	assertions []report.Assertion // nil: decide now, on this one run
	rule       *report.VerdictRule
}

// complete returns the report of a run: head with what was measured, the targets' statuses, the
// assertions and the verdict, and, when the run stopped early or could not clean up (runErr), its
// errors. It changes neither head nor m, so it can be called again as the run goes on.
func (r *Runner) complete(head *report.Report, m measured, runErr *RunError, interrupted bool) *report.Report {
	rep := *head
	rep.Results = append(make([]report.Result, 0, len(m.results)), m.results...)
	rep.Targets = append([]report.Target(nil), m.targets...)
	for i := range rep.Targets {
		targetStatus(&rep.Targets[i], rep.Results)
	}
	rep.Run.FinishedAt = time.Now().UTC()
	if v, ok := procmem.LoadAverage(); ok {
		rep.Run.LoadAverage = &v
	}
	rep.Run.Runs, rep.Run.Verdict = m.runs, m.rule
	if m.harness != nil {
		rep.Run.Harness = *m.harness
	}
	if m.runs == nil { // one run, measured here: its index on every repeat, its figures as the run's
		k := r.runIndex()
		for i := range rep.Results {
			tagRun(&rep.Results[i], k)
		}
		rep.Run.Runs = []report.RunEntry{{Index: k, StartedAt: head.Run.StartedAt, FinishedAt: rep.Run.FinishedAt,
			Workloads: r.workloadNames(), Targets: r.targetNames(), Why: "initial", Interrupted: interrupted}}
	}
	rep.Assertions = m.assertions
	if rep.Assertions == nil {
		k := -1
		rep.Assertions = r.judge(&rep, nil, 1, &k)
		rep.Run.Verdict = r.verdictRule(k, 1, 1)
	}
	rep.Assertions = append(rep.Assertions, r.leftOut()...)
	rep.Verdict = Verdict(&rep)
	rep.Run.PeakRSSBytes = m.peakRSS
	r.finishShard(&rep)
	rep.Run.Errors = nil
	if runErr.Err != nil || len(runErr.Cleanup) > 0 {
		rep.Verdict = report.VerdictError
		rep.Run.Interrupted = interrupted
		for _, e := range runErr.Unwrap() {
			rep.Run.Errors = append(rep.Run.Errors, e.Error())
		}
	}
	return &rep
}

// targetStatus gives a target skipped at every size the status skipped, and a target one of whose
// results failed the status failed; a status already decided (a stall) stays.
func targetStatus(t *report.Target, results []report.Result) {
	markSkipped(t)
	if t.Status == report.StatusOK && anyFailed(results, t.Name) {
		t.Status = report.StatusFailed
		t.Reason = "a workload failed; see its result"
	}
}

// markSkipped gives a target that was skipped at every size the status "skipped".
func markSkipped(t *report.Target) {
	if len(t.Instances) == 0 {
		return
	}
	for _, in := range t.Instances {
		if in.Skipped == "" {
			return
		}
	}
	t.Status, t.Reason = report.StatusSkipped, t.Instances[0].Skipped
}

func anyFailed(rs []report.Result, target string) bool {
	for _, r := range rs {
		if r.Target == target && r.Status != report.StatusOK {
			return true
		}
	}
	return false
}

// tagRun marks a result measured in one run as that run's: its repeats carry the run's index and its
// figures are the run's figures.
func tagRun(x *report.Result, k int) {
	for j := range x.Repeats {
		x.Repeats[j].Run = k
	}
	x.Runs = []report.RunFigures{{Run: k, Figures: maps.Clone(x.Figures)}}
}

// judge decides the plan's assertions on rep at look number look: the entries an earlier look
// decided (prior, entry by entry) stay as they were, for a verdict reached is not tested again; the
// others are decided now. *k is the number of assertions decided on evidence, which shares the
// error budget: counted at the first look (when it is negative) and kept for the later ones.
func (r *Runner) judge(rep *report.Report, prior []report.Assertion, look int, k *int) []report.Assertion {
	p := r.Plan
	if *k < 0 {
		*k = 0
		for _, a := range r.evaluate(rep, assertion.Rule{}) {
			if a.Verdict != report.VerdictError && a.Verdict != report.VerdictLeftOut {
				*k++
			}
		}
	}
	rule := assertion.Rule{Confidence: p.Verdict.Confidence, Tests: *k * r.maxLooks()}
	now := r.evaluate(rep, rule)
	for i := range now {
		if i < len(prior) && prior[i].Verdict.Decided() {
			now[i] = prior[i]
			continue
		}
		now[i].Looks = look
	}
	return now
}

// evaluate decides every assertion of the plan on rep under rule.
func (r *Runner) evaluate(rep *report.Report, rule assertion.Rule) []report.Assertion {
	out := []report.Assertion{}
	for _, a := range r.Plan.Assertions {
		out = append(out, a.Evaluate(rep, r.Plan.Relax, rule)...)
	}
	return out
}

// maxLooks is L, the most looks the run may take: one for a single run (no interval, nothing to
// take more runs for).
func (r *Runner) maxLooks() int {
	if r.Plan.Verdict.Runs < 2 {
		return 1
	}
	return max(r.Plan.Verdict.MaxLooks, 1)
}

// verdictRule is the report's record of how the verdicts were decided.
func (r *Runner) verdictRule(k, runs, looks int) *report.VerdictRule {
	return &report.VerdictRule{Confidence: r.Plan.Verdict.Confidence, Assertions: max(k, 0), MaxLooks: r.maxLooks(), InitialRuns: runs, Looks: looks}
}

// leftOut is the plan's assertions the run leaves out (--targets), as the report lists them.
func (r *Runner) leftOut() []report.Assertion {
	var out []report.Assertion
	for _, l := range r.Plan.LeftOut {
		out = append(out, l.Assertion.LeftOut(r.Plan.Relax, l.Reason))
	}
	return out
}

// runIndex is the index of the run this process measures (a run worker's, else 1).
func (r *Runner) runIndex() int { return max(r.RunIndex, 1) }

func (r *Runner) workloadNames() []string {
	out := []string{}
	for _, w := range r.Plan.Workloads {
		out = append(out, w.Name)
	}
	return out
}

func (r *Runner) targetNames() []string {
	out := []string{}
	for _, t := range r.Plan.Targets {
		out = append(out, t.Name)
	}
	return out
}

// Verdict is VerdictError when a target or result failed, when an assertion had nothing to decide
// on, or when nothing ran at all (every target was skipped: a run that measured nothing must not
// pass); else VerdictSaturated when a load run's own generator could not keep its schedule (its
// figures are not the target's, so no assertion on them decides); else VerdictFail when an
// assertion failed; else VerdictInconclusive when one could not be decided; else VerdictPass. The
// exit code follows it (commands: 3, 5, 1, 4, 0).
func Verdict(r *report.Report) report.Verdict {
	if len(r.Results) == 0 {
		return report.VerdictError
	}
	for _, t := range r.Targets {
		if t.Status == report.StatusFailed {
			return report.VerdictError
		}
	}
	for _, x := range r.Results {
		if x.Status != report.StatusOK {
			return report.VerdictError
		}
	}
	verdict := report.VerdictPass
	for _, x := range r.Results {
		if x.Load != nil && x.Load.Saturation == "generator saturated" {
			verdict = report.VerdictSaturated
		}
	}
	for _, a := range r.Assertions {
		switch {
		case a.Verdict == report.VerdictError:
			return report.VerdictError
		case verdict == report.VerdictSaturated:
		case a.Verdict == report.VerdictFail:
			verdict = report.VerdictFail
		case a.Verdict == report.VerdictInconclusive && verdict == report.VerdictPass:
			verdict = report.VerdictInconclusive
		}
	}
	return verdict
}

package engine

import (
	"time"

	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/assertion"
)

// The report of a run is assembled here and only here, whether its targets ran in this process or
// in worker processes (isolation: process), and whether the run finished or was stopped: header
// starts it before anything runs, complete finishes it from what was measured.

// instructionsNote is the report's run.instructions when instructions are counted.
const instructionsNote = "callgrind: collection on around each timed repeat (the workload's operations with the engine's per-operation bookkeeping; for insert also the fresh store and its read-back), after a GC; this process only: a server in another process is not counted"

// header starts the report of a run: the plan's part of run (config.Plan.RunInfo), the config as
// run, the machine, the start time and the harness's own cost, measured now.
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
	rep.Run.Harness = calibrate()
	if r.Instructions != nil {
		rep.Run.Instructions = instructionsNote
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
// RSS of the process or processes that measured them.
type measured struct {
	targets []report.Target
	results []report.Result
	peakRSS int64
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
	rep.Assertions = []report.Assertion{}
	for _, a := range r.Plan.Assertions {
		rep.Assertions = append(rep.Assertions, a.Evaluate(&rep, r.Plan.Relax, assertion.Rule{})...)
	}
	rep.Verdict = Verdict(&rep)
	rep.Run.FinishedAt = time.Now().UTC()
	rep.Run.PeakRSSBytes = m.peakRSS
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

// Verdict is VerdictError when a target or result failed, or when nothing ran at all (every target
// was skipped: a run that measured nothing must not pass), else VerdictFail when an assertion failed,
// else VerdictPass.
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
	for _, a := range r.Assertions {
		if a.Verdict == report.VerdictFail {
			return report.VerdictFail
		}
	}
	return report.VerdictPass
}

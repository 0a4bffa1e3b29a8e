package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
)

// A plan with more than one run (Plan.Verdict.Runs, docs/verdicts.md) is measured in runs, each a
// fresh worker process with fresh stores that runs the plan exactly as a single run does
// (warm-up, interleaving, isolation, verification, the stall watch), one after the other. The
// assertions are decided on an interval over the runs' values. While one straddles its threshold
// and the budget allows, another batch of runs measures just the workloads and targets the
// undecided assertions read, and they are decided again, at most Plan.Verdict.MaxLooks looks in all;
// what is still undecided then is inconclusive. The runs' results are merged into one report
// (merge.go).

// runsDirPrefix names the temporary directory of a run of several runs (the runs' reports and
// interval logs), workersDirPrefix that of a run with a worker process per target.
const (
	runsDirPrefix    = "dbbench-runs-"
	workersDirPrefix = "dbbench-workers-"
)

// tempDirPrefixes are the names of every temporary directory a run makes in its temporary base.
var tempDirPrefixes = []string{runDirPrefix, runsDirPrefix, workersDirPrefix}

// markedTempDir makes a temporary directory prefix* in the run's temporary base, marked with this
// process as its owner (internal/cleanup), after removing every run's temporary directory
// (tempDirPrefixes) whose owner died (SIGKILL, the OOM killer, a crash), and only those, saying
// so through prog; remove removes it (also when an interrupt gives up waiting for the rest:
// cleanup.Abort). Every temporary directory a run makes comes from here, so that none outlives a
// killed run beyond the next run.
func (r *Runner) markedTempDir(prog *tracker, prefix string) (dir string, remove func(), err error) {
	base := r.tempBase()
	for _, p := range tempDirPrefixes {
		for _, d := range cleanup.SweepDirs(base, p) {
			prog.printf("removed %s, left by a dbbench run that did not finish", d)
		}
	}
	dir, err = os.MkdirTemp(base, prefix)
	if err != nil {
		return "", nil, exitcode.Infraf("cannot create a temporary directory in %s: %v", base, err)
	}
	done := cleanup.RegisterLocal("rm -rf "+dir, func() { os.RemoveAll(dir) })
	remove = func() { os.RemoveAll(dir); done() } // only what this run created
	if err := cleanup.MarkDir(dir); err != nil {
		remove()
		return "", nil, exitcode.Infraf("cannot create a temporary directory in %s: %v", base, err)
	}
	return dir, remove, nil
}

// RunSpec is one run to make: its index, why, and the workloads and targets it measures.
type RunSpec struct {
	Index              int
	Why                string
	Workloads, Targets []string
}

// runPart is what one run gave: its entry in run.runs and its report (nil when it measured nothing).
type runPart struct {
	entry report.RunEntry
	rep   *report.Report
}

// runs is the state of a run of several runs.
type runs struct {
	r      *Runner
	head   *report.Report
	prog   *tracker
	dir    string
	parts  []runPart
	runErr *RunError
	// stopped: a run failed or was interrupted; no more runs are made.
	stopped, interrupted bool
	// harness is this process's own, measured only when no run reported one (every run failed
	// before writing its report): the runs' harness is the first run's (mergeRuns).
	harness *report.Harness
}

// runMany makes the plan's runs in worker processes and decides the assertions over them.
func (r *Runner) runMany(ctx context.Context) (*report.Report, error) {
	p := r.Plan
	if r.runOne == nil {
		if r.Spawn == nil {
			return nil, exitcode.Usagef("%d runs need a dbbench binary to start a worker process for each (use dbbench run, or --runs 1)", p.Verdict.Runs)
		}
		r.runOne = r.spawnRun
	}
	prog := newTracker(r.Events, r.Clock)
	dir, remove, err := r.markedTempDir(prog, runsDirPrefix)
	if err != nil {
		return nil, err
	}
	defer remove()
	r.runsDir = dir
	defer func() { // before the runs' directory goes: the runs' interval logs are in it
		if err := r.mergeHlogs(); err != nil && r.Events != nil {
			r.Events(Message{Text: err.Error()})
		}
	}()
	s := &runs{r: r, head: r.header(), prog: prog, dir: dir, runErr: &RunError{}}
	if s.prog.emit != nil {
		s.prog.emit(Started{Plan: p})
	}

	all := RunSpec{Workloads: r.workloadNames(), Targets: r.targetNames(), Why: "initial"}
	start := time.Now()
	for i := 0; i < p.Verdict.Runs && !s.stopped; i++ {
		s.run(ctx, all)
	}
	initial := time.Since(start)
	k, look := -1, 1
	assertions := r.judge(s.merged(), nil, look, &k)
	// The budget caps the whole run (verdict.budget, --budget): extra runs take what the initial
	// runs left of it; by default they may take twice what the initial runs took.
	budget := config.DefaultBudgetFactor * initial
	spentText := fmt.Sprintf("the budget for extra runs (%s: twice the first runs' time) is spent", budget.Round(time.Millisecond))
	if p.Verdict.Budget > 0 {
		budget = max(0, p.Verdict.Budget-initial)
		spentText = fmt.Sprintf("the run's budget (%s in all, verdict.budget or --budget) is spent", p.Verdict.Budget)
	}
	rule := r.verdictRule(k, p.Verdict.Runs, look)
	rule.BudgetNs = budget.Nanoseconds()

	assertions, spent, stop := s.moreLooks(ctx, assertions, initial, budget, spentText, &look, &k)
	rule.Looks, rule.SpentNs = look, spent.Nanoseconds()
	for i := range assertions {
		if assertions[i].Verdict == report.VerdictInconclusive && stop != "" {
			assertions[i].Why += "; stopped: " + stop
		}
	}

	m := s.measured()
	m.assertions, m.rule = assertions, rule
	final := r.complete(s.head, m, s.runErr, s.interrupted)
	if s.runErr.Err != nil || len(s.runErr.Cleanup) > 0 {
		return final, s.runErr
	}
	s.prog.finish()
	return final, nil
}

// moreLooks takes more looks while some assertion is undecided (and nothing erred): batches of
// runs of just what the undecided ones read, within the budget and the most looks allowed. It
// returns the assertions as last decided, the time the extra runs took, and why it stopped early
// ("" when everything was decided).
func (s *runs) moreLooks(ctx context.Context, assertions []report.Assertion, initial, budget time.Duration, spentText string, look, k *int) ([]report.Assertion, time.Duration, string) {
	r, p := s.r, s.r.Plan
	var spent time.Duration
	for {
		spec, undecided := s.toDecide(assertions)
		if undecided == 0 || s.stopped || anyError(assertions) {
			return assertions, spent, ""
		}
		if *look >= r.maxLooks() {
			return assertions, spent, fmt.Sprintf("%d looks taken, the most allowed (verdict.max_looks)", *look)
		}
		ran := 0
		for i := 0; i < p.Verdict.Runs && !s.stopped; i++ {
			if spent+s.expected(spec, initial) > budget {
				break
			}
			t0 := time.Now()
			s.run(ctx, spec)
			spent += time.Since(t0)
			ran++
		}
		if ran == 0 {
			return assertions, spent, spentText
		}
		*look++
		assertions = r.judge(s.merged(), assertions, *look, k)
	}
}

// run makes one run of spec (its index is the next one) and keeps what it measured. A run that
// fails or is interrupted stops the runs.
func (s *runs) run(ctx context.Context, spec RunSpec) {
	spec.Index = len(s.parts) + 1
	if ctx.Err() != nil {
		s.stop(errInterrupted, true)
		return
	}
	if s.prog.emit != nil {
		s.prog.emit(RunStarted{Index: spec.Index, Initial: s.r.Plan.Verdict.Runs, Why: spec.Why, Workloads: spec.Workloads, Targets: spec.Targets})
	}
	entry := report.RunEntry{Index: spec.Index, StartedAt: time.Now().UTC(), Workloads: spec.Workloads, Targets: spec.Targets, Why: spec.Why}
	// On Ctrl-C the runs so far go out at once (the caller writes them), before the run in progress
	// has stopped and written what it measured, which may take a while on a stalled server.
	published := make(chan struct{})
	stopWatch := context.AfterFunc(ctx, func() {
		defer close(published)
		if s.r.Interrupted != nil {
			s.r.Interrupted(s.r.complete(s.head, s.measured(), &RunError{Err: errInterrupted}, true))
		}
	})
	rep, err := s.r.runOne(ctx, spec)
	if !stopWatch() { // the watch ran: ctx was cancelled during the run
		<-published
	}
	entry.FinishedAt = time.Now().UTC()
	entry.Interrupted = ctx.Err() != nil
	// A run whose results failed (a workload's error, a verification that did not match) records it
	// in them, as a single run does: the merged report's verdict says so. Anything else that ended
	// the run with an error (a target that could not be opened, cleaning up, a crash, Ctrl-C) is
	// the run's error, in the worker's own words.
	inResults := err != nil && rep != nil && len(rep.Run.Errors) == 0 && Verdict(rep) == report.VerdictError && !entry.Interrupted
	switch {
	case err != nil && !inResults:
		entry.Error = exitcode.OneLine(err.Error())
	case rep != nil && len(rep.Run.Errors) > 0:
		entry.Error = exitcode.OneLine(rep.Run.Errors[0])
		err = exitcode.Infraf("%s (in run %d)", entry.Error, spec.Index)
	}
	s.add(entry, rep)
	switch {
	case entry.Interrupted && err != nil && !inResults:
		s.stop(err, true)
	case entry.Interrupted:
		s.stop(errInterrupted, true)
	case err != nil && !inResults:
		s.stop(err, false)
	case rep != nil && Verdict(rep) == report.VerdictError:
		s.stopped = true // more runs cannot mend a failed result
	}
}

func (s *runs) add(entry report.RunEntry, rep *report.Report) {
	s.parts = append(s.parts, runPart{entry: entry, rep: rep})
}

// stop ends the runs with err (the first error wins).
func (s *runs) stop(err error, interrupted bool) {
	s.stopped = true
	s.interrupted = s.interrupted || interrupted
	if s.runErr.Err == nil {
		s.runErr.Err = err
	}
}

// measured merges the runs so far.
func (s *runs) measured() measured {
	m := mergeRuns(s.r.Plan, s.parts)
	if m.harness == nil {
		if s.harness == nil {
			h := calibrate()
			s.harness = &h
		}
		m.harness = s.harness
	}
	return m
}

// merged is the report of the runs so far, as the assertions read it.
func (s *runs) merged() *report.Report {
	m := s.measured()
	rep := *s.head
	rep.Targets, rep.Results = m.targets, m.results
	return &rep
}

// toDecide returns the run that would decide the undecided assertions: the workloads and targets
// they read (in plan order), and why; and how many are undecided.
func (s *runs) toDecide(assertions []report.Assertion) (RunSpec, int) {
	p := s.r.Plan
	workloads, targets := map[string]bool{}, map[string]bool{}
	var names []string
	n := 0
	for _, a := range assertions {
		if a.Verdict != report.VerdictInconclusive {
			continue
		}
		n++
		name := a.Name
		if name == "" {
			name = a.Expr
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
		for _, side := range []string{a.Left, a.Right} {
			if ref, err := report.ParseRef(side); err == nil {
				workloads[ref.Workload], targets[ref.Target] = true, true
			}
		}
	}
	spec := RunSpec{Why: "to decide: " + strings.Join(names, ", ")}
	for _, w := range p.Workloads {
		if workloads[w.Name] {
			spec.Workloads = append(spec.Workloads, w.Name)
		}
	}
	for _, t := range p.Targets {
		if targets[t.Name] {
			spec.Targets = append(spec.Targets, t.Name)
		}
	}
	return spec, n
}

// expected is how long a run of spec is expected to take: as long as the last run of the same
// workloads and targets took, or, before there is one, as long as an initial run took on average
// (a narrowed run does less, so this errs on the side of the budget).
func (s *runs) expected(spec RunSpec, initial time.Duration) time.Duration {
	for i := len(s.parts) - 1; i >= 0; i-- {
		e := s.parts[i].entry
		if slices.Equal(e.Workloads, spec.Workloads) && slices.Equal(e.Targets, spec.Targets) {
			return e.FinishedAt.Sub(e.StartedAt)
		}
	}
	return initial / time.Duration(max(s.r.Plan.Verdict.Runs, 1))
}

func anyError(as []report.Assertion) bool {
	return slices.ContainsFunc(as, func(a report.Assertion) bool { return a.Verdict == report.VerdictError })
}

// spawnRun makes one run in a worker process: it starts the worker, shows its progress events
// (events.go) as the run's, waits for it, and reads its report. A worker that measured something
// and then failed still gives its report, with the error.
func (r *Runner) spawnRun(ctx context.Context, spec RunSpec) (*report.Report, error) {
	out := filepath.Join(r.runsDir, fmt.Sprintf("run-%d.json", spec.Index))
	w, err := r.startWorker(ctx, spec.Index, fmt.Sprintf("run %d", spec.Index), WorkerSpec{Run: spec.Index, Workloads: spec.Workloads, Targets: spec.Targets, Out: out})
	if err != nil {
		return nil, err
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		forwardEvents(w.out, r.Events)
	}()
	waitErr := w.wait()
	select { // the events written before it exited; a grandchild holding its stdout must not hang us
	case <-read:
	case <-time.After(time.Second):
	}
	w.close()
	rep, readErr := report.ReadPart(out)
	if readErr == nil {
		r.takeHlog(out, rep)
	}
	if waitErr != nil {
		if readErr != nil {
			rep = nil
		}
		return rep, w.runFailed(waitErr)
	}
	if readErr != nil {
		return nil, exitcode.Infraf("run %d: %v", spec.Index, readErr)
	}
	return rep, nil
}

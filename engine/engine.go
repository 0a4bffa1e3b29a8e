// Package engine runs a dbbench plan: it opens the targets, loads the dataset into each, runs every
// workload with warm-up and interleaved repeats (A B A B ...), times each operation into
// HdrHistograms, verifies that the work was done (row counts and checksums, as package workloads
// defines them) before the times count, and assembles the report, assertions included. It prints
// nothing: progress goes out as events (progress.go).
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/callgrind"
	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/workloads"
)

// Runner runs a plan.
type Runner struct {
	Plan *config.Plan
	// Events receives the run's progress as it goes (nil: none); see progress.go. The engine sends
	// them from the goroutine running the plan, and adapters' log lines from wherever they log.
	Events func(Event)
	// TempDir is where the run's temporary stores go ("" = the system temp dir).
	TempDir string
	// Environment describes the machine; nil uses report.CollectEnvironment.
	Environment func() report.Environment
	// Instructions, when set, counts the instructions of every timed repeat (the process runs under
	// callgrind): the figures instr_per_op and instr_per_row.
	Instructions *callgrind.Counter
	// Spawn starts a worker process for one target of the plan, writing its report to out
	// (isolation: process; see process.go). Stdin, stdout and stderr are left to the engine.
	Spawn func(ctx context.Context, target, out string) *exec.Cmd
	// Step, in a worker process, announces each step to the parent and waits for its go-ahead.
	Step func(step string) error
	// Interrupted, if set, receives the report of an interrupted run (every result measured so far,
	// marked interrupted) as soon as the run stops, before its targets are closed: cleaning up after a
	// stalled server may take longer than Ctrl-C allows, and the results must not wait for it. Run
	// still returns the final report, cleanup errors included, if cleaning up finishes.
	Interrupted func(*report.Report)
	// Clock is the progress's clock, for its elapsed time and ETA (nil: time.Now); measurements
	// always use the real one.
	Clock func() time.Time

	// observeETA, in tests, sees every estimate of the time left.
	observeETA func(p *tracker, left time.Duration, ok bool)
	pace       *gcPace // the current dataset size's GC pacing per target; nil without re-warming
	// partial builds the report of the results so far (set by Run).
	partial func(runErr *RunError) *report.Report
}

// runDirPrefix names the temporary directory of a run (its targets' stores live inside).
const runDirPrefix = "dbbench-run-"

// targetState is one configured target through the run.
type targetState struct {
	plan *config.TargetPlan
	rep  *report.Target
	inst adapters.Target
	dir  string
	slow *slowdown // calibrated once per run; nil without an injected slowdown
	// ctx is the run's context for this target at the current size: cancelled, with a *StallError
	// cause, when the target stalls (see stall.go), so that its calls return and its cleanup is short.
	ctx    context.Context
	cancel context.CancelCauseFunc
	// stalled is set once the target stalled: it runs nothing more in this run.
	stalled *StallError
	// loaded counts the progress its adapter reports while loading (adapters.Env.Progress).
	loaded atomic.Int64
}

// resultKey identifies one result.
type resultKey struct {
	target, workload string
	size             int
}

// Run executes the plan. It returns the report with every result, failed ones included. When the run
// could not go on (a required target that cannot be opened, a usage error found late, cancellation) or
// could not clean up, it also returns a *RunError, and the report holds what was measured until then,
// with the verdict "error" and the errors in run.errors.
func (r *Runner) Run(ctx context.Context) (*report.Report, error) {
	p := r.Plan
	if p.Isolation == config.IsolationProcess {
		if r.Spawn == nil {
			return nil, exitcode.Usagef("isolation: process needs a dbbench binary to start workers (use dbbench run)")
		}
		return r.runProcesses(ctx)
	}
	if r.Instructions != nil && interleave(p) == config.InterleaveOps {
		return nil, exitcode.Usagef("--instructions counts each target's repeat on its own: it does not combine with interleave: ops")
	}
	prog := newTracker(r.Events, r.Clock)
	prog.observe = r.observeETA
	envf := r.Environment
	if envf == nil {
		envf = report.CollectEnvironment
	}
	rep := &report.Report{
		SchemaVersion: report.SchemaVersion,
		Environment:   envf(),
		Config:        p.AsRun,
		Run: report.Run{
			ConfigName: p.Name, ConfigPath: p.Source, CI: p.CI, Relax: p.Relax, Seed: p.Seed,
			Sizes: p.Sizes, Warmup: p.Warmup, Repeats: p.Repeats, Order: runOrder(p),
			Isolation: isolation(p), Baseline: p.Baseline, Rewarm: rewarmRuns(p),
			StartedAt: time.Now().UTC(),
		},
		Results:    []report.Result{},
		Assertions: []report.Assertion{},
	}
	rep.Run.Harness = calibrate()
	if r.Instructions != nil {
		rep.Run.Instructions = "callgrind: collection on around each timed repeat (the workload's operations with the engine's per-operation bookkeeping; for insert also the fresh store and its read-back), after a GC; this process only: a server in another process is not counted"
	}

	base := r.TempDir
	if base == "" {
		base = os.TempDir()
	}
	// Run directories of runs that died (SIGKILL, a crash) are marked with their owner: remove those,
	// and only those, before making this run's.
	for _, d := range cleanup.SweepDirs(base, runDirPrefix) {
		prog.printf("removed %s, left by a dbbench run that did not finish", d)
	}
	runDir, err := os.MkdirTemp(base, runDirPrefix)
	if err != nil {
		return nil, exitcode.Infraf("cannot create a temporary directory in %s: %v", base, err)
	}
	done := cleanup.RegisterLocal("rm -rf "+runDir, func() { os.RemoveAll(runDir) })
	defer func() { os.RemoveAll(runDir); done() }() // only what this run created
	if err := cleanup.MarkDir(runDir); err != nil {
		return nil, exitcode.Infraf("cannot create a temporary directory in %s: %v", base, err)
	}
	sh := newShared(runDir, prog.logf("postgres"))
	defer func() {
		if err := sh.stop(); err != nil {
			prog.printf("stopping the shared PostgreSQL server: %v", err)
		}
	}()

	states := make([]*targetState, len(p.Targets))
	rep.Targets = make([]report.Target, len(p.Targets))
	for i := range p.Targets {
		tp := &p.Targets[i]
		rep.Targets[i] = report.Target{
			Name: tp.Name, Adapter: tp.Adapter.Info().Name, Options: tp.Options.Redacted(),
			Optional: tp.Optional, Slowdown: tp.Slowdown, Status: report.StatusOK, Instances: []report.Instance{},
		}
		states[i] = &targetState{plan: tp, rep: &rep.Targets[i], slow: newSlowdown(tp.Slowdown)}
	}

	prog.start(p)
	var results []*resultAcc // in the order the workloads ran
	r.partial = func(runErr *RunError) *report.Report { return complete(p, rep, results, runErr, ctx.Err() != nil) }
	runErr := &RunError{}
	for _, size := range p.Sizes {
		if runErr.Err = r.runSize(ctx, size, runDir, sh, states, &results, prog, runErr); runErr.Err != nil {
			break
		}
	}

	final := complete(p, rep, results, runErr, ctx.Err() != nil)
	if runErr.Err != nil || len(runErr.Cleanup) > 0 {
		return final, runErr
	}
	prog.finish()
	return final, nil
}

// complete returns the report of the results so far: base with the results, the targets' statuses,
// the assertions and the verdict, and, when the run stopped early or could not clean up, its errors.
// It changes neither base nor the results, so it can be called again as the run goes on.
func complete(p *config.Plan, base *report.Report, results []*resultAcc, runErr *RunError, interrupted bool) *report.Report {
	rep := *base
	rep.Results = make([]report.Result, 0, len(results))
	for _, acc := range results {
		rep.Results = append(rep.Results, acc.finish())
	}
	rep.Targets = append([]report.Target(nil), base.Targets...)
	for i := range rep.Targets {
		t := &rep.Targets[i]
		markSkipped(t)
		if t.Status == report.StatusOK && anyFailed(rep.Results, t.Name) {
			t.Status = report.StatusFailed
			t.Reason = "a workload failed; see its result"
		}
	}
	rep.Assertions = []report.Assertion{}
	for _, a := range p.Assertions {
		rep.Assertions = append(rep.Assertions, a.Evaluate(&rep, p.Relax)...)
	}
	rep.Verdict = Verdict(&rep)
	rep.Run.FinishedAt = time.Now().UTC()
	rep.Run.PeakRSSBytes = report.PeakRSS()
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

// errInterrupted is the error of a run stopped by Ctrl-C, SIGTERM or SIGHUP.
var errInterrupted = exitcode.Infraf("interrupted: stopped the run")

// RunError is a run that stopped early or could not clean up after itself: the first failure, then
// every cleanup failure after it, so that neither hides the other. Its exit code is the first
// failure's.
type RunError struct {
	Err     error   // what stopped the run; nil when only cleaning up failed
	Cleanup []error // closing targets, dropping what they created
}

func (e *RunError) Error() string {
	var parts []string
	for _, x := range e.Unwrap() {
		parts = append(parts, x.Error())
	}
	msg := strings.Join(parts, "; then cleaning up: ")
	if e.Err == nil {
		msg = "cleaning up: " + msg
	}
	return msg
}

// Unwrap returns the first failure, then the cleanup failures, in that order.
func (e *RunError) Unwrap() []error {
	var out []error
	if e.Err != nil {
		out = append(out, e.Err)
	}
	return append(out, e.Cleanup...)
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

// runSize opens, loads and measures every target at one dataset size, then closes them.
func (r *Runner) runSize(ctx context.Context, size int, runDir string, sh *shared, states []*targetState, results *[]*resultAcc, prog *tracker, runErr *RunError) (err error) {
	p := r.Plan
	prog.sizeStart(size)
	ds, err := dataset.Generate(size, p.Seed)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	defer func() {
		prog.closing()
		if ctx.Err() != nil && r.Interrupted != nil && r.partial != nil {
			// The results so far go out before the targets are closed: closing them on a stalled
			// server may outlast the time Ctrl-C allows.
			r.Interrupted(r.partial(&RunError{Err: errInterrupted}))
		}
		for _, s := range states {
			if s.inst != nil {
				if cerr := s.inst.Close(); cerr != nil {
					runErr.Cleanup = append(runErr.Cleanup, exitcode.AsInfra(fmt.Errorf("close %s: %w", s.plan.Name, cerr)))
				}
				s.inst = nil
			}
			if s.cancel != nil {
				s.cancel(nil)
				s.ctx, s.cancel = nil, nil
			}
			if s.dir != "" {
				os.RemoveAll(s.dir)
				s.dir = ""
			}
		}
		if ctx.Err() != nil {
			err = errInterrupted
		}
	}()

	r.pace = nil
	if r.rewarming() {
		r.pace = newGCPace()
	}
	for _, s := range states {
		if err := r.step("load %d", size); err != nil {
			return err
		}
		if s.stalled != nil {
			s.rep.Instances = append(s.rep.Instances, report.Instance{Size: size, Skipped: "not run: the target stalled at an earlier size"})
			prog.skipped(s.plan.Name)
			continue
		}
		s.ctx, s.cancel = context.WithCancelCause(ctx)
		if err := r.open(ctx, s, size, runDir, sh, ds, prog); err != nil {
			return err
		}
		r.pace.opened(s)
	}

	for _, w := range p.Workloads {
		if err := r.runWorkload(ctx, w, size, ds, states, results, prog); err != nil {
			return err
		}
	}
	for _, s := range states {
		if s.inst != nil && s.stalled == nil && len(s.rep.Instances) > 0 {
			s.rep.Instances[len(s.rep.Instances)-1].Info = s.inst.Info()
		}
	}
	return nil
}

// open opens and loads one target. A missing-infrastructure error skips an optional target; any other
// failure stops the run.
func (r *Runner) open(ctx context.Context, s *targetState, size int, runDir string, sh *shared, ds *dataset.Persons, prog *tracker) error {
	prog.loading(s.plan.Name)
	dir, err := os.MkdirTemp(runDir, sanitize(s.plan.Name)+"-")
	if err != nil {
		return exitcode.Infraf("cannot create a temporary directory: %v", err)
	}
	s.dir = dir
	env := adapters.Env{
		TempDir: dir,
		Logf:    prog.logf(s.plan.Name),
		Seed:    r.Plan.Seed,
		Size:    size,

		Workloads:   s.plan.Workloads,
		DatasetFile: sh.datasetFile(ds),
		PostgreSQL:  sh.postgreSQL,
		Progress:    func() { s.loaded.Add(1) },
	}
	if sec := r.Plan.Secrets; sec != nil {
		env.Secret = sec.AddSecret
	}
	inst, err := s.plan.Adapter.Open(s.ctx, s.plan.Options, env)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, adapters.ErrUnavailable) && s.plan.Optional {
			s.rep.Instances = append(s.rep.Instances, report.Instance{Size: size, Skipped: err.Error()})
			prog.printf("skipping optional target %s at size %d: %v", s.plan.Name, size, err)
			prog.skipped(s.plan.Name)
			return nil
		}
		return exitcode.AsInfra(fmt.Errorf("target %s: %w", s.plan.Name, err))
	}
	s.inst = inst
	prog.printf("loading %d persons into %s", size, s.plan.Name)
	start := time.Now()
	// A load over a network reports progress; once it has, a load that stops reporting for
	// stall_timeout is given up (stall.go). The watchdog has exited once stop returns.
	stop := watchLoad(r.stallLimit(), &s.loaded, s.cancel)
	err = inst.Load(s.ctx, ds)
	stop()
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if se := stallOf(s.ctx); se != nil {
		s.stalled = se
		return exitcode.AsInfra(fmt.Errorf("target %s: load %d persons: %w", s.plan.Name, size, se))
	}
	if err != nil {
		return exitcode.AsInfra(fmt.Errorf("target %s: load %d persons: %w", s.plan.Name, size, err))
	}
	d := time.Since(start)
	s.rep.Instances = append(s.rep.Instances, report.Instance{
		Size: size, LoadNs: d.Nanoseconds(), LoadRowsS: float64(size) / d.Seconds(),
	})
	prog.loaded(s.plan.Name, size, d)
	return nil
}

func sanitize(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// runWorkload runs one workload on every target that has it: preparation, warm-up, then the repeats
// interleaved across targets, then the cross-target checks.
func (r *Runner) runWorkload(ctx context.Context, w config.WorkloadPlan, size int, ds *dataset.Persons, states []*targetState, results *[]*resultAcc, prog *tracker) error {
	p := r.Plan
	rows, ops, readers := w.Params(size)
	run := workloads.Resolve(w.Name, rows, ops, readers, ds, p.Seed)
	params := run.ReportParams()

	type active struct {
		s    *targetState
		exec *execution
		acc  *resultAcc
	}
	var act []active
	for _, s := range states {
		if s.inst == nil || s.stalled != nil || !s.plan.Runs(w.Name) {
			continue
		}
		key := resultKey{s.plan.Name, w.Name, size}
		acc := newResultAcc(key, workloads.Unit(w.Name, w.Custom), params)
		*results = append(*results, acc)
		acc.verification = run.Expect(scansInKeyOrder(s.inst), w.CrossCheck)
		ex := &execution{w: run, target: s.inst, slowdown: s.slow}
		if tc, ok := s.inst.(adapters.TimedCustomRunner); ok && w.Custom {
			ex.timed, ex.params = tc, s.plan.Params[w.Name].Values()
		} else if w.Custom {
			cr, ok := s.inst.(adapters.CustomRunner)
			if !ok {
				acc.fail(fmt.Errorf("adapter has no runner for workload %s", w.Name))
				continue
			}
			stop := watchStall(r.stallLimit(), &ex.done, s.cancel)
			op, err := cr.PrepareWorkload(s.ctx, w.Name, s.plan.Params[w.Name])
			stop()
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if r.stalled(s, acc) {
					continue
				}
				if exitcode.Of(err) == exitcode.Usage {
					return fmt.Errorf("target %s, workload %s: %w", s.plan.Name, w.Name, err)
				}
				acc.fail(fmt.Errorf("prepare: %w", err))
				continue
			}
			ex.op = op
			defer closeOp(op)
		}
		act = append(act, active{s, ex, acc})
	}
	if len(act) == 0 {
		return nil
	}

	total := p.Warmup + p.Repeats
	rewarm := r.rewarming()
	// conclude takes one target's outcome of one repeat (timed or warm-up) into its result.
	conclude := func(a active, rep int, warm bool, m *measurement, err error) {
		if r.stalled(a.s, a.acc) {
			return
		}
		if err != nil {
			if m != nil && !warm {
				a.acc.add(rep-p.Warmup, m)
			}
			a.acc.fail(err)
			return
		}
		if verr := a.acc.verify(m, run); verr != nil {
			a.acc.fail(verr)
			return
		}
		if !warm {
			a.acc.add(rep-p.Warmup, m)
		}
	}
	// rewarmFailed fails a target's result after its re-warm before repeat rep failed; it returns
	// the run's error when the run was cancelled.
	rewarmFailed := func(a active, rep int, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !r.stalled(a.s, a.acc) {
			a.acc.fail(fmt.Errorf("re-warm before repeat %d: %w", rep-p.Warmup+1, err))
		}
		return nil
	}
	// prepare starts a target's turn in repeat rep and, when timed repeats are re-warmed, re-warms
	// it; false: the target is out of this workload (its result failed).
	prepare := func(a active, rep int, warm bool) (bool, error) {
		prog.target(a.s.plan.Name)
		if err := r.step("%s %d %d", w.Name, size, rep); err != nil {
			return false, err
		}
		if !rewarm || warm {
			return true, nil
		}
		stop := watchStall(r.stallLimit(), &a.exec.done, a.s.cancel)
		restore := r.pace.apply(a.s)
		err := r.rewarm(a.s.ctx, a.exec, a.acc, run)
		restore()
		stop()
		if err != nil {
			return false, rewarmFailed(a, rep, err)
		}
		return true, nil
	}
	// alone runs one target's whole repeat.
	alone := func(a active, rep int, warm bool) error {
		prog.target(a.s.plan.Name)
		if err := r.step("%s %d %d", w.Name, size, rep); err != nil {
			return err
		}
		stop := watchStall(r.stallLimit(), &a.exec.done, a.s.cancel)
		restore := func() {}
		if rewarm && !warm {
			restore = r.pace.apply(a.s)
			if err := r.rewarm(a.s.ctx, a.exec, a.acc, run); err != nil {
				restore()
				stop()
				return rewarmFailed(a, rep, err)
			}
		}
		m, err := r.measure(a.s.ctx, a.exec, !warm, fmt.Sprintf("%s/%s/%d/%d", a.s.plan.Name, w.Name, size, rep))
		restore()
		stop()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		conclude(a, rep, warm, m, err)
		return nil
	}
	// jointly runs one repeat of several targets that the engine times per operation, alternating
	// their operations (interleave: ops): op 0 of each, then op 1, ..., the targets in a seeded shuffled
	// order for each operation (a fixed order let the first target pay for the previous one's work).
	// Each is timed exactly as alone; a target whose loop ends early stops stepping, the others go on. The stall
	// watchdog watches the operations of all of them and, when none finishes in time, cancels the
	// target whose operation is running.
	jointly := func(group []active, rep int, warm bool) error {
		var live []active
		for _, a := range group {
			ok, err := prepare(a, rep, warm)
			if err != nil {
				return err
			}
			if ok {
				live = append(live, a)
			}
		}
		if len(live) == 0 {
			return nil
		}
		var (
			done atomic.Int64
			cur  atomic.Int32
		)
		steppers := make([]*opStepper, len(live))
		n := 0
		for k, a := range live {
			steppers[k] = a.exec.stepper(a.s.ctx, &done)
			n = max(n, steppers[k].n)
		}
		stop := watchStall(r.stallLimit(), &done, func(cause error) { live[cur.Load()].s.cancel(cause) })
		going := slices.Repeat([]bool{true}, len(live))
		// The targets take their turns in a fresh shuffled order for each operation (seeded: the
		// same in every run): in config order, the first target of each round ran right after the
		// last one's (another backend's work) and paid for it, while the next found the
		// CPU warm from the same query on its neighbour (depth 20 at 0.36-0.97 of depth 1).
		rng := rand.New(rand.NewPCG(uint64(workloads.Seed(p.Seed, w.Name)), uint64(rep)))
		order := make([]int, len(live))
		for i := 0; i < n; i++ {
			for k := range order {
				order[k] = k
			}
			rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
			for _, k := range order {
				st := steppers[k]
				if !going[k] || i >= st.n {
					continue
				}
				cur.Store(int32(k))
				going[k] = st.step(i)
			}
		}
		stop()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		for k, a := range live {
			a.exec.done.Add(1)
			m, err := steppers[k].finish()
			conclude(a, rep, warm, m, err)
		}
		return nil
	}
	byOp := interleave(p) == config.InterleaveOps
	for rep := 0; rep < total; rep++ {
		warm := rep < p.Warmup
		prog.step(w.Name, size, rep, p.Warmup, p.Repeats)
		var group []active // the targets whose operations alternate (interleave: ops)
		if byOp {
			for _, a := range act {
				if !a.acc.failed() && a.exec.stepper(a.s.ctx, &a.exec.done) != nil {
					group = append(group, a)
				}
			}
		}
		for _, a := range act {
			if a.acc.failed() {
				continue
			}
			if slices.ContainsFunc(group, func(g active) bool { return g.exec == a.exec }) {
				if a.exec == group[0].exec { // the group runs where its first target would
					if err := jointly(group, rep, warm); err != nil {
						return err
					}
				}
				continue
			}
			if err := alone(a, rep, warm); err != nil {
				return err
			}
		}
	}
	var accs []*resultAcc
	for _, a := range act {
		if d, ok := a.exec.op.(adapters.Describer); ok && a.exec.op != nil {
			a.acc.describe(d.Info())
		}
		accs = append(accs, a.acc)
	}
	if w.CrossCheck {
		crossCheck(accs)
	}
	prog.done(w.Name, size, accs)
	return nil
}

// stalled reports whether the target's context was cancelled because it stalled; if so the
// workload's result fails with the StallError, and the target is marked to run nothing more.
func (r *Runner) stalled(s *targetState, acc *resultAcc) bool {
	se := stallOf(s.ctx)
	if se == nil {
		return false
	}
	acc.fail(se)
	if s.stalled == nil {
		s.stalled = se
		s.rep.Status = report.StatusFailed
		s.rep.Reason = se.Error() + "; its remaining workloads were not run"
	}
	return true
}

// measure runs one execution; a timed one under instruction counting has its instructions counted.
// The GC first keeps collection work (deterministic in amount, not in timing) out of the count.
func (r *Runner) measure(ctx context.Context, ex *execution, timed bool, name string) (*measurement, error) {
	if r.Instructions == nil || !timed {
		return ex.run(ctx)
	}
	runtime.GC()
	var (
		m   *measurement
		err error
	)
	n, cerr := r.Instructions.Count(name, func() { m, err = ex.run(ctx) })
	if err == nil && cerr != nil {
		err = fmt.Errorf("count instructions: %w", cerr)
	}
	if m != nil {
		m.instructions = n
	}
	return m, err
}

// interleave is the plan's interleaving ("" from a plan built in code means per repeat).
func interleave(p *config.Plan) string {
	if p.Interleave == "" {
		return config.InterleaveRepeats
	}
	return p.Interleave
}

// runOrder is the report's run.order: how the targets alternate.
func runOrder(p *config.Plan) string {
	if interleave(p) == config.InterleaveOps {
		return "interleaved per operation where the engine times each operation (lookup and adapter workloads: op 0 of every target, then op 1, ..., the targets in a seeded shuffled order for each operation), else per repeat (ABAB, targets in config order, each repeat)"
	}
	return "interleaved ABAB (targets in config order, each repeat)"
}

// isolation is the plan's isolation mode ("" from a plan built in code means none).
func isolation(p *config.Plan) string {
	if p.Isolation == "" {
		return config.IsolationNone
	}
	return p.Isolation
}

// rewarm makes a target's next timed repeat independent of the targets that ran just before it. The
// targets share the CPU caches and the TLB (and, in one process, the Go heap): a target measured
// right after others finds its data evicted by theirs, and may pay for their garbage: a GC cycle,
// and the runtime handing freed memory back to the OS in the background (with a plain runtime.GC
// lmdb-c's lookups stayed about 20% slower beside lmdb-go-copy).
// So the garbage is collected and returned to the OS first, then the same workload runs untimed (and
// verified, like a warm-up) on the same target, Plan.Rewarm times (config.DefaultRewarm: once is
// not enough for the cache to keep a scan's data), leaving the state its previous timed repeats would
// have left had it run alone. Around the re-warm and the timed repeat the GC is paced as the target
// alone would pace it (gcPace), so that its neighbours' live heaps do not make its collections rarer.
func (r *Runner) rewarm(ctx context.Context, ex *execution, acc *resultAcc, run workloads.Run) error {
	debug.FreeOSMemory()
	for i := 0; i < max(r.Plan.Rewarm, 1); i++ {
		m, err := ex.run(ctx)
		if err != nil {
			return err
		}
		if err := acc.verify(m, run); err != nil {
			return err
		}
	}
	return nil
}

// rewarming says whether timed repeats are re-warmed: isolation rewarm, or a worker of isolation
// process.
func (r *Runner) rewarming() bool {
	return isolation(r.Plan) == config.IsolationRewarm || r.Step != nil
}

// rewarmRuns is the plan's untimed runs before each timed repeat, 0 without re-warming.
func rewarmRuns(p *config.Plan) int {
	if i := isolation(p); i != config.IsolationRewarm && i != config.IsolationProcess {
		return 0
	}
	return max(p.Rewarm, 1)
}

func closeOp(op adapters.Op) {
	if c, ok := op.(io.Closer); ok {
		c.Close()
	}
}

// scansInKeyOrder says whether the target scans in key (email) order, so that a partial scan has a
// known checksum.
func scansInKeyOrder(t adapters.Target) bool {
	if o, ok := t.(adapters.OrderedScanner); ok {
		return o.ScansInKeyOrder()
	}
	return false
}

// sortedKeys returns map keys in order, for deterministic output.
func sortedKeys(m map[string]any) []string {
	k := make([]string, 0, len(m))
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return k
}

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
	"maps"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/callgrind"
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
	// Spawn returns the command of a worker process (worker.go): this dbbench running one target of
	// the plan (isolation: process) or one run of it (more than one run), writing its report to
	// spec.Out. It must be made with exec.CommandContext(ctx, ...); stdin, stdout, stderr and the
	// cancellation are left to the engine.
	Spawn func(ctx context.Context, spec WorkerSpec) *exec.Cmd
	// Step, in a worker process, announces each step to the parent and waits for its go-ahead.
	Step func(step string) error
	// RunIndex, in a run worker, is the index of the run it measures (0: run 1); its report's repeats
	// carry it.
	RunIndex int
	// Interrupted, if set, receives the report of an interrupted run (every result measured so far,
	// marked interrupted) as soon as the run stops, before its targets are closed: cleaning up after a
	// stalled server may take longer than Ctrl-C allows, and the results must not wait for it. Run
	// still returns the final report, cleanup errors included, if cleaning up finishes.
	Interrupted func(*report.Report)
	// Clock is the progress's clock, for its elapsed time and ETA (nil: time.Now); measurements
	// always use the real one.
	Clock func() time.Time
	// HlogPath, when set, is where the run's interval log (.hlog) of its YCSB run phases goes
	// (made, or replaced, at the first run phase measured); results name it in Load.Hlog.
	HlogPath  string
	hlog      *hlogFile
	hlogParts []string // the interval logs of worker processes, merged at the end (mergeHlogs)

	// observeETA, in tests, sees every estimate of the time left.
	observeETA func(p *tracker, left time.Duration, ok bool)
	pace       *gcPace // the current dataset size's GC pacing per target; nil without re-warming
	// clockNs is what one phase boundary costs, measured once at the start of a profiled run.
	clockNs float64
	// runOne makes one run of several (runs.go): spawnRun, or a fake in tests.
	runOne func(ctx context.Context, spec RunSpec) (*report.Report, error)
	// runsDir is where the run workers write their reports.
	runsDir string
	// partial builds the report of the results so far (set by Run).
	partial func(runErr *RunError) *report.Report
	// shardStarted is when a shard began its first timed operation (shard.go); shardNotes where its
	// share differs from a plain stripe.
	shardStarted time.Time
	shardNotes   []string
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
	// usesServer is set once the target asked for the run's PostgreSQL server (Env.PostgreSQL):
	// memory figures then include the server's processes.
	usesServer atomic.Bool
	// server returns the run's server's main process (0: none readable).
	server func() int
}

// servers are the processes of the run's PostgreSQL server when the target uses it: their memory
// is measured with the target's (memory: true). Nil when it does not, or they cannot be read.
func (s *targetState) servers() []adapters.Process {
	if s.server == nil || !s.usesServer.Load() {
		return nil
	}
	if pid := s.server(); pid > 0 {
		return []adapters.Process{{Role: adapters.RoleServer, PID: pid}}
	}
	return nil
}

// resultKey identifies one result.
type resultKey struct {
	target, workload string
	size             int
}

// Run executes the plan (normalized first: config.Plan.Normalize, so that a plan built in code runs
// with the config's defaults). It returns the report with every result, failed ones included. When
// the run could not go on (a required target that cannot be opened, a usage error found late,
// cancellation) or could not clean up, it also returns a *RunError, and the report holds what was
// measured until then, with the verdict "error" and the errors in run.errors.
func (r *Runner) Run(ctx context.Context) (*report.Report, error) {
	p := r.Plan.Normalize()
	if p.Verdict.Runs > 1 && r.Step == nil && r.RunIndex == 0 {
		return r.runMany(ctx)
	}
	if p.Isolation == config.IsolationProcess {
		if r.Spawn == nil {
			return nil, exitcode.Usagef("isolation: process needs a dbbench binary to start workers (use dbbench run)")
		}
		return r.runProcesses(ctx)
	}
	if r.Instructions != nil && p.Interleave == config.InterleaveOps {
		return nil, exitcode.Usagef("--instructions counts each target's repeat on its own: it does not combine with interleave: ops")
	}
	if r.Instructions != nil && p.Profile {
		return nil, exitcode.Usagef("--instructions counts every instruction of the timed operations, the profile's clock reads too: it does not combine with --profile or profile: true")
	}
	prog := newTracker(r.Events, r.Clock)
	prog.observe = r.observeETA
	head := r.header()
	head.Run.Harness = calibrate() // this process measures: its own loop's cost
	if p.Profile {
		r.clockNs = clockCost()
	}
	runDir, removeRunDir, err := r.makeRunDir(prog)
	if err != nil {
		return nil, err
	}
	defer removeRunDir()
	sh := newShared(runDir, prog.logf("postgres"))
	defer func() {
		if err := sh.stop(); err != nil {
			prog.printf("stopping the shared PostgreSQL server: %v", err)
		}
	}()

	states, targets := newTargetStates(p)
	prog.start(p)
	var results []*resultAcc // in the order the workloads ran
	r.partial = func(runErr *RunError) *report.Report {
		return r.complete(head, measured{targets: targets, results: finishAll(results, r.RunIndex), peakRSS: report.PeakRSS()}, runErr, ctx.Err() != nil)
	}
	runErr := &RunError{}
	for _, size := range p.Sizes {
		if runErr.Err = r.runSize(ctx, size, runDir, sh, states, &results, prog, runErr); runErr.Err != nil {
			break
		}
	}

	if err := r.closeHlog(); err != nil {
		runErr.Cleanup = append(runErr.Cleanup, exitcode.AsInfra(fmt.Errorf("interval log: %w", err)))
	}
	final := r.partial(runErr)
	if runErr.Err != nil || len(runErr.Cleanup) > 0 {
		return final, runErr
	}
	prog.finish()
	return final, nil
}

// tempBase is where the run's temporary directories go.
func (r *Runner) tempBase() string {
	if r.TempDir != "" {
		return r.TempDir
	}
	return os.TempDir()
}

// makeRunDir makes the run's temporary directory, marked with its owner, after removing those of
// runs that died (SIGKILL, a crash), and only those; remove removes it.
func (r *Runner) makeRunDir(prog *tracker) (dir string, remove func(), err error) {
	return r.markedTempDir(prog, runDirPrefix)
}

// newTargetStates gives every target of the plan its state through the run and its entry in the
// report (states[i].rep points into targets).
func newTargetStates(p *config.Plan) ([]*targetState, []report.Target) {
	states := make([]*targetState, len(p.Targets))
	targets := make([]report.Target, len(p.Targets))
	for i := range p.Targets {
		tp := &p.Targets[i]
		targets[i] = report.Target{
			Name: tp.Name, Adapter: tp.Adapter.Info().Name, Options: tp.Options.Redacted(),
			Optional: tp.Optional, Slowdown: tp.Slowdown, Status: report.StatusOK, Instances: []report.Instance{},
		}
		states[i] = &targetState{plan: tp, rep: &targets[i], slow: newSlowdown(tp.Slowdown)}
	}
	return states, targets
}

// finishAll turns the results accumulated so far into the report's, leaving them to accumulate. run
// is the run a run worker measures (0: not a run worker), for warnings that differ between runs.
func finishAll(accs []*resultAcc, run int) []report.Result {
	out := make([]report.Result, 0, len(accs))
	for _, acc := range accs {
		out = append(out, acc.finish(run))
	}
	return out
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

// runSize opens, loads and measures every target at one dataset size, then closes them.
func (r *Runner) runSize(ctx context.Context, size int, runDir string, sh *shared, states []*targetState, results *[]*resultAcc, prog *tracker, runErr *RunError) (err error) {
	p := r.Plan
	prog.sizeStart(size)
	var ds *dataset.Persons // nil when only YCSB and sql workloads run: they make tables of their own
	if !onlyLoadModel(p.Workloads) {
		var err error
		if ds, err = dataset.GenerateSalted(size, p.Seed, p.Salt); err != nil {
			return exitcode.Usagef("%v", err)
		}
	}
	defer func() {
		prog.closing()
		if ctx.Err() != nil && r.Interrupted != nil && r.partial != nil {
			// The results so far go out before the targets are closed: closing them on a stalled
			// server may outlast the time Ctrl-C allows.
			r.Interrupted(r.partial(&RunError{Err: errInterrupted}))
		}
		closeTargets(states, runErr)
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
		if s.inst != nil {
			if err := r.checkRecordOps(s); err != nil {
				return err
			}
		}
		r.pace.opened(s)
	}

	for _, w := range p.Workloads {
		run := r.runWorkload
		switch {
		case w.YCSB:
			run = func(ctx context.Context, w config.WorkloadPlan, size int, _ *dataset.Persons, states []*targetState, results *[]*resultAcc, prog *tracker) error {
				return r.runYCSB(ctx, w, size, states, results, prog)
			}
		case w.SQL != nil:
			run = func(ctx context.Context, w config.WorkloadPlan, size int, _ *dataset.Persons, states []*targetState, results *[]*resultAcc, prog *tracker) error {
				return r.runSQL(ctx, w, size, states, results, prog)
			}
		}
		if err := run(ctx, w, size, ds, states, results, prog); err != nil {
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

// closeTargets closes the targets opened for a dataset size and removes their directories; what
// cannot be closed goes into runErr.Cleanup.
func closeTargets(states []*targetState, runErr *RunError) {
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
	s.server = sh.serverPID
	env := adapters.Env{
		TempDir: dir,
		Logf:    prog.logf(s.plan.Name),
		Seed:    r.Plan.Seed,
		Size:    size,

		Workloads:   s.plan.Workloads,
		DatasetFile: sh.datasetFile(ds),
		PostgreSQL:  sh.postgreSQLFor(&s.usesServer),
		Progress:    func() { s.loaded.Add(1) },
		Store:       r.storeUse(s.plan),
		Profile:     r.Plan.Profile,
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
	if env.Store == adapters.StoreAttach {
		r.note(fmt.Sprintf("target %s: works on the store loaded once by --load-only, which it checked instead of loading", s.plan.Name))
	}
	if !r.loadsPersons(s) {
		// Its workloads are all YCSB's, which load records of their own (the load phase), and sql
		// workloads, whose setup makes their tables.
		s.rep.Instances = append(s.rep.Instances, report.Instance{Size: size})
		return nil
	}
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
// A timed one of a profiled run lends its target a phase recorder, around the memory samples too
// (the recorder is made before the first: it is not the target's memory). Around all of it, what the
// work read from storage is sampled (storage.go).
func (r *Runner) measure(ctx context.Context, ex *execution, timed bool, name string) (*measurement, error) {
	if !timed {
		return r.count(ctx, ex, false, name)
	}
	readSince := watchStorage(ex.target, ex.servers)
	prof := r.startProfile(ex)
	var (
		m   *measurement
		err error
	)
	if r.Plan.Memory {
		m, err = r.measureMemory(ctx, ex, name)
	} else {
		m, err = r.count(ctx, ex, true, name)
	}
	prof.stop(m, r.clockNs)
	if m != nil {
		m.storageRead = readSince()
	}
	return m, err
}

// measureMemory runs a timed execution between two memory samples (memory: true), each after a
// forced GC, outside the timed operations; the measurement carries the repeat's memory figures. The
// measurement the run fills is made before the first sample: its histograms are live at both, and
// allocated before either, so they count neither as allocated nor as retained.
func (r *Runner) measureMemory(ctx context.Context, ex *execution, name string) (*measurement, error) {
	ex.ahead = newMeasurement()
	before := sampleMemory(ex.target, ex.servers)
	m, err := r.count(ctx, ex, true, name)
	ex.ahead = nil // a run that made no measurement (refused before it started) leaves it
	if m != nil {
		m.memory = memoryFigures(before, sampleMemory(ex.target, ex.servers), m.ops)
	}
	return m, err
}

// count runs one execution, counting a timed one's instructions under instruction counting.
func (r *Runner) count(ctx context.Context, ex *execution, timed bool, name string) (*measurement, error) {
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
	for i := 0; i < r.Plan.Rewarm; i++ {
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
	return r.Plan.Isolation == config.IsolationRewarm || r.Step != nil
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
	return slices.Sorted(maps.Keys(m))
}

// onlyLoadModel reports whether every workload is a YCSB or a sql workload (no persons dataset
// needed).
func onlyLoadModel(ws []config.WorkloadPlan) bool {
	for _, w := range ws {
		if !w.LoadModel() {
			return false
		}
	}
	return true
}

// loadsPersons reports whether a target runs a workload on the persons dataset.
func (r *Runner) loadsPersons(s *targetState) bool {
	for _, w := range r.Plan.Workloads {
		if !w.LoadModel() && s.plan.Runs(w.Name) {
			return true
		}
	}
	return false
}

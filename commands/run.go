package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/configs"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/engine"
	"github.com/dbbench/dbbench/internal/buildinfo"
	"github.com/dbbench/dbbench/internal/callgrind"
	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/redact"
	"github.com/dbbench/dbbench/internal/term"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render"
)

// RunOptions are the flags of `dbbench run`.
type RunOptions struct {
	f      *Factory
	Config string
	CI     bool
	Out    string
	Quiet  bool
	Force  bool
	Args   []string
	// Targets narrows the run to these targets (empty: all).
	Targets []string
	// Isolation overrides the config's isolation mode ("": the config's).
	Isolation string
	// Instructions counts instructions per operation under valgrind's callgrind.
	Instructions bool
	// Memory measures memory per operation around every timed repeat (docs/memory.md).
	Memory bool
	// Profile splits every timed operation into the phases its target can see (docs/profile.md).
	Profile bool
	// Worker runs one target as a worker process of a run with isolation: process (hidden).
	Worker string
	// Runs is how many runs to make before the first look at the verdicts (0: the config's).
	Runs int
	// Budget is the most time the whole run may take (0: the config's).
	Budget time.Duration
	// RunWorker makes this process run K of several, writing its report to --out (hidden);
	// RunWorkloads narrows it to those workloads.
	RunWorker    int
	RunWorkloads []string
	// Salt is the dataset salt a worker process gets from its run (hidden; 0: draw one).
	Salt uint64
	// Slowdowns inject extra work into targets (NAME=FRACTION), as a target's slowdown: key does,
	// to check that a verdict or gate catches a regression of that size.
	Slowdowns []string
	// Rate and Duration make the YCSB workloads an open loop at Rate ops/s for Duration (0: the
	// config's load: section).
	Rate     float64
	Duration time.Duration
	Precise  bool // the open loop's precise mode (load: precise)
	// Shard (I/N), Shards (N, the index from $JOB_COMPLETION_INDEX) and StartAt make this run one
	// shard of several (docs/shards.md); shard is what they resolve to.
	Shard   string
	Shards  int
	StartAt string
	shard   *config.ShardPlan
	// LoadOnly loads the stores on servers the user gives, once, and writes the marker Loaded, which
	// the shards that share them check (docs/shards.md, "One store on a server").
	LoadOnly bool
	Loaded   string
}

// DefaultReportDir is where reports go when --out is not given.
const DefaultReportDir = "reports"

// NewRunCmd builds `dbbench run`. runF replaces the run function in tests of flag parsing.
func NewRunCmd(f *Factory, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{f: f}
	cmd := &cobra.Command{
		Use:   "run [-c CONFIG] [--ci] [--out FILE]",
		Short: "Run a benchmark config and decide its assertions",
		Long: `Run loads the dataset into every target of the config, runs each workload with warm-up and
interleaved repeats, verifies row counts and checksums, prints a summary and the assertions, and
writes the JSON report (by default to a new file reports/<config>-<time>.json). The report path is
reserved when the run starts: it holds a small reservation record (run, host, pid, time) until the
report replaces it. --out writes a new file, takes over the reservation of a run that is gone from
this host (saying so), or, with --force, replaces an earlier dbbench report or any run's
reservation; it never replaces anything else (a device, a symbolic link, the config).

Without -c it runs the built-in default config (LMDB through lmdb-go against the same work in C:
no server needed). -c takes a file path or the name of a built-in config (see 'dbbench list').
--ci uses the config's ci: section: reduced sizes and every threshold relaxed.
--targets runs only the named targets (assertions naming others are left out, and said so), to see a
target's figures without its neighbours. --isolation overrides the config's isolation: none, rewarm
(a GC and an untimed run of the workload before each timed repeat of a target), or process (rewarm,
and every target in a worker process of its own, run one step at a time in the same order).
--instructions also counts the instructions of every timed repeat with valgrind's callgrind
(figures instr_per_op and instr_per_row, beside the times): deterministic, so a shared machine's
noise disappears. dbbench restarts itself under valgrind (50-100x slower: use a small config); it
needs a build with -tags callgrind and valgrind installed. Only this process is counted: the work of
a server in another process (PostgreSQL, TypeDB) is not.
--memory (or memory: true in the config) also measures memory per operation around every timed
repeat, after a forced GC and outside the timed operations: Go heap allocated and retained, C malloc
retained, resident set growth and peak of dbbench or of an exec client (docs/memory.md).
--profile (or profile: true) also splits every timed operation into the phases its target can see
(send, wait, drain, decode; txn, execute, fetch, scan; get, copy; query, page), as figures
phase_NAME_ns and phase_NAME_share beside the totals, with phase_other_ns (what no phase covers) and
profile_overhead_ns (what the profile's clock reads cost per operation) (docs/profile.md).

Verdicts are decided over runs, each a fresh worker process with fresh stores (--runs, default 3, or
the config's verdict: section): an assertion passes when the interval over the runs' values lies on
the passing side of its threshold and fails when it lies on the failing side; while one straddles
it and the budget allows (--budget caps the whole run), more runs of just the workloads it reads
are taken, up to 4 looks. --runs 1 is one run and a point verdict. See docs/verdicts.md.

Exit codes: 0 every verdict holds; 1 an assertion failed; 2 usage or config error; 3 database or
infrastructure error, or an assertion with nothing to decide on (a missing figure, a zero
denominator), or Ctrl-C (the run stops, removes its stores, and the report keeps what was measured
until then); 4 inconclusive: some assertion undecided within the budget, none failed; 5 generator
saturated: an open-loop run's own generator could not keep its schedule (its figures say nothing of
the target).

--rate R and --duration D run the YCSB workloads (-c ycsb-a ... ycsb-f) as an open loop: operations
intended at R per second for D, each timed from its intended start (response time), its actual
start (service time) and the lag between them (docs/load.md); --precise spins before each start to
keep the lag near the machine's floor, for up to a core.

--shard I/N runs share I (0-based) of N of the workload: operations I, I+N, ... of what one process
does (or --shards N with the index from $JOB_COMPLETION_INDEX, as a Kubernetes Indexed Job's pod
has it); --start-at TIME loads, then waits for TIME before the first operation. 'dbbench merge'
makes one report of the N shards' (docs/shards.md).`,
		Example: `  dbbench run
  dbbench run -c configs/lmdb.yaml
  dbbench run -c lmdb --ci --out baselines/lmdb-ci.json
  dbbench run -c configs/triplex-sqlite.yaml -q
  dbbench run -c lmdb --targets lmdb-c --isolation rewarm   # one target alone, to compare with the full run
  dbbench run -c lmdb --ci --runs 5 --budget 2m             # more runs to start with, more time to decide
  dbbench run --runs 1                                      # one quick run, a point verdict
  dbbench run -c lmdb --ci --profile                        # where each operation's time goes, phase by phase
  dbbench run -c ycsb-a --rate 2000 --duration 10s          # YCSB A as an open loop at 2,000 ops/s
  dbbench run -c ycsb-c --shard 0/4 --out shard-0.json      # share 0 of 4, for dbbench merge`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = os.Args
			if runF != nil {
				return runF(opts)
			}
			return runRun(cmd, opts)
		},
	}
	addRunFlags(cmd, opts)
	return cmd
}

// addRunFlags adds run's flags: what to run and where the report goes, the measurement's options,
// the verdict's runs, and the hidden flags of worker processes.
func addRunFlags(cmd *cobra.Command, opts *RunOptions) {
	cmd.Flags().StringVarP(&opts.Config, "config", "c", "", "config file or built-in config name (default: the built-in default)")
	cmd.Flags().BoolVar(&opts.CI, "ci", false, "use the config's CI sizes and relaxed thresholds")
	cmd.Flags().StringVarP(&opts.Out, "out", "o", "", "write the JSON report here (default reports/<config>-<time>.json)")
	cmd.Flags().BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress lines on stderr")
	_ = cmd.RegisterFlagCompletionFunc("config", completeConfig)
	cmd.Flags().BoolVar(&opts.Force, "force", false, "let --out replace an earlier dbbench report or a run's reservation (never any other file)")
	cmd.Flags().StringSliceVar(&opts.Targets, "targets", nil, "run only these targets (assertions naming others are left out)")
	cmd.Flags().StringVar(&opts.Worker, "worker", "", "run this one target as a worker process of an isolation: process run")
	_ = cmd.Flags().MarkHidden("worker")
	cmd.Flags().Uint64Var(&opts.Salt, "salt", 0, "the dataset salt of the run a worker belongs to")
	_ = cmd.Flags().MarkHidden("salt")
	cmd.Flags().BoolVar(&opts.Instructions, "instructions", false, "also count instructions per operation under valgrind's callgrind")
	cmd.Flags().BoolVar(&opts.Memory, "memory", false, "also measure memory per operation around every timed repeat (as memory: true)")
	cmd.Flags().BoolVar(&opts.Profile, "profile", false, "also split every timed operation into the phases its target can see (as profile: true)")
	cmd.Flags().IntVar(&opts.Runs, "runs", 0, fmt.Sprintf("runs before the first look at the verdicts (default: the config's verdict: runs, else %d)", config.DefaultRuns))
	cmd.Flags().DurationVar(&opts.Budget, "budget", 0, "most time the whole run may take (default: the config's, else 3x the first runs' time)")
	cmd.Flags().IntVar(&opts.RunWorker, "run-worker", 0, "make this process run K of a run of several, writing its report to --out")
	_ = cmd.Flags().MarkHidden("run-worker")
	cmd.Flags().StringSliceVar(&opts.RunWorkloads, "run-workloads", nil, "run only these workloads (a run worker's narrowed plan)")
	_ = cmd.Flags().MarkHidden("run-workloads")
	addLoadFlags(cmd, opts)
	addShardFlags(cmd, opts)
	addLoadOnceFlags(cmd, opts)
	cmd.Flags().StringVar(&opts.Isolation, "isolation", "", "override the config's isolation: "+strings.Join(config.IsolationModes, " or "))
	cmd.Flags().StringSliceVar(&opts.Slowdowns, "slowdown", nil, "inject extra work into a target: NAME=FRACTION (100% makes it 2x slower)")
}

// addLoadFlags adds --rate and --duration, the load model's overrides (config.Plan.OverrideLoad).
func addLoadFlags(cmd *cobra.Command, opts *RunOptions) {
	cmd.Flags().Float64Var(&opts.Rate, "rate", 0, "run the YCSB workloads as an open loop at `R` ops/s (overrides load: rate or stages)")
	cmd.Flags().DurationVar(&opts.Duration, "duration", 0, "run each YCSB run phase for `D`, e.g. 10s (overrides load: duration and ops)")
	cmd.Flags().BoolVar(&opts.Precise, "precise", false, "open loop: spin before each start for a start lag near the floor (up to a core; docs/load.md)")
}

func runRun(cmd *cobra.Command, opts *RunOptions) error {
	var counter *callgrind.Counter
	if opts.Instructions {
		var err error
		if counter, err = callgrind.New(); errors.Is(err, callgrind.ErrUnavailable) {
			return underCallgrind(cmd, opts)
		}
	}
	if err := checkRunFlags(opts); err != nil {
		return err
	}
	c, _, err := loadChecked(opts.f, opts.Config, opts.CI)
	if err != nil {
		return err
	}
	if err := needsCheckout(c); err != nil {
		return exitcode.AsUsage(err)
	}
	if err := narrowConfig(c, opts); err != nil {
		return err
	}
	plan, err := planRun(c, opts)
	if err != nil {
		return err
	}
	if opts.LoadOnly {
		return runLoadOnly(cmd, opts, plan)
	}
	if err := attachLoaded(opts, plan); err != nil {
		return err
	}
	res, err := reserveReport(opts, plan.Name)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	if res.Replaced != "" {
		fmt.Fprintln(opts.f.Err, "dbbench: "+res.Replaced)
	}
	defer res.Release() // the placeholder of a run that wrote no report
	defer cleanup.RegisterLocal("rm "+res.Path, res.Release)()
	return runPlan(cmd, opts, plan, res, counter)
}

// checkRunFlags refuses flag values no config can make sense of.
func checkRunFlags(opts *RunOptions) error {
	if opts.Isolation != "" && !slices.Contains(config.IsolationModes, opts.Isolation) {
		return exitcode.Usagef("--isolation %q: want one of %s", opts.Isolation, strings.Join(config.IsolationModes, ", "))
	}
	if opts.Runs < 0 || opts.Runs > config.MaxRuns {
		return exitcode.Usagef("--runs %d: want 1 to %d", opts.Runs, config.MaxRuns)
	}
	if opts.Budget < 0 {
		return exitcode.Usagef("--budget %v: want a positive duration such as 90s or 5m", opts.Budget)
	}
	if opts.Rate < 0 {
		return exitcode.Usagef("--rate %g: want %s", opts.Rate, flagForms["rate"])
	}
	if opts.Duration < 0 {
		return exitcode.Usagef("--duration %v: want a positive duration such as 10s", opts.Duration)
	}
	if opts.Instructions && opts.Runs > 1 {
		return exitcode.Usagef("--instructions makes one run (instruction counts repeat to about 0.1%% between runs): leave out --runs")
	}
	sp, err := shardPlan(opts)
	opts.shard = sp
	return err
}

// isWorker: this process is one run, or one target, of a parent dbbench run.
func (opts *RunOptions) isWorker() bool { return opts.Worker != "" || opts.RunWorker > 0 }

// narrowConfig applies the flags that change what the config runs: --isolation, what a worker
// process of a parent run measures, and --targets.
func narrowConfig(c *config.Config, opts *RunOptions) error {
	if opts.Isolation != "" {
		c.Isolation = opts.Isolation
	}
	if opts.isWorker() {
		c.Assertions, c.LeftOut = nil, nil // a worker measures; its parent decides
	}
	if len(opts.RunWorkloads) > 0 {
		if err := c.KeepWorkloads(opts.RunWorkloads); err != nil {
			return exitcode.Usagef("--run-workloads: %v", err)
		}
	}
	for _, s := range opts.Slowdowns {
		name, v, ok := strings.Cut(s, "=")
		f, okf := config.ParseFraction(v)
		if !ok || !okf || f < 0 || f > 100 {
			return exitcode.Usagef("--slowdown %q: write NAME=FRACTION, such as lmdb-go=100%% (0 to 100, i.e. up to 10000%%)", s)
		}
		if err := c.SetSlowdown(name, f); err != nil {
			return exitcode.Usagef("--slowdown: %v", err)
		}
	}
	if opts.Worker != "" {
		opts.Targets, opts.Quiet, c.Isolation = []string{opts.Worker}, true, config.IsolationRewarm
	}
	if len(opts.Targets) > 0 {
		dropped, err := c.KeepTargets(opts.Targets)
		if err != nil {
			return exitcode.Usagef("%v", err)
		}
		if len(dropped) > 0 && !opts.Quiet {
			fmt.Fprintf(opts.f.Err, "--targets: left out %s other targets\n", render.Plural(len(dropped), "assertion that names", "assertions that name"))
		}
	}
	return nil
}

// planRun resolves the config into the plan this process runs: the verdict's runs and budget from
// the flags, one run in a worker or under --instructions, and the run's salt.
func planRun(c *config.Config, opts *RunOptions) (*config.Plan, error) {
	plan, _, err := resolve(opts.f, c, opts.CI)
	if err != nil {
		return nil, err
	}
	if err := plan.OverrideLoad(opts.Rate, opts.Duration); err != nil {
		return nil, exitcode.Usagef("%v", err)
	}
	if opts.Precise {
		if err := plan.SetPrecise(); err != nil {
			return nil, exitcode.Usagef("%v", err)
		}
	}
	if opts.Runs > 0 {
		plan.Verdict.Runs = opts.Runs
	}
	if opts.Memory {
		if plan.Interleave == config.InterleaveOps {
			return nil, exitcode.Usagef("--memory measures each target's repeat on its own: it does not combine with interleave: ops (use interleave: repeats)")
		}
		plan.Memory = true
		plan.AsRun["memory"] = true
	}
	if opts.Profile {
		plan.Profile = true
		plan.AsRun["profile"] = true
		if err := plan.CheckProfile(); err != nil {
			return nil, exitcode.Usagef("--profile: %v", err)
		}
	}
	if opts.Budget > 0 {
		plan.Verdict.Budget = opts.Budget
	}
	if opts.Instructions || opts.isWorker() || opts.shard != nil {
		plan.Verdict.Runs = 1 // one run in this process: a worker is one run of its parent's, a shard one share of a merge's
	}
	plan.Shard, plan.LoadOnly = opts.shard, opts.LoadOnly
	if err := checkShardedPlan(plan); err != nil {
		return nil, err
	}
	// One salt for the whole run, shared by its worker processes (runs and isolation: process
	// targets): every target of every run sees the same dataset, and no formula over the seed alone
	// predicts it (docs/protocol.md, "The person file").
	if plan.Salt = opts.Salt; plan.Salt == 0 {
		plan.Salt = dataset.NewSalt()
	}
	if opts.Instructions && plan.Profile {
		return nil, exitcode.Usagef("--instructions counts every instruction of the timed operations, the profile's clock reads too: it does not combine with --profile or profile: true")
	}
	if opts.Instructions && plan.Interleave == config.InterleaveOps {
		return nil, exitcode.Usagef("--instructions counts each target's repeat on its own: it does not combine with interleave: ops (use interleave: repeats)")
	}
	return plan, nil
}

// runPlan runs the plan with its secrets masked in everything it prints or stores, and publishes
// the report and the summary (also on Ctrl-C, before the targets are cleaned up).
func runPlan(cmd *cobra.Command, opts *RunOptions, plan *config.Plan, res *report.Reservation, counter *callgrind.Counter) error {
	f := opts.f
	// Every secret of the config is masked in whatever the run prints or stores, including what
	// drivers put in their errors.
	sec := plan.Secrets
	for _, env := range secretEnv {
		sec.AddSecret(os.Getenv(env))
	}
	res.Redact = sec.String
	out := sec.Writer(f.Out)
	runner := &engine.Runner{Plan: plan, TempDir: f.TempDir, Instructions: counter, RunIndex: opts.RunWorker}
	if hasYCSB(plan) {
		path, err := hlogPath(res.Path, opts)
		if err != nil {
			return err
		}
		runner.HlogPath = path
	}
	if !opts.Quiet {
		runner.Events = newProgressPrinter(sec.Writer(f.Err)).print
	}
	if plan.Isolation == config.IsolationProcess || plan.Verdict.Runs > 1 {
		if err := spawnWorkers(runner, opts); err != nil {
			return err
		}
	}
	switch {
	case opts.Worker != "":
		runner.Step = engine.WorkerStep(os.Stdin, f.Out)
		out = io.Discard // stdout is the step protocol: no summary
	case opts.RunWorker > 0:
		if !opts.Quiet {
			runner.Events = engine.WorkerEvents(f.Out) // the parent shows them
		}
		out = io.Discard
	}
	fin := &finisher{opts: opts, out: out, style: render.Style{Color: term.Color(f.Out, os.Getenv)}, res: res}
	// On Ctrl-C the summary and the report of the results so far come out before the targets are
	// cleaned up: if cleaning up outlasts InterruptGrace, the report is on disk all the same.
	runner.Interrupted = func(rep *report.Report) { fin.publish(rep) }
	rep, runErr := runner.Run(cmd.Context())
	if rep == nil {
		return redactErr(runErr, sec)
	}
	return redactErr(fin.finish(rep, runErr), sec)
}

// spawnWorkers lets the runner start worker processes of this very binary: one per target with
// isolation: process (--worker), one per run when there are several (--run-worker).
func spawnWorkers(runner *engine.Runner, opts *RunOptions) error {
	if opts.Instructions {
		return exitcode.Usagef("--instructions counts one process: it does not combine with isolation: process")
	}
	command := opts.f.Worker
	if command == nil {
		self, err := os.Executable()
		if err != nil {
			return exitcode.Infraf("cannot find this executable to start worker processes: %v", err)
		}
		command = func(ctx context.Context, args []string) *exec.Cmd { return exec.CommandContext(ctx, self, args...) }
	}
	runner.Spawn = func(ctx context.Context, spec engine.WorkerSpec) *exec.Cmd {
		args := []string{"run", "--out", spec.Out, "--salt", strconv.FormatUint(runner.Plan.Salt, 10)}
		if spec.Target != "" {
			args = append(args, "-q", "--worker", spec.Target)
			if len(opts.RunWorkloads) > 0 {
				args = append(args, "--run-workloads", strings.Join(opts.RunWorkloads, ","))
			}
		} else {
			args = append(args, "--run-worker", fmt.Sprint(spec.Run),
				"--targets", strings.Join(spec.Targets, ","), "--run-workloads", strings.Join(spec.Workloads, ","))
			if opts.Quiet {
				args = append(args, "-q")
			}
			if opts.Isolation != "" {
				args = append(args, "--isolation", opts.Isolation)
			}
		}
		if opts.Config != "" {
			args = append(args, "-c", opts.Config)
		}
		if opts.CI {
			args = append(args, "--ci")
		}
		if opts.Memory {
			args = append(args, "--memory")
		}
		if opts.Profile {
			args = append(args, "--profile")
		}
		for _, s := range opts.Slowdowns {
			args = append(args, "--slowdown", s)
		}
		if opts.Rate > 0 {
			args = append(args, "--rate", strconv.FormatFloat(opts.Rate, 'g', -1, 64))
		}
		if opts.Duration > 0 {
			args = append(args, "--duration", opts.Duration.String())
		}
		if opts.Precise {
			args = append(args, "--precise")
		}
		cmd := command(ctx, args)
		if dir := opts.f.TempDir; dir != "" {
			cmd.Env = append(slices.Clone(cmd.Environ()), "TMPDIR="+dir)
		}
		return cmd
	}
	return nil
}

// secretEnv are environment variables adapters read credentials from.
var secretEnv = []string{"TYPEDB_PASSWORD", "PGPASSWORD"}

// redactErr masks the secrets in an error's message, keeping its exit code.
func redactErr(err error, sec *redact.Set) error {
	if err == nil {
		return nil
	}
	var silent *silentError
	if errors.As(err, &silent) {
		return &silentError{code: silent.code, msg: sec.String(silent.msg)}
	}
	return &exitcode.Error{Code: exitcode.Of(err), Err: errors.New(sec.String(err.Error()))}
}

// finisher prints a run's summary and writes its report, once the run ends or, on Ctrl-C, as soon as
// it stops (then again at the end with what cleaning up added, without a second summary).
type finisher struct {
	opts  *RunOptions
	out   io.Writer
	style render.Style
	res   *report.Reservation

	shown  bool  // the summary and the report path were printed
	sumErr error // printing the summary failed
}

// publish prints the summary (the first time) and then writes the report. The figures go to the
// terminal before the report is written, so that a full disk loses neither. A run that measured
// nothing (it stopped before the first result, or every target was skipped) writes no report: there
// would be nothing in it to compare or gate on.
func (f *finisher) publish(rep *report.Report) (writeErr error) {
	bi := buildinfo.Read()
	rep.Tool = report.Tool{Name: "dbbench", Version: bi.Version, Commit: bi.Commit}
	rep.Run.CommandLine = commandLine(f.opts.Args)
	if !f.shown {
		f.sumErr = render.SummaryStyled(f.out, rep, f.style)
	}
	// A run's worker writes its report all the same: its parent merges the targets' statuses.
	if len(rep.Results) > 0 || f.opts.RunWorker > 0 {
		if writeErr = f.res.Write(rep); writeErr == nil && !f.shown {
			fmt.Fprintf(f.out, "report: %s\n", f.res.Path)
		}
	}
	f.shown = true
	return writeErr
}

// finish publishes the final report and turns the outcome into the command's error: every failure
// is reported, the first one first.
func (f *finisher) finish(rep *report.Report, runErr error) error {
	res := f.res
	writeErr := f.publish(rep)
	sumErr := f.sumErr
	// A failed workload is recorded in its result, not in the run's error: when only cleaning up
	// failed after it, the workload's failure still comes first.
	var re *engine.RunError
	if errors.As(runErr, &re) && re.Err == nil {
		if first := firstFailure(rep); first != "" {
			runErr = exitcode.AsInfra(fmt.Errorf("%s; then %w", first, runErr))
		}
	}
	switch {
	case runErr != nil && writeErr != nil:
		return exitcode.AsInfra(fmt.Errorf("%w; and the report was not written: %v", runErr, writeErr))
	case runErr != nil && f.opts.RunWorker > 0:
		return exitcode.AsInfra(runErr) // its parent says where the results are
	case runErr != nil && len(rep.Results) == 0:
		return exitcode.AsInfra(fmt.Errorf("%w (nothing was measured: no report written)", runErr))
	case runErr != nil:
		return exitcode.AsInfra(fmt.Errorf("%w (the results measured until then are in %s)", runErr, res.Path))
	case writeErr != nil:
		return exitcode.Infraf("%v", writeErr)
	case sumErr != nil:
		return exitcode.Infraf("write summary: %v", sumErr)
	}
	if f.opts.isWorker() {
		// A worker measures: its parent reads the saturation from its report and decides.
		if rep.Verdict == report.VerdictError {
			return &silentError{code: exitcode.Infra, msg: errorReason(rep)}
		}
		return nil
	}
	return verdictError(rep)
}

// reserveReport claims the report path before the run (or merge) of config name: --out (a new file,
// the reservation of a run that is gone, or with --force an earlier report or any reservation; never
// the config itself, nor a file protect names) or a new name under reports/.
func reserveReport(opts *RunOptions, name string, protect ...string) (*report.Reservation, error) {
	if opts.Out == "" {
		suffix := ""
		if opts.CI {
			suffix = "-ci"
		}
		return report.ReserveNew(filepath.Join(DefaultReportDir, fmt.Sprintf("%s%s-%s.json", name, suffix, time.Now().Format("20060102-150405"))))
	}
	if opts.Config != "" {
		protect = append(protect, opts.Config)
	}
	return report.Reserve(opts.Out, report.ReserveOptions{Force: opts.Force, Protect: protect})
}

// verdictError maps a report's verdict to the exit code, with one line saying why (the summary on
// stdout has the details; under -q that line is all there is). A load run whose own generator could
// not keep its schedule exits 5 before any assertion is read: its figures are not the target's.
func verdictError(rep *report.Report) error {
	switch rep.Verdict {
	case report.VerdictSaturated:
		return &silentError{code: exitcode.GeneratorSaturated, msg: generatorSaturated(rep)}
	case report.VerdictError:
		return &silentError{code: exitcode.Infra, msg: errorReason(rep)}
	case report.VerdictFail:
		failed, first := 0, ""
		for _, a := range rep.Assertions {
			if a.Verdict == report.VerdictFail {
				if failed == 0 {
					first = a.Expr + ": " + render.DecidedOn(a)
				}
				failed++
			}
		}
		return &silentError{code: exitcode.Failed, msg: fmt.Sprintf("%d of %s failed, first: %s", failed, render.Plural(len(rep.Assertions), "assertion"), first)}
	case report.VerdictInconclusive:
		n, first := 0, ""
		for _, a := range rep.Assertions {
			if a.Verdict == report.VerdictInconclusive {
				if n == 0 {
					first = assertionName(a) + ": " + render.DecidedOn(a)
				}
				n++
			}
		}
		return &silentError{code: exitcode.Inconclusive, msg: fmt.Sprintf("%d of %s inconclusive (nothing failed), first: %s", n, render.Plural(len(rep.Assertions), "assertion"), first)}
	}
	return nil
}

// assertionName is an assertion's name, or its check when it has none.
func assertionName(a report.Assertion) string {
	if a.Name != "" {
		return a.Name
	}
	return a.Expr
}

// errorReason says in one line why a report's verdict is "error".
func errorReason(rep *report.Report) string {
	if len(rep.Run.Errors) > 0 {
		return rep.Run.Errors[0]
	}
	if first := firstFailure(rep); first != "" {
		return first
	}
	if len(rep.Results) == 0 {
		return "nothing was measured: every target was skipped"
	}
	for _, a := range rep.Assertions {
		if a.Verdict == report.VerdictError {
			return fmt.Sprintf("assertion %s: nothing to decide on: %s", assertionName(a), a.Reason)
		}
	}
	return "the run failed (see the report)"
}

// firstFailure names the first failed result or target of a report, or "".
func firstFailure(rep *report.Report) string {
	for _, x := range rep.Results {
		if x.Status != report.StatusOK {
			return fmt.Sprintf("workload %s failed on target %s: %s", x.Workload, x.Target, exitcode.OneLine(x.Error))
		}
	}
	for _, t := range rep.Targets {
		if t.Status == report.StatusFailed {
			return fmt.Sprintf("target %s failed: %s", t.Name, exitcode.OneLine(t.Reason))
		}
	}
	return ""
}

func commandLine(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return "dbbench " + strings.Join(args[1:], " ")
}

// planSummary is one line describing a resolved plan.
func planSummary(p *config.Plan) string {
	return fmt.Sprintf("%s, %s, %s, %s, warm-up %d, repeats %d%s",
		render.Plural(len(p.Targets), "target"), render.Plural(len(p.Workloads), "workload"), render.Plural(len(p.Assertions), "assertion"), dataText(p, "/"), p.Warmup, p.Repeats, loadSummary(p))
}

// completeConfig offers the built-in config names and YAML files for -c.
func completeConfig(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, n := range configs.Names() {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveDefault // and files
}

// generatorSaturated says in one line which load runs were generator saturated, or "".
func generatorSaturated(rep *report.Report) string {
	var which []string
	first := ""
	for _, x := range rep.Results {
		if l := x.Load; l != nil && l.Saturation == "generator saturated" {
			which = append(which, x.Workload+" on "+x.Target)
			if first == "" {
				first = fmt.Sprintf("%d of %d operations started more than %v late with workers free",
					l.Generator.Late, l.Scheduled, time.Duration(l.LateAfter))
			}
		}
	}
	if len(which) == 0 {
		return ""
	}
	return fmt.Sprintf("generator saturated: dbbench's own generator could not keep the schedule of %s (%s): "+
		"the achieved rates and latencies are the generator's limit, not the target's; lower --rate, or run on a quieter machine",
		strings.Join(which, ", "), first)
}

// hasYCSB reports whether the plan runs a workload through the load model, YCSB's or a sql
// workload (which writes an interval log).
func hasYCSB(p *config.Plan) bool { return p.HasLoadModel() }

// hlogFormatLine starts every HdrHistogram interval log.
const hlogFormatLine = "#[Histogram log format version"

// hlogPath is the interval log beside the report (REPORT.json -> REPORT.hlog). Like --out it never
// replaces a file without --force, and with --force only an earlier interval log.
func hlogPath(reportPath string, opts *RunOptions) (string, error) {
	path := engine.HlogPath(reportPath)
	if opts.isWorker() {
		return path, nil // beside its report in its parent's temporary directory
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return path, nil
	}
	if err != nil {
		return "", exitcode.Usagef("interval log %s: %v", path, err)
	}
	if !opts.Force {
		return "", exitcode.Usagef("the interval log %s exists: --force replaces an earlier one, or choose another --out", path)
	}
	head := make([]byte, len(hlogFormatLine))
	if fi.Mode().IsRegular() {
		if fh, err := os.Open(path); err == nil {
			_, _ = io.ReadFull(fh, head)
			fh.Close()
		}
	}
	if string(head) != hlogFormatLine {
		return "", exitcode.Usagef("%s exists and is not an interval log: dbbench does not replace it, even with --force", path)
	}
	return path, nil
}

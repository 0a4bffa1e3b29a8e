// Package commands wires the dbbench commands. Each command has an options struct, a constructor that binds
// flags into it, and a run function that never touches cobra or os.Exit, so tests drive the real
// commands through Main with their own writers.
package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/redact"
)

// Factory holds what commands need from the outside world; tests replace parts of it.
type Factory struct {
	Out      io.Writer
	Err      io.Writer
	Registry func() (*adapters.Registry, error)
	// TempDir is where runs put temporary stores ("" = system temp dir).
	TempDir string
	// Worker returns the command that starts dbbench again with args, for a run's worker processes
	// (nil: this executable).
	Worker func(ctx context.Context, args []string) *exec.Cmd
}

// Main runs dbbench with args (without the program name) and returns the process exit code.
// Ctrl-C, SIGTERM or SIGHUP cancels the run: stores are cleaned up and the report keeps what was
// measured until then.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	f := &Factory{
		Out: stdout,
		Err: stderr,
		Registry: func() (*adapters.Registry, error) {
			return adapters.NewRegistry(builtinAdapters()...)
		},
	}
	grace := InterruptGrace
	if slices.ContainsFunc(args, func(a string) bool { return a == "--run-worker" || strings.HasPrefix(a, "--run-worker=") }) {
		// a run's worker process gives up first, so that its parent still hears what it left behind
		grace = workerInterruptGrace
	}
	return executeWithin(ctx, f, args, grace)
}

// workerInterruptGrace is InterruptGrace for a run's worker process.
const workerInterruptGrace = InterruptGrace - 400*time.Millisecond

// InterruptGrace is how long an interrupted command may take to clean up before dbbench gives up on
// it: a stalled server must not keep Ctrl-C from working.
const InterruptGrace = 1500 * time.Millisecond

// executeWithin runs Execute, but returns at most grace after ctx is cancelled, naming what could not
// be cleaned up in time and how to remove it by hand.
func executeWithin(ctx context.Context, f *Factory, args []string, grace time.Duration) int {
	done := make(chan int, 1)
	go func() { done <- Execute(ctx, f, args) }()
	select {
	case code := <-done:
		return code
	case <-ctx.Done():
	}
	select {
	case code := <-done:
		return code
	case <-time.After(grace):
	}
	cleanup.Abort() // what is local can still be removed
	msg := "interrupted"
	if left := cleanup.Pending(); len(left) > 0 {
		msg = fmt.Sprintf("interrupted: cleaning up did not finish within %s; left behind, remove by hand: %s", grace, strings.Join(left, "; "))
	}
	fmt.Fprintln(f.Err, "dbbench: "+exitcode.OneLine(redact.DSN(msg)))
	return exitcode.Infra
}

// Execute runs the root command and maps its error to an exit code, printing one line for it.
func Execute(ctx context.Context, f *Factory, args []string) int {
	root := NewRootCmd(f)
	root.SetArgs(args)
	root.SetOut(f.Out)
	root.SetErr(f.Err)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitcode.OK
	}
	var silent *silentError
	if errors.As(err, &silent) {
		if silent.msg != "" {
			fmt.Fprintln(f.Err, "dbbench: "+exitcode.OneLine(redact.DSN(silent.msg)))
		}
		return silent.code
	}
	code := exitcode.Of(err)
	var e *exitcode.Error
	if !errors.As(err, &e) {
		// Errors that reach here unclassified come from cobra's own parsing: bad flags, unknown
		// commands, wrong argument counts.
		code = exitcode.Usage
	}
	var mistakes config.Errors
	if errors.As(err, &mistakes) {
		// every mistake of a config, one line each
		for _, m := range mistakes {
			fmt.Fprintln(f.Err, "dbbench: "+exitcode.OneLine(redact.DSN(m.Error())))
		}
		return code
	}
	msg := redact.DSN(strings.TrimSpace(err.Error()))
	if code == exitcode.Usage && cmd != nil && isFlagProblem(msg) {
		msg += fmt.Sprintf(" (see '%s --help')", cmd.CommandPath())
	}
	fmt.Fprintln(f.Err, "dbbench: "+exitcode.OneLine(msg))
	return code
}

// flagForms say what a flag's value must look like, by the flag's name; flagTypeForms by its type
// for the others.
var (
	flagForms = map[string]string{
		"duration":   "a duration such as 10s; pgbench's -T 10 is --duration 10s",
		"budget":     "a duration such as 90s or 5m",
		"rate":       "a number of operations per second such as 500",
		"alpha":      "a significance level such as 0.01",
		"confidence": "a confidence such as 0.95",
		"runs":       "a number of runs such as 5",
		"shards":     "a number of shards such as 4",
		"size":       "a number of persons such as 1000",
	}
	flagTypeForms = map[string]string{
		"duration": "a duration such as 10s, 500ms or 5m",
		"float64":  "a number such as 2.5",
		"int":      "a whole number such as 3",
		"uint64":   "a whole number such as 3",
		"bool":     "true or false",
	}
)

// flagError turns cobra's error about the command line into a usage error; one about a flag's value
// says in one line the form the flag wants ("--rate 500/s: want a number of operations per second
// such as 500"), not the parser's own words.
func flagError(err error) error {
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) || iv.GetFlag() == nil {
		return exitcode.AsUsage(err)
	}
	fl := iv.GetFlag()
	want, ok := flagForms[fl.Name]
	if !ok {
		if want, ok = flagTypeForms[fl.Value.Type()]; !ok {
			return exitcode.AsUsage(err)
		}
	}
	v := iv.GetValue()
	if v == "" || strings.ContainsAny(v, " \t") {
		v = fmt.Sprintf("%q", v)
	}
	return exitcode.Usagef("--%s %s: want %s", fl.Name, v, want)
}

func isFlagProblem(msg string) bool {
	for _, s := range []string{"flag", "unknown command", "arg(s)", "argument"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// silentError carries an exit code for an outcome already explained on stdout (a failed assertion, a
// failed workload); msg is the one line stderr still gets, since stdout may be a file or silenced.
type silentError struct {
	code int
	msg  string
}

func (e *silentError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// NewRootCmd builds the command tree.
func NewRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "dbbench <command> [flags]",
		Short: "Benchmark databases and their clients the same way, every time",
		Long: `dbbench runs the same workloads (scan, lookup, insert, concurrent, and adapter-specific ones)
against several targets side by side in one run, interleaved and repeated, records every latency in an
HdrHistogram, checks that each workload really did its work, and decides the config's assertions
(ratios between targets measured in the same run). Reports are JSON; 'compare' gates a commit
against a committed baseline.

Exit codes: 0 every verdict holds; 1 an assertion (or the regression gate) failed; 2 usage or config
error; 3 database or infrastructure error, or an interrupted run; 4 inconclusive: a verdict the
evidence could not decide within its budget, nothing failed; 5 the load generator could not keep
its schedule; 6 a merge lacks a shard. When several apply: 2, 3, 6, 5, 1, 4, 0.`,
		Example: `  dbbench run                          # the built-in default config (LMDB: Go vs C)
  dbbench run -c configs/lmdb.yaml --ci --out lmdb.json
  dbbench validate -c configs/typedb.yaml
  dbbench report lmdb.json --format html > lmdb.html
  dbbench list
  source <(dbbench completion bash)    # or: dbbench completion zsh|fish`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionLine(),
		// A flag given with an empty value ("-c ''" from an unset shell variable) is a mistake, never
		// a request for the default.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			cmd.Flags().Visit(func(fl *pflag.Flag) {
				if err == nil && fl.Value.Type() == "string" && fl.Value.String() == "" {
					err = exitcode.Usagef("--%s: empty value (leave the flag out for the default)", fl.Name)
				}
			})
			return err
		},
	}
	root.SetVersionTemplate("dbbench {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return flagError(err) })
	root.AddCommand(
		NewRunCmd(f, nil),
		NewValidateCmd(f, nil),
		NewListCmd(f),
		NewVersionCmd(f),
		NewCompareCmd(f, nil),
		NewReportCmd(f, nil),
		NewMergeCmd(f, nil),
		NewClientTestCmd(f, nil),
		NewHistoryCmd(f, nil),
		NewKubeCmd(f, nil),
	)
	// `dbbench completion bash|zsh|fish|powershell` prints a shell completion script; added now (not
	// lazily at Execute) so help and tests see it like every other command. It binds the output
	// writer when it is made, so that is set first.
	if f.Out != nil {
		root.SetOut(f.Out)
	}
	root.InitDefaultCompletionCmd()
	return root
}

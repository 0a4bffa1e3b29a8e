package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/compare"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render"
)

// CompareOptions are the arguments and flags of `dbbench compare`.
type CompareOptions struct {
	f                *Factory
	OldPath, NewPath string
	// OldPaths and NewPaths hold every report (or directory of reports) of each side.
	OldPaths, NewPaths []string
	Force              bool
	PerRepeat          bool
	RunValue           string
	DropSlowest        int
	Thresholds         compare.Thresholds
	ThresholdFile      string
	NormalizeBy        string
	Format             string
	Figures            []string
	AllowSizeMismatch  bool
	Alpha              float64
	alphaSet           bool // --alpha was given (0 then is an error, not the default)
	Confidence         float64
	Looks              int
	AllowMissing       bool
}

// NewCompareCmd builds `dbbench compare`. runF replaces the run function in tests of flag parsing.
func NewCompareCmd(f *Factory, runF func(*CompareOptions) error) *cobra.Command {
	opts := &CompareOptions{f: f}
	cmd := &cobra.Command{
		Use:     "compare OLD.json NEW.json | OLD... -- NEW... [--threshold 10%] [--normalize-by TARGET]",
		Short:   "Compare reports and gate on significant regressions",
		Long:    compareLong,
		Example: compareExample,
		Args:    compareArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			split := cmd.ArgsLenAtDash()
			if split < 0 {
				split = 1
			}
			opts.OldPaths, opts.NewPaths = args[:split], args[split:]
			opts.alphaSet = cmd.Flags().Changed("alpha")
			opts.OldPath, opts.NewPath = strings.Join(opts.OldPaths, " "), strings.Join(opts.NewPaths, " ")
			if runF != nil {
				return runF(opts)
			}
			return compareRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.Var(&thresholdFlag{&opts.Thresholds}, "threshold", "gate: fail on a significant change worse than this (10%, p99=20%, lookup.p99=30%)")
	fl.StringVar(&opts.ThresholdFile, "threshold-file", "", "gate thresholds from a YAML file (keys: default, FIGURE, WORKLOAD.FIGURE)")
	fl.StringVar(&opts.NormalizeBy, "normalize-by", "", "compare every target's figures divided by this target's figures of the same repeat")
	fl.StringVarP(&opts.Format, "format", "f", "text", "output format: text, markdown, json or html")
	fl.StringSliceVar(&opts.Figures, "figures", nil, "figures to compare (default rows_per_s or ops_per_s, p50, p99)")
	fl.BoolVar(&opts.AllowSizeMismatch, "allow-size-mismatch", false, "compare reports of different dataset sizes (paired smallest with smallest)")
	fl.Float64Var(&opts.Alpha, "alpha", 0, "significance level of the U test (default 0.01 over runs, 0.05 over repeats)")
	fl.BoolVar(&opts.Force, "force", false, "compare reports of different configs, seeds, adapters or options (said in the output)")
	fl.StringVar(&opts.RunValue, "run-value", report.RunMedian, "with several runs a side, each gives its median or its best repeat")
	fl.IntVar(&opts.DropSlowest, "drop-slowest", 0, "with several runs a side, leave out each side's N slowest runs of each figure")
	fl.BoolVar(&opts.PerRepeat, "per-repeat", false, "with one run per side, test and decide over its repeats (overstates it across runs)")
	fl.Float64Var(&opts.Confidence, "confidence", compare.DefaultConfidence, "gate: family-wise confidence, split over the gated figures and looks")
	fl.IntVar(&opts.Looks, "looks", 1, "gate: most looks a sequential gate takes as runs are added")
	fl.BoolVar(&opts.AllowMissing, "allow-missing", false, "gate: list results or figures missing on one side without holding them against it")
	formats := make([]string, len(compare.Formats))
	for i, f := range compare.Formats {
		formats[i] = string(f)
	}
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// compareLong is the help of `dbbench compare`.
const compareLong = `Compare pairs the results of OLD and NEW by target, workload and dataset size and, for each
figure, prints the median in OLD and NEW, the change in percent with its confidence interval, the
p-value of the Mann-Whitney U test (benchstat's statistics, from golang.org/x/perf/benchmath) and a
verdict: better, worse, ~ (no significant change) or "? one run". Latency percentiles also show the
value from the histogram merged over all repeats.

The unit of evidence is a run, not a repeat: the repeats of one run share that moment's machine and
are not independent samples of what changes between runs. So give each side several runs: reports
separated by --, directories of reports, or reports that hold several runs each (dbbench run --runs N,
report schema 2); each run contributes one value (its median over repeats). Over runs the significance
level is 0.01 (--alpha): the U test needs 5 runs per side to reach it (7 tolerate an outlying run);
with fewer the verdict is "too few samples". With one run per side the run-to-run variation is not
measured: no change is called significant (verdict "? one run").
--per-repeat takes the repeats as the samples for one run per side (only for reports made back to
back on an idle machine, or for instruction counts, which do not depend on the machine's state).
--run-value best makes each run contribute its best repeat instead of its median (the smallest time,
the largest throughput; divided by the reference's best repeat of the same run when normalized): on
a busy machine other work only adds time, so the best repeat moves far less from run to run than
the median. --drop-slowest N leaves out each side's N slowest runs of each figure.

Default figures: rows_per_s (ops_per_s where a result has no rows), p50 and p99 (not for scan and
insert, whose repeats time a single operation). --figures picks others (see 'dbbench list').

--threshold makes compare a gate. It takes VALUE (the default for every figure) or KEY=VALUE, where
VALUE is 10% or 0.1 and KEY is FIGURE or WORKLOAD.FIGURE; repeat the flag or separate with commas.
--threshold-file reads the same keys from YAML ("default: 10%", "p99: 25%", "lookup.p99: 40%").
The gate decides each gated figure on an interval of its change, never on a point: Welch's t
interval over the runs' values, on log scale, at confidence 1 - (1 - C)/(k x L), where C is
--confidence (0.95: the chance of any wrong decision is at most 5%), k the gated figures and L
--looks (a gate that adds runs and decides again looks several times). FAIL when the whole interval
lies beyond the threshold on the worse side (for a throughput the drop, for a latency the rise);
PASS when it lies wholly within it; otherwise INCONCLUSIVE, with about how many runs a side would
decide (estimated from the spread between runs and the change's distance from the threshold). One
run per side gives no interval: INCONCLUSIVE (--per-repeat decides over repeats). A result that
failed in NEW fails the gate. docs/verdicts.md ("compare and the gate") has the method.

Missing evidence never passes. A result, or a figure of one, with values on one side only is listed
as missing: a gated figure missing in NEW fails the gate; one missing in OLD, or from a target NEW
skipped with a recorded reason (an optional target whose server is absent), leaves it INCONCLUSIVE,
named; --allow-missing lists them without holding them against the gate, and says so. A figure
neither side has is not missing; one a report schema version redefined (the load model's figures in
version 3) is "not comparable", a note.

Nothing is decided across machine classes (CPU model and core count, as report environments
record them): a ratio to an in-run baseline cancels a machine's speed, not its microarchitecture.
Every figure is still printed, with verdict "? machines", and compare exits 4; --force does not
change that. The runs of one side must share one machine class.

--normalize-by TARGET divides every target's per-repeat figures by the reference target's figures of
the same repeat (targets run interleaved, so those ran back to back) and compares the ratios. That
cancels the drift of the machine's speed between runs. Ratios keep the figure's direction (a higher
rows_per_s ratio is better, a higher p99 ratio worse). When both sides name the same baseline target
(the config's baseline:), it is the reference by default, and the output says so; --normalize-by
none compares raw figures.

Refused (exit 2): an OLD side (the baseline) with a result that failed or a run whose verdict is
error, named; reports of different configs, seeds, or with different adapters or options under one
target name (--force compares them anyway and names the differences in the output); reports from a
newer dbbench, with no common target or workload, or different dataset sizes (unless
--allow-size-mismatch). The runs of one side must be runs of one benchmark, even with --force.

Exit codes: 0 no gate, or the gate passed; 1 the gate failed (a figure's interval lies beyond its
threshold, a gated figure is missing in NEW, or a result failed in NEW: the line names the worst and
how many failed); 2 unusable or refused input (missing or corrupt report, incompatible reports, a
baseline that failed, unknown --normalize-by target, bad threshold or figure); 4 inconclusive (a
gated figure's interval straddles its threshold, too few runs for an interval, a gated figure missing
in OLD or from a target NEW skipped, or the sides ran on different machine classes). README, "Exit
codes".`

// compareExample is its examples.
const compareExample = `  dbbench compare baselines/gate-ci/run-1.json reports/gate-ci.json
  dbbench compare base-1.json base-2.json base-3.json base-4.json base-5.json -- new-*.json
  dbbench compare base.json new.json --threshold 5%      # reports of dbbench run --runs 5
  dbbench compare baselines/gate-ci/ reports/gate/ --threshold 5%
  dbbench compare old.json new.json --threshold 10% --threshold p99=25%
  dbbench compare laptop.json ci.json --normalize-by lmdb-c --format markdown >> "$GITHUB_STEP_SUMMARY"
  dbbench compare old.json new.json --figures ns_per_op,p999 --format json
  dbbench compare old.json new.json --format html > compare.html`

// compareArgs takes OLD and NEW, or several reports a side separated by --.
func compareArgs(cmd *cobra.Command, args []string) error {
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		if dash == 0 || dash == len(args) {
			return fmt.Errorf("give reports on both sides of --: OLD... -- NEW...")
		}
		return nil
	}
	if len(args) != 2 {
		return fmt.Errorf("want OLD and NEW (or OLD... -- NEW...), got %d arguments", len(args))
	}
	return nil
}

func compareRun(opts *CompareOptions) error {
	if (opts.Alpha != 0 || opts.alphaSet) && !(opts.Alpha > 0 && opts.Alpha < 1) {
		return exitcode.Usagef("--alpha must lie strictly between 0 and 1, got %g", opts.Alpha)
	}
	format, err := compare.ParseFormat(opts.Format)
	if err != nil {
		return exitcode.Usagef("--format: %v", err)
	}
	if opts.ThresholdFile != "" {
		// A device (/dev/zero) or a huge file is refused before it is read into memory.
		if fi, err := os.Stat(opts.ThresholdFile); err == nil && (fi.Mode()&os.ModeDevice != 0 || fi.Size() > 1<<20) {
			return exitcode.Usagef("thresholds file %s is not a small YAML file", opts.ThresholdFile)
		}
		if err := compare.LoadThresholds(opts.ThresholdFile, &opts.Thresholds); err != nil {
			return exitcode.Usagef("%v", err)
		}
	}
	if !(opts.Confidence > 0 && opts.Confidence < 1) {
		return exitcode.Usagef("--confidence must lie strictly between 0 and 1, got %g", opts.Confidence)
	}
	if opts.Looks < 1 || opts.Looks > 100 {
		return exitcode.Usagef("--looks must be 1 to 100, got %d", opts.Looks)
	}
	olds, oldFiles, oldName, err := readSide(opts.OldPaths)
	if err != nil {
		return err
	}
	news, newFiles, newName, err := readSide(opts.NewPaths)
	if err != nil {
		return err
	}
	normalizeBy, noNormalize := opts.NormalizeBy, false
	if normalizeBy == "none" {
		normalizeBy, noNormalize = "", true
	}
	reg, err := opts.f.Registry()
	if err != nil {
		return exitcode.Infraf("adapter registry: %v", err)
	}
	c, err := compare.CompareRuns(olds, news, compare.Options{
		OptionKinds:       render.OptionKindsOf(reg),
		Figures:           opts.Figures,
		NormalizeBy:       normalizeBy,
		NoNormalize:       noNormalize,
		Force:             opts.Force,
		PerRepeat:         opts.PerRepeat,
		RunValue:          opts.RunValue,
		DropSlowest:       opts.DropSlowest,
		Thresholds:        &opts.Thresholds,
		AllowSizeMismatch: opts.AllowSizeMismatch,
		Alpha:             opts.Alpha,
		OldName:           oldName,
		NewName:           newName,
		OldFiles:          oldFiles,
		NewFiles:          newFiles,
		Confidence:        opts.Confidence,
		Looks:             opts.Looks,
		AllowMissing:      opts.AllowMissing,
	})
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	if err := compare.Render(opts.f.Out, c, format); err != nil {
		return exitcode.Infraf("write comparison: %v", err)
	}
	if code, msg := c.Outcome(); code != exitcode.OK {
		return &silentError{code: code, msg: msg}
	}
	return nil
}

// readSide reads one side's reports: files, or directories whose *.json files are all reports (in
// name order). It returns them with their files and the side's name for messages.
func readSide(paths []string) ([]*report.Report, []string, string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() {
			files = append(files, p) // report.Read names what is wrong with it
			continue
		}
		matches, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil || len(matches) == 0 {
			return nil, nil, "", exitcode.Usagef("%s: a directory without reports (*.json)", p)
		}
		files = append(files, matches...)
	}
	reps := make([]*report.Report, len(files))
	for i, f := range files {
		r, err := report.Read(f)
		if err != nil {
			return nil, nil, "", exitcode.Usagef("%v", err)
		}
		reps[i] = r
	}
	name := strings.Join(paths, " ")
	if len(files) > 1 {
		name = fmt.Sprintf("%s (%d reports)", name, len(files))
	}
	return reps, files, name, nil
}

// thresholdFlag lets --threshold accumulate into compare.Thresholds.
type thresholdFlag struct{ t *compare.Thresholds }

func (f *thresholdFlag) Set(s string) error { return f.t.Set(s) }
func (f *thresholdFlag) String() string     { return f.t.String() }
func (f *thresholdFlag) Type() string       { return "threshold" }

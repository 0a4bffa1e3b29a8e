package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/internal/compare"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
)

// CompareOptions are the arguments and flags of `dbbench compare`.
type CompareOptions struct {
	f                 *Factory
	OldPath, NewPath  string
	Thresholds        compare.Thresholds
	ThresholdFile     string
	NormalizeBy       string
	Format            string
	Figures           []string
	AllowSizeMismatch bool
	Alpha             float64
}

// NewCompareCmd builds `dbbench compare`. runF replaces the run function in tests of flag parsing.
func NewCompareCmd(f *Factory, runF func(*CompareOptions) error) *cobra.Command {
	opts := &CompareOptions{f: f}
	cmd := &cobra.Command{
		Use:   "compare OLD.json NEW.json [--threshold 10%] [--normalize-by TARGET] [--format text|markdown|json|html]",
		Short: "Compare two reports and gate on significant regressions",
		Long: `Compare pairs the results of two reports by target, workload and dataset size and, for each
figure, prints the median over repeats in OLD and NEW, the change in percent with its confidence
interval, the p-value of the Mann-Whitney U test on the per-repeat values (benchstat's statistics,
from golang.org/x/perf/benchmath) and a verdict: better, worse, or ~ (no significant change). With
too few repeats for the test to ever reject, the verdict says so ("too few repeats"): at alpha 0.05
the U test needs 4 repeats on each side. Latency percentiles also show the value from the histogram
merged over all repeats.

Default figures: rows_per_s (ops_per_s where a result has no rows), p50 and p99 (not for scan and
insert, whose repeats time a single operation). --figures picks others (see 'dbbench list').

--threshold makes compare a gate. It takes VALUE (the default for every figure) or KEY=VALUE, where
VALUE is 10% or 0.1 and KEY is FIGURE or WORKLOAD.FIGURE; repeat the flag or separate with commas.
--threshold-file reads the same keys from YAML ("default: 10%", "p99: 25%", "lookup.p99: 40%").
A figure fails the gate when it is significantly worse (p < alpha) and its median moved the wrong
way by more than its threshold: for a throughput the drop (-17% fails a 10% threshold), for a latency
the rise. A result that failed in NEW fails the gate too.

--normalize-by TARGET divides every target's per-repeat figures by the reference target's figures of
the same repeat (targets run interleaved, so those ran back to back) and compares the ratios. That
cancels the speed of the machine: a report from a laptop can be compared with one from a CI runner.
Ratios keep the figure's direction (a higher rows_per_s ratio is better, a higher p99 ratio worse).

Reports with different schema versions, no common target or workload, or different dataset sizes
(unless --allow-size-mismatch) are refused with the difference named.

Exit codes: 0 no gate, or the gate passed; 1 the gate failed (a figure got significantly worse beyond
its threshold, or a result failed in NEW); 2 unusable input (missing or corrupt report, a report from
a newer dbbench, incompatible reports, unknown --normalize-by target, bad threshold or figure) or a
gate that cannot decide (too few repeats, a result failed in OLD).`,
		Example: `  dbbench compare baselines/gate-ci.json reports/gate-ci.json
  dbbench compare old.json new.json --threshold 10% --threshold p99=25%
  dbbench compare laptop.json ci.json --normalize-by lmdb-c --format markdown >> "$GITHUB_STEP_SUMMARY"
  dbbench compare old.json new.json --figures ns_per_op,p999 --format json
  dbbench compare old.json new.json --format html > compare.html`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.OldPath, opts.NewPath = args[0], args[1]
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
	fl.Float64Var(&opts.Alpha, "alpha", compare.DefaultAlpha, "significance level of the U test")
	formats := make([]string, len(compare.Formats))
	for i, f := range compare.Formats {
		formats[i] = string(f)
	}
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func compareRun(opts *CompareOptions) error {
	if !(opts.Alpha > 0 && opts.Alpha < 1) {
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
	oldRep, err := report.Read(opts.OldPath)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	newRep, err := report.Read(opts.NewPath)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	c, err := compare.Compare(oldRep, newRep, compare.Options{
		Figures:           opts.Figures,
		NormalizeBy:       opts.NormalizeBy,
		Thresholds:        &opts.Thresholds,
		AllowSizeMismatch: opts.AllowSizeMismatch,
		Alpha:             opts.Alpha,
		OldName:           opts.OldPath,
		NewName:           opts.NewPath,
	})
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	if err := compare.Render(opts.f.Out, c, format); err != nil {
		return exitcode.Infraf("write comparison: %v", err)
	}
	msg := "see the table above"
	if len(c.Gate.Reasons) > 0 {
		msg = c.Gate.Reasons[0]
	}
	switch c.Gate.Verdict {
	case compare.GateFail:
		return &silentError{code: exitcode.Failed, msg: "gate failed: " + msg}
	case compare.GateUndecided:
		return &silentError{code: exitcode.Usage, msg: "the regression gate cannot decide: " + msg}
	}
	return nil
}

// thresholdFlag lets --threshold accumulate into compare.Thresholds.
type thresholdFlag struct{ t *compare.Thresholds }

func (f *thresholdFlag) Set(s string) error { return f.t.Set(s) }
func (f *thresholdFlag) String() string     { return f.t.String() }
func (f *thresholdFlag) Type() string       { return "threshold" }

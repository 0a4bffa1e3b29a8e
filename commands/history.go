package commands

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/suggest"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render"
)

// HistoryOptions are the arguments and flags of `dbbench history`.
type HistoryOptions struct {
	f       *Factory
	Dir     string
	Format  string
	Figures []string
}

// NewHistoryCmd builds `dbbench history`. runF replaces the run function in tests of flag parsing.
func NewHistoryCmd(f *Factory, runF func(*HistoryOptions) error) *cobra.Command {
	opts := &HistoryOptions{f: f}
	cmd := &cobra.Command{
		Use:   "history DIR [--format text|html] [--figures LIST]",
		Short: "Show the trend of each figure across a directory of reports",
		Long: `History reads every dbbench report (*.json) in DIR, orders them by start time, groups them by
config, and shows each figure of every target, workload and size across the reports: as text, the
first and the latest median with the change between them and a sparkline of the last 24 reports; as
html, a self-contained page with one chart per workload and figure (nothing fetched).

The change is called worse or better only where a Mann-Whitney U test over the first and the latest
report's runs decides it (alpha 0.01, each run one sample, as compare does: reports of
'dbbench run --runs 5'); otherwise it is "changed". Across a report schema version that redefined a
figure (the load model's in version 3) it is "not comparable", with a note saying why.

Default figures, as compare: rows_per_s (ops_per_s without rows), and p50 and p99 for workloads that
time many operations. JSON files that are not reports (compare output, say) are left out.

Exit codes: 0 written; 2 DIR missing or holding no report, a corrupt report or one from a newer
dbbench; 3 the output could not be written.`,
		Example: `  dbbench history reports/
  dbbench history reports/ --format html > history.html
  dbbench history baselines/ --figures ns_per_row,p50`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			if runF != nil {
				return runF(opts)
			}
			return historyRun(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Format, "format", "f", "text", "output format: text or html")
	cmd.Flags().StringSliceVar(&opts.Figures, "figures", nil, "figures to show (default rows_per_s or ops_per_s, p50, p99)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "html"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func historyRun(opts *HistoryOptions) error {
	if opts.Format != "text" && opts.Format != "html" {
		return exitcode.Usagef("--format: unknown format %q (formats: text, html)", opts.Format)
	}
	for _, f := range opts.Figures {
		if _, ok := report.LookupFigure(f); !ok {
			return exitcode.Usagef("--figures: unknown figure %q%s", f, suggest.Hint(f, report.FigureNames(), "dbbench list figures"))
		}
	}
	reps, paths, notes, err := report.ReadDirNotes(opts.Dir)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	if len(reps) == 0 && len(notes) > 0 {
		return exitcode.Usagef("%s holds no dbbench report (*.json): %s", opts.Dir, notes[0])
	}
	if len(reps) == 0 {
		return exitcode.Usagef("%s holds no dbbench report (*.json)", opts.Dir)
	}
	for _, n := range notes {
		fmt.Fprintln(opts.f.Err, "dbbench: "+n)
	}
	hs := report.Histories(reps, paths, opts.Figures)
	if opts.Format == "html" {
		err = render.HistoryHTML(opts.f.Out, hs)
	} else {
		err = render.HistoryText(opts.f.Out, hs)
	}
	if err != nil {
		return exitcode.Infraf("write history: %v", err)
	}
	return nil
}

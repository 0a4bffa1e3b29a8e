package commands

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report/render"
)

// ValidateOptions are the flags of `dbbench validate`.
type ValidateOptions struct {
	f      *Factory
	Config string
	CI     bool
}

// NewValidateCmd builds `dbbench validate`.
func NewValidateCmd(f *Factory, runF func(*ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{f: f}
	cmd := &cobra.Command{
		Use:   "validate [-c CONFIG] [--ci]",
		Short: "Check a config without running it",
		Long: `Validate parses a config and checks it against the adapters: known adapters, options and
workloads, valid sizes, and assertions that name existing targets, workloads and figures. It lists
every mistake at once, sorted by line, each on a line of its own that names the file and line, with
the name a misspelt key, adapter, option, workload or figure was probably meant as ("did you mean
repeats?"); nothing is reported beneath a key already in error. Without --ci it checks both the full
and the CI form (if the config has a ci: section); with --ci only the CI form. Nothing is opened or
started. A built-in config whose targets run the repository's clients (clients-sqlite, ...) is
refused outside a dbbench checkout.

Exit codes: 0 the config is valid; 2 it is not (each line says where and why).`,
		Example: `  dbbench validate -c configs/lmdb.yaml
  dbbench validate -c configs/triplex-sqlite.yaml --ci`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runValidate(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Config, "config", "c", "", "config file or built-in config name (default: the built-in default)")
	cmd.Flags().BoolVar(&opts.CI, "ci", false, "check only the CI form of the config")
	return cmd
}

func runValidate(opts *ValidateOptions) error {
	c, err := loadConfig(opts.Config)
	if c == nil {
		return err
	}
	if err == nil {
		err = needsCheckout(c)
	}
	// Both forms are checked, every mistake of either reported: the CI form's only where the full
	// form is right (config.Merge).
	forms := []bool{false}
	switch {
	case opts.CI:
		forms = []bool{true}
	case c.CI != nil:
		forms = append(forms, true)
	}
	var plans []*config.Plan
	for _, ci := range forms {
		p, _, rerr := resolve(opts.f, c, ci)
		err = config.Merge(err, rerr)
		plans = append(plans, p)
	}
	if err != nil {
		return exitcode.AsUsage(err)
	}
	for i, p := range plans {
		line := fmt.Sprintf("%s: ok: %s", c.Source, planSummary(p))
		if forms[i] {
			relaxed := ""
			if p.Relax > 0 {
				relaxed = fmt.Sprintf(", thresholds relaxed %g%%", p.Relax*100)
			}
			line = fmt.Sprintf("%s: ok with --ci: %s%s", c.Source, planSummary(p), relaxed)
		}
		fmt.Fprintln(opts.f.Out, render.Wrap(line, render.DefaultWidth, "  "))
	}
	return nil
}

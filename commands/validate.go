package commands

import (
	"fmt"

	"github.com/spf13/cobra"

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
workloads, valid sizes, and assertions that name existing targets, workloads and figures. Every
error names the file and line. Without --ci it checks both the full and the CI form (if the config
has a ci: section); with --ci only the CI form. Nothing is opened or started.

Exit codes: 0 the config is valid; 2 it is not (the line says where and why).`,
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
	if err != nil {
		return err
	}
	if !opts.CI {
		p, _, err := resolve(opts.f, c, false)
		if err != nil {
			return err
		}
		fmt.Fprintln(opts.f.Out, render.Wrap(fmt.Sprintf("%s: ok: %s", c.Source, planSummary(p)), render.DefaultWidth, "  "))
	}
	if opts.CI || c.CI != nil {
		p, _, err := resolve(opts.f, c, true)
		if err != nil {
			return err
		}
		relaxed := ""
		if p.Relax > 0 {
			relaxed = fmt.Sprintf(", thresholds relaxed %g%%", p.Relax*100)
		}
		fmt.Fprintln(opts.f.Out, render.Wrap(fmt.Sprintf("%s: ok with --ci: %s%s", c.Source, planSummary(p), relaxed), render.DefaultWidth, "  "))
	}
	return nil
}

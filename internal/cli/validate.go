package cli

import (
	"fmt"

	"github.com/spf13/cobra"
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
has a ci: section); with --ci only the CI form. Nothing is opened or started.`,
		Example: `  dbbench validate -c configs/lmdb.yaml
  dbbench validate -c my.yaml --ci`,
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
		fmt.Fprintf(opts.f.Out, "%s: ok: %s\n", c.Source, planSummary(p))
	}
	if opts.CI || c.CI != nil {
		p, _, err := resolve(opts.f, c, true)
		if err != nil {
			return err
		}
		fmt.Fprintf(opts.f.Out, "%s: ok with --ci: %s, thresholds relaxed %g%%\n", c.Source, planSummary(p), p.Relax*100)
	}
	return nil
}

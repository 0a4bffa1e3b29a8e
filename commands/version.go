package commands

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/compare"
	"github.com/dbbench/dbbench/internal/buildinfo"
	"github.com/dbbench/dbbench/report"
)

// NewVersionCmd builds `dbbench version`.
func NewVersionCmd(f *Factory) *cobra.Command {
	var class, slug bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the dbbench version, commit and report schema version",
		Long: `Print the dbbench version, commit and report schema version.

--machine-class prints this machine's class as reports record it (CPU model and core count):
compare decides nothing across classes. --machine-slug prints it as a directory name, the one
.ci/gate looks for a committed baseline under (baselines/gate/SLUG/).

Exit codes: 0.`,
		Example: "  dbbench version\n  dbbench version --machine-slug",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			mc := report.CollectEnvironment().MachineClass()
			switch {
			case class:
				fmt.Fprintln(f.Out, mc)
			case slug:
				fmt.Fprintln(f.Out, compare.MachineSlug(mc))
			default:
				fmt.Fprintln(f.Out, "dbbench "+versionLine())
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&class, "machine-class", false, "print this machine's class (CPU model, cores) instead")
	cmd.Flags().BoolVar(&slug, "machine-slug", false, "print this machine's class as a directory name instead")
	cmd.MarkFlagsMutuallyExclusive("machine-class", "machine-slug")
	return cmd
}

// versionLine is what `dbbench version` and `dbbench --version` print after the name.
func versionLine() string {
	bi := buildinfo.Read()
	return fmt.Sprintf("%s (commit %s, %s %s, report schema %d)", bi.Version, bi.Commit, bi.GoVersion, bi.Platform, report.SchemaVersion)
}

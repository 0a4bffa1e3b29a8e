package commands

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/internal/buildinfo"
	"github.com/dbbench/dbbench/report"
)

// NewVersionCmd builds `dbbench version`.
func NewVersionCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the dbbench version, commit and report schema version",
		Long:    "Version prints the dbbench version, commit and report schema version.\n\nExit codes: 0.",
		Example: "  dbbench version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintln(f.Out, "dbbench "+versionLine())
			return nil
		},
	}
}

// versionLine is what `dbbench version` and `dbbench --version` print after the name.
func versionLine() string {
	bi := buildinfo.Read()
	return fmt.Sprintf("%s (commit %s, %s %s, report schema %d)", bi.Version, bi.Commit, bi.GoVersion, bi.Platform, report.SchemaVersion)
}

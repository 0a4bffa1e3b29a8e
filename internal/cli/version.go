package cli

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
		Example: "  dbbench version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			bi := buildinfo.Read()
			fmt.Fprintf(f.Out, "dbbench %s (commit %s, %s %s, report schema %d)\n",
				bi.Version, bi.Commit, bi.GoVersion, bi.Platform, report.SchemaVersion)
			return nil
		},
	}
}

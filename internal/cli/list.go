package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/configs"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
)

// builtinWorkloadHelp documents the four common workloads.
var builtinWorkloadHelp = [][2]string{
	{adapters.Scan, "one read transaction reads `rows` persons and decodes every row (default rows: the dataset)"},
	{adapters.Lookup, "`ops` point lookups by email, each in its own read transaction (default 1000)"},
	{adapters.Insert, "a fresh store, one write transaction with `ops` separate inserts, then commit (default 10000)"},
	{adapters.Concurrent, "`readers` read transactions at once, each scanning `rows` persons (default 4 x 10000)"},
}

// NewListCmd builds `dbbench list`.
func NewListCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "list [ADAPTER]",
		Short: "Show the adapters with their options and workloads, the figures, and the built-in configs",
		Example: `  dbbench list
  dbbench list lmdb`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := f.Registry()
			if err != nil {
				return exitcode.Infraf("adapter registry: %v", err)
			}
			if len(args) == 1 {
				a, ok := reg.Lookup(args[0])
				if !ok {
					return exitcode.Usagef("unknown adapter %q (known: %s)", args[0], strings.Join(reg.Names(), ", "))
				}
				writeAdapter(f.Out, a.Info())
				return nil
			}
			writeList(f.Out, reg)
			return nil
		},
	}
}

func writeList(w io.Writer, reg *adapters.Registry) {
	fmt.Fprintln(w, "ADAPTERS")
	for _, n := range reg.Names() {
		a, _ := reg.Lookup(n)
		writeAdapter(w, a.Info())
	}
	fmt.Fprintln(w, "WORKLOADS (every adapter that lists them)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, h := range builtinWorkloadHelp {
		fmt.Fprintf(tw, "  %s\t%s\n", h[0], h[1])
	}
	tw.Flush()
	fmt.Fprintln(w, "\nFIGURES (for assertions: WORKLOAD.FIGURE[TARGET])")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, fi := range report.Figures {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", fi.Name, fi.Unit, fi.Help)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nBUILT-IN CONFIGS (dbbench run -c NAME)\n  %s\n", strings.Join(configs.Names(), ", "))
}

func writeAdapter(w io.Writer, info adapters.Info) {
	fmt.Fprintf(w, "  %s: %s\n", info.Name, info.Summary)
	if len(info.Builtin) > 0 {
		if info.ClientWorkloads {
			fmt.Fprintf(w, "    workloads: %s, and those the client declares (run with any params)\n", strings.Join(info.Builtin, ", "))
		} else {
			fmt.Fprintf(w, "    workloads: %s\n", strings.Join(info.Builtin, ", "))
		}
	}
	if len(info.Options) > 0 {
		fmt.Fprintln(w, "    options:")
		writeOptions(w, "      ", info.Options)
	}
	for _, wl := range info.Workloads {
		fmt.Fprintf(w, "    workload %s: %s\n", wl.Name, wl.Help)
		if len(wl.Params) > 0 {
			writeOptions(w, "      params: ", wl.Params)
		}
	}
	fmt.Fprintln(w)
}

func writeOptions(w io.Writer, indent string, specs []adapters.OptionSpec) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, o := range specs {
		kind := string(o.Kind)
		if o.Kind == adapters.Enum {
			kind = strings.Join(o.Choices, "|")
		}
		def := ""
		if o.Default != "" {
			def = " (default " + o.Default + ")"
		}
		secret := ""
		if o.Secret {
			secret = " [secret]"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s%s%s\n", indent, o.Name, kind, o.Help, def, secret)
	}
	tw.Flush()
}

package commands

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/configs"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/suggest"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render"
	"github.com/dbbench/dbbench/workloads"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// builtinWorkloadHelp documents the four common workloads.
var builtinWorkloadHelp = [][2]string{
	{workloads.Scan, "one read transaction reads `rows` persons and decodes every row (default rows: the dataset)"},
	{workloads.Lookup, "`ops` point lookups by email, each in its own read transaction (default 1000)"},
	{workloads.Insert, "a fresh store, one write transaction with `ops` separate inserts, then commit (default 10000)"},
	{workloads.Concurrent, "`readers` read transactions at once, each scanning `rows` persons (default 4 x 10000)"},
}

// listSections are the parts of the list `dbbench list NAME` shows alone, with the writer of each.
var listSections = map[string]func(io.Writer){
	"workloads": writeWorkloads,
	"figures":   writeFigures,
	"configs":   writeConfigs,
}

// NewListCmd builds `dbbench list`.
func NewListCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "list [ADAPTER | workloads | figures | configs]",
		Short: "Show the adapters with their options and workloads, the workloads, the figures, and the built-in configs",
		Long: `List shows the adapters with their options and workloads, the workloads every adapter runs (the
common ones and YCSB's core workloads), the figures assertions read, and the built-in configs; with
ADAPTER, that one adapter in full; with workloads, figures or configs, that part alone.

Exit codes: 0 listed; 2 an unknown adapter.`,
		Example: `  dbbench list
  dbbench list lmdb
  dbbench list figures`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := f.Registry()
			if err != nil {
				return exitcode.Infraf("adapter registry: %v", err)
			}
			if len(args) == 0 {
				writeList(f.Out, reg)
				return nil
			}
			if write, ok := listSections[args[0]]; ok {
				write(f.Out)
				return nil
			}
			a, ok := reg.Lookup(args[0])
			if !ok {
				known := append(reg.Names(), slices.Sorted(maps.Keys(listSections))...)
				return exitcode.Usagef("unknown adapter %q%s", args[0], suggest.Hint(args[0], known, "dbbench list"))
			}
			writeAdapter(f.Out, a.Info())
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
	writeWorkloads(w)
	fmt.Fprintln(w)
	writeFigures(w)
	fmt.Fprintln(w)
	writeConfigs(w)
}

// writeWorkloads lists the workloads every adapter that lists them runs: the common ones, then
// YCSB's core workloads (on the record stores; docs/load.md).
func writeWorkloads(w io.Writer) {
	fmt.Fprintln(w, "WORKLOADS (every adapter that lists them)")
	var rows [][]string
	for _, h := range builtinWorkloadHelp {
		rows = append(rows, []string{h[0], h[1]})
	}
	for _, y := range ycsb.Core {
		rows = append(rows, []string{y.Name, "YCSB " + strings.ToUpper(strings.TrimPrefix(y.Name, "ycsb-")) + ", " + y.Description + " (" + y.RequestDistribution + ")"})
	}
	rows = append(rows, []string{config.YCSBWorkload, "a YCSB mix of your own: the ycsb: section's workload (a..f) or mix (docs/load.md)"})
	rows = append(rows, []string{"NAME with sql:", "your own SQL transactions, or pgbench scripts (tpcb-like, simple-update, select-only, a file), on the adapters that run SQL (docs/sql.md)"})
	writeDefs(w, "  ", rows)
}

// writeFigures lists the figures assertions read.
func writeFigures(w io.Writer) {
	fmt.Fprintln(w, "FIGURES (for assertions: WORKLOAD.FIGURE[TARGET])")
	var rows [][]string
	for _, fi := range report.Figures {
		rows = append(rows, []string{fi.Name, fi.Unit, fi.Help})
	}
	writeDefs(w, "  ", rows)
}

// writeConfigs lists the built-in configs.
func writeConfigs(w io.Writer) {
	fmt.Fprintf(w, "BUILT-IN CONFIGS (dbbench run -c NAME)\n%s\n", render.Wrap("  "+strings.Join(configs.Names(), ", "), render.DefaultWidth, "  "))
}

func writeAdapter(w io.Writer, info adapters.Info) {
	fmt.Fprintln(w, render.Wrap(fmt.Sprintf("  %s: %s", info.Name, info.Summary), render.DefaultWidth, "    "))
	if len(info.Builtin) > 0 {
		workloads := strings.Join(info.Builtin, ", ")
		if info.ClientWorkloads {
			workloads += ", and those the client declares (run with any params)"
		}
		if info.SQL {
			workloads += ", and sql workloads (your own SQL, pgbench scripts)"
		}
		fmt.Fprintln(w, render.Wrap("    workloads: "+workloads, render.DefaultWidth, "      "))
	}
	if len(info.Options) > 0 {
		fmt.Fprintln(w, "    options:")
		writeOptions(w, "      ", info.Options)
	}
	for _, wl := range info.Workloads {
		fmt.Fprintln(w, render.Wrap(fmt.Sprintf("    workload %s: %s", wl.Name, wl.Help), render.DefaultWidth, "      "))
		if len(wl.Params) > 0 {
			writeOptions(w, "      params: ", wl.Params)
		}
	}
	fmt.Fprintln(w)
}

func writeOptions(w io.Writer, indent string, specs []adapters.OptionSpec) {
	var rows [][]string
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
		rows = append(rows, []string{o.Name, kind, o.Help + def + secret})
	}
	writeDefs(w, indent, rows)
}

// writeDefs writes aligned rows whose last column (the help) wraps within the 120-column width,
// continuation lines under its start; when the other columns leave it too little room, the help
// goes on its own lines below.
func writeDefs(w io.Writer, indent string, rows [][]string) {
	if len(rows) == 0 {
		return
	}
	cols := len(rows[0]) - 1
	width := make([]int, cols)
	for _, r := range rows {
		for i := 0; i < cols; i++ {
			width[i] = max(width[i], utf8.RuneCountInString(r[i]))
		}
	}
	lead := utf8.RuneCountInString(indent)
	for _, x := range width {
		lead += x + 2
	}
	for _, r := range rows {
		var b strings.Builder
		b.WriteString(indent)
		for i := 0; i < cols; i++ {
			b.WriteString(r[i] + strings.Repeat(" ", width[i]-utf8.RuneCountInString(r[i])+2))
		}
		help := r[cols]
		if render.DefaultWidth-lead < 40 { // too narrow: the help below, indented
			fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
			fmt.Fprintln(w, render.Wrap(indent+"    "+help, render.DefaultWidth, indent+"    "))
			continue
		}
		fmt.Fprintln(w, render.Wrap(b.String()+help, render.DefaultWidth, strings.Repeat(" ", lead)))
	}
}

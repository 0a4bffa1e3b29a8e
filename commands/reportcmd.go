package commands

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/suggest"
	"github.com/dbbench/dbbench/internal/term"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render"
)

// ReportOptions are the arguments and flags of `dbbench report`.
type ReportOptions struct {
	f      *Factory
	Path   string
	Format string
	OutDir string
	Unit   string
	Force  bool
	// PerRepeat writes benchstat lines per repeat instead of per run.
	PerRepeat bool
}

// reportFormats are the formats `dbbench report` writes.
var reportFormats = append([]string{"text", "json", "html", "csv", "markdown", "benchstat", "hgrm"}, render.DashboardFormats...)

// NewReportCmd builds `dbbench report`. runF replaces the run function in tests of flag parsing.
func NewReportCmd(f *Factory, runF func(*ReportOptions) error) *cobra.Command {
	opts := &ReportOptions{f: f}
	cmd := &cobra.Command{
		Use:   "report FILE [--format FORMAT] [--out-dir DIR]",
		Short: "Print a report again, or export it for benchstat and HdrHistogram tools",
		Long: `Report reads a JSON report written by 'dbbench run' and prints it in one of these formats:

  text       the run's summary table, assertions and verdict, as 'dbbench run' printed them
  json       the report itself, checked and re-indented
  csv        one row per figure of every result that did not fail, RFC 4180, with the columns
             target,workload,size,figure,unit,value,runs,lo,hi: value as the text report shows it
             (the median over runs; P99.9 and MAX from the merged histogram) in the figure's unit
             (dbbench list figures), runs how many runs it rests on, lo and hi the interval an
             absolute assertion on that figure was decided on over several runs (empty otherwise)
  markdown   the text report's tables as GitHub Markdown, for a pull request's comment or
             $GITHUB_STEP_SUMMARY: results, phases, memory, load clocks, assertions, verdict
  html       one self-contained page (charts drawn as inline SVG, nothing fetched, prints well):
             the environment and verdict, the assertions with their inputs, per workload every
             target's latency by percentile (HdrHistogram's 1/(1-p) axis) and every repeat as a
             point; for a size sweep each figure against size with the growth assertions' limits;
             for a run with --profile each target's phases as a stacked bar per workload; with
             memory figures, alloc/op, retained/op and peak rss in the results table
  benchstat  Go benchmark lines, one per run (its median over its repeats: the run is the unit
             of evidence, as in compare), named like BenchmarkScan/target=lmdb-go/size=20000,
             with ns/op, ns/row, rows/s, ops/s and p50-ns ... p99.9-ns; 'benchstat -col /target
             FILE' compares the targets, 'benchstat OLD.txt NEW.txt' two sets of runs (give each
             several: dbbench run --runs 5); --per-repeat writes one line per repeat instead
  hgrm       one HdrHistogram percentile-distribution file per result (the format of
             HdrHistogram's outputPercentileDistribution, read by the HdrHistogram plotter), from
             the latency histogram merged over all repeats, written to --out-dir as
             TARGET_WORKLOAD[_SIZE].hgrm; values in --unit (default us)

For benchmark dashboards, one value per figure per target (the median over repeats, with the
range the repeats spanned), named like assertions: scan.rows_per_s[lmdb-go] (lmdb-go@SIZE in a
sweep). Failed results are left out.

  customBiggerIsBetter   github-action-benchmark's custom JSON for 'tool: customBiggerIsBetter':
                         the throughputs (rows_per_s, ops_per_s)
  customSmallerIsBetter  the same for 'tool: customSmallerIsBetter': ns_per_row, ns_per_op,
                         p50, p99, p99.9 (ns)
  bencher                Bencher Metric Format (bencher run --adapter json): one benchmark per
                         result (scan[lmdb-go]), one measure per figure (rows-per-s, latency-p99,
                         ...) with the median as value and the repeats' range as lower/upper_value

hgrm never overwrites a file unless --force is given.

Exit codes: 0 written; 2 missing or corrupt report, a report from a newer dbbench, bad flags, or
an .hgrm file that already exists; 3 the output could not be written.`,
		Example: `  dbbench report baselines/gate-ci/run-1.json
  dbbench report baselines/gate-ci/run-1.json --format html > gate.html
  dbbench report baselines/gate-ci/run-1.json --format csv > gate.csv
  dbbench report baselines/gate-ci/run-1.json --format markdown >> "$GITHUB_STEP_SUMMARY"
  dbbench report baselines/gate-ci/run-1.json --format benchstat > new.txt && benchstat old.txt new.txt
  dbbench report baselines/gate-ci/run-1.json --format customSmallerIsBetter > bench-smaller.json
  dbbench report run.json --format hgrm --out-dir hgrm/`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			if runF != nil {
				return runF(opts)
			}
			return reportRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Format, "format", "f", "text", "output format (see above)")
	fl.StringVar(&opts.OutDir, "out-dir", "", "directory for the .hgrm files (hgrm only; created if missing)")
	fl.StringVar(&opts.Unit, "unit", "us", "unit of .hgrm values: ns, us or ms")
	fl.BoolVar(&opts.Force, "force", false, "overwrite existing .hgrm files")
	fl.BoolVar(&opts.PerRepeat, "per-repeat", false, "benchstat: one line per repeat, not per run (overstates significance across runs)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(reportFormats, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("unit", cobra.FixedCompletions([]string{"ns", "us", "ms"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func reportRun(opts *ReportOptions) error {
	if !slices.Contains(reportFormats, opts.Format) {
		return exitcode.Usagef("--format: unknown format %q%s", opts.Format, suggest.Hint(opts.Format, reportFormats, "dbbench report --help"))
	}
	if opts.Format == "hgrm" && opts.OutDir == "" {
		return exitcode.Usagef("--format hgrm writes one file per result: give the directory with --out-dir")
	}
	if opts.PerRepeat && opts.Format != "benchstat" {
		return exitcode.Usagef("--per-repeat is for --format benchstat")
	}
	if opts.Format != "hgrm" && opts.OutDir != "" {
		return exitcode.Usagef("--out-dir is for --format hgrm; other formats go to standard output")
	}
	r, err := report.Read(opts.Path)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	out := opts.f.Out
	switch opts.Format {
	case "text":
		err = render.SummaryStyled(out, r, render.Style{Color: term.Color(out, os.Getenv)})
	case "html":
		reg, rerr := opts.f.Registry()
		if rerr != nil {
			return exitcode.Infraf("adapter registry: %v", rerr)
		}
		err = render.HTML(out, r, render.OptionKindsOf(reg))
	case "json":
		var b []byte
		b, err = json.MarshalIndent(r, "", "  ")
		if err == nil {
			_, err = out.Write(append(b, '\n'))
		}
	case "csv":
		err = render.CSV(out, r)
	case "markdown":
		err = render.Markdown(out, r)
	case "benchstat":
		err = render.Benchstat(out, r, opts.PerRepeat)
	case "customBiggerIsBetter", "customSmallerIsBetter", "bencher":
		err = render.Dashboard(out, r, opts.Format)
	case "hgrm":
		return writeHGRM(opts, r)
	}
	if err != nil {
		return exitcode.Infraf("write report: %v", err)
	}
	return nil
}

// uniqueName returns name, or name with _2, _3 ... before its extension when an earlier result of the
// same export already took it (target "a_b" with workload "c", and "a" with "b_c").
func uniqueName(used map[string]bool, name string) string {
	ext := filepath.Ext(name)
	base := strings.TrimSuffix(name, ext)
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("%s_%d%s", base, i, ext)
	}
	used[name] = true
	return name
}

// writeHGRM writes one .hgrm file per result. It decodes every histogram and checks every target
// path before writing anything, so a corrupt report or an existing file leaves the directory as it
// was.
func writeHGRM(opts *ReportOptions, r *report.Report) error {
	scale, ok := render.HGRMUnits[opts.Unit]
	if !ok {
		units := slices.Sorted(maps.Keys(render.HGRMUnits))
		return exitcode.Usagef("--unit: unknown unit %q (units: %s)", opts.Unit, strings.Join(units, ", "))
	}
	type file struct {
		path string
		body []byte
	}
	var files []file
	used := map[string]bool{}
	sweep := len(r.Run.Sizes) > 1
	for _, x := range r.Results {
		if len(x.Repeats) == 0 {
			continue // failed before any measured repeat: no histogram
		}
		enc := []string{x.Histogram}
		if x.Histogram == "" { // an older report without the merged histogram: merge the repeats'
			enc = enc[:0]
			for _, rep := range x.Repeats {
				enc = append(enc, rep.Histogram)
			}
		}
		h, err := report.MergeHistograms(enc...)
		if err != nil {
			return exitcode.Usagef("%s: %s %s: %v", opts.Path, x.Target, x.Workload, err)
		}
		var b strings.Builder
		if err := render.PercentileDistribution(&b, h, scale); err != nil {
			return exitcode.Infraf("%v", err)
		}
		p := filepath.Join(opts.OutDir, uniqueName(used, render.HGRMFileName(x, sweep)))
		if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
			// --force replaces earlier exports, never a link, a device or a directory.
			return exitcode.Usagef("%s exists and is not a regular file: refusing to replace it", p)
		} else if err == nil && !opts.Force {
			return exitcode.Usagef("%s already exists (pass --force to overwrite)", p)
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return exitcode.Infraf("cannot write %s: %v", p, err)
		}
		files = append(files, file{p, []byte(b.String())})
	}
	if len(files) == 0 {
		return exitcode.Usagef("%s has no measured results to export", opts.Path)
	}
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return exitcode.Infraf("cannot create %s: %v", opts.OutDir, err)
	}
	for _, f := range files {
		if err := replaceFile(f.path, f.body); err != nil {
			return exitcode.Infraf("cannot write %s: %v", f.path, err)
		}
		fmt.Fprintln(opts.f.Out, f.path)
	}
	return nil
}

// replaceFile writes body to a temporary file next to path and renames it over path, so that a file
// linked to path elsewhere (a hard link) is never written through.
func replaceFile(path string, body []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // no-op after the rename
	if _, err := f.Write(body); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

package commands

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/engine"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/term"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/assertion"
	"github.com/dbbench/dbbench/report/hlog"
	"github.com/dbbench/dbbench/report/render"
)

// MergeOptions are the arguments and flags of `dbbench merge`.
type MergeOptions struct {
	f            *Factory
	Files        []string
	Out          string
	Force        bool
	Quiet        bool
	AllowMissing bool
	Args         []string
}

// NewMergeCmd builds `dbbench merge`. runF replaces the run function in tests of flag parsing.
func NewMergeCmd(f *Factory, runF func(*MergeOptions) error) *cobra.Command {
	opts := &MergeOptions{f: f}
	cmd := &cobra.Command{
		Use:   "merge SHARD.json... [--out FILE] [--allow-missing]",
		Short: "Merge the reports of a sharded run into one report",
		Long: `Merge makes one report of the N reports of a sharded run ('dbbench run --shard I/N', or
--shards N with JOB_COMPLETION_INDEX): per result, each repeat's histograms are merged across the
shards (every recorded value counts), counts added, and every figure computed as one run's are;
the assertions and the verdict are decided on the union, as one run's (a point verdict: a merge
cannot add runs). It prints the summary as 'dbbench run' does and writes the report under
the same --out rules (never over one of the shard reports it reads). See docs/shards.md.

It refuses (exit 2) reports of different configs, binaries (build hash), seeds or shard totals,
two reports of the same shard, and a report that is no shard's. A shard that is missing, or whose
report is partial (interrupted, stopped by an error, or a reservation left by a killed run), is
named ("shard 3 of 4 missing") and the merge exits 6 without a report, unless --allow-missing:
then the report is marked partial, names the shares missing, and the exit follows the verdict. So
is a complete shard without a result the others have ("shard 1 of 2 has no sqlite ycsb-c result":
a target it skipped): every shard must hold every target, workload and size of the run.

A load-model result's rates are the operations completed over the union of the shards' spans, each
placed at its shard's recorded start, never a sum of the shards' rates: shards that did not run
together do not add up to a rate they never held. Shards whose spans overlap by less than 90% of
the shorter one are named in a warning on the result, and so is a clock offset the rates rest on that
is unknown (shards on several hosts).

Exit codes: 0 every verdict holds; 1 an assertion failed; 2 usage or refused shards; 3 a result
failed or an assertion had nothing to decide on; 4 inconclusive; 5 a shard's generator saturated;
6 a shard missing or partial (without --allow-missing).`,
		Example: `  dbbench merge shard-0.json shard-1.json shard-2.json shard-3.json --out merged.json
  dbbench merge reports/shard-*.json --allow-missing`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files, opts.Args = args, os.Args
			if runF != nil {
				return runF(opts)
			}
			return runMerge(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Out, "out", "o", "", "write the merged JSON report here (default reports/<config>-<time>.json)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "let --out replace an earlier dbbench report or a run's reservation (never a shard being merged)")
	cmd.Flags().BoolVarP(&opts.Quiet, "quiet", "q", false, "no summary: only the error line, if any")
	cmd.Flags().BoolVar(&opts.AllowMissing, "allow-missing", false, "merge the shards there are, marking the report partial")
	return cmd
}

func runMerge(opts *MergeOptions) error {
	var names []string
	var parts []*report.Report
	var logs []shardLog
	partial := map[string]string{} // a file that holds no complete shard: why
	for _, path := range opts.Files {
		if why, ok := report.HeldReservation(path); ok {
			partial[path] = path + " holds " + why
			continue
		}
		r, err := report.ReadPart(path)
		if err != nil {
			return exitcode.Usagef("%v", err)
		}
		l, why := readShardLog(path, r)
		if why != "" { // partial, as a report without its log: left out like a missing shard
			partial[path] = why
			continue
		}
		if l != nil {
			logs = append(logs, *l)
		}
		names, parts = append(names, path), append(parts, r)
	}
	if len(parts) == 0 {
		return &exitcode.Error{Code: exitcode.MissingShards, Err: fmt.Errorf("no shard is complete: %s", describePartial(partial))}
	}
	merged, missing, shares, err := report.MergeShards(names, parts)
	var refused *report.MergeRefused
	if errors.As(err, &refused) {
		return exitcode.Usagef("%s", refused.Msg)
	}
	if err != nil {
		return exitcode.Infraf("%v", err)
	}
	if len(missing)+len(shares) > 0 && (!opts.AllowMissing || merged == nil) {
		var lines []string
		if len(missing) > 0 {
			line := missingLine(missing, parts[0].Run.Shard.Total)
			if len(partial) > 0 {
				line += " (" + describePartial(partial) + ")"
			}
			lines = append(lines, line)
		}
		for _, m := range shares {
			lines = append(lines, m.String(parts[0].Run.Shard.Total, len(parts[0].Run.Sizes) > 1))
		}
		line := strings.Join(lines, "; ")
		if merged != nil {
			line += ": --allow-missing merges what there is into a report marked partial"
		}
		return &exitcode.Error{Code: exitcode.MissingShards, Err: errors.New(line)}
	}
	if merged.Assertions, err = assertion.Redecide(merged.Assertions, merged); err != nil {
		return exitcode.Usagef("%v", err)
	}
	merged.Verdict = engine.Verdict(merged)
	ro := &RunOptions{f: opts.f, Out: opts.Out, Force: opts.Force, CI: merged.Run.CI, Quiet: opts.Quiet, Args: opts.Args}
	res, err := reserveReport(ro, merged.Run.ConfigName, opts.Files...)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	defer res.Release()
	if err := writeMergedLog(ro, res.Path, merged, parts, logs); err != nil {
		return err
	}
	out := opts.f.Out
	if opts.Quiet {
		out = io.Discard
	}
	fin := &finisher{opts: ro, out: out, style: render.Style{Color: term.Color(opts.f.Out, os.Getenv)}, res: res}
	return fin.finish(merged, nil)
}

// missingLine names the shards missing: "shard 3 of 4 missing", "shards 1, 3 of 4 missing".
func missingLine(missing []int, total int) string {
	if len(missing) == 1 {
		return report.ShardName(missing[0], total) + " missing"
	}
	s := make([]string, len(missing))
	for i, m := range missing {
		s[i] = fmt.Sprint(m)
	}
	return fmt.Sprintf("shards %s of %d missing", strings.Join(s, ", "), total)
}

func describePartial(partial map[string]string) string {
	var s []string
	for _, why := range partial {
		s = append(s, why)
	}
	slices.Sort(s)
	return strings.Join(s, "; ")
}

// shardLog is a shard's interval log, read.
type shardLog struct {
	path string
	log  *hlog.Log
}

// readShardLog reads the interval log a complete shard report names (load.hlog, relative to the
// report's directory): nil when it names none. A log missing or unreadable makes the shard partial
// (why says so in a few words); a partial report's log is not read (the report is left out anyway).
func readShardLog(path string, r *report.Report) (*shardLog, string) {
	if r.Run.Interrupted || len(r.Run.Errors) > 0 {
		return nil, ""
	}
	for _, x := range r.Results {
		if x.Load == nil || x.Load.Hlog == "" {
			continue
		}
		p := filepath.Join(filepath.Dir(path), x.Load.Hlog)
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Sprintf("%s's interval log %s is missing", path, p)
		}
		if err != nil {
			return nil, fmt.Sprintf("%s's interval log %s cannot be read: %v", path, p, err)
		}
		l, err := hlog.Read(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Sprintf("%s's interval log %s is not one: %v", path, p, err)
		}
		return &shardLog{path: p, log: l}, ""
	}
	return nil, ""
}

// writeMergedLog writes the shards' interval logs merged by time (hlog.Merge) beside the merged
// report, as run writes its own (REPORT.json -> REPORT.hlog, under the same rules: an existing file
// only with --force, and then only an earlier interval log, never a shard's being merged), and
// names it in the results that had one.
func writeMergedLog(opts *RunOptions, reportPath string, merged *report.Report, parts []*report.Report, logs []shardLog) error {
	if len(logs) == 0 {
		return nil
	}
	path, err := hlogPath(reportPath, opts)
	if err != nil {
		return err
	}
	for _, l := range logs {
		if sameFile(path, l.path) {
			return exitcode.Usagef("the merged interval log %s would replace %s, a shard's being merged: choose another --out", path, l.path)
		}
	}
	all := make([]*hlog.Log, len(logs))
	for i, l := range logs {
		all[i] = l.log
	}
	var buf bytes.Buffer
	if err := hlog.Merge(all...).WriteTo(&buf, fmt.Sprintf("dbbench merge of %d shards of %s", len(logs), merged.Run.ConfigName)); err != nil {
		return exitcode.Infraf("interval log %s: %v", path, err)
	}
	if err := replaceFile(path, buf.Bytes()); err != nil { // no reader sees half a log
		return exitcode.Infraf("interval log %s: %v", path, err)
	}
	for i := range merged.Results {
		x := &merged.Results[i]
		for _, p := range parts {
			if o := p.Find(x.Target, x.Workload, x.Size); x.Load != nil && o != nil && o.Load != nil && o.Load.Hlog != "" {
				x.Load.Hlog = filepath.Base(path)
			}
		}
	}
	return nil
}

// sameFile: the two paths name one file (or, when either does not exist, one cleaned absolute path).
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	absA, _ := filepath.Abs(a)
	absB, _ := filepath.Abs(b)
	return absA == absB
}

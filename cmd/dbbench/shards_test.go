package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/schema"
)

// startShards starts n shards of the binary as a Kubernetes Indexed Job starts its pods: each with
// JOB_COMPLETION_INDEX and --shards n, one --start-at for all, each writing dir/shard-I.json.
func startShards(t *testing.T, dir string, n int, args ...string) []*exec.Cmd {
	t.Helper()
	return startShardsApart(t, dir, n, 0, args...)
}

// startShardsApart is startShards with shard I's --start-at I x apart later than shard 0's.
func startShardsApart(t *testing.T, dir string, n int, apart time.Duration, args ...string) []*exec.Cmd {
	t.Helper()
	at := time.Now().Add(2 * time.Second).UTC()
	var cmds []*exec.Cmd
	for i := range n {
		start := at.Add(time.Duration(i) * apart).Format(time.RFC3339Nano)
		a := append([]string{"run", "-q", "--shards", fmt.Sprint(n), "--start-at", start, "--out", filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))}, args...)
		cmd := exec.Command(binary, a...)
		cmd.Env = append(os.Environ(), "TMPDIR="+dir, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	return cmds
}

// measured: a shard exited 0, or 5 (its generator could not keep the schedule on this shared
// machine: its report is written all the same, and the merge says so).
func measured(err error) bool {
	var ee *exec.ExitError
	return err == nil || (errors.As(err, &ee) && ee.ExitCode() == 5)
}

// runAndMerge waits for the shards started, merges their reports into dir/merged.json, and reads
// the merged report and the shards' (stdout is the merge's summary).
func runAndMerge(t *testing.T, dir string, cmds []*exec.Cmd) (m *report.Report, shards []*report.Report, stdout string) {
	t.Helper()
	for i, cmd := range cmds {
		if err := cmd.Wait(); !measured(err) {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	merged := filepath.Join(dir, "merged.json")
	code, stdout, stderr := dbbench(t, dir, append([]string{"merge", "--out", merged}, shardFiles(dir, len(cmds))...)...)
	if code != 0 && code != 5 {
		t.Fatalf("merge exit %d: %s%s", code, stdout, stderr)
	}
	m, err := report.Read(merged)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range shardFiles(dir, len(cmds)) {
		r, err := report.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, r)
	}
	return m, shards, stdout
}

func shardFiles(dir string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, filepath.Join(dir, fmt.Sprintf("shard-%d.json", i)))
	}
	return out
}

// recorded is the histogram of every value the encoded histograms recorded, built value by value
// (not with Merge, which the merge itself uses).
func recorded(t *testing.T, encoded ...string) *hdrhistogram.Histogram {
	t.Helper()
	h := report.NewHistogram()
	for _, e := range encoded {
		d, err := report.DecodeHistogram(e)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range d.Distribution() {
			if b.Count > 0 {
				if err := h.RecordValues(b.From, b.Count); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return h
}

func sameBuckets(t *testing.T, what, merged string, want *hdrhistogram.Histogram) {
	t.Helper()
	got, err := report.DecodeHistogram(merged)
	if err != nil {
		t.Fatal(err)
	}
	if got.TotalCount() != want.TotalCount() || !slices.Equal(got.Distribution(), want.Distribution()) {
		t.Errorf("%s: merged histogram (%d values) is not the shards' values (%d)", what, got.TotalCount(), want.TotalCount())
	}
}

// TestShardsExact: 4 shards on the memory store, as a closed loop and as an open loop at 4 x 500
// ops/s, merged: the merged operation count is the sum of the shards', every merged histogram
// (each repeat's, and each operation type's three clocks) holds exactly the values the shards
// recorded, bucket by bucket, the achieved rate per second is the sum of the shards' in that second,
// and the achieved rate of the last repeat and of the load agrees with the merged per-second
// series' mean over the union of the shards' spans (checkRates). A lie that would pass none: a merge
// that averages percentiles, keeps one shard's histogram, or sums the shards' rates.
func TestShardsExact(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"closed loop", []string{"-c", "testdata/shards-closed.yaml"}},
		{"open loop 4 x 500 ops/s", []string{"-c", "ycsb-c", "--ci", "--targets", "memory", "--rate", "2000", "--duration", "2s"}},
	}
	const n = 4
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			m, shards, _ := runAndMerge(t, dir, startShards(t, dir, n, c.args...))
			if m.Run.Merge == nil || len(m.Run.Merge.Shards) != n || m.Run.Merge.Partial {
				t.Fatalf("merge record: %+v", m.Run.Merge)
			}
			for _, x := range m.Results {
				for k, rep := range x.Repeats {
					var ops int64
					var hists []string
					var achieved float64 // at most: the shards' rates summed, as if they ran together
					for _, s := range shards {
						sr := s.Find(x.Target, x.Workload, x.Size).Repeats[k]
						ops += sr.Ops
						hists = append(hists, sr.Histogram)
						achieved += sr.Figures["achieved_rate"]
					}
					if rep.Ops != ops || rep.Figures["ops"] != float64(ops) || ops == 0 {
						t.Errorf("repeat %d: merged %d ops, the shards %d", k, rep.Ops, ops)
					}
					sameBuckets(t, fmt.Sprintf("repeat %d", k), rep.Histogram, recorded(t, hists...))
					if rep.Figures["achieved_rate"] > achieved*1.0001 {
						t.Errorf("repeat %d: achieved rate %v, above the shards' sum %v", k, rep.Figures["achieved_rate"], achieved)
					}
				}
				checkRates(t, x, shards)
				// interval k of each shard is second k of the merge, but for a shard that began later
				// than the earliest: its intervals move on by that time, to the nearest interval
				first := shards[0].Run.Shard.StartedAt
				for _, s := range shards {
					if s.Run.Shard.StartedAt.Before(first) {
						first = s.Run.Shard.StartedAt
					}
				}
				perSecond := map[int64]float64{}
				secondHists := map[int64][]string{}
				var completed int64
				for _, s := range shards {
					l := s.Find(x.Target, x.Workload, x.Size).Load
					completed += l.Completed
					for _, iv := range l.Intervals {
						at := iv.StartNs + s.Run.Shard.StartedAt.Sub(first).Round(time.Duration(iv.LengthNs)).Nanoseconds()
						perSecond[at] += iv.Achieved
						secondHists[at] = append(secondHists[at], iv.Histogram)
					}
				}
				if x.Load.Completed != completed {
					t.Errorf("load: %d completed, the shards %d", x.Load.Completed, completed)
				}
				for _, iv := range x.Load.Intervals {
					if iv.Achieved != perSecond[iv.StartNs] {
						t.Errorf("interval at %v: %v/s, the shards' sum %v/s", time.Duration(iv.StartNs), iv.Achieved, perSecond[iv.StartNs])
					}
					all := recorded(t, secondHists[iv.StartNs]...)
					want := [3]float64{float64(all.ValueAtQuantile(50)), float64(all.ValueAtQuantile(99)), float64(all.ValueAtQuantile(99.9))}
					if got := [3]float64{iv.ResponseP50, iv.ResponseP99, iv.ResponseP999}; got != want || (all.TotalCount() > 0 && want[1] == 0) {
						t.Errorf("interval at %v: response p50/p99/p99.9 %v, those of the shards' %d values %v", time.Duration(iv.StartNs), got, all.TotalCount(), want)
					}
				}
				for _, typ := range x.Load.Types {
					var resp, svc, lag []string
					for _, s := range shards {
						for _, st := range s.Find(x.Target, x.Workload, x.Size).Load.Types {
							if st.Op == typ.Op {
								resp, svc, lag = append(resp, st.Histogram.Response), append(svc, st.Histogram.Service), append(lag, st.Histogram.StartLag)
							}
						}
					}
					sameBuckets(t, typ.Op+" response", typ.Histogram.Response, recorded(t, resp...))
					sameBuckets(t, typ.Op+" service", typ.Histogram.Service, recorded(t, svc...))
					sameBuckets(t, typ.Op+" start lag", typ.Histogram.StartLag, recorded(t, lag...))
				}
			}
			checkMergedLog(t, filepath.Join(dir, "merged.hlog"), m, shardLogs(dir, n))
			for _, f := range append(shardFiles(dir, n), filepath.Join(dir, "merged.json")) { // report/SCHEMA.md's run.shard, run.merge, ...
				if b, err := os.ReadFile(f); err != nil || schema.Validate(schema.Report, b) != nil {
					t.Errorf("%s does not match the report schema: %v %v", f, err, schema.Validate(schema.Report, b))
				}
			}
			if len(m.Assertions) == 0 && strings.Contains(c.name, "closed") {
				t.Error("the config's assertion was not decided on the merge")
			}
		})
	}
}

// checkRates: the merged achieved rate of a load-model result (its last repeat's, whose load section
// holds the time series, and the load's) is within 5% of the merged per-second series' mean over the
// union of the shards' spans, each placed at its shard's recorded start, computed here from the
// shard reports: what every operation completed together over the time the shards covered.
func checkRates(t *testing.T, x report.Result, shards []*report.Report) {
	t.Helper()
	first := shards[0].Run.Shard.StartedAt
	for _, s := range shards {
		if s.Run.Shard.StartedAt.Before(first) {
			first = s.Run.Shard.StartedAt
		}
	}
	var lo, hi time.Duration
	for i, s := range shards {
		l := s.Find(x.Target, x.Workload, x.Size).Load
		at := s.Run.Shard.StartedAt.Sub(first)
		if i == 0 || at < lo {
			lo = at
		}
		hi = max(hi, at+time.Duration(l.SpanNs))
	}
	var completed float64
	for _, iv := range x.Load.Intervals {
		completed += iv.Achieved * time.Duration(iv.LengthNs).Seconds()
	}
	series := completed / (hi - lo).Seconds()
	last := x.Repeats[len(x.Repeats)-1]
	for what, got := range map[string]float64{"the last repeat's achieved rate": last.Figures["achieved_rate"], "the load's achieved rate": x.Load.Achieved} {
		if series == 0 || math.Abs(got/series-1) > 0.05 {
			t.Errorf("%s %s: %s %.1f/s, the merged per-second series' mean over the union of the spans (%v) %.1f/s",
				x.Target, x.Workload, what, got, hi-lo, series)
		}
	}
}

// TestShardsApart: two shards of 1 s at 2 x 250 ops/s, started 1 s apart. The merged rate is the
// operations over the 2 s they covered together, as the merged per-second series says (250/s in
// each of two seconds), not the 500/s a sum of the shards' rates claims, and the merged report says
// they ran apart.
func TestShardsApart(t *testing.T) {
	dir := t.TempDir()
	m, shards, stdout := runAndMerge(t, dir, startShardsApart(t, dir, 2, time.Second, "-c", "ycsb-c", "--ci", "--targets", "memory"))
	x := m.Results[0]
	checkRates(t, x, shards)
	if x.Load.Achieved > 300 {
		t.Errorf("achieved %.1f/s: the shards' 500 operations over about 2 s are about 250/s", x.Load.Achieved)
	}
	if !slices.ContainsFunc(x.Warnings, func(w string) bool { return strings.Contains(w, "shards 0 and 1 of 2 ran apart") }) ||
		!strings.Contains(strings.Join(strings.Fields(stdout), " "), "shards 0 and 1 of 2 ran apart") {
		t.Errorf("warnings %q, summary:\n%s\nwant both to say the shards ran apart", x.Warnings, stdout)
	}
}

// TestShardsMissingTarget: two shards of ycsb-c on memory and SQLite, SQLite's result taken out of
// shard 1's report (as a shard that skipped the target leaves it): the merge names the share
// missing and exits 6, and with --allow-missing writes a report marked PARTIAL naming it, whose
// SQLite result is shard 0's alone.
func TestShardsMissingTarget(t *testing.T) {
	dir := t.TempDir()
	for i, cmd := range startShards(t, dir, 2, "-c", "ycsb-c", "--ci", "--targets", "memory,sqlite") {
		if err := cmd.Wait(); !measured(err) {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	files := shardFiles(dir, 2)
	b, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	results := doc["results"].([]any)
	doc["results"] = slices.DeleteFunc(results, func(x any) bool { return x.(map[string]any)["target"] == "sqlite" })
	if len(doc["results"].([]any)) != 1 {
		t.Fatalf("shard 1 has %d results, want memory's alone", len(doc["results"].([]any)))
	}
	b, _ = json.Marshal(doc)
	if err := os.WriteFile(files[1], b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := dbbench(t, dir, append([]string{"merge", "--out", filepath.Join(dir, "m.json")}, files...)...)
	if code != 6 || !strings.Contains(stderr, "shard 1 of 2 has no sqlite ycsb-c result") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("a shard without SQLite's result: exit %d, %q; want 6 and one line naming shard 1 and sqlite", code, stderr)
	}
	partial := filepath.Join(dir, "partial.json")
	code, stdout, stderr := dbbench(t, dir, append([]string{"merge", "--allow-missing", "--out", partial}, files...)...)
	if (code != 0 && code != 5) || !strings.Contains(stdout, "PARTIAL") || !strings.Contains(strings.Join(strings.Fields(stdout), " "), "shard 1 of 2 has no sqlite ycsb-c result") {
		t.Errorf("--allow-missing: exit %d, %s%s", code, stdout, stderr)
	}
	m, err := report.Read(partial)
	if err != nil || !m.Run.Merge.Partial || len(m.Run.Merge.MissingShares) != 1 || m.Run.Merge.MissingShares[0].Target != "sqlite" {
		t.Fatalf("--allow-missing report: %v, %+v", err, m.Run.Merge)
	}
	s0, _ := report.Read(files[0])
	if x := m.Find("sqlite", "ycsb-c", 0); x == nil || x.Load.Completed != s0.Find("sqlite", "ycsb-c", 0).Load.Completed {
		t.Errorf("the partial report's sqlite result should be shard 0's alone")
	}
}

func shardLogs(dir string, n int) []string {
	var out []string
	for _, f := range shardFiles(dir, n) {
		out = append(out, strings.TrimSuffix(f, ".json")+".hlog")
	}
	return out
}

// logSeries reads an interval log with hdrhistogram-go's log reader: its start (ms) and, per tag
// and second from the start given (rounded to the nearest: the reader truncates to whole ms), the
// values recorded, as encoded histograms.
func logSeries(t *testing.T, path string, base int64) (int64, map[string][]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`#\[StartTime: ([0-9.]+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no start time", path)
	}
	sec, _ := strconv.ParseFloat(string(m[1]), 64)
	start := int64(math.Round(sec * 1000))
	if base == 0 {
		base = start
	}
	out := map[string][]string{}
	r := hdrhistogram.NewHistogramLogReader(bytes.NewReader(b))
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if h == nil {
			return start, out
		}
		if h.EndTimeMs()-h.StartTimeMs() < 999 || h.EndTimeMs()-h.StartTimeMs() > 1001 {
			t.Fatalf("%s: an interval of %d ms, want 1 s", path, h.EndTimeMs()-h.StartTimeMs())
		}
		key := fmt.Sprintf("%s@%d", h.Tag(), int64(math.Round(float64(h.StartTimeMs()-base)/1000)))
		enc, err := report.EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		out[key] = append(out[key], enc)
	}
}

// checkMergedLog: the merged report names its interval log, which hdrhistogram-go's log reader
// decodes; it starts at the earliest shard's log start and holds, per series and second, exactly
// the values the shards' logs hold for that second (one interval each), built value by value.
func checkMergedLog(t *testing.T, merged string, m *report.Report, shardLogs []string) {
	t.Helper()
	for _, x := range m.Results {
		if x.Load != nil && x.Load.Hlog != filepath.Base(merged) {
			t.Errorf("%s %s: the merged report names the interval log %q, want %q", x.Target, x.Workload, x.Load.Hlog, filepath.Base(merged))
		}
	}
	var base int64
	for _, p := range shardLogs {
		s, _ := logSeries(t, p, 0)
		if base == 0 || s < base {
			base = s
		}
	}
	want := map[string][]string{}
	for _, p := range shardLogs {
		_, series := logSeries(t, p, base)
		for k, v := range series {
			want[k] = append(want[k], v...)
		}
	}
	start, got := logSeries(t, merged, 0)
	if start != base {
		t.Errorf("the merged log starts at %d ms, the earliest shard's log at %d ms", start, base)
	}
	if len(got) != len(want) || len(want) == 0 {
		t.Errorf("the merged log has %d series-seconds, the shards' logs %d", len(got), len(want))
	}
	for k, w := range want {
		if len(got[k]) != 1 {
			t.Errorf("%s: %d intervals in the merged log, want 1", k, len(got[k]))
			continue
		}
		sameBuckets(t, "merged log "+k, got[k][0], recorded(t, w...))
	}
}

// TestShardsFaults: one of 4 shards killed with SIGKILL halfway leaves a reservation, not a report:
// the merge names it and exits 6, and with --allow-missing writes a report marked partial that
// names the share missing; a shard that reaches its start late says so; shards that are not
// shares of one run are refused with one line and exit 2.
func TestShardsFaults(t *testing.T) {
	dir := t.TempDir()
	const n = 4
	cmds := startShards(t, dir, n, "-c", "ycsb-c", "--ci", "--targets", "memory", "--rate", "400", "--duration", "3s")
	time.Sleep(3500 * time.Millisecond) // 2 s to the start, then halfway through the run phase
	if err := cmds[3].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); !measured(err) && i != 3 {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	files := shardFiles(dir, n)
	code, _, stderr := dbbench(t, dir, append([]string{"merge", "--out", filepath.Join(dir, "m.json")}, files...)...)
	if code != 6 || !strings.Contains(stderr, "shard 3 of 4 missing") {
		t.Errorf("merge with a killed shard: exit %d, %q; want 6 naming shard 3 of 4", code, stderr)
	}
	partial := filepath.Join(dir, "partial.json")
	code, stdout, stderr := dbbench(t, dir, append([]string{"merge", "--allow-missing", "--out", partial}, files...)...)
	if (code != 0 && code != 5) || !strings.Contains(stdout, "PARTIAL") {
		t.Errorf("--allow-missing: exit %d, %s%s", code, stdout, stderr)
	}
	if m, err := report.Read(partial); err != nil || !m.Run.Merge.Partial || !slices.Equal(m.Run.Merge.Missing, []int{3}) {
		t.Errorf("--allow-missing report: %v, %+v", err, m)
	}

	// A shard started after its start time: late, and the merge says so.
	late := filepath.Join(dir, "late.json")
	cmd := exec.Command(binary, "run", "-q", "--shard", "3/4", "--start-at", time.Now().Add(-5*time.Second).UTC().Format(time.RFC3339Nano),
		"--out", late, "-c", "ycsb-c", "--ci", "--targets", "memory", "--rate", "400", "--duration", "3s")
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	if out, err := cmd.CombinedOutput(); !measured(err) {
		t.Fatalf("late shard: %v: %s", err, out)
	}
	code, stdout, _ = dbbench(t, dir, "merge", "--out", filepath.Join(dir, "m2.json"), files[0], files[1], files[2], late)
	if (code != 0 && code != 5) || !strings.Contains(stdout, "LATE by") {
		t.Errorf("a late shard: exit %d, summary %q", code, stdout)
	}

	// A shard whose report is there but whose interval log is not is partial: named, exit 6; with
	// --allow-missing left out of the report and of the merged log alike.
	lost := filepath.Join(dir, "lost")
	if err := os.Mkdir(lost, 0o755); err != nil {
		t.Fatal(err)
	}
	var lostFiles []string
	for _, f := range []string{files[0], files[1], files[2], late} {
		for _, p := range []string{f, strings.TrimSuffix(f, ".json") + ".hlog"} {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if p != strings.TrimSuffix(files[2], ".json")+".hlog" {
				os.WriteFile(filepath.Join(lost, filepath.Base(p)), b, 0o644)
			}
		}
		lostFiles = append(lostFiles, filepath.Join(lost, filepath.Base(f)))
	}
	code, _, stderr = dbbench(t, lost, append([]string{"merge", "--out", filepath.Join(lost, "m.json")}, lostFiles...)...)
	if code != 6 || !strings.Contains(stderr, "shard 2 of 4 missing") || !strings.Contains(stderr, "shard-2.hlog is missing") ||
		strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("a shard without its interval log: exit %d, %q; want 6 and one line naming shard 2 and its log", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(lost, "m.hlog")); err == nil {
		t.Error("a merged interval log was written though the merge failed")
	}
	code, stdout, stderr = dbbench(t, lost, append([]string{"merge", "--allow-missing", "--out", filepath.Join(lost, "p.json")}, lostFiles...)...)
	if m, err := report.Read(filepath.Join(lost, "p.json")); (code != 0 && code != 5) || err != nil || !slices.Equal(m.Run.Merge.Missing, []int{2}) {
		t.Errorf("--allow-missing without shard 2's log: exit %d, %v, %s%s", code, err, stdout, stderr)
	} else {
		var logs []string
		for _, f := range []string{lostFiles[0], lostFiles[1], lostFiles[3]} {
			logs = append(logs, strings.TrimSuffix(f, ".json")+".hlog")
		}
		checkMergedLog(t, filepath.Join(lost, "p.hlog"), m, logs)
	}

	// The merged log never replaces a shard's, even with --force (--out shard-1.txt: shard-1.hlog).
	before, _ := os.ReadFile(filepath.Join(lost, "shard-1.hlog"))
	for _, force := range []bool{false, true} {
		args := []string{"merge", "--allow-missing", "--out", filepath.Join(lost, "shard-1.txt")}
		if force {
			args = append(args, "--force")
		}
		code, _, stderr = dbbench(t, lost, append(args, lostFiles[0], lostFiles[1], lostFiles[3])...)
		after, _ := os.ReadFile(filepath.Join(lost, "shard-1.hlog"))
		if code != 2 || !bytes.Equal(before, after) || !strings.Contains(stderr, "shard-1.hlog") {
			t.Errorf("--out over a shard's interval log (force %t): exit %d, %q, log unchanged %t", force, code, stderr, bytes.Equal(before, after))
		}
	}

	// Refusals: each a shard report changed in one way.
	edit := func(name string, change func(m map[string]any)) string {
		b, _ := os.ReadFile(files[1])
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		change(m)
		b, _ = json.Marshal(m)
		p := filepath.Join(dir, name+".json")
		os.WriteFile(p, b, 0o644)
		return p
	}
	run := func(m map[string]any) map[string]any { return m["run"].(map[string]any) }
	shard := func(m map[string]any) map[string]any { return run(m)["shard"].(map[string]any) }
	for _, c := range []struct {
		name   string
		change func(m map[string]any)
		want   string
	}{
		{"seed", func(m map[string]any) { run(m)["seed"] = 99.0 }, "different seeds"},
		{"config", func(m map[string]any) { m["config"].(map[string]any)["seed"] = 99.0 }, "different configs"},
		{"build", func(m map[string]any) { shard(m)["build_hash"] = "0123456789abcdef" }, "different dbbench binaries"},
		{"total", func(m map[string]any) { shard(m)["total"] = 5.0 }, "different shard totals"},
		{"duplicate", func(m map[string]any) { shard(m)["index"] = 0.0 }, "both shard 0 of 4"},
		{"not a shard", func(m map[string]any) { delete(run(m), "shard") }, "is not a shard's report"},
	} {
		p := edit(c.name, c.change)
		code, _, stderr := dbbench(t, dir, "merge", "--out", filepath.Join(dir, "r.json"), files[0], p, files[2])
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, %q; want 2 and one line with %q", c.name, code, stderr, c.want)
		}
	}
}

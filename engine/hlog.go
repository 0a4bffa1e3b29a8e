package engine

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbbench/dbbench/engine/load"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/hlog"
)

// HlogPath is the interval log's path beside a JSON report: REPORT.json -> REPORT.hlog.
func HlogPath(reportPath string) string {
	return strings.TrimSuffix(reportPath, filepath.Ext(reportPath)) + ".hlog"
}

// takeHlog, in the parent of worker processes (runs, or isolation: process), notes a worker's
// interval log for mergeHlogs and points the worker's results at the run's log.
func (r *Runner) takeHlog(workerReport string, rep *report.Report) {
	if r.HlogPath == "" || rep == nil {
		return
	}
	part := HlogPath(workerReport)
	if _, err := os.Stat(part); err != nil {
		return // the worker measured no YCSB run phase
	}
	r.hlogParts = append(r.hlogParts, part)
	for i := range rep.Results {
		if l := rep.Results[i].Load; l != nil && l.Hlog != "" {
			l.Hlog = r.hlogName()
		}
	}
}

// mergeHlogs writes the workers' interval logs into the run's, each interval's times moved from its
// worker's start to the earliest worker's, the intervals in time order; it forgets the parts.
func (r *Runner) mergeHlogs() error {
	parts := r.hlogParts
	r.hlogParts = nil
	if len(parts) == 0 {
		return nil
	}
	var lines []hlogLine
	var header []string
	first := math.Inf(1)
	starts := make([]float64, len(parts))
	bodies := make([][]string, len(parts))
	for k, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("interval log: %w", err)
		}
		var head []string
		if starts[k], head, bodies[k], err = readHlogPart(b); err != nil {
			return fmt.Errorf("interval log %s: %w", p, err)
		}
		if k == 0 || len(header) == 0 {
			header = head
		}
		first = min(first, starts[k])
	}
	if len(parts) > 1 {
		header = nil // rebuilt below with the earliest start
	}
	for k, body := range bodies {
		for _, l := range body {
			sh, err := shiftHlogLine(l, starts[k]-first)
			if err != nil {
				return fmt.Errorf("interval log %s: %w", parts[k], err)
			}
			lines = append(lines, sh)
		}
	}
	slices.SortStableFunc(lines, func(a, b hlogLine) int { return cmp.Compare(a.at, b.at) })
	var out strings.Builder
	if header == nil {
		w, err := hlog.NewWriter(&out, time.UnixMilli(int64(math.Round(first*1000))), "dbbench "+r.Plan.Name)
		if err != nil || w == nil {
			return err
		}
	} else {
		out.WriteString(strings.Join(header, "\n") + "\n")
	}
	for _, l := range lines {
		out.WriteString(l.text + "\n")
	}
	return os.WriteFile(r.HlogPath, []byte(out.String()), 0o644)
}

// hlogLine is one interval's line of a log, at its start time (s) from the log's start.
type hlogLine struct {
	at   float64
	text string
}

// readHlogPart splits a worker's interval log into its start time (s since the epoch), its header
// lines and its interval lines (tagged: dbbench tags every series).
func readHlogPart(b []byte) (start float64, header, body []string, err error) {
	start = math.NaN()
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if rest, ok := strings.CutPrefix(l, "#[StartTime: "); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				if v, err := strconv.ParseFloat(f[0], 64); err == nil {
					start = v
				}
			}
		}
		if strings.HasPrefix(l, "Tag=") {
			body = append(body, l)
		} else {
			header = append(header, l)
		}
	}
	if math.IsNaN(start) || math.IsInf(start, 0) {
		return 0, nil, nil, fmt.Errorf("no start time")
	}
	return start, header, body, nil
}

// shiftHlogLine moves an interval line (Tag=T,START,LENGTH,MAX,HISTOGRAM) by (s): its start from
// another log's start.
func shiftHlogLine(l string, by float64) (hlogLine, error) {
	f := strings.SplitN(l, ",", 3)
	if len(f) < 3 {
		return hlogLine{}, fmt.Errorf("a line without a start time")
	}
	at, err := strconv.ParseFloat(f[1], 64)
	if err != nil || math.IsNaN(at) || math.IsInf(at, 0) {
		return hlogLine{}, fmt.Errorf("a line without a start time")
	}
	at += by
	return hlogLine{at, fmt.Sprintf("%s,%.3f,%s", f[0], at, f[2])}, nil
}

// hlogFile is the open interval log of a run.
type hlogFile struct {
	f     *os.File
	w     *hlog.Writer
	start time.Time
}

// hlogName is the log's name relative to the report's directory.
func (r *Runner) hlogName() string { return filepath.Base(r.HlogPath) }

// writeHlog appends a run phase's series to the run's interval log (made at the first call).
func (r *Runner) writeHlog(target, workload string, started time.Time, res *load.Result, cfg load.Config) error {
	if r.HlogPath == "" {
		return nil
	}
	if r.hlog == nil {
		f, err := os.OpenFile(r.HlogPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("interval log: %w", err)
		}
		w, err := hlog.NewWriter(f, started, "dbbench "+r.Plan.Name)
		if err != nil {
			f.Close()
			return err
		}
		r.hlog = &hlogFile{f: f, w: w, start: started}
	}
	interval := cfg.Interval
	if interval <= 0 {
		interval = load.DefaultInterval
	}
	if err := res.WriteLog(r.hlog.w, target+":"+workload, started.Sub(r.hlog.start), interval); err != nil {
		return fmt.Errorf("interval log: %w", err)
	}
	return nil
}

// closeHlog closes the interval log, if one was written.
func (r *Runner) closeHlog() error {
	if r.hlog == nil {
		return nil
	}
	err := r.hlog.f.Close()
	r.hlog = nil
	return err
}

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
	type line struct {
		at   float64
		text string
	}
	var lines []line
	var header []string
	first := math.Inf(1)
	starts := make([]float64, len(parts))
	bodies := make([][]string, len(parts))
	for k, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("interval log: %w", err)
		}
		starts[k] = math.NaN()
		for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if rest, ok := strings.CutPrefix(l, "#[StartTime: "); ok {
				starts[k], _ = strconv.ParseFloat(strings.Fields(rest)[0], 64)
			}
			if strings.HasPrefix(l, "Tag=") {
				bodies[k] = append(bodies[k], l)
			} else if k == 0 || len(header) == 0 {
				header = append(header, l)
			}
		}
		if math.IsNaN(starts[k]) {
			return fmt.Errorf("interval log %s: no start time", p)
		}
		first = min(first, starts[k])
	}
	if len(parts) > 1 {
		header = nil // rebuilt below with the earliest start
	}
	for k, body := range bodies {
		for _, l := range body {
			f := strings.SplitN(l, ",", 3)
			at, err := strconv.ParseFloat(f[1], 64)
			if len(f) < 3 || err != nil {
				return fmt.Errorf("interval log %s: a line without a start time", parts[k])
			}
			at += starts[k] - first
			lines = append(lines, line{at, fmt.Sprintf("%s,%.3f,%s", f[0], at, f[2])})
		}
	}
	slices.SortStableFunc(lines, func(a, b line) int { return cmp.Compare(a.at, b.at) })
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
	off := started.Sub(r.hlog.start)
	for _, iv := range res.Intervals {
		for i, c := range iv.Types {
			if c.Response == nil {
				continue
			}
			for _, s := range []struct {
				clock string
				h     hlog.Histogram
			}{{hlog.Response, c.Response}, {hlog.Service, c.Service}, {hlog.StartLag, c.StartLag}} {
				tag := hlog.Tag(target+":"+workload, res.Types[i].Name, s.clock)
				if err := r.hlog.w.Write(tag, off+iv.Start, off+iv.Start+interval, s.h); err != nil {
					return fmt.Errorf("interval log: %w", err)
				}
			}
		}
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

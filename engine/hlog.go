package engine

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// takeHlog, in the parent of several runs, takes a run worker's interval log as the run's (each
// run replaces the one before: the report's Load is the last run's) and points its results at it.
func (r *Runner) takeHlog(workerReport string, rep *report.Report) {
	if r.HlogPath == "" || rep == nil {
		return
	}
	src, err := os.Open(HlogPath(workerReport))
	if err != nil {
		return // the run measured no YCSB run phase
	}
	defer src.Close()
	dst, err := os.OpenFile(r.HlogPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = io.Copy(dst, src)
		if cerr := dst.Close(); err == nil {
			err = cerr
		}
	}
	for i := range rep.Results {
		if l := rep.Results[i].Load; l != nil && l.Hlog != "" {
			l.Hlog = r.hlogName()
			if err != nil {
				l.Hlog = ""
				rep.Results[i].Warnings = append(rep.Results[i].Warnings, fmt.Sprintf("interval log: %v", err))
			}
		}
	}
}

// The interval log (.hlog, report/hlog) beside the JSON report: every measured run phase of every
// YCSB workload and target, one histogram per interval, operation type and clock, tagged
// TARGET:WORKLOAD/OP/CLOCK, interval times from the log's start (the first run phase written).

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

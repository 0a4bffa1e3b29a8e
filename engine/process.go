package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
)

// A run with isolation: process gives every target a process of its own (the same dbbench, started
// by Runner.Spawn with the config narrowed to that target), so that targets share no heap, no
// allocator, no runtime and no address space. The processes still run one step at a time, in the
// order one process would have run them (every target loaded, then each workload's repeats
// interleaved A B A B ...): each worker announces its next step on stdout ("step WORKLOAD SIZE REP",
// or "step load SIZE") and waits for "go" on stdin. Inside each worker the repeats are re-warmed as
// with isolation: rewarm. The workers' reports are merged into one, and the assertions decided on it.

// WorkerStep is Runner.Step for a worker process: it announces the step on out and waits for the
// go-ahead on in.
func WorkerStep(in io.Reader, out io.Writer) func(step string) error {
	r := bufio.NewReader(in)
	return func(step string) error {
		if _, err := fmt.Fprintf(out, "step %s\n", step); err != nil {
			return err
		}
		line, err := r.ReadString('\n')
		if err != nil || strings.TrimSpace(line) != "go" {
			return exitcode.Infraf("worker: the parent dbbench went away before step %s", step)
		}
		return nil
	}
}

// step announces a step to the parent in a worker; a no-op otherwise.
func (r *Runner) step(format string, args ...any) error {
	if r.Step == nil {
		return nil
	}
	return r.Step(fmt.Sprintf(format, args...))
}

// runProcesses runs the plan with a worker process per target, one step at a time, and merges
// their reports into the run's.
func (r *Runner) runProcesses(ctx context.Context) (*report.Report, error) {
	prog := newTracker(r.Events, r.Clock)
	dir, remove, err := r.markedTempDir(prog, workersDirPrefix)
	if err != nil {
		return nil, err
	}
	defer remove()
	head := r.header()
	head.Run.Harness = calibrate()

	var workers []*worker
	defer func() {
		for _, w := range workers {
			w.close()
			w.wait()
		}
	}()
	for i, t := range r.Plan.Targets {
		w, err := r.startWorker(ctx, i, "target "+t.Name, WorkerSpec{Target: t.Name, Out: filepath.Join(dir, fmt.Sprintf("target-%d.json", i))})
		if err != nil {
			return nil, err
		}
		workers = append(workers, w)
	}
	prog.printf("isolation: process: %d worker processes, one per target", len(workers))
	if err := r.stepWorkers(ctx, workers); err != nil {
		return nil, err
	}
	m, err := r.mergeWorkers(workers)
	if err != nil {
		return nil, err
	}
	if err := r.mergeHlogs(); err != nil {
		prog.printf("%v", err)
	}
	runErr := workersStopped(workers)
	rep := r.complete(head, m, runErr, false)
	if runErr.Err != nil {
		return rep, runErr
	}
	prog.finish()
	return rep, nil
}

// stepWorkers lets the workers take their steps in the order one process would: each announces its
// next step, and the one whose step comes first goes ahead, until every worker is done.
func (r *Runner) stepWorkers(ctx context.Context, workers []*worker) error {
	for _, w := range workers {
		if err := r.readStep(w); err != nil {
			return err
		}
	}
	for {
		if ctx.Err() != nil {
			return exitcode.Infraf("interrupted: stopped the run, removed its temporary stores, wrote no report")
		}
		var w *worker
		for _, c := range workers {
			if c.next != nil && (w == nil || slices.Compare(c.next, w.next) < 0) {
				w = c
			}
		}
		if w == nil {
			return nil
		}
		if _, err := io.WriteString(w.in, "go\n"); err != nil {
			return w.failed(w.wait())
		}
		if err := r.readStep(w); err != nil {
			return err
		}
	}
}

// mergeWorkers reads the workers' reports: their targets, their results in the order one process
// would have produced (by size, then workload, then target), and the largest peak RSS among them.
func (r *Runner) mergeWorkers(workers []*worker) (measured, error) {
	p := r.Plan
	var m measured
	for _, w := range workers {
		wr, err := report.Read(w.report)
		if err != nil && w.stopped != nil {
			return measured{}, w.stopped // what it left is no report (a crash's placeholder): its own error says why
		}
		if err != nil {
			return measured{}, exitcode.Infraf("worker for %s: %v", w.name, err)
		}
		r.takeHlog(w.report, wr)
		m.targets = append(m.targets, wr.Targets...)
		m.results = append(m.results, wr.Results...)
		m.peakRSS = max(m.peakRSS, wr.Run.PeakRSSBytes)
		w.runErrs = wr.Run.Errors
	}
	order := func(x report.Result) []int {
		return []int{slices.Index(p.Sizes, x.Size), workloadIndex(p, x.Workload), slices.IndexFunc(p.Targets, func(t config.TargetPlan) bool { return t.Name == x.Target })}
	}
	slices.SortStableFunc(m.results, func(a, b report.Result) int { return slices.Compare(order(a), order(b)) })
	// Each worker saw one target: the targets are checked against each other here (crosscheck.go).
	crossCheckMerged(p, m.results)
	return m, nil
}

func workloadIndex(p *config.Plan, name string) int {
	return slices.IndexFunc(p.Workloads, func(w config.WorkloadPlan) bool { return w.Name == name })
}

// readStep reads a worker's next announcement: a step (its order key is set) or the end of its
// output (it is done; its exit code is checked).
func (r *Runner) readStep(w *worker) error {
	line, err := w.out.ReadString('\n')
	if errors.Is(err, io.EOF) && line == "" {
		w.next = nil
		w.in.Close()
		return w.ended(w.wait())
	}
	if err != nil {
		return w.failed(w.wait())
	}
	f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "step "))
	p := r.Plan
	size := func(s string) int { n, _ := strconv.Atoi(s); return slices.Index(p.Sizes, n) }
	switch {
	case len(f) == 2 && f[0] == "load":
		w.next = []int{size(f[1]), -1, 0, w.index}
	case len(f) == 3:
		rep, _ := strconv.Atoi(f[2])
		w.next = []int{size(f[1]), workloadIndex(p, f[0]), rep, w.index}
	default:
		return exitcode.Infraf("the worker for %s said %q, not a step", w.name, strings.TrimSpace(line))
	}
	w.step = strings.Join(f, " ")
	return nil
}

// ended takes a worker's exit (the error of its Wait). Exit 1 is its own assertions failing: the
// merged report decides them. A worker that failed otherwise but wrote its report (a workload that
// failed, a run stopped early) ends the way one process would: its results are merged, failures
// included, and the run goes on (workersStopped says why it stopped, if it did). Only a worker that
// wrote no report stops the run.
func (w *worker) ended(err error) error {
	if err == nil || exitCode(err) == exitcode.Failed {
		return nil
	}
	if _, statErr := os.Stat(w.report); statErr == nil {
		w.stopped = w.failed(err)
		return nil
	}
	return w.failed(err)
}

// workersStopped is the run's error from workers that failed after writing their reports and
// whose runs stopped early or could not clean up (their run.errors, in the merged report too); a
// worker whose only failure is a failed result leaves that to the result, as in one process.
func workersStopped(workers []*worker) *RunError {
	runErr := &RunError{}
	for _, w := range workers {
		if w.stopped == nil || len(w.runErrs) == 0 {
			continue
		}
		err := &exitcode.Error{Code: exitcode.Of(w.stopped), Err: fmt.Errorf("%s: %s", w.name, strings.Join(w.runErrs, "; "))}
		if runErr.Err == nil {
			runErr.Err = err
		} else {
			runErr.Cleanup = append(runErr.Cleanup, err)
		}
	}
	return runErr
}

package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/timing"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/workloads"
)

// measurement is what one execution of a workload on one target produced.
type measurement struct {
	elapsed time.Duration
	ops     int64
	rows    int64
	errors  int64
	sum     uint64
	hist    *hdrhistogram.Histogram
	errHist *hdrhistogram.Histogram
	// readers holds each concurrent reader's tally (concurrent workload only).
	readers []adapters.Tally
	// instructions is what the process executed during the repeat (0: not counted).
	instructions int64
	// memory holds the repeat's memory figures (memory: true; docs/memory.md).
	memory map[string]float64
	// busy is the sum of the operations' latencies where it is not elapsed: the concurrent
	// workload's readers overlap, so their wall time is less.
	busy time.Duration
	// profile is the repeat's phase profile (profile: true; docs/profile.md); nil: none.
	profile *repeatProfile
	// storageRead is what the processes doing the work read from storage during the repeat (see
	// storage.go); 0 when it could not be read.
	storageRead int64
}

// latencySum is the sum of the repeat's operations' latencies, what the phases divide up.
func (m *measurement) latencySum() time.Duration {
	if m.busy > 0 {
		return m.busy
	}
	return m.elapsed
}

func newMeasurement() *measurement {
	return &measurement{hist: report.NewHistogram(), errHist: report.NewHistogram()}
}

// maxConsecutiveErrors stops a per-operation loop against a server that has gone away, instead of
// timing thousands of identical failures.
const maxConsecutiveErrors = 10

// execution runs one workload once on one target.
type execution struct {
	w        workloads.Run
	target   adapters.Target
	slowdown *slowdown   // nil: none injected
	op       adapters.Op // custom workloads
	// timed runs a custom workload that the target times itself (instead of op), with params.
	timed  adapters.TimedCustomRunner
	params map[string]any
	// done counts the operations finished so far, for the stall watchdog: bumped after each timed
	// operation's clock has stopped (per operation where the engine times each one, else per run).
	done atomic.Int64
	// ahead is the measurement the next run fills, made before it (memory: true) so that its
	// histograms are not counted as the target's memory; nil: the run makes its own.
	ahead *measurement
	// servers are processes of a server the run started that the target uses (the shared
	// PostgreSQL), measured with it (memory: true).
	servers []adapters.Process
}

// measurement returns the measurement made ahead for this run, or a new one.
func (e *execution) measurement() *measurement {
	if m := e.ahead; m != nil {
		e.ahead = nil
		return m
	}
	return newMeasurement()
}

func (e *execution) run(ctx context.Context) (*measurement, error) {
	defer e.done.Add(1)
	switch e.w.Name {
	case workloads.Scan:
		return e.scan(ctx)
	case workloads.Lookup:
		return e.lookup(ctx)
	case workloads.Insert:
		return e.insert(ctx)
	case workloads.Concurrent:
		return e.concurrent(ctx)
	}
	return e.custom(ctx)
}

func (e *execution) scan(ctx context.Context) (*measurement, error) {
	m := e.measurement()
	var (
		t   adapters.Tally
		d   time.Duration
		err error
	)
	if ts, ok := e.target.(adapters.TimedScanner); ok {
		t, d, err = ts.TimedScan(ctx, e.w.Rows)
		d += e.slowdown.add(d, 0)
	} else {
		sc, ok := e.target.(adapters.Scanner)
		if !ok {
			return nil, lacks(workloads.Scan, "Scanner or TimedScanner")
		}
		start := time.Now()
		t, err = sc.Scan(ctx, e.w.Rows)
		if e.slowdown != nil {
			e.slowdown.add(time.Since(start), 1)
		}
		d = time.Since(start)
	}
	if err != nil {
		return nil, err
	}
	report.Record(m.hist, d)
	m.elapsed, m.ops, m.rows, m.sum = d, 1, t.Rows, t.Sum
	return m, nil
}

func (e *execution) lookup(ctx context.Context) (*measurement, error) {
	n := len(e.w.Keys)
	if tl, ok := e.target.(adapters.TimedPointReader); ok {
		m := e.measurement() // only here: the per-operation loop takes its own
		m.ops = int64(n)
		lat := make([]time.Duration, n)
		t, err := tl.TimedLookups(ctx, e.w.DS, e.w.Keys, lat)
		if err != nil {
			return nil, err
		}
		e.recordSelfTimed(m, lat)
		m.rows, m.sum = t.Rows, t.Sum
		return m, nil
	}
	if _, ok := e.target.(adapters.PointReader); !ok {
		return nil, lacks(workloads.Lookup, "PointReader or TimedPointReader")
	}
	return perOp(e.stepper(ctx, &e.done))
}

// lacks is the error of an execution whose target does not implement the capability its workload
// needs. Config validation refuses a workload the adapter does not declare (Info().Builtin), so this
// is an adapter that declares what its targets lack: the workload fails (exit 3) instead of the run
// panicking. adaptertest.CheckBuiltin catches it in the adapter's own tests.
func lacks(workload, capability string) error {
	return exitcode.Infraf("the target implements no %s, which workload %s needs, although its adapter declares it: a bug in the adapter", capability, workload)
}

// perOp times a target's operations one by one: the one-target loop over its stepper. A failed
// operation's latency goes to the error histogram and the loop goes on (so one hiccup does not hide
// the rest of the distribution), but stops after maxConsecutiveErrors in a row: a server that has
// gone away is not timed thousands of times. The verifier, if any, checks each successful operation
// after its time is taken and gives its tally; a failed check ends the loop. The stepper's done
// counts the finished operations (for the stall watchdog).
func perOp(s *opStepper) (*measurement, error) {
	for i := 0; i < s.n && s.step(i); i++ {
	}
	return s.finish()
}

// stepper returns the per-operation loop of an execution the engine times per operation (lookup
// through a PointReader, a custom workload through Op.Do), with done as its progress counter; nil
// for any other execution (one the target times itself, or timed as a whole).
func (e *execution) stepper(ctx context.Context, done *atomic.Int64) *opStepper {
	switch e.w.Name {
	case workloads.Scan, workloads.Insert, workloads.Concurrent:
		return nil
	case workloads.Lookup:
		if _, ok := e.target.(adapters.TimedPointReader); ok {
			return nil
		}
		pr, ok := e.target.(adapters.PointReader)
		if !ok {
			return nil // lookup reports the missing capability
		}
		return newOpStepper(ctx, e.measurement(), len(e.w.Keys), e.slowdown, done, "lookups", func(i int) (adapters.Tally, error) {
			return pr.Lookup(ctx, e.w.Emails[i])
		}, nil)
	}
	if e.timed != nil || e.op == nil {
		return nil
	}
	return newOpStepper(ctx, e.measurement(), e.w.Ops, e.slowdown, done, "operations", func(i int) (adapters.Tally, error) {
		return e.op.Do(ctx, i)
	}, e.verifier(ctx))
}

func (e *execution) insert(ctx context.Context) (*measurement, error) {
	m := e.measurement()
	n := len(e.w.Persons)
	m.ops = int64(n)
	if ti, ok := e.target.(adapters.TimedInserter); ok {
		verify, d, err := ti.TimedInsert(ctx, e.w.DS, n)
		if err != nil {
			return nil, err
		}
		d += e.slowdown.add(d, 0)
		report.Record(m.hist, d)
		m.elapsed, m.rows, m.sum = d, verify.Rows, verify.Sum
		return m, nil
	}
	in, ok := e.target.(adapters.Inserter)
	if !ok {
		return nil, lacks(workloads.Insert, "Inserter or TimedInserter")
	}
	sess, err := in.NewInsertSession(ctx)
	if err != nil {
		return nil, fmt.Errorf("prepare a fresh store: %w", err)
	}
	defer sess.Close()
	e.done.Add(1) // each untimed step counts as progress too
	d, err := timedInsert(ctx, sess, e.w.Persons, e.slowdown)
	if err != nil {
		return nil, err
	}
	e.done.Add(1)
	verify, err := sess.Verify(ctx)
	if err != nil {
		return nil, fmt.Errorf("read back the inserted persons: %w", err)
	}
	report.Record(m.hist, d)
	m.elapsed, m.rows, m.sum = d, verify.Rows, verify.Sum
	if err := sess.Close(); err != nil {
		return nil, fmt.Errorf("drop the insert store: %w", err)
	}
	return m, nil
}

// timedInsert is timing.Insert with the engine's injected slowdown, added once for the whole transaction,
// not per insert: the clock reads a per-insert injection needs would cost more than a small fraction
// of a sub-microsecond insert.
func timedInsert(ctx context.Context, sess adapters.InsertSession, persons []dataset.Person, slowdown *slowdown) (time.Duration, error) {
	var extra func(time.Duration)
	if slowdown != nil {
		extra = func(d time.Duration) { slowdown.add(d, 1) }
	}
	return timing.Insert(ctx, sess, persons, extra)
}

func (e *execution) concurrent(ctx context.Context) (*measurement, error) {
	m := e.measurement()
	lat := make([]time.Duration, e.w.Readers)
	var (
		tallies []adapters.Tally
		wall    time.Duration
		err     error
	)
	switch t := e.target.(type) {
	case adapters.TimedConcurrentScanner:
		tallies, wall, err = t.TimedScanConcurrently(ctx, e.w.Readers, e.w.Rows, lat)
	case adapters.ConcurrentScanner:
		tallies, wall, err = t.ScanConcurrently(ctx, e.w.Readers, e.w.Rows, lat)
	case adapters.Scanner:
		tallies, wall, err = timing.ScanConcurrently(ctx, t, e.w.Rows, lat)
	default:
		return nil, lacks(workloads.Concurrent, "Scanner, ConcurrentScanner or TimedConcurrentScanner")
	}
	if err != nil {
		return nil, err
	}
	if len(tallies) != e.w.Readers {
		return nil, fmt.Errorf("adapter returned %d reader results for %d readers", len(tallies), e.w.Readers)
	}
	if e.slowdown != nil {
		// Readers overlap, so the wall time grows by the slowest reader's extra work.
		var slowest time.Duration
		for i := range lat {
			slowest = max(slowest, lat[i])
			lat[i] += time.Duration(float64(lat[i]) * e.slowdown.fraction)
		}
		wall += e.slowdown.add(slowest, 0)
	}
	for i, t := range tallies {
		report.Record(m.hist, lat[i])
		m.busy += lat[i]
		m.rows += t.Rows
		m.sum += t.Sum
	}
	m.elapsed, m.ops, m.readers = wall, int64(e.w.Readers), tallies
	return m, nil
}

func (e *execution) custom(ctx context.Context) (*measurement, error) {
	if e.timed != nil {
		return e.timedCustom(ctx)
	}
	return perOp(e.stepper(ctx, &e.done))
}

// verifier returns the check the engine runs after each timed operation of a custom workload (nil:
// the op checks itself inside Do).
func (e *execution) verifier(ctx context.Context) func(int) (adapters.Tally, error) {
	v, ok := e.op.(adapters.Verifier)
	if !ok {
		return nil
	}
	return func(i int) (adapters.Tally, error) { return v.Verify(ctx, i) }
}

// timedCustom runs a self-timed custom workload: the target reports one latency per operation.
func (e *execution) timedCustom(ctx context.Context) (*measurement, error) {
	m := e.measurement()
	lat := make([]time.Duration, e.w.Ops)
	t, err := e.timed.TimedRun(ctx, e.w.Name, e.params, lat)
	if err != nil {
		return nil, err
	}
	e.recordSelfTimed(m, lat)
	m.ops, m.rows, m.sum = int64(e.w.Ops), t.Rows, t.Sum
	return m, nil
}

// recordSelfTimed records the latencies a self-timed target reported (the slowdown option added to
// each) into m's histogram and elapsed time.
func (e *execution) recordSelfTimed(m *measurement, lat []time.Duration) {
	for i := range lat {
		lat[i] += e.slowdown.add(lat[i], 0)
		report.Record(m.hist, lat[i])
		m.elapsed += lat[i]
	}
}

// opStepper is the per-operation loop one operation at a time, so that the engine can alternate the operations of
// several targets (interleave: ops) with each timed exactly as perOp times it.
type opStepper struct {
	ctx         context.Context
	n           int
	slowdown    *slowdown
	done        *atomic.Int64
	what        string
	op, verify  func(i int) (adapters.Tally, error)
	m           *measurement
	firstErr    error
	consecutive int
	// ended is set once the loop has ended early, with its outcome in endM and endErr.
	ended  bool
	endM   *measurement
	endErr error
}

func newOpStepper(ctx context.Context, m *measurement, n int, slowdown *slowdown, done *atomic.Int64, what string, op, verify func(i int) (adapters.Tally, error)) *opStepper {
	m.ops = int64(n)
	return &opStepper{ctx: ctx, n: n, slowdown: slowdown, done: done, what: what, op: op, verify: verify, m: m}
}

// end ends the loop early with the given outcome; step returns false from then on.
func (s *opStepper) end(m *measurement, err error) bool {
	s.ended, s.endM, s.endErr = true, m, err
	return false
}

// step times operation i (the operations must be stepped in order 0, 1, ...). It returns false once
// the loop has ended early: cancelled, given up, or a failed verification; finish then says why.
func (s *opStepper) step(i int) bool {
	if s.ended {
		return false
	}
	ctx, m := s.ctx, s.m
	if i%timing.CheckEvery == 0 && ctx.Err() != nil {
		return s.end(nil, ctx.Err())
	}
	start := time.Now()
	t, err := s.op(i)
	if s.slowdown != nil {
		s.slowdown.add(time.Since(start), 1)
	}
	d := time.Since(start)
	s.done.Add(1)
	m.elapsed += d
	if err != nil {
		if ctx.Err() != nil {
			return s.end(nil, ctx.Err())
		}
		report.Record(m.errHist, d)
		m.errors++
		s.consecutive++
		if s.firstErr == nil {
			s.firstErr = err
		}
		if s.consecutive >= maxConsecutiveErrors {
			return s.end(nil, fmt.Errorf("gave up after %d consecutive failed %s: %w", s.consecutive, s.what, s.firstErr))
		}
		return true
	}
	s.consecutive = 0
	report.Record(m.hist, d)
	if s.verify != nil {
		if t, err = s.verify(i); err != nil {
			if ctx.Err() != nil {
				return s.end(nil, ctx.Err())
			}
			return s.end(m, fmt.Errorf("verification failed, operation %d: %w", i, err))
		}
	}
	m.rows += t.Rows
	m.sum += t.Sum
	return true
}

// finish returns the measurement and error of the loop, as perOp returns them.
func (s *opStepper) finish() (*measurement, error) {
	if s.ended {
		return s.endM, s.endErr
	}
	if s.firstErr != nil {
		return s.m, fmt.Errorf("%d of %d %s failed, first: %w", s.m.errors, s.n, s.what, s.firstErr)
	}
	return s.m, nil
}

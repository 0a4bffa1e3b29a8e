package load

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbbench/dbbench/report"
)

// Policy says what happens to an operation whose intended start comes with no worker free.
type Policy string

const (
	// Queue (the default): the operation waits for a worker; its response time counts from its
	// intended start, so the wait shows (no coordinated omission).
	Queue Policy = "queue"
	// Drop: the operation is not sent and is counted dropped (as k6's dropped_iterations).
	Drop Policy = "drop"
)

// Defaults of a Config's zero fields.
const (
	DefaultInterval = time.Second
	DefaultSpin     = 200 * time.Microsecond // the research note: sleep to 200 us before, then spin
	// SpinShare bounds the spin to this share of the gap between intended starts, so that spinning
	// costs at most that share of a core: at 10,000 ops/s a 200 us spin took 99% of a core and on 2
	// cores starved the workers (start lag p99 10.5 ms at 20,000 ops/s); the thread's own nanosleep
	// already wakes within about 100 us (docs/load.md, "The schedule").
	SpinShare        = 0.1
	DefaultLateAfter = time.Millisecond
	// SaturatedShare: a side (generator or target) is saturated when it made more than this share
	// of the operations late (or, for the target, dropped them).
	SaturatedShare = 0.01
)

// Config is one open-loop run's load.
type Config struct {
	Schedule  Schedule
	Workers   int           // operations in flight at most (the pool); the rate does not depend on it
	Policy    Policy        // default Queue
	LateAfter time.Duration // late: started more than this after the intended start (default 1 ms)
	Timeout   time.Duration // per operation, through its context; 0: none
	Interval  time.Duration // the time series' interval (default 1 s)
	// Spin: the dispatcher sleeps until Spin before an intended start, then spins (default 200 us);
	// negative: it only sleeps (for a virtual clock, where a spin would never see time pass).
	Spin    time.Duration
	OpTypes []string // names of the operation types next returns (indices into it)
}

func (c *Config) normalize() error {
	if err := c.Schedule.Validate(); err != nil {
		return err
	}
	if c.Workers <= 0 {
		return fmt.Errorf("workers must be positive, got %d", c.Workers)
	}
	switch c.Policy {
	case "":
		c.Policy = Queue
	case Queue, Drop:
	default:
		return fmt.Errorf("policy must be queue or drop, got %q", c.Policy)
	}
	if len(c.OpTypes) == 0 {
		c.OpTypes = []string{"op"}
	}
	if c.LateAfter == 0 {
		c.LateAfter = DefaultLateAfter
	}
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	if c.Spin == 0 {
		c.Spin = DefaultSpin
	}
	if c.Timeout < 0 {
		return fmt.Errorf("timeout must not be negative")
	}
	return nil
}

// Op is one operation as a worker receives it.
type Op[T any] struct {
	Seq      int64         // its place in the whole schedule (a stripe's: every Total-th)
	Type     int           // index into Config.OpTypes
	Arg      T             // what next drew for it (a key, a record number, ...)
	Intended time.Duration // intended start, from the run's start
	// Self is where do may put the operation's own duration as the target timed it (a client in
	// another process reports it): the service time is then that, not the worker's clock around
	// the call, which holds the process boundary too; the response time is the start lag plus it.
	Self *time.Duration
}

// SelfEnd is when an operation ended: start plus its own duration when the target timed it, else
// the worker's clock at its return.
func SelfEnd(start, end time.Duration, self time.Duration) time.Duration {
	if self > 0 && start+self <= end {
		return start + self
	}
	return end
}

// Clocks are the three histograms (ns) of one operation type.
type Clocks[H any] struct {
	Response H // end - intended start: what a user waits
	Service  H // end - actual start: what the target took
	StartLag H // actual start - intended start: how late the operation began
}

// TypeResult is one operation type's totals.
type TypeResult struct {
	Name     string
	Count    int64 // completed (errors included)
	Errors   int64
	TimedOut int64
	Clocks[*hdrhistogram.Histogram]
}

// Interval is one step of the time series. Completions (and their clocks) fall in the interval
// they end in; Scheduled and Dropped in the one their intended start falls in.
type Interval struct {
	Start              time.Duration
	Scheduled          int64   // intended starts in the interval
	Target             float64 // the schedule's intended operations over the interval (ops)
	Completed, Dropped int64
	Late               int64
	Types              []Clocks[*hdrhistogram.PackedHistogram] // per operation type; nil when none completed
}

// Generator is what the dispatcher itself cost and did.
type Generator struct {
	CPU         time.Duration // its OS thread's CPU time, spinning included (0 where not measured)
	CPUMeasured bool
	Work        time.Duration // wall time drawing operations and handing them over, waiting excluded
	Late        int64         // operations it handed over late with nothing to blame but itself
	MaxLag      time.Duration // the largest such delay
}

// WorkPerOp is the generator's cost per operation, waiting excluded.
func (g Generator) WorkPerOp(ops int64) time.Duration {
	if ops == 0 {
		return 0
	}
	return g.Work / time.Duration(ops)
}

// Result is an open-loop run's outcome.
type Result struct {
	Scheduled int64         // operations the schedule intended (sent or dropped)
	Completed int64         // operations performed (errors included)
	Dropped   int64         // policy drop: no worker free at the intended start
	Late      int64         // started more than LateAfter after the intended start
	Waited    int64         // waited for a worker (queue policy) more than LateAfter
	Errors    int64         // operations that returned an error (timeouts included)
	TimedOut  int64         // operations whose context's deadline passed
	Err       error         // the first operation error
	Span      time.Duration // from the start to the later of the schedule's end and the last completion
	Target    float64       // the schedule's mean rate over its duration (ops/s)
	Achieved  float64       // Completed / Span (ops/s)
	Types     []TypeResult
	Intervals []Interval
	Generator Generator
	// Sequence is how many operations of the whole (one-process) schedule the run went through: a
	// stripe's own and the other stripes'; equal to Scheduled without a stripe.
	Sequence int64
	// GeneratorStalled: more than SaturatedShare of the operations were handed over late by the
	// dispatcher with workers free, but it kept up otherwise (its thread lost the CPU for a while:
	// the machine, not its capacity). Those operations' response times include the stall.
	GeneratorStalled bool
	// GeneratorSaturated: the dispatcher itself, with workers free, made more than SaturatedShare of
	// the operations late: the figures are not the target's (exit code 5 once wired).
	GeneratorSaturated bool
	// TargetSaturated: more than SaturatedShare of the operations waited for a worker or were dropped.
	TargetSaturated bool
}

// Saturation names the saturation a run showed: "generator saturated", "target saturated",
// "generator stalled" or "".
// The generator comes first: when it could not keep the schedule, nothing is known of the target.
func (r *Result) Saturation() string {
	switch {
	case r.GeneratorSaturated:
		return "generator saturated"
	case r.TargetSaturated:
		return "target saturated"
	case r.GeneratorStalled:
		return "generator stalled"
	}
	return ""
}

// recorder gathers the workers' measurements under one lock (a few hundred ns per operation,
// on the workers' side, never the dispatcher's).
type recorder struct {
	mu        sync.Mutex
	cfg       *Config
	types     []TypeResult
	intervals []Interval
	late      int64
	lastEnd   time.Duration
	err       error
}

func (r *recorder) interval(at time.Duration) *Interval {
	i := int(at / r.cfg.Interval)
	for len(r.intervals) <= i {
		r.intervals = append(r.intervals, Interval{Start: time.Duration(len(r.intervals)) * r.cfg.Interval})
	}
	return &r.intervals[i]
}

func (r *recorder) record(typ int, intended, start, end time.Duration, err error, timedOut bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &r.types[typ]
	t.Count++
	resp, serv, lag := end-intended, end-start, start-intended
	report.Record(t.Response, resp)
	report.Record(t.Service, serv)
	report.Record(t.StartLag, lag)
	iv := r.interval(end)
	iv.Completed++
	if iv.Types == nil {
		iv.Types = make([]Clocks[*hdrhistogram.PackedHistogram], len(r.types))
	}
	c := &iv.Types[typ]
	if c.Response == nil {
		c.Response, c.Service, c.StartLag = newPacked(), newPacked(), newPacked()
	}
	recordPacked(c.Response, resp)
	recordPacked(c.Service, serv)
	recordPacked(c.StartLag, lag)
	if lag > r.cfg.LateAfter {
		r.late++
		iv.Late++
	}
	if err != nil {
		t.Errors++
		if timedOut {
			t.TimedOut++
		}
		if r.err == nil {
			r.err = err
		}
	}
	r.lastEnd = max(r.lastEnd, end)
}

func newPacked() *hdrhistogram.PackedHistogram {
	return hdrhistogram.NewPacked(report.HistMin, report.HistMax, report.HistSigFigs)
}

func recordPacked(h *hdrhistogram.PackedHistogram, d time.Duration) {
	_ = h.RecordValue(min(max(int64(d), report.HistMin), report.HistMax)) // in range: cannot fail
}

// Run performs the schedule: next draws operation seq's type and argument on the dispatcher
// goroutine (so one seed gives one sequence; with a Stripe, seq is the operation's place in the
// whole schedule, so a shard draws the operations one process would), and do performs it on a worker. Run returns when every
// operation sent has completed, or with ctx's error once the workers have stopped after ctx ended.
// An operation's error does not stop the run: it is counted, and the first is kept in Result.Err.
func Run[T any](ctx context.Context, cfg Config, next func(seq int64) (int, T), do func(context.Context, Op[T]) error) (*Result, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	times, err := cfg.Schedule.Times()
	if err != nil {
		return nil, err
	}
	rec := &recorder{cfg: &cfg, types: make([]TypeResult, len(cfg.OpTypes))}
	for i, name := range cfg.OpTypes {
		rec.types[i] = TypeResult{Name: name, Clocks: Clocks[*hdrhistogram.Histogram]{
			Response: report.NewHistogram(), Service: report.NewHistogram(), StartLag: report.NewHistogram()}}
	}

	ch := make(chan Op[T])
	var wg sync.WaitGroup
	t0 := time.Now()
	for range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var self time.Duration // one slot per worker
			for op := range ch {
				start := time.Since(t0)
				opCtx, cancel := ctx, context.CancelFunc(nil)
				if cfg.Timeout > 0 {
					opCtx, cancel = context.WithTimeout(ctx, cfg.Timeout)
				}
				self, op.Self = 0, &self
				err := do(opCtx, op)
				end := SelfEnd(start, time.Since(t0), self)
				timedOut := err != nil && errors.Is(opCtx.Err(), context.DeadlineExceeded)
				if cancel != nil {
					cancel()
				}
				rec.record(op.Type, op.Intended, start, end, err, timedOut)
			}
		}()
	}

	d := dispatcher[T]{cfg: &cfg, t0: t0, ch: ch, rec: rec}
	runErr := d.run(ctx, times, next)
	close(ch)
	wg.Wait()
	res := d.result(rec)
	res.Sequence = times.Passed()
	return res, runErr
}

// dispatcher hands operations to the workers at their intended starts, on one locked OS thread so
// that its CPU time can be read.
type dispatcher[T any] struct {
	cfg *Config
	t0  time.Time
	ch  chan Op[T]
	rec *recorder

	scheduled, dropped, waited int64
	gen                        Generator
	dropAt                     []time.Duration // intended starts of dropped operations
	schedAt                    []int64         // scheduled per interval
	tail                       []time.Duration // own lag of the last tailOps operations (a ring)
	tailAt                     int
	prevIntended               time.Duration // the last operation's intended start (the gap bounds the spin)
}

func (d *dispatcher[T]) run(ctx context.Context, times *Times, next func(int64) (int, T)) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0, ok := threadCPU()
	defer func() {
		if cpu1, ok1 := threadCPU(); ok && ok1 {
			d.gen.CPU, d.gen.CPUMeasured = cpu1-cpu0, true
		}
	}()
	// lastBlocked is when the last hand-over that had to wait for a worker completed: a delay up
	// to then is the target's; one beyond it (a slow draw, a starved thread) is the generator's own.
	var lastBlocked time.Duration
	for {
		w0 := time.Since(d.t0)
		intended, ok := times.Next()
		if !ok {
			return nil
		}
		seq := times.Index() // its place in the whole schedule: a stripe's operations are the whole's
		typ, arg := next(seq)
		if typ < 0 || typ >= len(d.cfg.OpTypes) {
			return fmt.Errorf("operation %d: type %d, but there are %d operation types", seq, typ, len(d.cfg.OpTypes))
		}
		op := Op[T]{Seq: seq, Type: typ, Arg: arg, Intended: intended}
		d.gen.Work += time.Since(d.t0) - w0
		if err := d.wait(ctx, intended); err != nil {
			return err
		}
		d.scheduled++
		d.countScheduled(intended)
		attempt := time.Since(d.t0)
		// The generator's own delay: how late it came to this operation beyond what waiting for
		// workers explains. It accumulates while the generator cannot keep up, however fast the target.
		own := attempt - max(intended, lastBlocked)
		if own > d.cfg.LateAfter {
			d.gen.Late++
			d.gen.MaxLag = max(d.gen.MaxLag, own)
		}
		d.keepTail(max(own, 0))
		select {
		case d.ch <- op:
			d.gen.Work += time.Since(d.t0) - attempt
			continue
		default:
		}
		if d.cfg.Policy == Drop {
			d.dropped++
			d.dropAt = append(d.dropAt, intended)
			continue
		}
		select {
		case d.ch <- op:
		case <-ctx.Done():
			return ctx.Err()
		}
		lastBlocked = time.Since(d.t0)
		if lastBlocked-intended > d.cfg.LateAfter {
			d.waited++
		}
	}
}

func (d *dispatcher[T]) countScheduled(intended time.Duration) {
	i := int(intended / d.cfg.Interval)
	for len(d.schedAt) <= i {
		d.schedAt = append(d.schedAt, 0)
	}
	d.schedAt[i]++
}

// wait returns at the intended start: it sleeps until Spin before it, then spins. Spinning keeps
// the start lag near the machine's floor (the research note: p99 86 us against 1.2 ms sleeping
// throughout, on this 2-core VM) and is counted in the generator's CPU.
// tailOps is how many of the last operations' own lags say whether the generator ended behind.
const tailOps = 20

// keepTail keeps the dispatcher's own lag of the last tailOps operations.
func (d *dispatcher[T]) keepTail(own time.Duration) {
	if len(d.tail) < tailOps {
		d.tail = append(d.tail, own)
		return
	}
	d.tail[d.tailAt] = own
	d.tailAt = (d.tailAt + 1) % tailOps
}

// median of a few durations.
func median(xs []time.Duration) time.Duration {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func (d *dispatcher[T]) wait(ctx context.Context, intended time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	spin := max(min(d.cfg.Spin, time.Duration(SpinShare*float64(intended-d.prevIntended))), 0)
	d.prevIntended = intended
	left := intended - time.Since(d.t0) - spin
	if left >= 10*time.Millisecond { // a long gap (a slow ramp): stay cancellable, then wake precisely
		tm := time.NewTimer(left - 2*time.Millisecond)
		select {
		case <-tm.C:
		case <-ctx.Done():
			tm.Stop()
			return ctx.Err()
		}
		left = intended - time.Since(d.t0) - spin
	}
	switch {
	case left <= 0:
	case d.cfg.Spin > 0:
		sleepThread(left) // the locked thread, on a precise timer (cpu_linux.go)
	default:
		time.Sleep(left) // a virtual clock (synctest) advances on the runtime's timers only
	}
	if d.cfg.Spin > 0 {
		for time.Since(d.t0) < intended {
		}
	}
	return nil
}

func (d *dispatcher[T]) result(rec *recorder) *Result {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	s := d.cfg.Schedule
	res := &Result{
		Scheduled: d.scheduled, Dropped: d.dropped, Waited: d.waited, Late: rec.late, Err: rec.err,
		Types: rec.types, Generator: d.gen,
	}
	for _, t := range rec.types {
		res.Completed += t.Count
		res.Errors += t.Errors
		res.TimedOut += t.TimedOut
	}
	res.Span = max(s.Duration, rec.lastEnd)
	if res.Span > 0 {
		res.Achieved = float64(res.Completed) / res.Span.Seconds()
	}
	if s.Duration > 0 {
		res.Target = s.Intended(s.Duration) / s.Duration.Seconds() * s.Stripe.Share()
	} else if res.Span > 0 {
		res.Target = float64(res.Scheduled) / res.Span.Seconds()
	}
	for _, at := range d.dropAt {
		rec.interval(at).Dropped++
	}
	for i, n := range d.schedAt {
		rec.interval(time.Duration(i) * d.cfg.Interval).Scheduled = n
	}
	for i := range rec.intervals {
		iv := &rec.intervals[i]
		iv.Target = s.Intended(iv.Start+d.cfg.Interval) - s.Intended(iv.Start)
		if s.Duration > 0 && iv.Start+d.cfg.Interval > s.Duration {
			iv.Target = s.Intended(max(s.Duration, iv.Start)) - s.Intended(iv.Start)
		}
		iv.Target *= s.Stripe.Share()
	}
	res.Intervals = rec.intervals
	share := func(n int64) bool { return res.Scheduled > 0 && float64(n) > SaturatedShare*float64(res.Scheduled) }
	// Saturated, not stalled: it could not keep up (drawing and handing over an operation takes
	// longer than the gap between them), or it was still behind at the end (its lag grew and did not
	// recover). A stall it recovered from is the machine taking its CPU away for a moment.
	perOp := d.gen.WorkPerOp(res.Scheduled)
	capacity := res.Target > 0 && perOp.Seconds()*res.Target >= 0.9
	behind := len(d.tail) > 0 && median(d.tail) > d.cfg.LateAfter
	res.GeneratorSaturated = share(d.gen.Late) && (capacity || behind)
	res.GeneratorStalled = share(d.gen.Late) && !res.GeneratorSaturated
	res.TargetSaturated = share(d.waited + d.dropped)
	return res
}

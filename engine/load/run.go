package load

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
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
	SpinShare = 0.1
	// Handoff: under Precise the worker waiting for the next start hands the claim on this long
	// before it; the release wakes the next worker, and waking an idle CPU of this VM blocked the
	// releasing thread for about 12 us (start lag p50 12 us at 1,000 ops/s with a 20 us hand-off,
	// 0.1-0.2 us with 50 us: docs/load.md, "Waiting precisely").
	Handoff = 50 * time.Microsecond
	// DrawAhead: an operation is drawn at most this long before its intended start, however many
	// workers are free; more than the runtime timer's late wake-up (about 1 ms) that waits for it.
	DrawAhead        = 2 * time.Millisecond
	DefaultLateAfter = time.Millisecond
	// StartLead: the schedule starts this long after the last worker is ready, so that waking them
	// does not make the first operations late (the schedule starts when the workers are ready).
	StartLead = time.Millisecond
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
	// Spin: a worker sleeps until Spin before its operation's intended start, then spins (default
	// 200 us, at most SpinShare of the gap since the previous intended start); negative: it only
	// sleeps (for a virtual clock, where a spin would never see time pass).
	Spin time.Duration
	// Precise: the worker that draws an operation waits for its start still holding the claim, so
	// that one worker at a time waits and none wakes late from its own sleep; from about 5,000
	// ops/s one core spins throughout (start lag near the machine's floor, for up to a core).
	Precise bool
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
	// Worker is the worker performing it, in [0, Config.Workers): do may keep a resource per
	// worker (a connection of its own) and use it without a lock.
	Worker int
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

// TypeResult is one operation type's totals. Errors are apart: Count and the three clocks hold the
// operations that succeeded; Failed is the response time (from the intended start) of those that
// returned an error, timeouts included (as k6 keeps http_req_failed apart from its durations).
type TypeResult struct {
	Name     string
	Count    int64 // completed without an error
	Errors   int64 // returned an error (timeouts included)
	TimedOut int64
	Clocks[*hdrhistogram.Histogram]
	Failed *hdrhistogram.Histogram
}

// Interval is one step of the time series. Completions and errors (and their clocks) fall in the
// interval they end in; Scheduled and Dropped in the one their intended start falls in.
type Interval struct {
	Start              time.Duration
	Scheduled          int64   // intended starts in the interval
	Target             float64 // the schedule's intended operations over the interval (ops)
	Completed, Dropped int64   // Completed: without an error
	Errors             int64
	Late               int64
	Types              []Clocks[*hdrhistogram.PackedHistogram] // per operation type; nil when none completed
}

// Generator is what keeping the schedule cost and did: taking each operation (drawing it, in
// order) and waiting for its intended start, on the workers.
type Generator struct {
	// CPU is Work plus Spin plus Sleep. Work and Spin are the wall time of loops that hold a CPU
	// throughout, timed around them; Sleep is estimated from a sample. CPUMeasured is false when
	// the sleeps could not be (no thread CPU clock: outside Linux).
	CPU         time.Duration
	CPUMeasured bool
	Work        time.Duration // wall time taking operations (drawing and counting them), waiting excluded
	Spin        time.Duration // wall time spinning until intended starts (off-CPU steps left out)
	Sleep       time.Duration // the sleeps' system calls: every sleepSample-th timed on its thread's CPU clock
	// Late: operations started more than LateAfter after they were ready (their intended start, or
	// the moment a busy pool freed a worker for them) with a worker free: the generator's own
	// lateness (a thread that lost the CPU, a slow draw), never counted as the target's.
	Late   int64
	MaxLag time.Duration // the largest such delay
}

// WorkPerOp is the generator's cost per operation, waiting excluded.
func (g Generator) WorkPerOp(ops int64) time.Duration {
	if ops == 0 {
		return 0
	}
	return g.Work / time.Duration(ops)
}

// Result is an open-loop run's outcome. A figure is what was measured, of what succeeded: Completed,
// Achieved and the clocks count the operations that returned no error; errors are a count (and a
// rate: ErrorRate) of their own.
type Result struct {
	Scheduled int64         // operations the schedule intended (sent or dropped)
	Completed int64         // operations performed without an error
	Dropped   int64         // policy drop: no worker free at the intended start
	Late      int64         // sent more than LateAfter after the intended start (errors included)
	Waited    int64         // waited more than LateAfter for a worker, every worker busy (queue policy)
	Errors    int64         // operations that returned an error (timeouts included)
	TimedOut  int64         // operations whose context's deadline passed
	Err       error         // the first operation error
	Span      time.Duration // from the start to the later of the schedule's end and the last completion
	Target    float64       // the schedule's rate (Schedule.MeanRate), whatever ended the run (ops/s)
	Achieved  float64       // Completed / Span (ops/s)
	Types     []TypeResult
	Intervals []Interval
	Generator Generator
	// Sequence is how many operations of the whole (one-process) schedule the run went through: a
	// stripe's own and the other stripes'; equal to Scheduled without a stripe.
	Sequence int64
	// GeneratorStalled: more than SaturatedShare of the operations started late by the generator's
	// fault (workers free), but it kept up otherwise (its threads lost the CPU for a while:
	// the machine, not its capacity). Those operations' response times include the stall.
	GeneratorStalled bool
	// GeneratorSaturated: the generator itself, with workers free, made more than SaturatedShare of
	// the operations late: the figures are not the target's (exit code 5 once wired).
	GeneratorSaturated bool
	// TargetSaturated: more than SaturatedShare of the operations waited for a worker or were dropped.
	TargetSaturated bool
}

// ErrorRate is the share of the operations performed that returned an error: Errors over
// Completed + Errors (0 when none was performed).
func (r *Result) ErrorRate() float64 {
	if n := r.Completed + r.Errors; n > 0 {
		return float64(r.Errors) / float64(n)
	}
	return 0
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
// after the operation, not in the generator's work).
type recorder struct {
	mu        sync.Mutex
	cfg       *Config
	closed    bool // a closed loop's: no schedule, so no start lag, and nothing late
	types     []TypeResult
	intervals []Interval
	late      int64
	lastEnd   time.Duration
	err       error

	genLate   int64           // operations whose own lag (beyond a busy pool) passed LateAfter
	genMaxLag time.Duration   // the largest own lag among them
	tail      []time.Duration // own lag of the last tailOps operations (a ring)
	tailAt    int
}

func (r *recorder) interval(at time.Duration) *Interval {
	i := int(at / r.cfg.Interval)
	for len(r.intervals) <= i {
		r.intervals = append(r.intervals, Interval{Start: time.Duration(len(r.intervals)) * r.cfg.Interval})
	}
	return &r.intervals[i]
}

// record adds a completed operation; own is the part of its start lag that is the generator's.
func (r *recorder) record(typ int, intended, start, end time.Duration, err error, timedOut bool, own time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &r.types[typ]
	resp, serv, lag := end-intended, end-start, start-intended
	iv := r.interval(end)
	if !r.closed {
		r.schedule(iv, lag, own)
	}
	r.lastEnd = max(r.lastEnd, end)
	if err != nil { // a count and a histogram of its own, never a completion or a clock's sample
		t.Errors++
		iv.Errors++
		report.Record(t.Failed, resp)
		if timedOut {
			t.TimedOut++
		}
		if r.err == nil {
			r.err = err
		}
		return
	}
	t.Count++
	report.Record(t.Response, resp)
	report.Record(t.Service, serv)
	iv.Completed++
	if iv.Types == nil {
		iv.Types = make([]Clocks[*hdrhistogram.PackedHistogram], len(r.types))
	}
	c := &iv.Types[typ]
	if c.Response == nil {
		c.Response, c.Service = report.NewPacked(), report.NewPacked()
		if !r.closed {
			c.StartLag = report.NewPacked()
		}
	}
	recordPacked(c.Response, resp)
	recordPacked(c.Service, serv)
	if !r.closed {
		report.Record(t.StartLag, lag)
		recordPacked(c.StartLag, lag)
	}
}

// schedule counts what an open loop's operation says of the schedule, whatever its outcome: late
// (lag past LateAfter), and the generator's own lateness (own).
func (r *recorder) schedule(iv *Interval, lag, own time.Duration) {
	if own > r.cfg.LateAfter {
		r.genLate++
		r.genMaxLag = max(r.genMaxLag, own)
	}
	if len(r.tail) < tailOps {
		r.tail = append(r.tail, max(own, 0))
	} else {
		r.tail[r.tailAt] = max(own, 0)
		r.tailAt = (r.tailAt + 1) % tailOps
	}
	if lag > r.cfg.LateAfter {
		r.late++
		iv.Late++
	}
}

// totals sums the types into the run's counts and its achieved rate.
func (res *Result) totals() {
	for _, t := range res.Types {
		res.Completed += t.Count
		res.Errors += t.Errors
		res.TimedOut += t.TimedOut
	}
	if res.Span > 0 {
		res.Achieved = float64(res.Completed) / res.Span.Seconds()
	}
}

func recordPacked(h *hdrhistogram.PackedHistogram, d time.Duration) {
	_ = h.RecordValue(min(max(int64(d), report.HistMin), report.HistMax)) // in range: cannot fail
}

// Run performs the schedule: next draws operation seq's type and argument (one call at a time, in
// the schedule's order, so one seed gives one sequence; with a Stripe, seq is the operation's place
// in the whole schedule, so a shard draws the operations one process would), and do performs it on
// a worker. Run returns when every operation taken has completed, or with ctx's error once the
// workers have stopped after ctx ended. An operation's error does not stop the run: it is counted,
// and the first is kept in Result.Err; the clocks and Completed hold only the operations that
// succeeded.
//
// The schedule starts when every worker is ready (StartLead after the last one is), so that start-up
// never makes an operation late or dropped.
//
// There is no dispatcher handing operations over: each free worker takes the schedule's next
// operation itself (drawing it), waits for its intended start and performs it. A hand-over to a
// parked worker cost a wake-up through the kernel per operation (about 90 us on the 2-core VM, and
// several microseconds of the dispatcher's CPU); a worker that waits on its own clock starts on
// time. Operations are still taken in order by the first worker free, so the queue policy is the
// same single queue in front of the pool: an operation waits only when every worker is busy.
func Run[T any](ctx context.Context, cfg Config, next func(seq int64) (int, T), do func(context.Context, Op[T]) error) (*Result, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	times, err := cfg.Schedule.Times()
	if err != nil {
		return nil, err
	}
	rec := &recorder{cfg: &cfg, types: NewTypeResults(cfg.OpTypes)}
	p := &pool[T]{cfg: &cfg, ctx: ctx, times: times, next: next, rec: rec, claim: make(chan struct{}, 1),
		free: newFreeList(cfg.Workers)}
	var wg, ready sync.WaitGroup
	start := make(chan struct{})
	for w := range cfg.Workers {
		wg.Add(1)
		ready.Add(1)
		go func() {
			defer wg.Done()
			ready.Done()
			<-start
			p.work(w, do)
		}()
	}
	ready.Wait()
	p.t0 = time.Now().Add(StartLead) // read by the workers only after start is closed
	close(start)
	wg.Wait()
	res := p.result()
	res.Sequence = times.Passed()
	return res, p.err
}

// NewTypeResults are empty totals for the operation types named, their histograms made.
func NewTypeResults(names []string) []TypeResult {
	out := make([]TypeResult, len(names))
	for i, name := range names {
		out[i] = TypeResult{Name: name, Failed: report.NewHistogram(), Clocks: Clocks[*hdrhistogram.Histogram]{
			Response: report.NewHistogram(), Service: report.NewHistogram(), StartLag: report.NewHistogram()}}
	}
	return out
}

// pool is the workers' shared state: the schedule, the draw, and what taking operations counted.
// Everything but the atomics is guarded by claim.
type pool[T any] struct {
	cfg   *Config
	ctx   context.Context
	t0    time.Time
	times *Times
	next  func(int64) (int, T)
	rec   *recorder
	// claim is held by the worker taking the next operation: a channel, not a mutex, so that a
	// worker waiting for it is durably blocked in a synctest bubble (the tests' virtual clock).
	claim chan struct{}

	stopped         bool
	err             error // the run's: ctx's, or a draw out of range
	prevIntended    time.Duration
	scheduled       int64
	dropped, waited int64
	dropAt          []time.Duration // intended starts of dropped operations
	schedAt         []int64         // scheduled per interval
	workNs, spinNs  atomic.Int64    // taking operations (the generator's work); spinning
	// The sleeps' system calls: how many, and the thread CPU of every sleepSample-th one.
	sleeps, sampled, sampledNs atomic.Int64
	// free is the workers free to take an operation, and since when: it says whether an
	// operation that was due had a worker free (its delay is then the generator's) or every
	// worker was busy (it waited for one: the target's delay).
	free      *freeList
	lastReady time.Duration // the previous operation's ready time
}

func (p *pool[T]) now() time.Duration { return time.Since(p.t0) }

// work is one worker: take the next operation, wait for its intended start, perform it, record it.
func (p *pool[T]) work(w int, do func(context.Context, Op[T]) error) {
	// A context of the worker's own: a driver watching each call's context (pgx registers a
	// context.AfterFunc) then registers with it, not with one parent every worker locks.
	wctx, wcancel := context.WithCancel(p.ctx)
	defer wcancel()
	var self time.Duration // one slot per worker
	for {
		op, spin, ready, ok := p.take(w)
		if !ok {
			return
		}
		if p.cfg.Precise {
			p.waitHolding(op.Intended, spin)
		} else {
			p.wait(op.Intended, spin)
		}
		if err := p.ctx.Err(); err != nil { // ended while it waited: the operation is not sent
			p.stop(err)
			return
		}
		start := p.now()
		opCtx, cancel := wctx, context.CancelFunc(nil)
		if p.cfg.Timeout > 0 {
			opCtx, cancel = context.WithTimeout(wctx, p.cfg.Timeout)
		}
		self, op.Self, op.Worker = 0, &self, w
		err := do(opCtx, op)
		end := SelfEnd(start, p.now(), self)
		timedOut := err != nil && errors.Is(opCtx.Err(), context.DeadlineExceeded)
		if cancel != nil {
			cancel()
		}
		// The generator's own delay: how late the operation started beyond what a busy pool
		// explains (ready: its intended start, or, when every worker was busy then, the moment
		// one became free for it).
		own := start - ready
		p.rec.record(op.Type, op.Intended, start, end, err, timedOut, own)
		p.free.add(w, end-max(own, 0))
	}
}

// stop ends the run with err (the first one kept): workers take no more operations.
func (p *pool[T]) stop(err error) {
	p.claim <- struct{}{}
	p.stopped = true
	if p.err == nil {
		p.err = err
	}
	<-p.claim
}

// take gives free worker w the schedule's next operation to perform: drawn, counted scheduled,
// with its spin budget and its ready time (its intended start, or later when every worker was busy
// then: the moment the first became free). Under the drop policy an operation with no worker free
// at its intended start is dropped and the next one taken; one the generator itself reached late,
// with a worker free, is sent. It waits (holding the claim) until DrawAhead before the intended start,
// so that an operation is drawn close to it whatever the number of workers (a YCSB read draws
// among the records inserted by then).
// Under Precise a successful take returns holding the claim: waitHolding releases it.
func (p *pool[T]) take(w int) (op Op[T], spin, ready time.Duration, ok bool) {
	p.claim <- struct{}{}
	var work time.Duration // drawing and counting, not the wait before the draw
	w0 := time.Duration(-1)
	defer func() {
		if !ok || !p.cfg.Precise {
			<-p.claim // the release may wake a worker waiting for the claim: the generator's cost too
		}
		if w0 >= 0 {
			work += p.now() - w0
		}
		p.workNs.Add(int64(work))
	}()
	for {
		if p.stopped {
			return op, 0, 0, false
		}
		if err := p.ctx.Err(); err != nil {
			p.stopped, p.err = true, cmp.Or(p.err, err)
			return op, 0, 0, false
		}
		intended, more := p.times.Next()
		if !more {
			p.stopped = true
			return op, 0, 0, false
		}
		if ahead := intended - DrawAhead - p.now(); ahead > 0 {
			if err := SleepCtx(p.ctx, ahead); err != nil {
				p.stopped, p.err = true, cmp.Or(p.err, err)
				return op, 0, 0, false
			}
		}
		w0 = p.now()
		seq := p.times.Index() // its place in the whole schedule: a stripe's operations are the whole's
		typ, arg := p.next(seq)
		if typ < 0 || typ >= len(p.cfg.OpTypes) {
			p.stopped = true
			p.err = cmp.Or(p.err, fmt.Errorf("operation %d: type %d, but there are %d operation types", seq, typ, len(p.cfg.OpTypes)))
			return op, 0, 0, false
		}
		p.scheduled++
		p.countScheduled(intended)
		gap := intended - p.prevIntended
		p.prevIntended = intended
		// Ready: its intended start, or later when the operation before it was (one queue), or when
		// every worker was busy then (the first free one, had the generator kept time).
		ready = max(intended, p.lastReady, p.free.since())
		if p.cfg.Policy == Drop && ready > intended {
			p.dropped++
			p.dropAt = append(p.dropAt, intended)
			work, w0 = work+p.now()-w0, -1
			continue
		}
		if ready-intended > p.cfg.LateAfter {
			p.waited++
		}
		spin = max(min(p.cfg.Spin, time.Duration(SpinShare*float64(gap))), 0)
		if p.cfg.Precise {
			spin = max(p.cfg.Spin, 0) // waits never overlap under Precise: the whole budget
		}
		p.free.take(w)
		p.lastReady = ready
		return Op[T]{Seq: seq, Type: typ, Arg: arg, Intended: intended}, spin, ready, true
	}
}

func (p *pool[T]) countScheduled(intended time.Duration) {
	i := int(intended / p.cfg.Interval)
	for len(p.schedAt) <= i {
		p.schedAt = append(p.schedAt, 0)
	}
	p.schedAt[i]++
}

// SleepCtx sleeps on the runtime's timer (about 1 ms late at worst here), cancellable: a sleep
// that needs no precision (the generator's wait ahead of its draws, a script's think time).
func SleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wait returns at the intended start: it sleeps until spin before it, then spins. The thread's
// nanosleep wakes within tens of microseconds where the runtime's timer wakes within a
// millisecond (sleep_linux.go); the spin absorbs the rest and is counted as the generator's CPU.
// A negative Config.Spin only sleeps: a virtual clock (synctest) advances on the runtime's timers.
// The sleep is DrawAhead at most (take waited for the rest), short enough not to watch ctx.
func (p *pool[T]) wait(intended, spin time.Duration) {
	left := intended - p.now() - spin
	switch {
	case left <= 0:
	case p.cfg.Spin > 0:
		if p.sleeps.Add(1)%sleepSample != 1 {
			sleepThread(left)
		} else if cpu, ok := sleepThreadCPU(left); ok {
			p.sampled.Add(1)
			p.sampledNs.Add(int64(cpu))
		}
	default:
		time.Sleep(left)
	}
	if p.cfg.Spin > 0 {
		p.spinUntil(intended)
	}
}

// waitHolding is Precise's wait: the worker that took the operation waits for its start still
// holding the claim (one waiter at a time, as the research note's thread that only spins: none
// sleeps on its own and wakes late), hands the claim on Handoff before the start, then spins the
// rest. Without spinning (a virtual clock) it sleeps.
func (p *pool[T]) waitHolding(intended, spin time.Duration) {
	p.wait(intended-Handoff, spin)
	<-p.claim
	if p.cfg.Spin > 0 {
		p.spinUntil(intended)
	} else if left := intended - p.now(); left > 0 {
		time.Sleep(left)
	}
}

// spinUntil spins until intended, counting the spin as the generator's CPU.
func (p *pool[T]) spinUntil(intended time.Duration) {
	var spun time.Duration
	for prev, now := p.now(), p.now(); now < intended; prev, now = now, p.now() {
		if step := now - prev; step < offCPU {
			spun += step
		}
	}
	p.spinNs.Add(int64(spun))
}

// sleepSample: one sleep in this many is timed on its thread's CPU clock (two system calls), to
// estimate what all the sleeps' system calls cost (about a microsecond each on the idle VM, five
// on a loaded one: at 10,000 ops/s up to 5% of a core).
const sleepSample = 16

// sleepCPU estimates the CPU the sleeps' system calls took, from the sampled ones; false when
// there were sleeps and none could be timed (no thread CPU clock).
func (p *pool[T]) sleepCPU() (time.Duration, bool) {
	n, s := p.sleeps.Load(), p.sampled.Load()
	if s == 0 {
		return 0, n == 0
	}
	return time.Duration(float64(p.sampledNs.Load()) * float64(n) / float64(s)), true
}

// offCPU: a step of the spin's clock longer than this (a clock read takes tens of nanoseconds) is
// time the thread was not running (preempted, or its virtual CPU not scheduled): not spinning CPU.
const offCPU = 5 * time.Microsecond

// tailOps is how many of the last operations' own lags say whether the generator ended behind.
const tailOps = 20

// median of a few durations.
func median(xs []time.Duration) time.Duration {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func (p *pool[T]) result() *Result {
	rec := p.rec
	rec.mu.Lock()
	defer rec.mu.Unlock()
	s := p.cfg.Schedule
	work, spin := time.Duration(p.workNs.Load()), time.Duration(p.spinNs.Load())
	sleep, measured := p.sleepCPU()
	res := &Result{
		Scheduled: p.scheduled, Dropped: p.dropped, Waited: p.waited, Late: rec.late, Err: rec.err,
		Types: rec.types,
		Generator: Generator{CPU: work + spin + sleep, CPUMeasured: measured, Work: work, Spin: spin, Sleep: sleep,
			Late: rec.genLate, MaxLag: rec.genMaxLag},
	}
	res.Span = max(s.Duration, rec.lastEnd)
	res.totals()
	res.Target = s.MeanRate() * s.Stripe.Share()
	for _, at := range p.dropAt {
		rec.interval(at).Dropped++
	}
	for i, n := range p.schedAt {
		rec.interval(time.Duration(i) * p.cfg.Interval).Scheduled = n
	}
	for i := range rec.intervals {
		iv := &rec.intervals[i]
		iv.Target = s.Intended(iv.Start+p.cfg.Interval) - s.Intended(iv.Start)
		if s.Duration > 0 && iv.Start+p.cfg.Interval > s.Duration {
			iv.Target = s.Intended(max(s.Duration, iv.Start)) - s.Intended(iv.Start)
		}
		iv.Target *= s.Stripe.Share()
	}
	res.Intervals = rec.intervals
	share := func(n int64) bool { return res.Scheduled > 0 && float64(n) > SaturatedShare*float64(res.Scheduled) }
	// Saturated, not stalled: it could not keep up (taking an operation takes longer than the gap
	// between them: the draw is one at a time), or it was still behind at the end (its lag grew and
	// did not recover). A stall it recovered from is the machine taking its CPU away for a moment.
	perOp := res.Generator.WorkPerOp(res.Scheduled)
	capacity := res.Target > 0 && perOp.Seconds()*res.Target >= 0.9
	behind := len(rec.tail) > 0 && median(rec.tail) > p.cfg.LateAfter
	res.GeneratorSaturated = share(rec.genLate) && (capacity || behind)
	res.GeneratorStalled = share(rec.genLate) && !res.GeneratorSaturated
	res.TargetSaturated = share(p.waited + p.dropped)
	return res
}

// freeList is the workers free to take an operation, each with the time it would have become free
// had the generator started its last operation on time (its end less the generator's own delay
// of it): a heap on that time, so that the first is the one free the longest in that ideal. A
// worker's delay is then never charged to the target twice: an operation is ready when the
// schedule says, or when the ideal pool first had a worker for it.
type freeList struct {
	mu   sync.Mutex
	heap []freeEntry
	pos  []int // per worker: its place in heap, -1 while it holds an operation
}

type freeEntry struct {
	worker int
	at     time.Duration
}

// newFreeList starts with every worker free since the schedule's start.
func newFreeList(workers int) *freeList {
	f := &freeList{pos: make([]int, workers)}
	for w := range workers {
		f.pos[w] = len(f.heap)
		f.heap = append(f.heap, freeEntry{worker: w})
	}
	return f
}

// add marks worker w free from at.
func (f *freeList) add(w int, at time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pos[w] = len(f.heap)
	f.heap = append(f.heap, freeEntry{worker: w, at: at})
	f.up(f.pos[w])
}

// take marks worker w as holding an operation.
func (f *freeList) take(w int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := f.pos[w]
	if i < 0 {
		return
	}
	last := len(f.heap) - 1
	f.swap(i, last)
	f.heap = f.heap[:last]
	f.pos[w] = -1
	if i < last {
		f.down(i)
		f.up(i)
	}
}

// since is when the worker free the longest became free; the caller is free, so there is one.
func (f *freeList) since() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.heap) == 0 {
		return 0
	}
	return f.heap[0].at
}

func (f *freeList) swap(i, j int) {
	f.heap[i], f.heap[j] = f.heap[j], f.heap[i]
	f.pos[f.heap[i].worker], f.pos[f.heap[j].worker] = i, j
}

func (f *freeList) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if f.heap[parent].at <= f.heap[i].at {
			return
		}
		f.swap(i, parent)
		i = parent
	}
}

func (f *freeList) down(i int) {
	for {
		least := i
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(f.heap) && f.heap[c].at < f.heap[least].at {
				least = c
			}
		}
		if least == i {
			return
		}
		f.swap(i, least)
		i = least
	}
}

package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbbench/dbbench/engine/load"
	"github.com/dbbench/dbbench/report"
)

// closedRun is the closed loop of a YCSB workload with no rate: cfg.Workers workers, each starting
// its next operation as soon as its last one ends, until cfg.Schedule's operation count or duration
// is reached. engine/load has only the open loop, so this is the same path without a schedule: a
// free worker draws the next operation (next) itself, in order, under a lock: a dispatcher
// goroutine handing operations over a channel woke a goroutine per operation (on PostgreSQL, 16
// workers, about 5 us of the client's CPU per operation, on the two cores it shares with the
// server: .ci/ycsb-peer). An operation's intended start is its actual start, so
// response time equals service time and the start lag is 0: a closed loop has no schedule to be late
// for. The result has load.Run's shape (Target 0), so that the report treats both alike.
func closedRun[T any](ctx context.Context, cfg load.Config, next func(int64) (int, T), do func(context.Context, load.Op[T]) error) (*load.Result, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = load.DefaultInterval
	}
	if cfg.LateAfter <= 0 {
		cfg.LateAfter = load.DefaultLateAfter
	}
	rec := &closedRecorder{cfg: &cfg, res: &load.Result{}}
	for _, name := range cfg.OpTypes {
		rec.res.Types = append(rec.res.Types, load.TypeResult{Name: name, Clocks: load.Clocks[*hdrhistogram.Histogram]{
			Response: report.NewHistogram(), Service: report.NewHistogram(), StartLag: report.NewHistogram()}})
	}
	t0 := time.Now()
	d := &closedDraw[T]{ctx: ctx, s: cfg.Schedule, t0: t0, next: next,
		seq: int64(cfg.Schedule.Stripe.Index), step: int64(max(cfg.Schedule.Stripe.Total, 1))}
	var wg sync.WaitGroup
	for range max(cfg.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A context of the worker's own, as load's open-loop workers have (pool.work says why).
			wctx, wcancel := context.WithCancel(ctx)
			defer wcancel()
			var self time.Duration // one slot per worker
			for {
				op, ok := d.take()
				if !ok {
					return
				}
				opCtx, cancel := wctx, context.CancelFunc(func() {})
				if cfg.Timeout > 0 {
					opCtx, cancel = context.WithTimeout(wctx, cfg.Timeout)
				}
				start := time.Since(t0)
				op.Intended = start
				self, op.Self = 0, &self
				err := do(opCtx, op)
				end := load.SelfEnd(start, time.Since(t0), self)
				timedOut := err != nil && errors.Is(opCtx.Err(), context.DeadlineExceeded)
				cancel()
				rec.record(op.Type, start, end, err, timedOut)
			}
		}()
	}
	wg.Wait()
	res := rec.finish(time.Since(t0))
	res.Scheduled = d.drawn
	// The whole sequence went through: the ops asked for, or, ended by the duration, up to the
	// next operation (a closed loop's count then depends on timing, shard by shard).
	res.Sequence = d.seq
	if cfg.Schedule.Ops > 0 {
		res.Sequence = min(d.seq, cfg.Schedule.Ops)
	}
	return res, d.err
}

// closedDraw is a closed loop's sequence: the workers draw from it in turn.
type closedDraw[T any] struct {
	ctx  context.Context
	s    load.Schedule
	t0   time.Time
	next func(int64) (int, T)

	mu        sync.Mutex
	seq, step int64 // the next operation's place in the whole sequence; a stripe's stride
	drawn     int64
	stopped   bool
	err       error // ctx's, when it ended the run
}

// take draws the next operation, or says the run is over: the count or the duration reached, or
// ctx done. A stripe takes every Total-th operation of the whole sequence, from its Index.
func (d *closedDraw[T]) take() (load.Op[T], bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.stopped:
	case d.s.Ops > 0 && d.seq >= d.s.Ops, d.s.Duration > 0 && time.Since(d.t0) >= d.s.Duration:
		d.stopped = true
	case d.ctx.Err() != nil:
		d.stopped, d.err = true, d.ctx.Err()
	default:
		typ, arg := d.next(d.seq)
		op := load.Op[T]{Seq: d.seq, Type: typ, Arg: arg}
		d.seq += d.step
		d.drawn++
		return op, true
	}
	return load.Op[T]{}, false
}

// closedRecorder gathers a closed loop's operations: its clocks per type and per interval.
type closedRecorder struct {
	mu  sync.Mutex
	cfg *load.Config
	res *load.Result
}

func (r *closedRecorder) record(typ int, start, end time.Duration, err error, timedOut bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &r.res.Types[typ]
	t.Count++
	report.Record(t.Response, end-start)
	report.Record(t.Service, end-start)
	report.Record(t.StartLag, 0)
	i := int(end / r.cfg.Interval)
	for len(r.res.Intervals) <= i {
		r.res.Intervals = append(r.res.Intervals, load.Interval{Start: time.Duration(len(r.res.Intervals)) * r.cfg.Interval})
	}
	iv := &r.res.Intervals[i]
	iv.Completed++
	if iv.Types == nil {
		iv.Types = make([]load.Clocks[*hdrhistogram.PackedHistogram], len(r.res.Types))
	}
	c := &iv.Types[typ]
	if c.Response == nil {
		c.Response, c.Service, c.StartLag = report.NewPacked(), report.NewPacked(), report.NewPacked()
	}
	v := min(max(int64(end-start), report.HistMin), report.HistMax)
	_ = c.Response.RecordValue(v)
	_ = c.Service.RecordValue(v)
	_ = c.StartLag.RecordValue(report.HistMin)
	if err != nil {
		t.Errors++
		if timedOut {
			t.TimedOut++
		}
		if r.res.Err == nil {
			r.res.Err = err
		}
	}
}

// finish totals the run: its span is its wall time, its achieved rate the completed operations
// over it.
func (r *closedRecorder) finish(span time.Duration) *load.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := r.res
	for _, t := range res.Types {
		res.Completed += t.Count
		res.Errors += t.Errors
		res.TimedOut += t.TimedOut
	}
	res.Span = span
	if span > 0 {
		res.Achieved = float64(res.Completed) / span.Seconds()
	}
	for i := range res.Intervals {
		res.Intervals[i].Scheduled = res.Intervals[i].Completed
	}
	return res
}

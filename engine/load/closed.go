package load

import (
	"context"
	"errors"
	"sync"
	"time"
)

// RunClosed is the closed loop of a workload with no rate: cfg.Workers workers, each starting its
// next operation as soon as its last one ends, until cfg.Schedule's operation count or duration is
// reached (its rate is not used). A free worker draws the next operation (next) itself, in order,
// under a lock: a dispatcher goroutine handing operations over a channel woke a goroutine per
// operation (on PostgreSQL, 16 workers, about 5 us of the client's CPU per operation, on the two
// cores it shares with the server: .ci/ycsb-peer). A closed loop has no schedule, so it measures
// no start lag and nothing is late, waited or dropped: its types' StartLag histograms are nil and
// its Result has no Target; response time equals service time. Errors are apart, as in Run.
func RunClosed[T any](ctx context.Context, cfg Config, next func(int64) (int, T), do func(context.Context, Op[T]) error) (*Result, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.LateAfter <= 0 {
		cfg.LateAfter = DefaultLateAfter
	}
	if len(cfg.OpTypes) == 0 {
		cfg.OpTypes = []string{"op"}
	}
	rec := &recorder{cfg: &cfg, types: NewTypeResults(cfg.OpTypes), closed: true}
	for i := range rec.types {
		rec.types[i].StartLag = nil
	}
	t0 := time.Now()
	d := &closedDraw[T]{ctx: ctx, s: cfg.Schedule, t0: t0, next: next,
		seq: int64(cfg.Schedule.Stripe.Index), step: int64(max(cfg.Schedule.Stripe.Total, 1))}
	var wg sync.WaitGroup
	for w := range max(cfg.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A context of the worker's own, as the open loop's workers have (pool.work says why).
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
				op.Intended, op.Worker = start, w
				self, op.Self = 0, &self
				err := do(opCtx, op)
				end := SelfEnd(start, time.Since(t0), self)
				timedOut := err != nil && errors.Is(opCtx.Err(), context.DeadlineExceeded)
				cancel()
				rec.record(op.Type, start, start, end, err, timedOut, 0)
			}
		}()
	}
	wg.Wait()
	res := rec.closedResult(time.Since(t0))
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
	s    Schedule
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
func (d *closedDraw[T]) take() (Op[T], bool) {
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
		op := Op[T]{Seq: d.seq, Type: typ, Arg: arg}
		d.seq += d.step
		d.drawn++
		return op, true
	}
	return Op[T]{}, false
}

// closedResult totals a closed loop: its span is its wall time, its achieved rate the operations
// that succeeded over it.
func (r *recorder) closedResult(span time.Duration) *Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := &Result{Types: r.types, Intervals: r.intervals, Err: r.err, Span: span}
	res.totals()
	return res
}

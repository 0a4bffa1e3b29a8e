package engine

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// A stalled target: its server (or client process) stopped answering in the middle of a workload,
// say a PostgreSQL whose backends were stopped with SIGSTOP. Adapters pass the engine's context to
// every call, but a blocked read on a socket waits for as long as the other side keeps the connection
// open. So the engine watches each target while it runs a workload: operations bump a counter as they
// finish (outside their timed region: nothing is added to what is measured), a watchdog goroutine
// reads it a few times per stall_timeout, and when it has not moved for stall_timeout the target's
// context is cancelled with a StallError as its cause. pgx, database/sql, net/http and the exec
// adapter's pipes all return once their context is cancelled; the workload's result fails with the
// StallError, the target runs nothing more, and cleaning it up gets the short deadline adapters give
// a cancelled context. The other targets go on.

//
// Loads are watched the same way once the adapter reports progress (adapters.Env.Progress, called
// per row or batch of a load over a network): watchLoad arms the watchdog at the first report, so a
// local load that never reports (LMDB, memory, SQLite) is never cut off, however long it takes.

// StallError is the cause of a target's cancelled context when no operation finished in time, or
// when its load reported no progress in time.
type StallError struct {
	Timeout time.Duration
	Load    bool // the load stalled, not a workload
}

func (e *StallError) Error() string {
	if e.Load {
		return fmt.Sprintf("stalled: the load made no progress within stall_timeout %v (the server or client stopped answering; "+
			"if one step of the load really takes longer, say an index build on a very large dataset, raise stall_timeout in the config)", e.Timeout)
	}
	return fmt.Sprintf("stalled: no operation finished within stall_timeout %v (the server or client stopped answering; "+
		"if one operation really takes longer, raise stall_timeout in the config)", e.Timeout)
}

// stallLimit is the run's stall deadline, or 0 (no watchdog) when instructions are counted: the run
// is under valgrind, some 50 times slower, with threads serialized and collection switched per thread,
// and a watchdog goroutine waking beside the counted thread perturbed the counts (and once held a
// run for the whole 2m). Ctrl-C still ends such a run.
func (r *Runner) stallLimit() time.Duration {
	if r.Instructions != nil {
		return 0
	}
	return r.Plan.StallTimeout
}

// watchStall cancels a target's context (cancel, with a *StallError cause) when done has not
// moved for limit, checking four times per limit; stop ends the watch and returns once the watchdog
// has exited, so no cancellation comes after it.
func watchStall(limit time.Duration, done *atomic.Int64, cancel context.CancelCauseFunc) (stop func()) {
	return watch(limit, done, cancel, &StallError{Timeout: limit}, true)
}

// watchLoad is watchStall for a load, armed only once progress has first moved: until the adapter
// reports progress, nothing is cancelled however long the load takes.
func watchLoad(limit time.Duration, progress *atomic.Int64, cancel context.CancelCauseFunc) (stop func()) {
	return watch(limit, progress, cancel, &StallError{Timeout: limit, Load: true}, false)
}

func watch(limit time.Duration, done *atomic.Int64, cancel context.CancelCauseFunc, cause *StallError, armed bool) (stop func()) {
	if limit <= 0 {
		return func() {}
	}
	quit, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		tick := time.NewTicker(max(limit/4, 10*time.Millisecond))
		defer tick.Stop()
		last, since := done.Load(), time.Now()
		for {
			select {
			case <-quit:
				return
			case now := <-tick.C:
				if n := done.Load(); n != last {
					last, since, armed = n, now, true
				} else if armed && now.Sub(since) >= limit {
					cancel(cause)
					return
				}
			}
		}
	}()
	return func() {
		close(quit)
		<-exited
	}
}

// stallOf returns the StallError that cancelled ctx, or nil.
func stallOf(ctx context.Context) *StallError {
	var se *StallError
	if ctx != nil && errors.As(context.Cause(ctx), &se) {
		return se
	}
	return nil
}

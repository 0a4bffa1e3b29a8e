package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/workloads"
)

// busyFor is how long the cancellation check keeps a target busy before it cancels the context:
// long enough for the cancellation to land inside a call of a target that is slow enough to need
// interrupting (a server, a client in another process).
const busyFor = 20 * time.Millisecond

// wrongResult is the error of a call that succeeded with a wrong result: a failure whatever the
// context's state.
type wrongResult struct{ msg string }

func (w wrongResult) Error() string { return w.msg }

func wrongf(format string, args ...any) error { return wrongResult{fmt.Sprintf(format, args...)} }

// CheckCancel checks, for each common workload the target offers, on a fresh target each, that
// cancelling the target's context (as the engine does on Ctrl-C or a stall) ends the workload's
// calls promptly: the call running when the context is cancelled, or else the next one, returns an
// error within CancelWait. A workload listed in Uninterruptible may instead complete correctly.
// Close then still removes what the target made outside its temp dir (Remains), within its own
// bound, or registers what it could not for removal by hand. An insert session is cancelled halfway through its inserts; the rest, or the commit, must
// fail.
func CheckCancel(t testing.TB, tg Target) {
	checked := 0
	var spare *instance // a loaded target no check has used yet
	var before outside  // what was outside the temp dir when spare was opened
	for _, w := range tg.workloads() {
		if spare == nil {
			before = tg.outside(t)
			spare = tg.open(t, true)
		}
		in := spare
		if !slices.Contains(Capabilities(in.Target), w) {
			t.Errorf("%s: the target offers it but implements none of its interfaces", w)
			continue
		}
		call := cancellable(in, w)
		is, session := in.Target.(adapters.Inserter)
		switch {
		case w == workloads.Insert && call == nil && session:
			in.cancelSession(t, tg, is)
		case call == nil:
			t.Logf("%s: the engine runs it through Scan, checked with scan", w)
			continue
		default:
			in.cancelCalls(t, tg, w, call)
		}
		spare = nil
		checked++
		if in.abandoned {
			continue
		}
		if err := in.close(); err != nil {
			t.Logf("%s: Close after the cancellation: %v", w, err)
		}
		tg.checkInterrupted(t, before, w+": after Close of a cancelled target")
	}
	if checked == 0 {
		t.Skip("the target offers no workload with a call to cancel")
	}
}

// cancellable returns a call of workload w that does the workload's largest piece of work on the
// whole dataset and checks its result; nil for an insert through an InsertSession (cancelled in a
// session instead) and for concurrent readers through the engine's default.
func cancellable(in *instance, w string) func(context.Context) error {
	ds, n := in.ds, in.ds.Len()
	full := adapters.Tally{Rows: int64(n), Sum: ds.SumFirst(n)}
	check := func(what string, got adapters.Tally, err error) error {
		if err == nil && got != full {
			return wrongf("%s: %d rows, checksum %016x; want %d, %016x", what, got.Rows, got.Sum, full.Rows, full.Sum)
		}
		return err
	}
	switch target := in.Target; w {
	case workloads.Scan:
		return func(ctx context.Context) error {
			got, _, err := scanAll(ctx, target, n)
			return check("scan", got, err)
		}
	case workloads.Lookup:
		keys := ds.Sample(n, 3)
		if tl, ok := target.(adapters.TimedPointReader); ok {
			lat := make([]time.Duration, n)
			return func(ctx context.Context) error {
				got, err := tl.TimedLookups(ctx, ds, keys, lat)
				return check("TimedLookups of every person", got, err)
			}
		}
		pr, ok := target.(adapters.PointReader)
		if !ok {
			return nil
		}
		return func(ctx context.Context) error {
			var got adapters.Tally
			for _, k := range keys {
				tl, err := pr.Lookup(ctx, ds.Email(int(k)))
				if err != nil {
					return err
				}
				got.Add(tl)
			}
			return check("lookups of every person", got, nil)
		}
	case workloads.Insert:
		if ti, ok := target.(adapters.TimedInserter); ok {
			return func(ctx context.Context) error {
				got, _, err := ti.TimedInsert(ctx, ds, n)
				return check("TimedInsert of every person", got, err)
			}
		}
	case workloads.Concurrent:
		lat := make([]time.Duration, readers)
		run := func(ctx context.Context) ([]adapters.Tally, error) {
			switch s := target.(type) {
			case adapters.TimedConcurrentScanner:
				tallies, _, err := s.TimedScanConcurrently(ctx, readers, n, lat)
				return tallies, err
			case adapters.ConcurrentScanner:
				tallies, _, err := s.ScanConcurrently(ctx, readers, n, lat)
				return tallies, err
			}
			return nil, nil
		}
		switch target.(type) {
		case adapters.TimedConcurrentScanner, adapters.ConcurrentScanner:
			return func(ctx context.Context) error {
				tallies, err := run(ctx)
				if err == nil && len(tallies) != readers {
					return wrongf("concurrent: %d reader results for %d readers", len(tallies), readers)
				}
				for i, tl := range tallies {
					if err := check(fmt.Sprintf("concurrent reader %d", i+1), tl, err); err != nil {
						return err
					}
				}
				return err
			}
		}
	}
	return nil
}

// outcome is how a cancelled run of calls ended.
type outcome struct {
	err error
	// started says whether the last call started after the cancellation; done, whether the
	// context was cancelled when it returned.
	started, done bool
}

// cancelCalls keeps the target busy with call, cancels its context, and requires the call then
// running, or the next one, to fail within CancelWait.
func (in *instance) cancelCalls(t testing.TB, tg Target, w string, call func(context.Context) error) {
	t.Helper()
	out := make(chan outcome, 1)
	go func() {
		for {
			started := in.ctx.Err() != nil
			err := call(in.ctx)
			if err != nil || started {
				out <- outcome{err: err, started: started, done: in.ctx.Err() != nil}
				return
			}
		}
	}()
	time.Sleep(busyFor)
	in.cancel()
	var o outcome
	select {
	case o = <-out:
	case <-time.After(tg.cancelWait()):
		t.Errorf("%s: a call did not return within %v of its context's cancellation", w, tg.cancelWait())
		in.abandoned = true
		return
	}
	var wrong wrongResult
	switch why, uninterruptible := tg.Uninterruptible[w]; {
	case errors.As(o.err, &wrong):
		t.Errorf("%s, around the cancellation: %v", w, wrong.msg)
	case o.err != nil && !o.done:
		t.Errorf("%s failed before its context was cancelled: %v", w, o.err)
	case o.err != nil:
		t.Logf("%s, cancelled: %v", w, o.err)
	case uninterruptible:
		t.Logf("%s completed with a cancelled context, as declared: %s", w, why)
	default:
		t.Errorf("%s: a call that started after its context was cancelled succeeded: the target ignores cancellation "+
			"(declare it in Target.Uninterruptible, with the reason, if its calls cannot be interrupted)", w)
	}
}

// cancelSession runs an insert session on one goroutine, as the engine does, and cancels the
// target's context halfway through the inserts: a later insert or the commit must fail, within
// CancelWait; the session's Close must then return, within its own bound.
func (in *instance) cancelSession(t testing.TB, tg Target, is adapters.Inserter) {
	t.Helper()
	ps, _ := persons(in.ds, 0, in.ds.Len())
	half := len(ps) / 2
	setup, out, closed := make(chan error, 1), make(chan error, 1), make(chan error, 1)
	go func() {
		ctx := in.ctx
		sess, err := is.NewInsertSession(ctx)
		if err != nil {
			setup <- err
			return
		}
		err = sess.Begin(ctx)
		for i := 0; err == nil && i < half; i++ {
			err = sess.Insert(ctx, &ps[i])
		}
		setup <- err
		if err == nil {
			in.cancel()
			for i := half; err == nil && i < len(ps); i++ {
				err = sess.Insert(ctx, &ps[i])
			}
			if err == nil {
				err = sess.Commit(ctx)
			}
			out <- err
		}
		closed <- sess.Close()
	}()
	if err := <-setup; err != nil {
		t.Fatalf("insert session, before the cancellation: %v", err)
	}
	select {
	case err := <-out:
		why, uninterruptible := tg.Uninterruptible[workloads.Insert]
		switch {
		case err != nil:
			t.Logf("insert, cancelled halfway: %v", err)
		case uninterruptible:
			t.Logf("insert session committed with a cancelled context, as declared: %s", why)
		default:
			t.Errorf("insert: after its context was cancelled halfway, the session inserted the rest and committed: the target ignores " +
				"cancellation (declare it in Target.Uninterruptible, with the reason, if its calls cannot be interrupted)")
		}
	case <-time.After(tg.cancelWait()):
		t.Errorf("insert: the session did not end within %v of its context's cancellation", tg.cancelWait())
		in.abandoned = true
		return
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Logf("insert: the session's Close after the cancellation: %v", err)
		}
	case <-time.After(closeWait):
		t.Errorf("insert: the session's Close did not return within %v of the cancellation", closeWait)
		in.abandoned = true
	}
}

package load

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestOpWorker: each operation names the worker performing it, in [0, Workers), and a worker never
// has two operations at once (so a resource per worker, a connection, needs no lock), in the open
// loop and the closed loop; every worker takes some.
func TestOpWorker(t *testing.T) {
	const workers = 3
	for _, open := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			var busy [workers]atomic.Int32
			var done [workers]atomic.Int64
			do := func(_ context.Context, op Op[struct{}]) error {
				if op.Worker < 0 || op.Worker >= workers {
					return fmt.Errorf("worker %d of %d", op.Worker, workers)
				}
				if busy[op.Worker].Add(1) != 1 {
					return fmt.Errorf("worker %d has two operations at once", op.Worker)
				}
				time.Sleep(2 * time.Millisecond) // longer than the schedule's gap: every worker busy
				busy[op.Worker].Add(-1)
				done[op.Worker].Add(1)
				return nil
			}
			cfg := Config{Workers: workers, Spin: -1, Schedule: Schedule{Rate: 1000, Ops: 300}}
			var res *Result
			var err error
			if open {
				res, err = Run(context.Background(), cfg, noArg, do)
			} else {
				res, err = RunClosed(context.Background(), cfg, noArg, do)
			}
			if err != nil || res.Errors > 0 || res.Completed != 300 {
				t.Fatalf("open %v: %d completed, %d errors (%v), %v", open, res.Completed, res.Errors, res.Err, err)
			}
			for w := range workers {
				if done[w].Load() == 0 {
					t.Errorf("open %v: worker %d took no operation", open, w)
				}
			}
		})
	}
}

// Package timing holds the timed regions of the insert and concurrent workloads, for whoever times an
// adapter's calls: the engine, running an adapter in process, and a client in another process that
// times its own work (clients/go). Both time exactly the same region, so that the two sets of
// figures differ only by the process they run in. Adapters themselves never import it: the engine
// wraps them in these clocks.
package timing

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
)

// CheckEvery is how many operations pass between looks at the context in a timed loop: a look
// costs a lock, too much to pay on every sub-microsecond operation.
const CheckEvery = 256

// Insert is the insert workload's timed region: begin, the inserts and commit, on the calling
// goroutine (an adapter may keep its write transaction on one OS thread), timed together. extra,
// when not nil, runs inside the region after commit with the time so far (the engine's injected
// slowdown).
func Insert(ctx context.Context, sess adapters.InsertSession, persons []dataset.Person, extra func(time.Duration)) (time.Duration, error) {
	start := time.Now()
	if err := sess.Begin(ctx); err != nil {
		return 0, fmt.Errorf("begin write transaction: %w", err)
	}
	for i := range persons {
		if i%CheckEvery == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if err := sess.Insert(ctx, &persons[i]); err != nil {
			return 0, fmt.Errorf("insert %d of %d: %w", i+1, len(persons), err)
		}
	}
	if err := sess.Commit(ctx); err != nil {
		return 0, fmt.Errorf("commit: %w", err)
	}
	if extra != nil {
		extra(time.Since(start))
	}
	return time.Since(start), nil
}

// ScanConcurrently is the concurrent workload on a plain Scanner: len(lat) readers, each scanning
// rows persons in its own read transaction, released together once all of them are ready. lat gets
// each reader's time; wall runs from the release to the last reader's end.
func ScanConcurrently(ctx context.Context, sc adapters.Scanner, rows int, lat []time.Duration) (tallies []adapters.Tally, wall time.Duration, err error) {
	tallies = make([]adapters.Tally, len(lat))
	errs := make([]error, len(lat))
	var ready, finished sync.WaitGroup
	release := make(chan struct{})
	ready.Add(len(lat))
	finished.Add(len(lat))
	for i := range lat {
		go func() {
			defer finished.Done()
			ready.Done()
			<-release
			start := time.Now()
			tallies[i], errs[i] = sc.Scan(ctx, rows)
			lat[i] = time.Since(start)
		}()
	}
	ready.Wait()
	start := time.Now()
	close(release)
	finished.Wait()
	wall = time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return nil, 0, err
	}
	return tallies, wall, nil
}

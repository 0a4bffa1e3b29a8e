package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
)

// The client's own timing loops, as the Node and Python clients have theirs: a client is a program
// of its own and never imports the engine. Each times exactly the work the engine times when it runs
// the same adapter in process (engine/measure.go), so that the two sets of figures differ only by the
// process they run in.

// timeInsert is the insert workload's timed region: begin, the inserts and commit, on the calling
// goroutine (an adapter may keep its write transaction on one OS thread), timed together.
func timeInsert(ctx context.Context, sess adapters.InsertSession, persons []dataset.Person) (time.Duration, error) {
	start := time.Now()
	if err := sess.Begin(ctx); err != nil {
		return 0, fmt.Errorf("begin write transaction: %w", err)
	}
	for i := range persons {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if err := sess.Insert(ctx, &persons[i]); err != nil {
			return 0, fmt.Errorf("insert %d of %d: %w", i+1, len(persons), err)
		}
	}
	if err := sess.Commit(ctx); err != nil {
		return 0, fmt.Errorf("commit: %w", err)
	}
	return time.Since(start), nil
}

// scanConcurrently is the concurrent workload on a plain Scanner: len(lat) readers, each scanning
// rows persons in its own read transaction, released together once all of them are ready. lat gets
// each reader's time; wall runs from the release to the last reader's end.
func scanConcurrently(ctx context.Context, sc adapters.Scanner, rows int, lat []time.Duration) ([]adapters.Tally, time.Duration, error) {
	tallies := make([]adapters.Tally, len(lat))
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
	wall := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return nil, 0, err
	}
	return tallies, wall, nil
}

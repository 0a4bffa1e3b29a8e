package adaptertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/workloads"
)

// persons returns persons [from, to) of ds and their tally.
func persons(ds *dataset.Persons, from, to int) ([]dataset.Person, adapters.Tally) {
	ps := make([]dataset.Person, 0, to-from)
	for i := from; i < to; i++ {
		ps = append(ps, ds.Person(i))
	}
	// Row sums add mod 2^64, so the sum of a range is a difference of prefix sums.
	return ps, adapters.Tally{Rows: int64(to - from), Sum: ds.SumFirst(to) - ds.SumFirst(from)}
}

// CheckInsert runs the insert workload twice on a loaded target: each time a fresh store gets the
// persons in one transaction and reads back exactly them (their count and checksum), the second
// store holds nothing of the first (the two overlap: a store that was not fresh would hold too many
// rows, or refuse a duplicate), and the loaded store is unchanged afterwards. A session's Close may
// be called twice, as the engine does on its way out; a TimedInserter also reports a time it could
// have taken.
func CheckInsert(t testing.TB, tg Target) {
	in := tg.openFor(t, workloads.Insert)
	n := in.ds.Len()
	first, second := n/2, n/3
	if ti, ok := in.Target.(adapters.TimedInserter); ok {
		for _, k := range []int{first, second} { // the first k persons each time
			start := time.Now()
			got, d, err := ti.TimedInsert(in.ctx, in.ds, k)
			wall := time.Since(start)
			if err != nil {
				t.Fatalf("TimedInsert of %d persons: %v", k, err)
			}
			if _, want := persons(in.ds, 0, k); got != want {
				t.Errorf("TimedInsert of the first %d persons read back %d rows, checksum %016x; want %d, %016x (a fresh store each time)",
					k, got.Rows, got.Sum, want.Rows, want.Sum)
			}
			checkTime(t, fmt.Sprintf("TimedInsert of %d persons", k), d, wall)
		}
	}
	if is, ok := in.Target.(adapters.Inserter); ok {
		for _, r := range [][2]int{{0, first}, {first / 2, first/2 + second}} {
			ps, want := persons(in.ds, r[0], r[1])
			if got := insertSession(t, in, is, ps); got != want {
				t.Errorf("insert session of persons %d to %d read back %d rows, checksum %016x; want %d, %016x (a fresh store each session)",
					r[0], r[1]-1, got.Rows, got.Sum, want.Rows, want.Sum)
			}
		}
	}
	checkUnchanged(t, in, "after the insert workload")
}

// insertSession runs one insert session as the engine does, on the calling goroutine: a fresh store,
// Begin, Insert for each person, Commit, Verify; Close twice.
func insertSession(t testing.TB, in *instance, is adapters.Inserter, ps []dataset.Person) adapters.Tally {
	t.Helper()
	ctx := in.ctx
	sess, err := is.NewInsertSession(ctx)
	if err != nil {
		t.Fatalf("NewInsertSession: %v", err)
	}
	defer sess.Close()
	if err := sess.Begin(ctx); err != nil {
		t.Fatalf("Begin: %v", err)
	}
	for i := range ps {
		if err := sess.Insert(ctx, &ps[i]); err != nil {
			t.Fatalf("Insert %d of %d: %v", i+1, len(ps), err)
		}
	}
	if err := sess.Commit(ctx); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	got, err := sess.Verify(ctx)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if err := sess.Close(); err != nil {
		t.Errorf("insert session Close: %v", err)
	}
	if err := sess.Close(); err != nil {
		t.Errorf("insert session Close, again: %v", err)
	}
	return got
}

// checkUnchanged checks that the loaded store still holds the dataset, and each of the first and
// the last person once (an insert into it would have added another).
func checkUnchanged(t testing.TB, in *instance, when string) {
	t.Helper()
	n := in.ds.Len()
	want := adapters.Tally{Rows: int64(n), Sum: in.ds.SumFirst(n)}
	if got, ok, err := scanAll(in.ctx, in.Target, n); ok && (err != nil || got != want) {
		t.Errorf("%s, a scan of the loaded store read %d rows, checksum %016x (%v); want %d, %016x",
			when, got.Rows, got.Sum, err, want.Rows, want.Sum)
	}
	if pr, ok := in.Target.(adapters.PointReader); ok {
		for _, i := range []int{0, n - 1} {
			got, err := pr.Lookup(in.ctx, in.ds.Email(i))
			if want := (adapters.Tally{Rows: 1, Sum: in.ds.Sum(i)}); err != nil || got != want {
				t.Errorf("%s, Lookup(%q) = %+v, %v; want %+v", when, in.ds.Email(i), got, err, want)
			}
		}
	}
}

// scanAll scans n rows through whichever scan the target has; ok is false when it has none.
func scanAll(ctx context.Context, target adapters.Target, n int) (tl adapters.Tally, ok bool, err error) {
	switch s := target.(type) {
	case adapters.Scanner:
		tl, err = s.Scan(ctx, n)
		return tl, true, err
	case adapters.TimedScanner:
		tl, _, err = s.TimedScan(ctx, n)
		return tl, true, err
	}
	return tl, false, nil
}

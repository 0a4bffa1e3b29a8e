package adaptertest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/workloads"
)

// ordered says whether a target scans in key (email) order, so that a partial scan has a known
// checksum.
func ordered(target adapters.Target) bool {
	o, ok := target.(adapters.OrderedScanner)
	return ok && o.ScansInKeyOrder()
}

// expectRows is what a correct read of the first n persons holds: the rows, and the checksum when
// it is known (all of them, or the first n in key order from a target that scans in that order).
func expectRows(ds *dataset.Persons, n int, inOrder bool) (want adapters.Tally, exact bool) {
	want.Rows = int64(n)
	switch {
	case n == ds.Len():
		want.Sum, exact = ds.SumFirst(n), true
	case inOrder:
		want.Sum, exact = ds.SumSortedPrefix(n), true
	}
	return want, exact
}

// checkTime checks a duration a target measured itself against the wall time around its call.
func checkTime(t testing.TB, what string, d, wall time.Duration) {
	t.Helper()
	if d <= 0 || d > wall {
		t.Errorf("%s: the target reported %v, want more than 0 and at most the %v the call took", what, d, wall)
	}
}

// scanSizes are the sizes the scan check reads: one row, a few partial scans and the whole dataset.
func (tg Target) scanSizes() []int {
	n := tg.size()
	sizes := append([]int{1, 2, n / 3, n/2 + 1, n - 1, n}, tg.ScanSizes...)
	sizes = slices.DeleteFunc(sizes, func(k int) bool { return k < 1 || k > n })
	slices.Sort(sizes)
	return slices.Compact(sizes)
}

// CheckScan checks full and partial scans: n rows, the dataset's checksum for a full scan, the
// first n persons in key order for a partial one from an OrderedScanner, and the same checksum on
// every call otherwise; a TimedScanner also reports a time it could have taken.
func CheckScan(t testing.TB, tg Target) {
	in := tg.openFor(t, workloads.Scan)
	for _, n := range tg.scanSizes() {
		want, exact := expectRows(in.ds, n, ordered(in.Target))
		var got []adapters.Tally // one per path and call, all must agree
		if ts, ok := in.Target.(adapters.TimedScanner); ok {
			for range 2 {
				start := time.Now()
				tl, d, err := ts.TimedScan(in.ctx, n)
				wall := time.Since(start)
				if err != nil {
					t.Fatalf("TimedScan(%d): %v", n, err)
				}
				checkTime(t, fmt.Sprintf("TimedScan(%d)", n), d, wall)
				got = append(got, tl)
			}
		}
		if sc, ok := in.Target.(adapters.Scanner); ok {
			for range 2 {
				tl, err := sc.Scan(in.ctx, n)
				if err != nil {
					t.Fatalf("Scan(%d): %v", n, err)
				}
				got = append(got, tl)
			}
		}
		if msg := scanProblem(got, want, exact, in.ds); msg != "" {
			t.Errorf("scan of %d: %s", n, msg)
		}
	}
}

// scanProblem says what is wrong with the tallies of several scans of the same size, "" if nothing.
func scanProblem(got []adapters.Tally, want adapters.Tally, exact bool, ds *dataset.Persons) string {
	for i, tl := range got {
		switch {
		case tl.Rows != want.Rows:
			return fmt.Sprintf("%d rows", tl.Rows)
		case exact && tl.Sum != want.Sum:
			return fmt.Sprintf("checksum %016x, want %016x (%s)", tl.Sum, want.Sum, wantWhat(int(want.Rows), ds))
		case tl.Sum != got[0].Sum:
			return fmt.Sprintf("call %d: checksum %016x, the first call's %016x: the same scan must read the same persons", i+1, tl.Sum, got[0].Sum)
		}
	}
	return ""
}

func wantWhat(n int, ds *dataset.Persons) string {
	if n == ds.Len() {
		return "the whole dataset"
	}
	return fmt.Sprintf("the first %d persons in email order", n)
}

// missingEmails are keys no dataset holds: a prefix and an extension of a real email (a lookup that
// matches anything but the exact key finds them), and quotes and backslashes a query must escape.
func missingEmails(ds *dataset.Persons) [][]byte {
	real := ds.Email(0)
	return [][]byte{
		[]byte("nobody@example.invalid"),
		real[:len(real)-1],
		append(slices.Clone(real), 'x'),
		[]byte(`o'no "such" \person@example.invalid`),
	}
}

// CheckLookup looks up every person of the dataset, in a random order: each is found once with its
// checksum. A PointReader also returns an empty tally and no error for keys that are not there; a
// TimedPointReader reports a time for each lookup, together no longer than the call.
func CheckLookup(t testing.TB, tg Target) {
	in := tg.openFor(t, workloads.Lookup)
	keys := in.ds.Sample(in.ds.Len(), tg.seed()+1)
	if tl, ok := in.Target.(adapters.TimedPointReader); ok {
		lat := make([]time.Duration, len(keys))
		start := time.Now()
		got, err := tl.TimedLookups(in.ctx, in.ds, keys, lat)
		wall := time.Since(start)
		if err != nil {
			t.Fatalf("TimedLookups of %d keys: %v", len(keys), err)
		}
		if want := (adapters.Tally{Rows: int64(len(keys)), Sum: in.ds.SumOf(keys)}); got != want {
			t.Errorf("TimedLookups of every person: %d rows, checksum %016x; want %d, %016x", got.Rows, got.Sum, want.Rows, want.Sum)
		}
		var total time.Duration
		for i, d := range lat {
			if d <= 0 {
				t.Errorf("TimedLookups: lookup %d took %v", i, d)
				break
			}
			total += d
		}
		checkTime(t, "TimedLookups: the lookups' times added up", total, wall)
	}
	pr, ok := in.Target.(adapters.PointReader)
	if !ok {
		return
	}
	wrong := 0
	for _, k := range keys {
		i := int(k)
		got, err := pr.Lookup(in.ctx, in.ds.Email(i))
		if err != nil {
			t.Fatalf("Lookup(%q): %v", in.ds.Email(i), err)
		}
		if want := (adapters.Tally{Rows: 1, Sum: in.ds.Sum(i)}); got != want {
			if wrong++; wrong <= 3 {
				t.Errorf("Lookup(%q): %d rows, checksum %016x; want 1, %016x", in.ds.Email(i), got.Rows, got.Sum, want.Sum)
			}
		}
	}
	if wrong > 3 {
		t.Errorf("%d of %d lookups wrong", wrong, len(keys))
	}
	for _, email := range missingEmails(in.ds) {
		if got, err := pr.Lookup(in.ctx, email); err != nil || got != (adapters.Tally{}) {
			t.Errorf("Lookup(%q) of a missing person: %+v, %v; want an empty tally and no error", email, got, err)
		}
	}
}

// CheckConcurrent starts readers at once, each reading the whole dataset and then a part of it,
// through the target's own strategy (ConcurrentScanner, TimedConcurrentScanner) and through the
// engine's default (goroutines calling Scan together), which every Scanner must be safe for. Each
// reader gets the rows and the checksum a scan of that size does.
func CheckConcurrent(t testing.TB, tg Target) {
	in := tg.openFor(t, workloads.Concurrent)
	sc, isScanner := in.Target.(adapters.Scanner)
	for _, rows := range []int{in.ds.Len(), in.ds.Len()/3 + 1} {
		want, exact := expectRows(in.ds, rows, ordered(in.Target))
		if !exact && isScanner {
			// An unordered target's readers must read what one scan of that size reads.
			one, err := sc.Scan(in.ctx, rows)
			if err != nil {
				t.Fatalf("Scan(%d): %v", rows, err)
			}
			want.Sum, exact = one.Sum, true
		}
		check := func(what string, tallies []adapters.Tally) {
			t.Helper()
			if len(tallies) != readers {
				t.Errorf("%s, %d rows: %d reader results for %d readers", what, rows, len(tallies), readers)
				return
			}
			for i, tl := range tallies {
				if tl.Rows != want.Rows || exact && tl.Sum != want.Sum || tl.Sum != tallies[0].Sum {
					t.Errorf("%s, %d rows: reader %d read %d rows, checksum %016x; want %d rows, checksum %016x (the same for every reader)",
						what, rows, i+1, tl.Rows, tl.Sum, want.Rows, want.Sum)
					return
				}
			}
		}
		if ts, ok := in.Target.(adapters.TimedConcurrentScanner); ok {
			lat := make([]time.Duration, readers)
			start := time.Now()
			tallies, wall, err := ts.TimedScanConcurrently(in.ctx, readers, rows, lat)
			outer := time.Since(start)
			if err != nil {
				t.Fatalf("TimedScanConcurrently(%d readers, %d rows): %v", readers, rows, err)
			}
			check("TimedScanConcurrently", tallies)
			checkTime(t, "TimedScanConcurrently: wall", wall, outer)
			checkReaderTimes(t, "TimedScanConcurrently", lat, wall)
		}
		if cs, ok := in.Target.(adapters.ConcurrentScanner); ok {
			lat := make([]time.Duration, readers)
			tallies, wall, err := cs.ScanConcurrently(in.ctx, readers, rows, lat)
			if err != nil {
				t.Fatalf("ScanConcurrently(%d readers, %d rows): %v", readers, rows, err)
			}
			check("ScanConcurrently", tallies)
			checkReaderTimes(t, "ScanConcurrently", lat, wall)
		}
		if isScanner {
			tallies, errs := scanAtOnce(in, sc, rows)
			for i, err := range errs {
				if err != nil {
					t.Fatalf("Scan by reader %d of %d at once: %v", i+1, readers, err)
				}
			}
			check(fmt.Sprintf("%d goroutines calling Scan at once", readers), tallies)
		}
	}
}

// checkReaderTimes checks each reader's latency: positive and within the batch's wall time.
func checkReaderTimes(t testing.TB, what string, lat []time.Duration, wall time.Duration) {
	t.Helper()
	for i, d := range lat {
		if d <= 0 || d > wall {
			t.Errorf("%s: reader %d took %v of a batch whose wall time is %v", what, i+1, d, wall)
			return
		}
	}
}

// scanAtOnce releases readers goroutines together, each calling Scan(rows) once.
func scanAtOnce(in *instance, sc adapters.Scanner, rows int) ([]adapters.Tally, []error) {
	tallies, errs := make([]adapters.Tally, readers), make([]error, readers)
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for r := range readers {
		wg.Go(func() {
			<-gate
			tallies[r], errs[r] = sc.Scan(in.ctx, rows)
		})
	}
	close(gate)
	wg.Wait()
	return tallies, errs
}

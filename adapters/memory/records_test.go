package memory

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/dbbench/dbbench/dataset"
)

// TestRecordsAcrossMerges inserts enough records to merge the side slice into the main one twice and
// leave some in it, and requires scans from every few keys to see them all, in key byte order, each
// with its fields: a scan that skipped the side slice, or merged it out of order, fails.
func TestRecordsAcrossMerges(t *testing.T) {
	ctx := context.Background()
	y, err := dataset.NewYCSB(7, 3, 5, false)
	if err != nil {
		t.Fatal(err)
	}
	const loaded, total = 500, 500 + 2*mergeAt + 100
	tg := &target{}
	if err := tg.LoadRecords(ctx, y, loaded); err != nil {
		t.Fatal(err)
	}
	for i := int64(loaded); i < total; i++ {
		if err := tg.InsertRecord(ctx, y.Key(i), y.Fields(i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(tg.r.side) == 0 || len(tg.r.side) >= mergeAt {
		t.Fatalf("side slice holds %d records; the test needs some, under %d", len(tg.r.side), mergeAt)
	}
	type keyed struct {
		key []byte
		sum uint64
	}
	all := make([]keyed, total)
	for i := range all {
		all[i] = keyed{y.Key(int64(i)), y.Sum(int64(i))}
	}
	slices.SortFunc(all, func(a, b keyed) int { return bytes.Compare(a.key, b.key) })
	for from := 0; from < total; from += 97 {
		n := 150
		var want uint64
		for _, k := range all[from:min(from+n, total)] {
			want += k.sum
		}
		got, err := tg.ScanRecords(ctx, all[from].key, n)
		if err != nil || got.Rows != int64(min(n, total-from)) || got.Sum != want {
			t.Fatalf("scan of %d from %q: %+v, %v; want %d rows, sum %016x", n, all[from].key, got, err, min(n, total-from), want)
		}
	}
}

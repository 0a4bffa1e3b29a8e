//go:build cgo

package lmdbc

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/lmdb"
	"github.com/dbbench/dbbench/dataset"
)

// The benchmarks report the per-pair cost of each path on 100,000 persons, so the Go binding's
// overhead is the difference between a Go and the C sub-benchmark (run them with -count and compare
// with benchstat; the machine's noise dominates single runs). The C durations are the ones timed
// inside C, as the engine records them.
//
//	go test -run '^$' -bench . -count 6 ./baselines/lmdbc/

const benchPersons = 100_000

var benchTargets = []struct {
	name    string
	adapter adapters.Adapter
	raw     map[string]any
}{
	{"c", New(), nil},
	{"go", lmdb.New(), nil},
	{"go-batched", lmdb.New(), map[string]any{"batch": 256}},
}

func benchDataset(b *testing.B) *dataset.Persons {
	b.Helper()
	ds, err := dataset.Generate(benchPersons, 1)
	if err != nil {
		b.Fatal(err)
	}
	return ds
}

func BenchmarkScan(b *testing.B) {
	ctx := context.Background()
	ds := benchDataset(b)
	for _, bt := range benchTargets {
		b.Run(bt.name, func(b *testing.B) {
			tg := openTarget(b, bt.adapter, bt.raw, ds)
			var total time.Duration
			for b.Loop() {
				var tl adapters.Tally
				var err error
				if ts, ok := tg.(adapters.TimedScanner); ok {
					var d time.Duration
					tl, d, err = ts.TimedScan(ctx, ds.Len())
					total += d
				} else {
					start := time.Now()
					tl, err = tg.(adapters.Scanner).Scan(ctx, ds.Len())
					total += time.Since(start)
				}
				if err != nil || tl.Rows != int64(ds.Len()) {
					b.Fatal(tl, err)
				}
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N)/float64(ds.Len()), "ns/pair")
		})
	}
}

func BenchmarkLookup(b *testing.B) {
	ctx := context.Background()
	ds := benchDataset(b)
	keys := ds.Sample(ds.Len(), 2)
	for _, bt := range benchTargets {
		b.Run(bt.name, func(b *testing.B) {
			tg := openTarget(b, bt.adapter, bt.raw, ds)
			lat := make([]time.Duration, 1)
			var total time.Duration
			i := 0
			for b.Loop() {
				k := keys[i%len(keys) : i%len(keys)+1]
				i++
				var tl adapters.Tally
				var err error
				if tr, ok := tg.(adapters.TimedPointReader); ok {
					tl, err = tr.TimedLookups(ctx, ds, k, lat)
					total += lat[0]
				} else {
					start := time.Now()
					tl, err = tg.(adapters.PointReader).Lookup(ctx, ds.Email(int(k[0])))
					total += time.Since(start)
				}
				if err != nil || tl.Rows != 1 {
					b.Fatal(tl, err)
				}
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/lookup")
		})
	}
}

func BenchmarkInsert(b *testing.B) {
	const n = 10_000
	ctx := context.Background()
	ds := benchDataset(b)
	persons := make([]dataset.Person, n)
	for i := range persons {
		persons[i] = ds.Person(i)
	}
	for _, bt := range benchTargets {
		b.Run(fmt.Sprint(bt.name), func(b *testing.B) {
			tg := openTarget(b, bt.adapter, bt.raw, ds)
			var total time.Duration
			for b.Loop() {
				d, err := insertOnce(ctx, tg, ds, persons)
				if err != nil {
					b.Fatal(err)
				}
				total += d
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N)/n, "ns/pair")
		})
	}
}

// insertOnce times one insert workload run: begin, the inserts and commit.
func insertOnce(ctx context.Context, tg adapters.Target, ds *dataset.Persons, persons []dataset.Person) (time.Duration, error) {
	if ti, ok := tg.(adapters.TimedInserter); ok {
		_, d, err := ti.TimedInsert(ctx, ds, len(persons))
		return d, err
	}
	sess, err := tg.(adapters.Inserter).NewInsertSession(ctx)
	if err != nil {
		return 0, err
	}
	defer sess.Close()
	start := time.Now()
	if err := sess.Begin(ctx); err != nil {
		return 0, err
	}
	for i := range persons {
		if err := sess.Insert(ctx, &persons[i]); err != nil {
			return 0, err
		}
	}
	if err := sess.Commit(ctx); err != nil {
		return 0, err
	}
	return time.Since(start), sess.Close()
}

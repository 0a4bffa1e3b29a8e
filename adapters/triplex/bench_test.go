package triplex

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/triplex/store"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

// BenchmarkHarnessShare measures what an op's timed region costs beyond the read itself, on the
// indexed layout (SQLite in memory, Triplex's fixture at 30k facts): "read" is the store read with
// a callback that only counts rows (the work), "op" is the op's Do as the engine times it. The
// difference is the harness's share of the timed region. "control" times the read in the op's
// place: its difference is the method's own bias (about ±1.5 µs on the shared machine), to be
// subtracted.
//
//	go test -run '^$' -bench HarnessShare -count 5 ./adapters/triplex/
func BenchmarkHarnessShare(b *testing.B) {
	tg, _ := open(b, map[string]any{"layout": "indexed", "persons": false, "history_depth": 2}, 10_000)
	ctx := context.Background()
	count := func(n *int) func(store.Fact) error { return func(store.Fact) error { *n++; return nil } }
	j := store.Join{Order: attrScore, With: attrName, Min: 50}
	for _, s := range []struct {
		workload string
		read     func() (int, error)
	}{
		{wPageAll, func() (n int, err error) { return n, tg.bench.PageAll(ctx, 0, nil, 101, count(&n)) }},
		{wPageAttr, func() (n int, err error) { return n, tg.bench.PageAttr(ctx, 0, attrName, nil, 101, count(&n)) }},
		{wPageJoin, func() (n int, err error) {
			return n, tg.bench.PageJoin(ctx, 0, j, nil, 101, func(store.JoinRow) error { n++; return nil })
		}},
		{wGroupCount, func() (n int, err error) {
			return n, tg.bench.Groups(ctx, 0, attrGroup, false, nil, 101, func(store.Group) error { n++; return nil })
		}},
	} {
		for _, control := range []bool{false, true} {
			name := s.workload + "/op"
			if control {
				name = s.workload + "/control"
			}
			b.Run(name, func(b *testing.B) {
				op, err := tg.PrepareWorkload(ctx, s.workload, params(b, s.workload, nil))
				if err != nil {
					b.Fatal(err)
				}
				// Pairs of the read and the op, one right after the other (alternating which goes
				// first), so that the machine's drift hits both; the medians of each and of the paired
				// differences are reported.
				var reads, ops, diffs []float64
				read := func() time.Duration {
					t0 := time.Now()
					if n, err := s.read(); err != nil || n != 101 {
						b.Fatal(n, err)
					}
					return time.Since(t0)
				}
				do := func(i int) time.Duration {
					if control { // the read in the op's place: the method's own bias
						return read()
					}
					t0 := time.Now()
					if _, err := doOp(ctx, op, i); err != nil {
						b.Fatal(err)
					}
					d := time.Since(t0)
					if err := verifyOp(ctx, op, i); err != nil {
						b.Fatal(err)
					}
					return d
				}
				i := 0
				for b.Loop() {
					var r, d time.Duration
					if i%2 == 0 {
						r, d = read(), do(i)
					} else {
						d, r = do(i), read()
					}
					reads, ops, diffs = append(reads, float64(r)), append(ops, float64(d)), append(diffs, float64(d-r))
					i++
				}
				b.ReportMetric(median(reads), "read-ns")
				b.ReportMetric(median(ops), "op-ns")
				b.ReportMetric(median(diffs), "harness-ns")
				b.ReportMetric(100*median(diffs)/median(ops), "harness-%")
			})
		}
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// doOp runs one op the way the engine times it: Do only.
func doOp(ctx context.Context, op adapters.Op, i int) (adapters.Tally, error) { return op.Do(ctx, i) }

// verifyOp is what the engine does after the clock stops.
func verifyOp(ctx context.Context, op adapters.Op, i int) error {
	_, err := op.(adapters.Verifier).Verify(ctx, i)
	return err
}

// BenchmarkHarnessRows isolates the per-row work Do adds to a store read, without a database in
// the loop: a first page, fetched once, is fed row by row to the callback Do passes (the printer:
// count and fingerprint) and to one that only counts (the read of BenchmarkHarnessShare), each
// through a func value as the store calls it. ns/op is per page of 101 rows; the difference is the
// harness's per-row share of a timed op, resolved to a nanosecond or so where HarnessShare's paired
// reads resolve about ±1.5 µs.
//
//	go test -run '^$' -bench HarnessRows -count 3 ./adapters/triplex/
func BenchmarkHarnessRows(b *testing.B) {
	tg, _ := open(b, map[string]any{"layout": "indexed", "persons": false, "history_depth": 2}, 10_000)
	ctx := context.Background()
	var arena []byte
	var all, attr []store.Fact
	var joins []store.JoinRow
	var groups []store.Group
	keep := func(into *[]store.Fact) func(store.Fact) error {
		return func(f store.Fact) error { arena, f = keepFact(arena, f); *into = append(*into, f); return nil }
	}
	j := store.Join{Order: attrScore, With: attrName, Min: 50}
	for _, err := range []error{
		tg.bench.PageAll(ctx, 0, nil, 101, keep(&all)),
		tg.bench.PageAttr(ctx, 0, attrName, nil, 101, keep(&attr)),
		tg.bench.PageJoin(ctx, 0, j, nil, 101, func(r store.JoinRow) error {
			arena, r.With.Str = keepBytes(arena, r.With.Str)
			joins = append(joins, r)
			return nil
		}),
		tg.bench.Groups(ctx, 0, attrGroup, false, nil, 101, func(g store.Group) error { groups = append(groups, g); return nil }),
	} {
		if err != nil {
			b.Fatal(err)
		}
	}
	if len(all) != 101 || len(attr) != 101 || len(joins) != 101 || len(groups) != 101 {
		b.Fatal(len(all), len(attr), len(joins), len(groups))
	}
	pr := newPrinter()
	var n int
	facts := func(rows []store.Fact, print bool) func(b *testing.B) {
		return func(b *testing.B) {
			fn := func(store.Fact) error { n++; return nil }
			if print {
				fn = pr.factFn
			}
			for b.Loop() {
				pr.n, pr.fp, pr.page, n = 0, 0, 100, 0
				for _, r := range rows {
					_ = fn(r)
				}
			}
		}
	}
	for _, print := range []bool{false, true} {
		name := map[bool]string{false: "/count", true: "/print"}[print]
		b.Run(wPageAll+name, facts(all, print))
		b.Run(wPageAttr+name, facts(attr, print))
		b.Run(wPageJoin+name, func(b *testing.B) {
			fn := func(store.JoinRow) error { n++; return nil }
			if print {
				fn = pr.joinFn
			}
			for b.Loop() {
				pr.n, pr.fp, pr.page, n = 0, 0, 100, 0
				for _, r := range joins {
					_ = fn(r)
				}
			}
		})
		b.Run(wGroupCount+name, func(b *testing.B) {
			fn := func(store.Group) error { n++; return nil }
			if print {
				fn = pr.groupFn
			}
			for b.Loop() {
				pr.n, pr.fp, pr.page, n = 0, 0, 100, 0
				for _, g := range groups {
					_ = fn(g)
				}
			}
		})
	}
}

// BenchmarkEntityLookupDepth compares entity lookups at history depth 1 and 20 op by op: two
// indexed targets of the same backend (on PostgreSQL each with its own throwaway server, as in
// configs/triplex-history.yaml), the workload's sample of entities, one lookup on each in turn
// (alternating which goes first). The engine's paired ratio compares blocks of a repeat, which a
// machine state flipping every few milliseconds can split; alternating op by op cannot be split.
// Reported: the median lookup at each depth and their ratio. DBBENCH_DEPTH_N sets the persons
// (default 10,000: 30k facts; 1,000,000 loads 3M facts per target, a few minutes).
//
//	go test -run '^$' -bench EntityLookupDepth -benchtime 4000x -count 3 ./adapters/triplex/
func BenchmarkEntityLookupDepth(b *testing.B) {
	n := 10_000
	if v, err := strconv.Atoi(os.Getenv("DBBENCH_DEPTH_N")); err == nil && v > 0 {
		n = v
	}
	backends := []string{"sqlite"}
	if os.Getenv(pgtest.SkipEnv) != "1" {
		backends = append(backends, "postgres")
	}
	ctx := context.Background()
	for _, backend := range backends {
		var ops [2]adapters.Op
		for k, depth := range []int{1, 20} {
			tg, _ := open(b, map[string]any{"backend": backend, "layout": "indexed", "persons": false, "history_depth": depth}, n)
			op, err := tg.PrepareWorkload(ctx, wEntityLookup, params(b, wEntityLookup, nil))
			if err != nil {
				b.Fatal(err)
			}
			ops[k] = op
		}
		b.Run(backend, func(b *testing.B) {
			var t1, t20 []float64
			i := 0
			for b.Loop() {
				for _, k := range [][2]int{{0, 1}, {1, 0}}[i%2] {
					t0 := time.Now()
					if _, err := doOp(ctx, ops[k], i%50); err != nil {
						b.Fatal(err)
					}
					d := float64(time.Since(t0).Nanoseconds())
					if err := verifyOp(ctx, ops[k], i%50); err != nil {
						b.Fatal(err)
					}
					if k == 0 {
						t1 = append(t1, d)
					} else {
						t20 = append(t20, d)
					}
				}
				i++
			}
			b.ReportMetric(median(t1), "depth1-ns")
			b.ReportMetric(median(t20), "depth20-ns")
			b.ReportMetric(median(t20)/median(t1), "ratio")
		})
	}
}

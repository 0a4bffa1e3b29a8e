//go:build cgo

package lmdbc

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/adapters/lmdb"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

func generate(t testing.TB, n int) *dataset.Persons {
	t.Helper()
	ds, err := dataset.Generate(n, 11)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// openTarget opens an adapter's target with raw options and loads ds into it.
func openTarget(t testing.TB, a adapters.Adapter, raw map[string]any, ds *dataset.Persons) adapters.Target {
	t.Helper()
	o, err := adapters.ParseOptions(a.Info().Options, raw)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := a.Open(context.Background(), o, adapters.Env{TempDir: t.TempDir(), Size: ds.Len()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	if err := tg.Load(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestRowSumMatchesGo(t *testing.T) {
	long := bytes.Repeat([]byte{0xfe}, 300) // lengths past 255 overlap the shifted fields
	cases := []struct {
		email, name []byte
		age         int
	}{
		{nil, nil, 0},
		{[]byte("a"), nil, 255},
		{nil, []byte("b"), 18},
		{[]byte("ada.lopez.1@example.com"), []byte("Ada Lopez"), 42},
		{long, long[:257], 99},
		{[]byte{0, 0xff, 0x80}, []byte{0xff}, 1 << 20},
	}
	for _, c := range cases {
		if got, want := rowSum(c.email, c.name, c.age), dataset.RowSum(c.email, c.name, c.age); got != want {
			t.Errorf("RowSum(%q, %q, %d): C %x, Go %x", c.email, c.name, c.age, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		e := make([]byte, rng.IntN(600))
		n := make([]byte, rng.IntN(40))
		for i := range e {
			e[i] = byte(rng.Uint32())
		}
		for i := range n {
			n[i] = byte(rng.Uint32())
		}
		age := rng.IntN(256)
		if got, want := rowSum(e, n, age), dataset.RowSum(e, n, age); got != want {
			t.Fatalf("RowSum(%q, %q, %d): C %x, Go %x", e, n, age, got, want)
		}
	}
}

// TestDeclarations checks the LMDB declarations both cgo packages compile against
// (adapters/lmdb/native/mdbdecl.h) against lmdb-go's own constants.
func TestDeclarations(t *testing.T) {
	if err := checkConstants(); err != nil {
		t.Fatal(err)
	}
}

// TestConforms runs the conformance kit on the C baseline: every workload done and timed in C
// (which also proves the C RowSum equal to dataset.RowSum on every row).
func TestConforms(t *testing.T) {
	for _, raw := range []map[string]any{nil, {"txn_size": 7}, {"durable": true, "txn_size": 500}} {
		t.Run(fmt.Sprint(raw), func(t *testing.T) {
			adaptertest.Run(t, adaptertest.Target{
				Open:      adaptertest.Opener(New(), raw),
				OpenAt:    adaptertest.OpenerAt(New(), raw, "path"),
				Workloads: New().Info().Builtin,
				Size:      1000,
			})
		})
	}
}

func TestLookupsOfMissingPersons(t *testing.T) {
	small, big := generate(t, 1000), generate(t, 2000) // the same seed: small is a prefix of big
	tg := openTarget(t, New(), nil, small).(*target)
	idx := []int32{5, 1500, 999, 1000, 1999}
	got, err := tg.TimedLookups(context.Background(), big, idx, make([]time.Duration, len(idx)))
	if want := (adapters.Tally{Rows: 2, Sum: small.Sum(5) + small.Sum(999)}); err != nil || got != want {
		t.Fatalf("got %+v, %v; want %+v", got, err, want)
	}
}

func TestBadArguments(t *testing.T) {
	ctx := context.Background()
	ds := generate(t, 100)
	tg := openTarget(t, New(), map[string]any{"max_readers": 4}, ds).(*target)
	tests := []struct {
		name    string
		run     func() error
		wantErr string
		code    int
	}{
		{"index out of range", func() error {
			_, err := tg.TimedLookups(ctx, ds, []int32{3, 100}, make([]time.Duration, 2))
			return err
		}, "person index 100 outside the dataset of 100", exitcode.Usage},
		{"latency slots", func() error {
			_, err := tg.TimedLookups(ctx, ds, []int32{3}, nil)
			return err
		}, "0 latency slots for 1 keys", exitcode.Infra},
		{"insert more than the dataset", func() error {
			_, _, err := tg.TimedInsert(ctx, ds, 101)
			return err
		}, "insert of 101 persons from a dataset of 100", exitcode.Usage},
		{"readers above max_readers", func() error {
			_, _, err := tg.TimedScanConcurrently(ctx, 5, 10, make([]time.Duration, 5))
			return err
		}, "5 readers need max_readers of at least 5 (it is 4)", exitcode.Usage},
		{"no readers", func() error {
			_, _, err := tg.TimedScanConcurrently(ctx, 0, 10, nil)
			return err
		}, "want 1 to 4096 readers", exitcode.Usage},
		{"negative scan", func() error {
			_, _, err := tg.TimedScan(ctx, -1)
			return err
		}, "scan of -1 rows", exitcode.Usage},
	}
	for _, tt := range tests {
		err := tt.run()
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || exitcode.Of(err) != tt.code {
			t.Errorf("%s: got %v (exit %d), want %q (exit %d)", tt.name, err, exitcode.Of(err), tt.wantErr, tt.code)
		}
	}
}

func TestMapTooSmall(t *testing.T) {
	ctx := context.Background()
	a := New()
	o, err := adapters.ParseOptions(a.Info().Options, map[string]any{"map_size": "1MiB"})
	if err != nil {
		t.Fatal(err)
	}
	tg, err := a.Open(ctx, o, adapters.Env{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	err = tg.Load(ctx, generate(t, 100_000))
	if err == nil || exitcode.Of(err) != exitcode.Usage ||
		!strings.HasPrefix(err.Error(), "map_size 1MiB is too small for 100000 persons (needs about ") {
		t.Fatalf("load: %v", err)
	}
	// The insert workload fills the map in C: the same explanation, never MDB_MAP_FULL.
	if err := tg.Load(ctx, generate(t, 100)); err != nil {
		t.Fatal(err)
	}
	_, _, err = tg.(*target).TimedInsert(ctx, generate(t, 30_000), 30_000)
	if err == nil || exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "map_size 1MiB is too small") ||
		strings.Contains(err.Error(), "MDB_MAP_FULL") {
		t.Fatalf("insert: %v", err)
	}
}

// goTargets are the Go paths the C baseline is compared with.
var goTargets = []struct {
	name string
	raw  map[string]any
}{
	{"lmdb-go", nil},
	{"lmdb-go-copy", map[string]any{"raw_read": false}},
	{"lmdb-go-batched", map[string]any{"batch": 256}},
	{"lmdb-go-batched-5", map[string]any{"batch": 5}},
}

// TestCAndGoAgree runs every workload on the C baseline and on each Go path over the same dataset,
// the way the engine calls them, and requires identical counts and checksums (which also equal
// the dataset's expectations).
func TestCAndGoAgree(t *testing.T) {
	ctx := context.Background()
	ds := generate(t, 2500)
	c := openTarget(t, New(), nil, ds).(*target)
	keys := ds.Sample(600, 8)

	cScan, _, err := c.TimedScan(ctx, 1337)
	if err != nil {
		t.Fatal(err)
	}
	cLookups, err := c.TimedLookups(ctx, ds, keys, make([]time.Duration, len(keys)))
	if err != nil {
		t.Fatal(err)
	}
	cInsert, _, err := c.TimedInsert(ctx, ds, 777)
	if err != nil {
		t.Fatal(err)
	}
	cReaders, _, err := c.TimedScanConcurrently(ctx, 2, 1001, make([]time.Duration, 2))
	if err != nil {
		t.Fatal(err)
	}
	if want := (adapters.Tally{Rows: 1337, Sum: ds.SumSortedPrefix(1337)}); cScan != want {
		t.Fatalf("C scan %+v, want %+v", cScan, want)
	}

	for _, g := range goTargets {
		t.Run(g.name, func(t *testing.T) {
			tg := openTarget(t, lmdb.New(), g.raw, ds)
			sc := tg.(adapters.Scanner)
			if got, err := sc.Scan(ctx, 1337); err != nil || got != cScan {
				t.Errorf("scan: Go %+v (%v), C %+v", got, err, cScan)
			}
			var lookups adapters.Tally
			for _, i := range keys {
				tl, err := tg.(adapters.PointReader).Lookup(ctx, ds.Email(int(i)))
				if err != nil {
					t.Fatal(err)
				}
				lookups.Add(tl)
			}
			if lookups != cLookups {
				t.Errorf("lookups: Go %+v, C %+v", lookups, cLookups)
			}
			if got := goInsert(t, tg.(adapters.Inserter), ds, 777); got != cInsert {
				t.Errorf("insert: Go %+v, C %+v", got, cInsert)
			}
			readers := make([]adapters.Tally, 2)
			var wg sync.WaitGroup
			for r := range readers {
				wg.Go(func() {
					var err error
					if readers[r], err = sc.Scan(ctx, 1001); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			for r := range readers {
				if readers[r] != cReaders[r] {
					t.Errorf("concurrent reader %d: Go %+v, C %+v", r, readers[r], cReaders[r])
				}
			}
		})
	}
}

func goInsert(t testing.TB, in adapters.Inserter, ds *dataset.Persons, n int) adapters.Tally {
	t.Helper()
	ctx := context.Background()
	sess, err := in.NewInsertSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := sess.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		p := ds.Person(i)
		if err := sess.Insert(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	if err := sess.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := sess.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestInfo(t *testing.T) {
	tg := openTarget(t, New(), nil, generate(t, 10))
	info := tg.Info()
	for _, k := range []string{"lmdb_version", "implementation", "read_strategy", "env_flags", "file_size_bytes", "path_kind"} {
		if _, ok := info[k]; !ok {
			t.Errorf("Info lacks %s: %v", k, info)
		}
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tg.(*target).TimedScan(context.Background(), 1); err == nil {
		t.Fatal("scan after Close succeeded")
	}
}

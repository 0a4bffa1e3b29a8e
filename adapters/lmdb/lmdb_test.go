//go:build cgo

package lmdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/procmem"
	"github.com/dbbench/dbbench/workloads"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

func generate(t testing.TB, n int) *dataset.Persons {
	t.Helper()
	ds, err := dataset.Generate(n, 5)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// open opens an lmdb target with raw options in a private temp dir, closed at the end of the test.
func open(t *testing.T, raw map[string]any, tempDir string) (*target, error) {
	t.Helper()
	a := New()
	o, err := adapters.ParseOptions(a.Info().Options, raw)
	if err != nil {
		return nil, err
	}
	tg, err := a.Open(context.Background(), o, adapters.Env{TempDir: tempDir, Size: 1000, Logf: t.Logf})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { tg.Close() })
	return tg.(*target), nil
}

func mustOpen(t *testing.T, raw map[string]any) *target {
	t.Helper()
	tg, err := open(t, raw, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// variants are the read and write paths the adapter offers.
var variants = []struct {
	name string
	raw  map[string]any
}{
	{"plain raw", nil},
	{"plain copy", map[string]any{"raw_read": false}},
	{"batched 1", map[string]any{"batch": 1}},
	{"batched 7", map[string]any{"batch": 7}},
	{"batched 256", map[string]any{"batch": 256}},
	{"plain txn_size 7", map[string]any{"txn_size": 7}},
	{"batched txn_size 100", map[string]any{"batch": 64, "txn_size": 100}},
}

// TestConforms runs the conformance kit on every read and write path, with the batch boundaries
// as partial scan sizes.
func TestConforms(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			adaptertest.Run(t, adaptertest.Target{
				Open:      adaptertest.Opener(New(), v.raw),
				OpenAt:    adaptertest.OpenerAt(New(), v.raw, "path"),
				Workloads: New().Info().Builtin,
				RecordOps: ycsb.Ops(),
				Size:      1000,
				ScanSizes: []int{255, 256, 257},
				Uninterruptible: map[string]string{
					workloads.Lookup: "one read of the memory map: it never blocks, and the engine checks the context between lookups",
					workloads.Insert: "puts into the memory map: they never block, and the engine checks the context between inserts",
				},
			})
		})
	}
}

func TestInfo(t *testing.T) {
	ctx := context.Background()
	for _, v := range variants {
		tg := mustOpen(t, v.raw)
		if err := tg.Load(ctx, generate(t, 100)); err != nil {
			t.Fatal(err)
		}
		info := tg.Info()
		for _, k := range []string{"lmdb_version", "lmdb_go_version", "env_flags", "map_size_bytes", "path_kind", "read_strategy", "batch", "file_size_bytes"} {
			if _, ok := info[k]; !ok {
				t.Errorf("%s: Info lacks %s: %v", v.name, k, info)
			}
		}
	}
}

// checkInsert runs the insert workload the way the engine does and checks the read-back.
func checkInsert(t *testing.T, tg *target, ds *dataset.Persons, n int) {
	t.Helper()
	ctx := context.Background()
	sess, err := tg.NewInsertSession(ctx)
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
	if want := (adapters.Tally{Rows: int64(n), Sum: ds.SumFirst(n)}); err != nil || got != want {
		t.Fatalf("insert read back %+v, %v; want %+v", got, err, want)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOptionErrors(t *testing.T) {
	nonEmpty := t.TempDir()
	if err := os.WriteFile(filepath.Join(nonEmpty, "keep"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		raw     map[string]any
		wantErr string
	}{
		{"batch too large", map[string]any{"batch": 1 << 20}, "lmdb option batch: want 0 (plain lmdb-go) or 1 to 65536"},
		{"negative batch", map[string]any{"batch": -1}, "at least 0"},
		{"negative leak", map[string]any{"leak_c_bytes_per_txn": -1}, "at least 0"},
		{"leak too large", map[string]any{"leak_c_bytes_per_txn": 1 << 21}, "lmdb option leak_c_bytes_per_txn: want 0 to 1048576 bytes"},
		{"raw_read not a bool", map[string]any{"raw_read": "maybe"}, "true or false"},
		{"unknown option", map[string]any{"mapsize": "1GiB"}, "unknown option"},
		{"path not empty", map[string]any{"path": nonEmpty}, "exists and is not empty; dbbench never deletes your data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := open(t, tt.raw, t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want %q", err, tt.wantErr)
			}
			var coded *exitcode.Error
			if errors.As(err, &coded) && coded.Code != exitcode.Usage {
				t.Fatalf("exit code %d for %v", coded.Code, err)
			}
		})
	}
}

func TestTinyMapIsRefused(t *testing.T) {
	tg := mustOpen(t, map[string]any{"map_size": "1MiB"})
	err := tg.Load(context.Background(), generate(t, 100_000))
	if err == nil || exitcode.Of(err) != exitcode.Usage ||
		!strings.HasPrefix(err.Error(), "map_size 1MiB is too small for 100000 persons (needs about ") {
		t.Fatalf("got %v", err)
	}
}

// TestInsertMapFull fills a small map through the insert workload (both write paths): the error
// names the option, never MDB_MAP_FULL.
func TestInsertMapFull(t *testing.T) {
	ctx := context.Background()
	big := generate(t, 30_000)
	for _, raw := range []map[string]any{{"map_size": "1MiB"}, {"map_size": "1MiB", "batch": 256}} {
		tg := mustOpen(t, raw)
		if err := tg.Load(ctx, generate(t, 100)); err != nil {
			t.Fatal(err)
		}
		sess, err := tg.NewInsertSession(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := sess.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		for i := 0; err == nil && i < big.Len(); i++ {
			p := big.Person(i)
			err = sess.Insert(ctx, &p)
		}
		if err == nil {
			err = sess.Commit(ctx)
		}
		if err == nil || exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "map_size 1MiB is too small") ||
			strings.Contains(err.Error(), "MDB_MAP_FULL") {
			t.Fatalf("%v: got %v", raw, err)
		}
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReaderTableFull(t *testing.T) {
	tg := mustOpen(t, map[string]any{"max_readers": 2})
	if err := tg.Load(context.Background(), generate(t, 10)); err != nil {
		t.Fatal(err)
	}
	a, err := tg.beginRead()
	if err != nil {
		t.Fatal(err)
	}
	defer tg.endRead(a)
	b, err := tg.beginRead()
	if err != nil {
		t.Fatal(err)
	}
	defer tg.endRead(b)
	_, err = tg.Scan(context.Background(), 1)
	if err == nil || exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "raise max_readers") {
		t.Fatalf("third reader: %v", err)
	}
}

func TestInsertSessionMisuse(t *testing.T) {
	ctx := context.Background()
	tg := mustOpen(t, nil)
	sess, err := tg.NewInsertSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := generate(t, 1).Person(0)
	if err := sess.Insert(ctx, &p); err == nil {
		t.Error("Insert before Begin accepted")
	}
	if err := sess.Commit(ctx); err == nil {
		t.Error("Commit before Begin accepted")
	}
	if err := sess.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sess.Begin(ctx); err == nil {
		t.Error("Begin twice accepted")
	}
	bad := dataset.Person{Email: []byte("old@example.com"), Name: []byte("Old"), Age: 300}
	if err := sess.Insert(ctx, &bad); err == nil || exitcode.Of(err) != exitcode.Usage {
		t.Errorf("age 300: %v", err)
	}
	// Closing with the write transaction open aborts it and drops the store.
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCloseRemovesOnlyWhatItCreated uses a user directory that exists: after the workloads and
// Close it is still there and empty, and the temp dir holds nothing either.
func TestCloseRemovesOnlyWhatItCreated(t *testing.T) {
	ctx := context.Background()
	userDir, tempDir := t.TempDir(), t.TempDir()
	for _, raw := range []map[string]any{{"path": userDir}, {"path": userDir, "batch": 16}} {
		tg, err := open(t, raw, tempDir)
		if err != nil {
			t.Fatal(err)
		}
		ds := generate(t, 500)
		if err := tg.Load(ctx, ds); err != nil {
			t.Fatal(err)
		}
		if tg.Info()["path_kind"] != "user" {
			t.Fatalf("info %v", tg.Info())
		}
		checkInsert(t, tg, ds, 100)
		if err := tg.Close(); err != nil {
			t.Fatal(err)
		}
		if err := tg.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		if _, err := tg.Scan(ctx, 1); err == nil {
			t.Fatal("Scan after Close succeeded")
		}
		for _, dir := range []string{userDir, tempDir} {
			entries, err := os.ReadDir(dir)
			if err != nil || len(entries) != 0 {
				t.Fatalf("%s after Close: %v, %v", dir, entries, err)
			}
		}
	}
}

func TestInfoDescribesPath(t *testing.T) {
	for _, v := range variants[:3] {
		tg := mustOpen(t, v.raw)
		info := fmt.Sprint(tg.Info())
		if !strings.Contains(info, "path_kind:temp") || !strings.Contains(info, "env_flags:NoSync|NoTLS") {
			t.Errorf("%s: %s", v.name, info)
		}
	}
	tg := mustOpen(t, map[string]any{"durable": true})
	if f := tg.Info()["env_flags"]; f != "NoTLS" {
		t.Errorf("durable env flags %v", f)
	}
}

// TestLeakAid: the test aid leak_c_bytes_per_txn keeps that many C bytes per read transaction,
// which malloc's count sees, and the target says so in its info; without it, lookups keep none.
func TestLeakAid(t *testing.T) {
	ds := generate(t, 1000)
	for _, tt := range []struct {
		leak     int
		min, max int64
	}{{600, 600 * 1000, 2 * 600 * 1000}, {0, -64 * 1024, 64 * 1024}} {
		tg := mustOpen(t, map[string]any{"leak_c_bytes_per_txn": tt.leak})
		if err := tg.Load(context.Background(), ds); err != nil {
			t.Fatal(err)
		}
		var pr adapters.PointReader = tg
		before, ok := procmem.CHeap()
		if !ok {
			t.Skip("malloc's count cannot be read here")
		}
		for i := range 1000 {
			if _, err := pr.Lookup(context.Background(), ds.Email(i)); err != nil {
				t.Fatal(err)
			}
		}
		after, _ := procmem.CHeap()
		if grew := after - before; grew < tt.min || grew > tt.max {
			t.Errorf("leak %d: malloc's bytes in use grew by %d over 1000 lookups, want %d to %d", tt.leak, grew, tt.min, tt.max)
		}
		_, warned := tg.Info()["warnings"]
		if warned != (tt.leak > 0) {
			t.Errorf("leak %d: info warns %v", tt.leak, warned)
		}
	}
}

// TestPhases: profiled, every path marks its phases (txn, get, copy), and they sum to no more
// than the operations' time. The plain scan samples its steps (one in stepEvery).
func TestPhases(t *testing.T) {
	ds := generate(t, 2000)
	ctx := context.Background()
	for _, v := range []struct {
		name        string
		raw         map[string]any
		scanMethods string
	}{
		{"plain raw", nil, "[timed sampled sampled]"},
		{"plain copy", map[string]any{"raw_read": false}, "[timed sampled sampled]"},
		{"batched", map[string]any{"batch": 64}, "[timed timed timed]"},
	} {
		t.Run(v.name, func(t *testing.T) {
			tg := mustOpen(t, v.raw)
			if err := tg.Load(ctx, ds); err != nil {
				t.Fatal(err)
			}
			scan := adaptertest.CheckPhases(t, tg, 5, func(int) error {
				tl, err := tg.Scan(ctx, ds.Len())
				if err == nil && tl.Rows != int64(ds.Len()) {
					err = fmt.Errorf("scan read %d rows, want %d", tl.Rows, ds.Len())
				}
				return err
			}, "txn", "get", "copy")
			var methods []string
			for _, p := range scan.Phases {
				methods = append(methods, p.Method)
			}
			if got := fmt.Sprint(methods); got != v.scanMethods {
				t.Errorf("scan phase methods %s, want %s", got, v.scanMethods)
			}
			want := []string{"txn", "get", "copy"}
			if v.raw["batch"] != nil {
				want = []string{"get", "copy"} // one cgo call renews, gets and resets
			}
			adaptertest.CheckPhases(t, tg, 500, func(i int) error {
				tl, err := tg.Lookup(ctx, ds.Email(i))
				if err == nil && tl.Rows != 1 {
					err = fmt.Errorf("lookup of %s found nothing", ds.Email(i))
				}
				return err
			}, want...)
		})
	}
}

//go:build cgo

package sqlitec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

func open(t *testing.T, raw map[string]any) (*target, error) {
	t.Helper()
	opts, err := adapters.ParseOptions(New().Info().Options, raw)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := New().Open(context.Background(), opts, adapters.Env{TempDir: t.TempDir()})
	if err != nil {
		return nil, err
	}
	return tg.(*target), nil
}

// TestWorkloads checks every workload, done and timed in C, against the dataset's own checksums
// (which also proves the C RowSum equal to dataset.RowSum).
func TestWorkloads(t *testing.T) {
	ctx := context.Background()
	ds, err := dataset.Generate(500, 1)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := open(t, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if err := tg.Load(ctx, ds); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 150, 500, 600} {
		got, d, err := tg.TimedScan(ctx, n)
		if want := (adapters.Tally{Rows: int64(min(n, 500)), Sum: ds.SumSortedPrefix(n)}); err != nil || got != want || d <= 0 {
			t.Errorf("scan %d = %+v in %v, %v; want %+v", n, got, d, err, want)
		}
	}
	idx := append(ds.Sample(20, 1), 7)
	lat := make([]time.Duration, len(idx))
	got, err := tg.TimedLookups(ctx, ds, idx, lat)
	if want := (adapters.Tally{Rows: int64(len(idx)), Sum: ds.SumOf(idx)}); err != nil || got != want {
		t.Errorf("lookups = %+v, %v; want %+v", got, err, want)
	}
	for i, l := range lat {
		if l <= 0 {
			t.Errorf("lookup %d took %v", i, l)
		}
	}
	for range 2 { // the fresh table is dropped and made again
		got, d, err := tg.TimedInsert(ctx, ds, 250)
		if want := (adapters.Tally{Rows: 250, Sum: ds.SumFirst(250)}); err != nil || got != want || d <= 0 {
			t.Errorf("insert = %+v in %v, %v; want %+v", got, d, err, want)
		}
	}
	lat = make([]time.Duration, 3)
	tallies, wall, err := tg.TimedScanConcurrently(ctx, 3, 400, lat)
	if err != nil || len(tallies) != 3 || wall <= 0 {
		t.Fatalf("concurrent: %v, %v, %v", tallies, wall, err)
	}
	for i, tl := range tallies {
		if want := (adapters.Tally{Rows: 400, Sum: ds.SumSortedPrefix(400)}); tl != want || lat[i] <= 0 || lat[i] > wall {
			t.Errorf("reader %d: %+v in %v (wall %v), want %+v", i, tl, lat[i], wall, want)
		}
	}
	info := tg.Info()
	if info["journal_mode"] != "wal" || info["synchronous"] != "1" || !strings.HasPrefix(info["sqlite_version"].(string), "3.") {
		t.Errorf("info: %v", info)
	}
}

// TestPaths: a path that exists is refused (exit 2) and left alone; Close removes what Open created.
func TestPaths(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "mine.db")
	if err := os.WriteFile(existing, []byte("user data"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path, msg string
	}{
		{existing, "already exists; refusing to overwrite it"},
		{"/nonexistent/dir/p.db", "directory /nonexistent/dir does not exist"},
	} {
		if _, err := open(t, map[string]any{"path": tt.path}); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("path %s: %v, want exit 2 and %q", tt.path, err, tt.msg)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "user data" {
		t.Errorf("the user's file was changed: %q", b)
	}
	mine := filepath.Join(dir, "new.db")
	tg, err := open(t, map[string]any{"path": mine})
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := dataset.Generate(50, 1)
	if err := tg.Load(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %v after Close, want only the user's file", entries)
	}
}

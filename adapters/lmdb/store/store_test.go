//go:build cgo

package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lmdbgo "github.com/PowerDNS/lmdb-go/lmdb"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

func persons(t testing.TB, n int) *dataset.Persons {
	t.Helper()
	ds, err := dataset.Generate(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestFlagNames(t *testing.T) {
	for flags, want := range map[uint]string{0: "none", lmdbgo.NoSync | lmdbgo.NoTLS: "NoSync|NoTLS", 1 << 31: "0x80000000"} {
		if got := FlagNames(flags); got != want {
			t.Errorf("FlagNames(%#x) = %q, want %q", flags, got, want)
		}
	}
}

// TestPathRules checks what Open accepts and what Close removes: a store removes the files and the
// directories it created, never anything else.
func TestPathRules(t *testing.T) {
	t.Run("missing nested path is created and removed", func(t *testing.T) {
		root := t.TempDir()
		path := filepath.Join(root, "a", "b", "c")
		s, err := Open(config(t, map[string]any{"path": path}), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if s.Dir() != path || s.Info()["path_kind"] != "user" {
			t.Fatalf("dir %s, info %v", s.Dir(), s.Info())
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		assertEntries(t, root) // a/ is gone, root stays
	})
	t.Run("existing empty directory stays", func(t *testing.T) {
		path := t.TempDir()
		s, err := Open(config(t, map[string]any{"path": path}), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Load(context.Background(), persons(t, 100)); err != nil {
			t.Fatal(err)
		}
		assertEntries(t, path, "data.mdb", "lock.mdb")
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		assertEntries(t, path)
	})
	t.Run("non-empty directory is refused and untouched", func(t *testing.T) {
		path := t.TempDir()
		mine := filepath.Join(path, "mine.txt")
		if err := os.WriteFile(mine, []byte("precious"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(config(t, map[string]any{"path": path}), t.TempDir())
		want := "lmdb path " + path + " exists and is not empty; dbbench never deletes your data — give an empty or new directory"
		if err == nil || err.Error() != want || exitcode.Of(err) != exitcode.Usage {
			t.Fatalf("got %v (exit %d), want usage error %q", err, exitcode.Of(err), want)
		}
		assertEntries(t, path, "mine.txt")
	})
	t.Run("a file is refused", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(config(t, map[string]any{"path": path}), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "not a directory") || exitcode.Of(err) != exitcode.Usage {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("default is a fresh directory under the temp dir", func(t *testing.T) {
		tmp := t.TempDir()
		s, err := Open(config(t, nil), tmp)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(s.Dir()) != tmp || s.Info()["path_kind"] != "temp" {
			t.Fatalf("dir %s, info %v", s.Dir(), s.Info())
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		assertEntries(t, tmp)
	})
	t.Run("keep leaves the loaded environment at the path", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "kept")
		s, err := Open(config(t, map[string]any{"path": path, "keep": true}), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Load(context.Background(), persons(t, 100)); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		assertEntries(t, path, "data.mdb", "lock.mdb")
		if _, err := Open(config(t, map[string]any{"path": path}), t.TempDir()); err == nil || exitcode.Of(err) != exitcode.Usage {
			t.Fatalf("reopening a kept environment: %v, want it refused (never overwritten)", err)
		}
	})
	t.Run("keep needs a path", func(t *testing.T) {
		o, err := adapters.ParseOptions(Specs(), map[string]any{"keep": true})
		if err != nil {
			t.Fatal(err)
		}
		_, err = ParseConfig(o)
		if err == nil || !strings.Contains(err.Error(), "keep: needs a path") || exitcode.Of(err) != exitcode.Usage {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a file the user added to a created directory is kept", func(t *testing.T) {
		root := t.TempDir()
		path := filepath.Join(root, "new")
		s, err := Open(config(t, map[string]any{"path": path}), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(path, "notes.txt"), []byte("mine"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err == nil || !strings.Contains(err.Error(), "left "+path+" in place") {
			t.Fatalf("Close: %v", err)
		}
		assertEntries(t, path, "notes.txt")
	})
}

func assertEntries(t *testing.T, dir string, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s holds %v, want %v", dir, got, want)
	}
}

func TestLoadRefusesSmallMap(t *testing.T) {
	s, err := Open(config(t, map[string]any{"map_size": "1MiB"}), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ds := persons(t, 100_000)
	err = s.Load(context.Background(), ds)
	want := "map_size 1MiB is too small for 100000 persons (needs about "
	if err == nil || !strings.HasPrefix(err.Error(), want) || exitcode.Of(err) != exitcode.Usage {
		t.Fatalf("got %v, want a usage error starting %q", err, want)
	}
}

// TestCheckSizeIsLoads: the check made before anything is opened (dbbench validate) refuses a map
// exactly when Load refuses it, with the same error, for any size and seed.
func TestCheckSizeIsLoads(t *testing.T) {
	for _, seed := range []int64{1, 5} {
		for _, n := range []int{1, 3_000, 40_000} {
			ds, err := dataset.Generate(n, seed)
			if err != nil {
				t.Fatal(err)
			}
			need := Needed(ds, n)
			if got, err := NeededFor(n, seed); err != nil || got != need {
				t.Fatalf("n=%d seed=%d: NeededFor %d (%v), Needed %d", n, seed, got, err, need)
			}
			for _, mapSize := range []int64{need - 4096, need} {
				cfg := config(t, map[string]any{"map_size": mapSize})
				checkErr := CheckSize(cfg, n, seed)
				s, err := Open(cfg, t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				loadErr := s.Load(context.Background(), ds)
				s.Close()
				if fmt.Sprint(checkErr) != fmt.Sprint(loadErr) || (mapSize < need) != (checkErr != nil) {
					t.Errorf("n=%d seed=%d map_size %d (need %d): check %v, load %v", n, seed, mapSize, need, checkErr, loadErr)
				}
				if checkErr != nil && exitcode.Of(checkErr) != exitcode.Usage {
					t.Errorf("check: exit %d, want a usage error", exitcode.Of(checkErr))
				}
			}
		}
	}
}

// TestMapFullIsExplained skips the size estimate so LMDB itself runs out of map.
func TestMapFullIsExplained(t *testing.T) {
	s, err := Open(config(t, map[string]any{"map_size": "1MiB"}), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.load(context.Background(), persons(t, 50_000))
	if err == nil || exitcode.Of(err) != exitcode.Usage || !strings.HasPrefix(err.Error(), "map_size 1MiB is too small for 50000 persons (needs about ") {
		t.Fatalf("got %v", err)
	}
	if strings.Contains(err.Error(), "MDB_MAP_FULL") || strings.Contains(err.Error(), "mdb_put") {
		t.Fatalf("the raw LMDB error leaks: %v", err)
	}
}

// TestNeededIsGenerous checks the estimate against real files: the sorted bulk load and an insert
// in generation (random key) order, which leaves pages emptier.
func TestNeededIsGenerous(t *testing.T) {
	ds := persons(t, 20_000)
	for _, n := range []int{1, 500, 20_000} {
		need := Needed(ds, n)
		s, err := OpenFresh(config(t, map[string]any{"map_size": need}), t.TempDir(), "needed")
		if err != nil {
			t.Fatal(err)
		}
		err = s.Env.Update(func(txn *lmdbgo.Txn) error {
			for i := range n {
				v, _ := EncodeValue(nil, ds.Age(i), ds.Name(i))
				if err := txn.Put(s.DBI, ds.Email(i), v, 0); err != nil {
					return err
				}
			}
			return nil
		})
		size, _ := s.Info()["file_size_bytes"].(int64)
		if cerr := s.Close(); cerr != nil {
			t.Fatal(cerr)
		}
		if err != nil || size > need {
			t.Errorf("n=%d: estimate %d, file %d, err %v", n, need, size, err)
		}
	}
}

func TestLoadInChunks(t *testing.T) {
	ds := persons(t, 2_000)
	for _, txnSize := range []int{0, 1, 333, 5_000} {
		s, err := Open(config(t, map[string]any{"txn_size": txnSize}), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Load(context.Background(), ds); err != nil {
			t.Fatal(err)
		}
		var sum uint64
		err = s.Env.View(func(txn *lmdbgo.Txn) error {
			cur, err := txn.OpenCursor(s.DBI)
			if err != nil {
				return err
			}
			defer cur.Close()
			for {
				k, v, err := cur.Get(nil, nil, lmdbgo.Next)
				if lmdbgo.IsNotFound(err) {
					return nil
				} else if err != nil {
					return err
				}
				age, name, _ := DecodeValue(v)
				sum += dataset.RowSum(k, name, age)
			}
		})
		if err != nil || sum != ds.SumFirst(ds.Len()) || s.Info()["entries"] != uint64(ds.Len()) {
			t.Errorf("txn_size %d: sum %x want %x, info %v, err %v", txnSize, sum, ds.SumFirst(ds.Len()), s.Info(), err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadHonoursCancel(t *testing.T) {
	s, err := Open(config(t, map[string]any{"txn_size": 10}), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Load(ctx, persons(t, 100)); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

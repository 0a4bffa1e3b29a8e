//go:build cgo

package native

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	lmdbgo "github.com/PowerDNS/lmdb-go/lmdb"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/lmdb/store"
	"github.com/dbbench/dbbench/dataset"
)

// loaded opens a store holding n persons.
func loaded(t *testing.T, n int) (*store.Store, *dataset.Persons) {
	t.Helper()
	o, err := adapters.ParseOptions(store.Specs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := store.ParseConfig(o)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(cfg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ds, err := dataset.Generate(n, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Load(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	return s, ds
}

func bind(t *testing.T, s *store.Store) *Layout {
	t.Helper()
	l, err := Bind(s.Env, s.DBI)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestBindSelfCheck(t *testing.T) {
	s, _ := loaded(t, 10)
	l := bind(t, s)
	if l.Env(s.Env) == nil {
		t.Fatal("nil env handle after a successful Bind")
	}
	if _, err := Bind(s.Env, s.DBI+7); err == nil || !strings.Contains(err.Error(), "cursor") {
		// A DBI lmdb-go never opened cannot even get a cursor: the check must not pass.
		t.Fatalf("Bind with a wrong DBI: %v", err)
	}
	s.Close()
	if _, err := Bind(s.Env, s.DBI); err == nil || !strings.Contains(err.Error(), "no C handle") {
		t.Fatalf("Bind on a closed env: %v", err)
	}
}

func TestHandleOffsetRejectsOtherLayouts(t *testing.T) {
	type noHandle struct{ x int }
	type wrongType struct{ _env *int }
	tests := []struct {
		typ     reflect.Type
		wantErr string
		wantOff uintptr
	}{
		{reflect.TypeFor[noHandle](), "has no field _env", 0},
		{reflect.TypeFor[wrongType](), "not a pointer to C MDB_env", 0},
		{reflect.TypeFor[lmdbgo.Env](), "", 0}, // lmdb-go v1.9.3 keeps _env first
	}
	for _, tt := range tests {
		off, err := handleOffset(tt.typ, "_env", "MDB_env")
		if tt.wantErr == "" {
			if err != nil || off != tt.wantOff {
				t.Errorf("%v: offset %d, %v", tt.typ, off, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%v: got %v, want %q", tt.typ, err, tt.wantErr)
		}
	}
}

func TestCompareConstants(t *testing.T) {
	if err := checkConstants(); err != nil {
		t.Fatal(err)
	}
	err := CompareConstants("test", []Constant{{"A", 1, 1}, {"B", 2, 3}})
	if err == nil || !strings.Contains(err.Error(), "test: C B is 2 but lmdb-go's is 3") {
		t.Fatalf("got %v", err)
	}
}

func TestError(t *testing.T) {
	if Error("op", 0) != nil {
		t.Fatal("success is an error")
	}
	if err := Error("op", int(lmdbgo.MapFull)); !lmdbgo.IsMapFull(err) {
		t.Errorf("MDB_MAP_FULL: %v", err)
	}
	if err := Error("op", int(lmdbgo.NotFound)); !lmdbgo.IsNotFound(err) {
		t.Errorf("MDB_NOTFOUND: %v", err)
	}
	if err := Error("op", 12); err == nil || !strings.Contains(err.Error(), "cannot allocate memory") {
		t.Errorf("ENOMEM: %v", err)
	}
}

// pairs reads the whole database with lmdb-go's cursor, copying.
func pairsByLmdbGo(t *testing.T, s *store.Store) [][2][]byte {
	t.Helper()
	var out [][2][]byte
	err := s.Env.View(func(txn *lmdbgo.Txn) error {
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
			out = append(out, [2][]byte{k, v})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCursorBatchMatchesCursor(t *testing.T) {
	s, _ := loaded(t, 1000)
	l := bind(t, s)
	want := pairsByLmdbGo(t, s)
	for _, tc := range []struct{ size, limit int }{{1, 1000}, {7, 1000}, {256, 1000}, {256, 300}, {2000, 5000}, {3, 0}} {
		t.Run(fmt.Sprintf("size %d limit %d", tc.size, tc.limit), func(t *testing.T) {
			var got [][2][]byte
			err := s.Env.View(func(txn *lmdbgo.Txn) error {
				txn.RawRead = true
				cur, err := txn.OpenCursor(s.DBI)
				if err != nil {
					return err
				}
				defer cur.Close()
				b, err := l.NewCursorBatch(cur, tc.size)
				if err != nil {
					return err
				}
				defer b.Close()
				for len(got) < tc.limit {
					pairs, end, err := b.Next(tc.limit - len(got))
					if err != nil {
						return err
					}
					for i := range pairs {
						got = append(got, [2][]byte{bytes.Clone(pairs[i].Key()), bytes.Clone(pairs[i].Value())})
					}
					if end {
						break
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			w := want[:min(tc.limit, len(want))]
			if len(got) != len(w) {
				t.Fatalf("%d pairs, want %d", len(got), len(w))
			}
			for i := range w {
				if !bytes.Equal(got[i][0], w[i][0]) || !bytes.Equal(got[i][1], w[i][1]) {
					t.Fatalf("pair %d: %q=%q, want %q=%q", i, got[i][0], got[i][1], w[i][0], w[i][1])
				}
			}
		})
	}
	if _, err := l.NewCursorBatch(nil, 0); err == nil {
		t.Error("batch size 0 accepted")
	}
}

func TestPutBatch(t *testing.T) {
	s, _ := loaded(t, 1)
	l := bind(t, s)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var keys [][]byte
	for i := range 10 {
		keys = append(keys, fmt.Appendf(nil, "key-%02d", i))
	}
	err := s.Env.UpdateLocked(func(txn *lmdbgo.Txn) error {
		b, err := l.NewPutBatch(txn, s.DBI, 0, 3)
		if err != nil {
			return err
		}
		for i, k := range keys {
			if err := b.Add(k, fmt.Appendf(nil, "value %d", i)); err != nil {
				return err
			}
		}
		if b.Pending() != 1 {
			t.Errorf("%d pending after 10 adds in batches of 3", b.Pending())
		}
		if err := b.Rebind(txn); err == nil {
			t.Error("Rebind with pending pairs accepted")
		}
		return b.Flush()
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Env.View(func(txn *lmdbgo.Txn) error {
		for i, k := range keys {
			v, err := txn.Get(s.DBI, k)
			if err != nil || string(v) != fmt.Sprintf("value %d", i) {
				return fmt.Errorf("%s = %q, %v", k, v, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// MDB_APPEND with a key below the last one must fail with LMDB's own error.
	err = s.Env.UpdateLocked(func(txn *lmdbgo.Txn) error {
		b, err := l.NewPutBatch(txn, s.DBI, lmdbgo.Append, 4)
		if err != nil {
			return err
		}
		if err := b.Add([]byte("a-first"), []byte("x")); err != nil {
			return err
		}
		return b.Flush()
	})
	if !lmdbgo.IsErrno(err, lmdbgo.KeyExist) {
		t.Fatalf("append out of order: %v", err)
	}
}

func TestLookupCopy(t *testing.T) {
	s, ds := loaded(t, 200)
	l := bind(t, s)
	txn, err := s.Env.BeginTxn(nil, lmdbgo.Readonly)
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Abort()
	txn.Reset()
	for _, bufLen := range []int{0, 2, 256} {
		for _, i := range ds.Sample(50, 1) {
			v, found, err := l.LookupCopy(txn, s.DBI, ds.Email(int(i)), make([]byte, bufLen))
			age, name, ok := store.DecodeValue(v)
			if err != nil || !found || !ok || age != ds.Age(int(i)) || !bytes.Equal(name, ds.Name(int(i))) {
				t.Fatalf("buf %d, person %d: %q %v %v", bufLen, i, v, found, err)
			}
		}
	}
	if v, found, err := l.LookupCopy(txn, s.DBI, []byte("nobody@example.com"), nil); found || err != nil || v != nil {
		t.Fatalf("missing key: %q %v %v", v, found, err)
	}
	if _, _, err := l.LookupCopy(txn, s.DBI, nil, nil); err == nil {
		t.Fatal("an empty key was looked up")
	}
	// The transaction must come back reset: renewing it works.
	if err := txn.Renew(); err != nil {
		t.Fatalf("renew after LookupCopy: %v", err)
	}
}

//go:build cgo

package lmdb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"

	lmdbgo "github.com/PowerDNS/lmdb-go/lmdb"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/lmdb/store"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// The record capabilities of an lmdb target (adapters/records.go): removing a method fails the
// build.
var _ adapters.RecordStore = (*target)(nil)

// records is an environment of its own holding YCSB records: the key is the record's key bytes,
// the value its fields in order, each a uvarint length and the bytes. Not the persons' environment:
// a named database there would be a key in the persons' root database, which their scans read.
// It lives in the target's temporary directory (as the insert workload's fresh environment), with
// the target's settings.
//
// Reads and scans each run in a read transaction of their own (renewed from a pool, as the
// persons' lookups) and never wait for writers. Updates and inserts each run in a write
// transaction of their own: LMDB admits one writer at a time, so concurrent writers queue on its
// writer lock. That is the store's nature, and what a mix with writes measures on it.
type records struct {
	st     *store.Store
	fields int
	idle   atomic.Pointer[lmdbgo.Txn]
}

// appendValue encodes fields as a stored record value.
func appendValue(dst []byte, fields [][]byte) []byte {
	for _, f := range fields {
		dst = binary.AppendUvarint(dst, uint64(len(f)))
		dst = append(dst, f...)
	}
	return dst
}

// decodeValue splits a stored value into its fields (slices of v), reusing dst; ok is false when
// v is not n fields.
func decodeValue(dst [][]byte, v []byte, n int) ([][]byte, bool) {
	dst = dst[:0]
	for len(v) > 0 {
		size, k := binary.Uvarint(v)
		if k <= 0 || uint64(len(v)-k) < size {
			return dst, false
		}
		dst = append(dst, v[k:k+int(size)])
		v = v[k+int(size):]
	}
	return dst, len(dst) == n
}

// copyValue copies the n fields of a stored value into dst's slices from their start (dst as
// RecordReader reuses it); ok is false when v is not n fields.
func copyValue(dst [][]byte, v []byte, n int) ([][]byte, bool) {
	dst = slices.Grow(dst[:0], n)[:n]
	f := 0
	for ; len(v) > 0 && f < n; f++ {
		size, k := binary.Uvarint(v)
		if k <= 0 || uint64(len(v)-k) < size {
			return dst, false
		}
		dst[f] = append(dst[f][:0], v[k:k+int(size)]...)
		v = v[k+int(size):]
	}
	return dst, f == n && len(v) == 0
}

// recordsNeeded estimates, generously, the map size n records of y need.
func recordsNeeded(y dataset.YCSB, n int64) int64 {
	value := y.FieldCount * (y.FieldLength + binary.MaxVarintLen32)
	return store.NeededBytes(int(n), n*int64(len(y.Key(0))+1+value))
}

// LoadRecords opens a fresh environment (closing and removing the one a previous load made) and
// stores records [0, n) in key order with MDB_APPEND, txn_size pairs per write transaction.
func (t *target) LoadRecords(ctx context.Context, y dataset.YCSB, n int64) error {
	if n < 0 {
		return exitcode.Usagef("lmdb: %d records to load", n)
	}
	if err := t.closeRecords(); err != nil {
		return err
	}
	cfg := t.st.Config()
	if need := recordsNeeded(y, n); cfg.MapSize < need {
		return exitcode.Usagef("map_size %s is too small for %d records (needs about %d MiB); raise the target's map_size option",
			store.FormatBytes(cfg.MapSize), n, (need+1<<20-1)>>20)
	}
	st, err := store.OpenFresh(cfg, t.tempDir, "records")
	if err != nil {
		return err
	}
	r := &records{st: st, fields: y.FieldCount}
	if err := r.load(ctx, y, n, cfg.TxnSize); err != nil {
		return errors.Join(err, st.Close())
	}
	t.rec.Store(r)
	return nil
}

// load puts the records in key order, chunk pairs per write transaction (0: all in one).
func (r *records) load(ctx context.Context, y dataset.YCSB, n int64, chunk int) error {
	keys := make([][]byte, n)
	order := make([]int64, n)
	for i := range order {
		order[i], keys[i] = int64(i), y.Key(int64(i))
	}
	slices.SortFunc(order, func(a, b int64) int { return bytes.Compare(keys[a], keys[b]) })
	if chunk == 0 {
		chunk = len(order)
	}
	runtime.LockOSThread() // a write transaction belongs to its thread
	defer runtime.UnlockOSThread()
	var val []byte
	for start := 0; start < len(order); start += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := r.st.Env.UpdateLocked(func(txn *lmdbgo.Txn) error {
			for _, i := range order[start:min(start+chunk, len(order))] {
				val = appendValue(val[:0], y.Fields(i))
				if err := txn.Put(r.st.DBI, keys[i], val, lmdbgo.Append); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return r.writeError(err)
		}
	}
	return nil
}

func (r *records) writeError(err error) error {
	if lmdbgo.IsMapFull(err) {
		return exitcode.Usagef("map_size %s is full with records; raise the target's map_size option", store.FormatBytes(r.st.Config().MapSize))
	}
	return exitcode.Infraf("lmdb write: %v", err)
}

// closeRecords closes and removes the records' environment, if any.
func (t *target) closeRecords() error {
	r := t.rec.Swap(nil)
	if r == nil {
		return nil
	}
	if txn := r.idle.Swap(nil); txn != nil {
		txn.Abort()
	}
	return r.st.Close()
}

// loaded returns the records, or an error before LoadRecords or after Close.
func (t *target) loaded() (*records, error) {
	if r := t.rec.Load(); r != nil && !t.closed.Load() {
		return r, nil
	}
	return nil, errors.New("lmdb: no records loaded (LoadRecords first), or the target is closed")
}

// view runs fn in a read transaction of its own: a pooled one renewed, reset afterwards.
func (r *records) view(fn func(txn *lmdbgo.Txn) error) error {
	txn := r.idle.Swap(nil)
	if txn == nil {
		var err error
		if txn, err = r.st.Env.BeginTxn(nil, lmdbgo.Readonly); err != nil {
			return r.st.ReadError(err)
		}
		txn.RawRead = true // values are decoded and copied before the transaction ends
	} else if err := txn.Renew(); err != nil {
		txn.Abort()
		return r.st.ReadError(err)
	}
	err := fn(txn)
	txn.Reset()
	if !r.idle.CompareAndSwap(nil, txn) {
		txn.Abort()
	}
	return err
}

// ReadRecord gets the record in a read transaction of its own and copies its fields into dst.
func (t *target) ReadRecord(_ context.Context, key []byte, dst [][]byte) ([][]byte, bool, error) {
	r, err := t.loaded()
	if err != nil {
		return dst, false, err
	}
	found := false
	err = r.view(func(txn *lmdbgo.Txn) error {
		v, err := txn.Get(r.st.DBI, key)
		if lmdbgo.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return r.st.ReadError(err)
		}
		var ok bool
		if dst, ok = copyValue(dst, v, r.fields); !ok {
			return corruptRecord(key)
		}
		found = true
		return nil
	})
	return dst, found, err
}

func corruptRecord(key []byte) error {
	return exitcode.Infraf("lmdb value of %q is not a record", key)
}

// UpdateRecord rewrites the record with one field replaced, in a write transaction of its own.
func (t *target) UpdateRecord(_ context.Context, key []byte, field int, value []byte) error {
	r, err := t.loaded()
	if err != nil {
		return err
	}
	if err := adapters.CheckUpdateField("lmdb", key, field, r.fields); err != nil {
		return err
	}
	err = r.st.Env.Update(func(txn *lmdbgo.Txn) error {
		txn.RawRead = true // the old value is re-encoded before the Put that may move it
		v, err := txn.Get(r.st.DBI, key)
		if lmdbgo.IsNotFound(err) {
			return fmt.Errorf("lmdb: update of %q: no such record", key)
		}
		if err != nil {
			return err
		}
		fields, ok := decodeValue(make([][]byte, 0, r.fields), v, r.fields)
		if !ok {
			return corruptRecord(key)
		}
		fields[field] = value
		return txn.Put(r.st.DBI, key, appendValue(make([]byte, 0, len(v)+len(value)), fields), 0)
	})
	return r.recordError(err)
}

// recordError passes on the errors the record operations make themselves and classifies LMDB's.
func (r *records) recordError(err error) error {
	var opErr *lmdbgo.OpError
	if err == nil || !errors.As(err, &opErr) {
		return err
	}
	return r.writeError(err)
}

// InsertRecord puts a new record with MDB_NOOVERWRITE, in a write transaction of its own.
func (t *target) InsertRecord(_ context.Context, key []byte, fields [][]byte) error {
	r, err := t.loaded()
	if err != nil {
		return err
	}
	if err := adapters.CheckInsertFields("lmdb", key, len(fields), r.fields); err != nil {
		return err
	}
	val := appendValue(nil, fields)
	err = r.st.Env.Update(func(txn *lmdbgo.Txn) error {
		err := txn.Put(r.st.DBI, key, val, lmdbgo.NoOverwrite)
		if lmdbgo.IsErrno(err, lmdbgo.KeyExist) {
			return fmt.Errorf("lmdb: insert of %q: the key exists already", key)
		}
		return err
	})
	return r.recordError(err)
}

// ScanRecords walks a cursor from the first key >= start (SetRange) for up to n records, in a read
// transaction of its own, decoding every field.
func (t *target) ScanRecords(ctx context.Context, start []byte, n int) (adapters.Tally, error) {
	r, err := t.loaded()
	if err != nil {
		return adapters.Tally{}, err
	}
	var tl adapters.Tally
	err = r.view(func(txn *lmdbgo.Txn) error {
		cur, err := txn.OpenCursor(r.st.DBI)
		if err != nil {
			return r.st.ReadError(err)
		}
		defer cur.Close()
		op, from := uint(lmdbgo.SetRange), start
		if len(start) == 0 { // LMDB refuses an empty key to SetRange; every key is >= it
			op, from = lmdbgo.First, nil
		}
		k, v, err := cur.Get(from, nil, op)
		fields := make([][]byte, 0, r.fields)
		for ; err == nil && tl.Rows < int64(n); k, v, err = cur.Get(nil, nil, lmdbgo.Next) {
			if tl.Rows%checkEvery == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			var ok bool
			if fields, ok = decodeValue(fields, v, r.fields); !ok {
				return corruptRecord(k)
			}
			tl.Rows++
			tl.Sum += dataset.RecordSum(k, fields)
		}
		if err != nil && !lmdbgo.IsNotFound(err) {
			return r.st.ReadError(err)
		}
		return nil
	})
	return tl, err
}

package memory

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
)

// The record capabilities of a memory target (adapters/records.go): removing a method fails the
// build.
var _ adapters.RecordStore = (*target)(nil)

// record is one stored YCSB record; the store owns its bytes (copied in, copied out).
type record struct {
	key    []byte
	fields [][]byte
}

// records holds YCSB records for point operations (a map) and for scans in key byte order (sorted
// slices). A sorted slice alone would make every insert move half the store; here inserts go to a
// small sorted side slice that is merged into the main one when it outgrows mergeAt, so an insert
// costs O(mergeAt) plus an amortised O(n/mergeAt), and a scan merges the two as it walks.
//
// One RWMutex guards it all: reads and scans share the read lock and never wait for each other;
// an update or insert holds the write lock only for a map lookup and a copy of at most a record,
// well under a microsecond, so a finer scheme (locks per shard or per record) would buy nothing
// measurable and would lose the one snapshot a scan gets under the read lock.
type records struct {
	mu     sync.RWMutex
	fields int // FieldCount of the loaded set: every record has that many
	byKey  map[string]*record
	main   []*record // sorted by key
	side   []*record // sorted by key, keys disjoint from main's
}

// mergeAt bounds the side slice of inserted records.
const mergeAt = 1024

func keyOrder(a, b *record) int { return bytes.Compare(a.key, b.key) }

func (t *target) LoadRecords(ctx context.Context, y dataset.YCSB, n int64) error {
	if n < 0 {
		return fmt.Errorf("memory: %d records to load", n)
	}
	main := make([]*record, n)
	byKey := make(map[string]*record, n)
	for i := range main {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		r := &record{key: y.Key(int64(i)), fields: y.Fields(int64(i))}
		main[i] = r
		byKey[string(r.key)] = r
	}
	if len(byKey) != len(main) {
		return fmt.Errorf("memory: %d records have only %d distinct keys", len(main), len(byKey))
	}
	slices.SortFunc(main, keyOrder)
	r := &t.r
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fields, r.byKey, r.main, r.side = y.FieldCount, byKey, main, nil
	return nil
}

// copyFields appends each field to the matching slice of dst, reused from its start, growing dst to
// the record's field count when it is short.
func copyFields(dst, fields [][]byte) [][]byte {
	if cap(dst) < len(fields) {
		dst = append(dst[:cap(dst)], make([][]byte, len(fields)-cap(dst))...)
	}
	dst = dst[:len(fields)]
	for f, v := range fields {
		dst[f] = append(dst[f][:0], v...)
	}
	return dst
}

func (t *target) ReadRecord(_ context.Context, key []byte, dst [][]byte) ([][]byte, bool, error) {
	t.r.mu.RLock()
	defer t.r.mu.RUnlock()
	rec, ok := t.r.byKey[string(key)]
	if !ok {
		return dst, false, nil
	}
	return copyFields(dst, rec.fields), true, nil
}

func (t *target) UpdateRecord(_ context.Context, key []byte, field int, value []byte) error {
	v := slices.Clone(value)
	r := &t.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := adapters.CheckUpdateField("memory", key, field, r.fields); err != nil {
		return err
	}
	rec, ok := r.byKey[string(key)]
	if !ok {
		return fmt.Errorf("memory: update of %q: no such record", key)
	}
	rec.fields[field] = v // readers copy under the read lock, so none sees this half done
	return nil
}

func (t *target) InsertRecord(_ context.Context, key []byte, fields [][]byte) error {
	rec := &record{key: slices.Clone(key), fields: make([][]byte, len(fields))}
	for f, v := range fields {
		rec.fields[f] = slices.Clone(v)
	}
	r := &t.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byKey == nil {
		return fmt.Errorf("memory: insert of %q before any records were loaded", key)
	}
	if err := adapters.CheckInsertFields("memory", key, len(fields), r.fields); err != nil {
		return err
	}
	if _, dup := r.byKey[string(key)]; dup {
		return fmt.Errorf("memory: insert of %q: the key exists already", key)
	}
	r.byKey[string(rec.key)] = rec
	i, _ := slices.BinarySearchFunc(r.side, rec, keyOrder)
	r.side = slices.Insert(r.side, i, rec)
	if len(r.side) >= mergeAt {
		r.merge()
	}
	return nil
}

// merge moves the side slice into the main one (under the write lock).
func (r *records) merge() {
	all := make([]*record, 0, len(r.main)+len(r.side))
	i, j := 0, 0
	for i < len(r.main) && j < len(r.side) {
		if keyOrder(r.main[i], r.side[j]) < 0 {
			all, i = append(all, r.main[i]), i+1
		} else {
			all, j = append(all, r.side[j]), j+1
		}
	}
	all = append(append(all, r.main[i:]...), r.side[j:]...)
	r.main, r.side = all, nil
}

func (t *target) ScanRecords(ctx context.Context, start []byte, n int) (adapters.Tally, error) {
	r := &t.r
	r.mu.RLock()
	defer r.mu.RUnlock()
	probe := &record{key: start}
	i, _ := slices.BinarySearchFunc(r.main, probe, keyOrder)
	j, _ := slices.BinarySearchFunc(r.side, probe, keyOrder)
	var tl adapters.Tally
	for k := 0; k < n; k++ {
		if k%checkEvery == 0 && ctx.Err() != nil {
			return tl, ctx.Err()
		}
		var rec *record
		switch {
		case i < len(r.main) && (j == len(r.side) || keyOrder(r.main[i], r.side[j]) < 0):
			rec, i = r.main[i], i+1
		case j < len(r.side):
			rec, j = r.side[j], j+1
		default:
			return tl, nil
		}
		tl.Rows++
		tl.Sum += dataset.RecordSum(rec.key, rec.fields)
	}
	return tl, nil
}

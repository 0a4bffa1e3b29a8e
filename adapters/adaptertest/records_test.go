package adaptertest_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/adapters/memory"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// recordStore is the memory store's records, broken in one named way (breaks) as a real adapter's
// might be.
type recordStore struct {
	adapters.Target
	inner interface {
		adapters.RecordLoader
		adapters.RecordReader
		adapters.RecordUpdater
		adapters.RecordInserter
		adapters.RecordScanner
	}
	breaks string

	mu       sync.Mutex
	keys     [][]byte                  // every key stored, for "collation"
	written  map[string][][]byte       // "scan-stale": each record as loaded or inserted
	cache    map[string][][]byte       // "returns-own": what reads returned, handed out again
	kept     map[string]map[int][]byte // "keeps-value": the caller's update values, by key and field
	inflight atomic.Int32
}

func openRecords(breaks string) func(context.Context, adapters.Env) (adapters.Target, error) {
	return func(ctx context.Context, env adapters.Env) (adapters.Target, error) {
		inner, err := memory.New().Open(ctx, adapters.Options{}, env)
		if err != nil {
			return nil, err
		}
		s := &recordStore{Target: inner, breaks: breaks, cache: map[string][][]byte{}, kept: map[string]map[int][]byte{},
			written: map[string][][]byte{}}
		s.inner = inner.(interface {
			adapters.RecordLoader
			adapters.RecordReader
			adapters.RecordUpdater
			adapters.RecordInserter
			adapters.RecordScanner
		})
		switch breaks {
		case "no-updater":
			return struct {
				adapters.Target
				adapters.RecordLoader
				adapters.RecordReader
				adapters.RecordInserter
				adapters.RecordScanner
			}{s, s, s, s, s}, nil
		case "no-reader":
			return struct {
				adapters.Target
				adapters.RecordLoader
				adapters.RecordUpdater
			}{s, s, s}, nil
		}
		return s, nil
	}
}

func (s *recordStore) LoadRecords(ctx context.Context, y dataset.YCSB, n int64) error {
	stale := s.keys
	s.keys = nil
	for i := range n {
		s.keys = append(s.keys, y.Key(i))
		s.written[string(y.Key(i))] = y.Fields(i)
	}
	if s.breaks == "short-load" {
		n--
	}
	if err := s.inner.LoadRecords(ctx, y, n); err != nil || s.breaks != "not-fresh" {
		return err
	}
	for _, k := range stale { // the previous load's keys are still there
		if err := s.inner.InsertRecord(ctx, k, y.Fields(0)); err != nil {
			return err
		}
		s.keys = append(s.keys, k)
	}
	return nil
}

func (s *recordStore) ReadRecord(ctx context.Context, key []byte, dst [][]byte) ([][]byte, bool, error) {
	switch s.breaks {
	case "unsafe-for-readers": // one shared buffer: overlapping reads see each other's bytes
		defer s.inflight.Add(-1)
		if s.inflight.Add(1) > 1 {
			return slices.Repeat([][]byte{[]byte("shared")}, len(dst)), true, nil
		}
		// Wait a little for another reader to overlap, so that the test does not hang on luck.
		for deadline := time.Now().Add(time.Millisecond); s.inflight.Load() == 1 && time.Now().Before(deadline); {
			time.Sleep(100 * time.Microsecond)
		}
	case "dst-append": // appends to what the caller passed, from its end
		got, found, err := s.inner.ReadRecord(ctx, key, nil)
		for f, v := range got {
			dst[f] = append(dst[f], v...)
		}
		return dst, found, err
	case "returns-own":
		return s.readOwn(ctx, key, dst)
	}
	got, found, err := s.inner.ReadRecord(ctx, key, dst)
	if !found && s.breaks == "finds-missing" {
		return dst, true, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for f, v := range s.kept[string(key)] {
		got[f] = append(got[f][:0], v...)
	}
	return got, found, err
}

// readOwn hands out the same slices on every read of a key, as a store returning its own bytes.
func (s *recordStore) readOwn(ctx context.Context, key []byte, dst [][]byte) ([][]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if got, ok := s.cache[string(key)]; ok {
		return got, true, nil
	}
	got, found, err := s.inner.ReadRecord(ctx, key, nil)
	if found {
		s.cache[string(key)] = got
	}
	return got, found, err
}

func (s *recordStore) UpdateRecord(ctx context.Context, key []byte, field int, value []byte) error {
	if s.breaks == "lost-update" {
		return nil
	}
	err := s.inner.UpdateRecord(ctx, key, field, value)
	switch {
	case s.breaks == "update-missing-ok":
		return nil
	case s.breaks == "keeps-value" && err == nil:
		s.mu.Lock()
		if s.kept[string(key)] == nil {
			s.kept[string(key)] = map[int][]byte{}
		}
		s.kept[string(key)][field] = value
		s.mu.Unlock()
	}
	return err
}

func (s *recordStore) InsertRecord(ctx context.Context, key []byte, fields [][]byte) error {
	err := s.inner.InsertRecord(ctx, key, fields)
	switch {
	case err == nil:
		s.mu.Lock()
		s.keys = append(s.keys, slices.Clone(key))
		s.written[string(key)] = slices.Clone(fields)
		for f := range fields {
			s.written[string(key)][f] = slices.Clone(fields[f])
		}
		s.mu.Unlock()
	case s.breaks == "dup-insert-ok":
		return nil
	case s.breaks == "dup-insert-overwrites": // an upsert
		for f, v := range fields {
			if err := s.inner.UpdateRecord(ctx, key, f, v); err != nil {
				return err
			}
		}
		return nil
	}
	return err
}

func (s *recordStore) ScanRecords(ctx context.Context, start []byte, n int) (adapters.Tally, error) {
	switch s.breaks {
	case "scan-ignores-start":
		return s.inner.ScanRecords(ctx, nil, n)
	case "collation":
		return s.scanCollated(ctx, start, n)
	case "scan-stale":
		return s.scanStale(start, n)
	}
	return s.inner.ScanRecords(ctx, start, n)
}

// collate is a language collation's first level, roughly: case folded, punctuation ignored.
func collate(k []byte) []byte {
	return bytes.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return -1
	}, k)
}

// scanCollated scans in collation order, as PostgreSQL does without COLLATE "C".
func (s *recordStore) scanCollated(ctx context.Context, start []byte, n int) (adapters.Tally, error) {
	s.mu.Lock()
	keys := slices.Clone(s.keys)
	s.mu.Unlock()
	order := func(a, b []byte) int {
		if c := bytes.Compare(collate(a), collate(b)); c != 0 {
			return c
		}
		return bytes.Compare(a, b)
	}
	slices.SortFunc(keys, order)
	i, _ := slices.BinarySearchFunc(keys, start, order)
	var tl adapters.Tally
	for _, k := range keys[i:min(i+n, len(keys))] {
		fields, found, err := s.inner.ReadRecord(ctx, k, nil)
		if err != nil || !found {
			return tl, err
		}
		tl.Rows++
		tl.Sum += dataset.RecordSum(k, fields)
	}
	return tl, nil
}

// scanStale scans the records as they were written, blind to updates since (a cache).
func (s *recordStore) scanStale(start []byte, n int) (adapters.Tally, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := slices.Clone(s.keys)
	slices.SortFunc(keys, bytes.Compare)
	i, _ := slices.BinarySearchFunc(keys, start, bytes.Compare)
	var tl adapters.Tally
	for _, k := range keys[i:min(i+n, len(keys))] {
		tl.Rows++
		tl.Sum += dataset.RecordSum(k, s.written[string(k)])
	}
	return tl, nil
}

func recordTarget(breaks string) adaptertest.Target {
	return adaptertest.Target{Open: openRecords(breaks), Size: 200, RecordOps: ycsb.Ops()}
}

// TestRecordsCorrectStorePasses: the memory store's records pass, so the failures below are the
// breakages' alone.
func TestRecordsCorrectStorePasses(t *testing.T) {
	r := record(t, adaptertest.CheckRecords, recordTarget(""))
	if r.Failed() || r.Skipped() {
		t.Errorf("correct record store: skipped %v, failures %q", r.Skipped(), r.Failures())
	}
	r = record(t, adaptertest.CheckRecords, adaptertest.Target{Open: open(""), Size: 200})
	if r.Failed() || !r.Skipped() {
		t.Errorf("a target without records, declaring none: skipped %v, failures %q; want skipped", r.Skipped(), r.Failures())
	}
}

// TestRecordsCatchBrokenStores runs the record check against stores broken in one way each, and
// requires it to fail saying what is wrong.
func TestRecordsCatchBrokenStores(t *testing.T) {
	tests := []struct {
		breaks, want string
		tweak        func(*adaptertest.Target)
	}{
		{"short-load", "found false, want true", nil},
		{"not-fresh", `ScanRecords("", 215): 215 records`, nil},
		{"dst-append", "read of loaded record 1 (pass 1): ReadRecord", nil},
		{"returns-own", "(pass 2): ReadRecord", nil},
		{"finds-missing", "of a missing key: found true", nil},
		{"lost-update", "after update 1 of", nil},
		{"keeps-value", "after update 1 of", nil},
		{"update-missing-ok", "of a missing key: no error", nil},
		{"dup-insert-ok", "of a key that exists: no error", nil},
		{"dup-insert-overwrites", "a record after an insert of a duplicate: ReadRecord", nil},
		{"scan-ignores-start", `ScanRecords("user", 1)`, nil},
		{"collation", "in key byte order", nil},
		{"scan-stale", "as they are now", nil},
		{"unsafe-for-readers", "a value nobody wrote there", nil},
		{"no-updater", "implements those of [read insert scan]", nil},
		{"no-reader", "cannot read them", func(tg *adaptertest.Target) { tg.RecordOps = []ycsb.Op{ycsb.Update} }},
		{"", "(Target.RecordOps) [], but its target implements those of [read update insert scan readmodifywrite]", func(tg *adaptertest.Target) {
			tg.RecordOps = nil
		}},
	}
	for _, tt := range tests {
		name := tt.breaks
		if name == "" {
			name = "correct-store"
		}
		t.Run(name, func(t *testing.T) {
			tg := recordTarget(tt.breaks)
			if tt.tweak != nil {
				tt.tweak(&tg)
			}
			r := record(t, adaptertest.CheckRecords, tg)
			if !slices.ContainsFunc(r.Failures(), func(f string) bool { return strings.Contains(f, tt.want) }) {
				t.Errorf("the record check of a %q store: failures %q; want one containing %q", tt.breaks, r.Failures(), tt.want)
			}
		})
	}
}

// TestBuiltinRecords: an adapter's declared record operations (Info().Records) are compared with
// what its target implements.
func TestBuiltinRecords(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		breaks   string
		declared []ycsb.Op
		want     string
	}{
		{"", ycsb.Ops(), ""},
		{"", nil, "declares the record operations (Info().Records) [], but its target implements those of [read update insert scan readmodifywrite]"},
		{"no-updater", ycsb.Ops(), "(Info().Records) [read update insert scan readmodifywrite], but its target implements those of [read insert scan]"},
	} {
		tg, err := openRecords(tt.breaks)(ctx, adapters.Env{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		info := memory.New().Info()
		info.Builtin, info.Records = nil, tt.declared // the record store wraps no person capabilities
		r := record(t, func(tb testing.TB, _ adaptertest.Target) { adaptertest.CheckBuiltin(tb, info, tg) }, adaptertest.Target{})
		tg.Close()
		switch {
		case tt.want == "" && r.Failed():
			t.Errorf("%q store declaring %v: failures %q", tt.breaks, tt.declared, r.Failures())
		case tt.want != "" && (len(r.Failures()) != 1 || !strings.Contains(r.Failures()[0], tt.want)):
			t.Errorf("%q store declaring %v: failures %q; want one containing %q", tt.breaks, tt.declared, r.Failures(), tt.want)
		}
	}
}

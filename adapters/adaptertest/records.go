package adaptertest

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sort"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// oddKeys are keys the record check inserts beside YCSB's own "user<n>" keys: upper case, and
// punctuation that sorts before the digits ('-'), between the upper and lower case ('_') and after
// everything ('~'). In key byte order they land apart from the user<n> keys; a store that orders
// by a language's collation (which ignores punctuation and folds case first) scans them elsewhere.
var oddKeys = []string{"useR", "user-5", "user_5", "userA", "user~"}

// CheckRecords checks the record capabilities (adapters/records.go) of a fresh target: it declares
// exactly tg.RecordOps, loads Size records over a first load of another shape (a load starts a
// fresh table), reads each back field by field, reads missing keys,
// updates fields, inserts records and duplicates, scans from many keys in key byte order with the
// exact checksum of each range, runs reads, updates, inserts and scans from several goroutines at
// once, and Close leaves nothing behind. Every value it hands the store it then overwrites, and
// every value the store returns it scribbles on, so a store that keeps or returns references to
// shared bytes fails.
func CheckRecords(t testing.TB, tg Target) {
	if shared := tg.sharedRecordOps; shared != nil && len(*shared) == 0 && len(tg.RecordOps) == 0 {
		t.Skip("the target holds no records (no adapters.RecordLoader), as the test says")
	}
	before := tg.outside(t)
	in := tg.open(t, false)
	ops := adapters.RecordOps(in.Target)
	if !slices.Equal(sortedOps(tg.RecordOps), ops) {
		t.Fatalf("the test says the target serves the record operations (Target.RecordOps) %v, but its target implements those of %v (adapters.RecordOps)",
			sortedOps(tg.RecordOps), ops)
	}
	if _, ok := in.Target.(adapters.RecordLoader); !ok {
		t.Skip("the target holds no records (no adapters.RecordLoader)")
	}
	if !slices.Contains(ops, ycsb.Read) {
		t.Fatal("the target loads records but cannot read them (no adapters.RecordReader): nothing it stores could be checked")
	}
	m := loadRecords(t, tg, in)
	m.checkReads(t)
	m.checkMissing(t)
	if slices.Contains(ops, ycsb.Update) {
		m.checkUpdates(t)
	}
	if slices.Contains(ops, ycsb.Insert) {
		m.checkInserts(t)
	}
	if slices.Contains(ops, ycsb.Scan) {
		m.checkScans(t)
	}
	if t.Failed() {
		return // a store already wrong could only race with the goroutines below
	}
	m.checkConcurrent(t)
	if err := in.close(); err != nil {
		t.Errorf("close: %v", err)
	}
	tg.checkClosed(t, before, "after Close of a target holding records")
}

func sortedOps(ops []ycsb.Op) []ycsb.Op {
	out := slices.Clone(ops)
	slices.Sort(out)
	return slices.Compact(out)
}

// staleRecords is the size of the first load, which the second must replace.
const staleRecords = 50

// recordModel is what the store must hold: every key's fields, kept up to date with each write.
type recordModel struct {
	in     *instance
	y      dataset.YCSB
	n      int64 // records loaded
	recs   map[string][][]byte
	reader adapters.RecordReader
}

func loadRecords(t testing.TB, tg Target, in *instance) *recordModel {
	t.Helper()
	y, err := dataset.NewYCSB(tg.seed(), 0, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	m := &recordModel{in: in, y: y, n: int64(tg.size()), recs: map[string][][]byte{}}
	m.reader = in.Target.(adapters.RecordReader)
	loader := in.Target.(adapters.RecordLoader)
	// A first load of another shape (other keys, fewer fields) that the real one must replace: the
	// reads, scans and their counts below find anything it left.
	first, err := dataset.NewYCSB(tg.seed()+1, 3, 7, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := loader.LoadRecords(in.ctx, first, staleRecords); err != nil {
		t.Fatalf("LoadRecords of %d records of 3 fields: %v", staleRecords, err)
	}
	if err := loader.LoadRecords(in.ctx, y, m.n); err != nil {
		t.Fatalf("LoadRecords of %d records: %v", m.n, err)
	}
	for i := range m.n {
		m.recs[string(y.Key(i))] = y.Fields(i)
	}
	return m
}

// read reads key back, reusing dst (a fresh one of FieldCount slices when nil).
func (m *recordModel) read(key []byte, dst [][]byte) ([][]byte, bool, error) {
	if dst == nil {
		dst = make([][]byte, m.y.FieldCount)
	}
	return m.reader.ReadRecord(m.in.ctx, key, dst)
}

// fieldsProblem says how got differs from want, "" when it does not.
func fieldsProblem(got, want [][]byte) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d fields, want %d", len(got), len(want))
	}
	for f := range want {
		if !bytes.Equal(got[f], want[f]) {
			return fmt.Sprintf("%s is %q, want %q", dataset.FieldName(f), clip(got[f]), clip(want[f]))
		}
	}
	return ""
}

func clip(b []byte) string {
	if len(b) > 24 {
		return string(b[:24]) + "..."
	}
	return string(b)
}

// expect reads key back and compares it with the model, then scribbles on what it got (a store
// that returned its own bytes is corrupted by that, and a later read shows it).
func (m *recordModel) expect(t testing.TB, what string, key []byte, dst [][]byte) [][]byte {
	t.Helper()
	got, found, err := m.read(key, dst)
	want, exists := m.recs[string(key)]
	switch {
	case err != nil:
		t.Errorf("%s: ReadRecord(%q): %v", what, key, err)
	case found != exists:
		t.Errorf("%s: ReadRecord(%q) found %v, want %v", what, key, found, exists)
	case found:
		if p := fieldsProblem(got, want); p != "" {
			t.Errorf("%s: ReadRecord(%q): %s", what, key, p)
		}
	}
	for _, f := range got {
		for i := range f {
			f[i] = '#'
		}
	}
	return got
}

// checkReads reads every loaded record twice, passing the previous result back as dst as a caller
// reusing its buffers does.
func (m *recordModel) checkReads(t testing.TB) {
	var dst [][]byte
	for pass := range 2 {
		for i := range m.n {
			dst = m.expect(t, fmt.Sprintf("read of loaded record %d (pass %d)", i, pass+1), m.y.Key(i), dst)
			if t.Failed() {
				return
			}
		}
	}
}

// missingKeys are keys no record has: YCSB's prefix alone, a prefix and an extension of a real key
// (a read that matches anything but the exact key finds them), and quotes a query must escape.
func (m *recordModel) missingKeys() [][]byte {
	k := m.y.Key(0)
	return [][]byte{
		[]byte("user"), k[:len(k)-1], append(slices.Clone(k), 'x'), []byte(`user'"\5`), []byte("nouser"),
	}
}

func (m *recordModel) checkMissing(t testing.TB) {
	for _, key := range m.missingKeys() {
		if _, exists := m.recs[string(key)]; exists {
			continue
		}
		if _, found, err := m.read(key, nil); found || err != nil {
			t.Errorf("ReadRecord(%q) of a missing key: found %v, error %v; want not found and no error", key, found, err)
		}
	}
}

// sample picks k loaded record numbers spread over [0, n).
func (m *recordModel) sample(k int) []int64 {
	out := make([]int64, 0, k)
	for j := range int64(k) {
		out = append(out, j*m.n/int64(k))
	}
	return slices.Compact(out)
}

// checkUpdates updates one field of sampled records several times, reading each back: the field
// has the new value, the others their old ones. Updates of a missing key or a field out of range
// fail and change nothing.
func (m *recordModel) checkUpdates(t testing.TB) {
	up := m.in.Target.(adapters.RecordUpdater)
	var dst [][]byte
	for _, i := range m.sample(10) {
		key := m.y.Key(i)
		for v := int64(1); v <= 3; v++ {
			f, value := m.y.Update(i, v)
			if err := up.UpdateRecord(m.in.ctx, key, f, value); err != nil {
				t.Fatalf("UpdateRecord(%q, %s): %v", key, dataset.FieldName(f), err)
			}
			m.recs[string(key)][f] = slices.Clone(value)
			scribble(value)
			dst = m.expect(t, fmt.Sprintf("record %d after update %d of %s", i, v, dataset.FieldName(f)), key, dst)
		}
	}
	value := m.y.AppendField(nil, 0, 0, 99)
	for _, key := range m.missingKeys() {
		if err := up.UpdateRecord(m.in.ctx, key, 0, value); err == nil {
			t.Errorf("UpdateRecord(%q) of a missing key: no error", key)
		}
		m.expect(t, "a missing key after an update of it", key, nil)
	}
	key := m.y.Key(1)
	for _, f := range []int{-1, m.y.FieldCount} {
		if err := up.UpdateRecord(m.in.ctx, key, f, value); err == nil {
			t.Errorf("UpdateRecord(%q) of field %d of %d: no error", key, f, m.y.FieldCount)
		}
	}
	m.expect(t, "record 1 after updates of fields out of range", key, nil)
}

func scribble(b []byte) {
	for i := range b {
		b[i] = '#'
	}
}

// checkInserts inserts new YCSB records and records with oddKeys, reading each back, then
// duplicates of loaded and inserted keys, which must fail and leave the records as they were.
func (m *recordModel) checkInserts(t testing.TB) {
	ins := m.in.Target.(adapters.RecordInserter)
	insert := func(key []byte, fields [][]byte) {
		t.Helper()
		if err := ins.InsertRecord(m.in.ctx, key, fields); err != nil {
			t.Fatalf("InsertRecord(%q): %v", key, err)
		}
		m.recs[string(key)] = cloneFields(fields)
		want := string(key)
		scribble(key)
		for _, f := range fields {
			scribble(f)
		}
		m.expect(t, "an inserted record", []byte(want), nil)
	}
	for i := m.n; i < m.n+5; i++ {
		insert(m.y.Key(i), m.y.Fields(i))
	}
	for j, k := range oddKeys {
		insert([]byte(k), m.y.Fields(m.n+10+int64(j)))
	}
	for _, key := range [][]byte{m.y.Key(0), m.y.Key(m.n + 2), []byte(oddKeys[1])} {
		if err := ins.InsertRecord(m.in.ctx, key, m.y.Fields(m.n+99)); err == nil {
			t.Errorf("InsertRecord(%q) of a key that exists: no error", key)
		}
		m.expect(t, "a record after an insert of a duplicate", key, nil)
	}
}

func cloneFields(fields [][]byte) [][]byte {
	out := make([][]byte, len(fields))
	for f, v := range fields {
		out[f] = slices.Clone(v)
	}
	return out
}

// sortedKeys returns the model's keys in byte order (Go compares strings bytewise).
func (m *recordModel) sortedKeys() []string {
	return slices.Sorted(maps.Keys(m.recs))
}

// rangeTally is what a scan of up to n records from start must return.
func (m *recordModel) rangeTally(keys []string, start string, n int) adapters.Tally {
	i := sort.SearchStrings(keys, start)
	var want adapters.Tally
	for _, k := range keys[i:min(i+n, len(keys))] {
		want.Rows++
		want.Sum += dataset.RecordSum(k, stringFields(m.recs[k]))
	}
	return want
}

func stringFields(fields [][]byte) []string {
	out := make([]string, len(fields))
	for f, v := range fields {
		out[f] = string(v)
	}
	return out
}

// scanStarts are the keys scans start from: before and after every key, the first, the last and
// others, a key between two (a key's extension by '!', below every digit), and YCSB's prefix.
func scanStarts(keys []string) []string {
	starts := []string{"", "a", "user", "zzzz", keys[0], keys[len(keys)-1], keys[len(keys)/2] + "!"}
	for i := 1; i < len(keys); i += max(1, len(keys)/7) {
		starts = append(starts, keys[i])
	}
	return append(starts, oddKeys...)
}

// checkScans scans from many keys for several lengths: each returns the records of the range in
// key byte order, with the fields they hold now.
func (m *recordModel) checkScans(t testing.TB) {
	sc := m.in.Target.(adapters.RecordScanner)
	keys := m.sortedKeys()
	wrong := 0
	for _, start := range scanStarts(keys) {
		for _, n := range []int{1, 2, 7, 100, len(keys) + 5} {
			got, err := sc.ScanRecords(m.in.ctx, []byte(start), n)
			if err != nil {
				t.Fatalf("ScanRecords(%q, %d): %v", start, n, err)
			}
			if want := m.rangeTally(keys, start, n); got != want {
				if wrong++; wrong <= 3 {
					t.Errorf("ScanRecords(%q, %d): %d records, checksum %016x; want %d, %016x (the records from that key in key byte order, as they are now)",
						start, n, got.Rows, got.Sum, want.Rows, want.Sum)
				}
			}
		}
	}
	if wrong > 3 {
		t.Errorf("%d scans wrong", wrong)
	}
}

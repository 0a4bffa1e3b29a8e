package engine

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
)

// What a YCSB run committed, kept so that every read can be checked outside the timed region. A
// record's fields are dataset.YCSB's, deterministic from the record, the field and a version (0:
// loaded; v: the v-th update of the record, which writes field YCSB.UpdateField(i, v)). Operations
// overlap in an open loop, so a read may see any version the record could hold while it ran: the
// log keeps each update's span (start and end on the log's clock), and a version is possible for a
// read unless it began after the read ended, or another update of the same field began after it
// committed and committed before the read began (linearizability, per field).

// span is an operation's start and end, ns on the log's clock; an update whose outcome is unknown
// (it returned an error) ends at math.MaxInt64: it may have committed at any time after its start.
type span struct{ start, end int64 }

// took is the span's length: a store call's time on the log's clock.
func (s span) took() time.Duration { return time.Duration(s.end - s.start) }

type update struct {
	version int64
	field   int
	span
}

// maxKeptReadBytes bounds the field bytes kept for checking reads after each run phase (64 MiB).
// Past it, reads are checked as the run goes (outside the timed regions: after the store call, in
// the worker that read) once every update that began before they ended has ended (the watermark),
// so every read is checked; ycsb.check_sample counts them unchecked instead (no checking during
// the run phase). The final verification reads every record written either way.
const maxKeptReadBytes = 64 << 20

type readRec struct {
	record int64
	fields [][]byte
	span
}

type scanRec struct {
	from  int64 // the record drawn (its key is the scan's start key)
	n     int
	tally adapters.Tally
	span
}

// recordLog is one target's record state through one YCSB workload.
type recordLog struct {
	y      dataset.YCSB
	loaded int64
	t0     time.Time

	mu       sync.Mutex
	versions map[int64]int64    // the last version handed out per record
	updates  map[int64][]update // per record, every update performed (errors included)
	inserted map[int64]span     // inserts performed without error
	failedIn map[int64]bool     // inserts that returned an error (present or not)
	done     map[int64]bool     // completed inserts beyond the acknowledged prefix
	reads    []readRec
	scans    []scanRec
	kept     int64 // bytes of the reads kept
	// unchecked counts the reads past maxKeptReadBytes under ycsb.check_sample; checked the reads
	// and scans checked.
	unchecked, checked, scansChecked, scansInexact int64
	sample                                         bool // ycsb.check_sample: past the budget, count reads unchecked
	// inflight are the updates handed a version and not yet logged, with when (log clock): no
	// update not among them can begin before now, so a read that ended before the earliest can be
	// checked (every version it could see is logged).
	inflight  map[[2]int64]int64
	settledAt int64 // the watermark at the last check of the kept reads during a run phase
	verr      error // the first failed check of a read during the run phase

	missing int64 // the first record a read did not find (-1: none)

	acked atomic.Int64 // records [0, acked) exist: loaded, or inserted without error
	// foreign are records another shard inserted (shard.go): counted as done for acked, never
	// drawn here, since this shard's store does not hold them.
	foreign    map[int64]bool
	hasForeign atomic.Bool // some record is foreign: exists must look (one process never locks)
}

func newRecordLog(y dataset.YCSB, loaded int64, sample bool) *recordLog {
	l := &recordLog{y: y, loaded: loaded, t0: time.Now(), versions: map[int64]int64{}, updates: map[int64][]update{},
		inserted: map[int64]span{}, failedIn: map[int64]bool{}, done: map[int64]bool{}, foreign: map[int64]bool{}, missing: -1,
		sample: sample, inflight: map[[2]int64]int64{}}
	l.acked.Store(loaded)
	return l
}

func (l *recordLog) now() int64 { return int64(time.Since(l.t0)) }

// nextVersion hands out the next version of record i.
func (l *recordLog) nextVersion(i int64) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.versions[i]++
	l.inflight[[2]int64{i, l.versions[i]}] = l.now()
	return l.versions[i]
}

func (l *recordLog) updated(i, v int64, field int, s span, err error) {
	if err != nil {
		s.end = math.MaxInt64
	}
	l.mu.Lock()
	l.updates[i] = append(l.updates[i], update{version: v, field: field, span: s})
	delete(l.inflight, [2]int64{i, v})
	l.mu.Unlock()
}

// watermark is the time before which every update that began is logged: the earliest in flight,
// or now. Called with l.mu held.
func (l *recordLog) watermark() int64 {
	w := l.now()
	for _, at := range l.inflight {
		w = min(w, at)
	}
	return w
}

// insertedRecord notes an insert's outcome and moves the acknowledged prefix over the inserts
// completed in a row (YCSB's acknowledged counter): only records below it are drawn for reads.
func (l *recordLog) insertedRecord(i int64, s span, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.failedIn[i] = true
		return
	}
	l.inserted[i] = s
	l.completed(i)
}

// completed marks record i's insert done and moves the acknowledged prefix over the inserts done in
// a row. Called with l.mu held.
func (l *recordLog) completed(i int64) {
	l.done[i] = true
	a := l.acked.Load()
	for l.done[a] {
		delete(l.done, a)
		a++
	}
	l.acked.Store(a)
}

// elsewhere notes record i as another shard's insert: it moves the acknowledged prefix as a
// completed insert does, but exists here never says yes to it.
func (l *recordLog) elsewhere(i int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.foreign[i] = true
	l.hasForeign.Store(true)
	l.completed(i)
}

// exists reports whether a read may address record i: below the acknowledged prefix and not
// another shard's.
func (l *recordLog) exists(i int64) bool {
	if i >= l.acked.Load() {
		return false
	}
	if i < l.loaded || !l.hasForeign.Load() {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.foreign[i]
}

// below is the newest record at or below i that a read may address: acknowledged and this
// shard's (a loaded record always is).
func (l *recordLog) below(i int64) int64 {
	a := min(i, l.acked.Load()-1)
	l.mu.Lock()
	defer l.mu.Unlock()
	for a >= l.loaded && l.foreign[a] {
		a--
	}
	return a
}

// keepRead keeps a read for the check after the run phase. Past maxKeptReadBytes it checks the kept
// reads the watermark has passed, and this read too when it can, so that memory stays bounded and
// every read is checked (under ycsb.check_sample it counts the read unchecked instead). False: the
// read was not kept, and fields are the caller's again.
func (l *recordLog) keepRead(i int64, fields [][]byte, s span) bool {
	n := int64(0)
	for _, f := range fields {
		n += int64(len(f))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kept+n > maxKeptReadBytes {
		if l.sample {
			l.unchecked++
			return false
		}
		w := l.watermark()
		if w > l.settledAt { // otherwise no kept read has become checkable since the last time
			l.settledAt = w
			l.checkSettled(w)
		}
		if s.end < w && l.kept+n > maxKeptReadBytes {
			l.checkRead(readRec{record: i, fields: fields, span: s})
			return false
		}
	}
	l.kept += n
	l.reads = append(l.reads, readRec{record: i, fields: fields, span: s})
	return true
}

// checkSettled checks the kept reads that ended before the watermark w and forgets them. Called with
// l.mu held.
func (l *recordLog) checkSettled(w int64) {
	keep := l.reads[:0]
	l.kept = 0
	for _, r := range l.reads {
		if r.end >= w {
			keep = append(keep, r)
			for _, f := range r.fields {
				l.kept += int64(len(f))
			}
			continue
		}
		l.checkRead(r)
	}
	clear(l.reads[len(keep):])
	l.reads = keep
}

// checkRead checks one read, counting it, and keeps the first failure for checkPhase. Called with
// l.mu held.
func (l *recordLog) checkRead(r readRec) {
	if err := l.checkFields(r.record, r.fields, r.start, r.end); err != nil && l.verr == nil {
		l.verr = fmt.Errorf("verification failed: a read: %w", err)
	}
	l.checked++
}

func (l *recordLog) keepScan(start int64, n int, t adapters.Tally, s span) {
	l.mu.Lock()
	l.scans = append(l.scans, scanRec{from: start, n: n, tally: t, span: s})
	l.mu.Unlock()
}

// possible lists the versions field f of record i may hold for a read over [rs, re].
func (l *recordLog) possible(i int64, f int, rs, re int64) []int64 {
	var ups []update
	for _, u := range l.updates[i] {
		if u.field == f {
			ups = append(ups, u)
		}
	}
	overwritten := func(end int64) bool {
		for _, w := range ups {
			if w.start > end && w.end < rs {
				return true
			}
		}
		return false
	}
	var out []int64
	if !overwritten(math.MinInt64) {
		out = append(out, 0)
	}
	for _, u := range ups {
		if u.start < re && !overwritten(u.end) {
			out = append(out, u.version)
		}
	}
	return out
}

// checkFields checks a read of record i over [rs, re]: every field holds a possible version.
func (l *recordLog) checkFields(i int64, fields [][]byte, rs, re int64) error {
	if len(fields) != l.y.FieldCount {
		return fmt.Errorf("record %s: read %d fields, want %d", l.y.Key(i), len(fields), l.y.FieldCount)
	}
	var buf []byte
	for f, got := range fields {
		vs := l.possible(i, f, rs, re)
		ok := false
		for _, v := range vs {
			buf = l.y.AppendField(buf[:0], i, f, v)
			if bytes.Equal(got, buf) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("record %s field%d: the value read is none of the versions it could hold (%v)", l.y.Key(i), f, vs)
		}
	}
	return nil
}

// checkPhase checks the reads and scans of a run phase, then forgets them.
func (l *recordLog) checkPhase() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	reads, scans := l.reads, l.scans
	l.reads, l.scans, l.kept, l.settledAt = nil, nil, 0, 0
	if l.missing >= 0 {
		return fmt.Errorf("verification failed: a read of record %s, which exists, found nothing", l.y.Key(l.missing))
	}
	if l.verr != nil {
		return l.verr
	}
	for _, r := range reads {
		if err := l.checkFields(r.record, r.fields, r.start, r.end); err != nil {
			return fmt.Errorf("verification failed: a read: %w", err)
		}
		l.checked++
	}
	if len(scans) == 0 {
		return nil
	}
	keys := l.sortedKeys()
	for _, s := range scans {
		if err := l.checkScan(keys, s); err != nil {
			return fmt.Errorf("verification failed: a scan of %d records from %s: %w", s.n, l.y.Key(s.from), err)
		}
		l.scansChecked++
	}
	return nil
}

// keyed is a record's key, for the scans' key order.
type keyed struct {
	key    string
	record int64
}

// sortedKeys lists every record loaded or inserted (or whose insert failed) in key byte order.
func (l *recordLog) sortedKeys() []keyed {
	out := make([]keyed, 0, l.loaded+int64(len(l.inserted)+len(l.failedIn)))
	for i := range l.loaded {
		out = append(out, keyed{string(l.y.Key(i)), i})
	}
	for i := range l.inserted {
		out = append(out, keyed{string(l.y.Key(i)), i})
	}
	for i := range l.failedIn {
		out = append(out, keyed{string(l.y.Key(i)), i})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].key < out[b].key })
	return out
}

// checkScan checks a scan against the records that existed while it ran, in key order from its
// start key: the row count must lie between the records sure to exist and those that may, and when
// no record of its range was being inserted or had been updated, the checksum must be exact.
func (l *recordLog) checkScan(keys []keyed, s scanRec) error {
	start := string(l.y.Key(s.from))
	k := sort.Search(len(keys), func(j int) bool { return keys[j].key >= start })
	var sure, maybe int64
	var sum uint64
	exact := true
	for ; k < len(keys) && sure < int64(s.n); k++ {
		i := keys[k].record
		switch st, ok := l.inserted[i]; {
		case i < l.loaded || ok && st.end < s.start:
			sure++
			sum += l.y.Sum(i)
			if slices.ContainsFunc(l.updates[i], func(u update) bool { return u.span.start < s.end }) {
				exact = false
			}
		case ok && st.start < s.end || l.failedIn[i]:
			maybe++
			exact = false
		}
	}
	if s.tally.Rows < sure || s.tally.Rows > min(int64(s.n), sure+maybe) {
		return fmt.Errorf("read %d records, want %d", s.tally.Rows, sure)
	}
	if !exact {
		l.scansInexact++
		return nil
	}
	if s.tally.Sum != sum {
		return fmt.Errorf("checksum %016x, want %016x: the records read are not the ones from the start key in key order", s.tally.Sum, sum)
	}
	return nil
}

// verifyFinal reads back, untimed, every record inserted or updated and checks that each field
// holds the last committed version (or one of several when updates of it overlapped); it returns
// the records read.
func (l *recordLog) verifyFinal(ctx context.Context, rd adapters.RecordReader) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var recs []int64
	for i := range l.inserted {
		recs = append(recs, i)
	}
	for i := range l.updates {
		if _, ok := l.inserted[i]; !ok {
			recs = append(recs, i)
		}
	}
	slices.Sort(recs)
	dst := make([][]byte, l.y.FieldCount)
	for _, i := range recs {
		fields, found, err := rd.ReadRecord(ctx, l.y.Key(i), dst)
		if err != nil {
			return 0, fmt.Errorf("read back record %s: %w", l.y.Key(i), err)
		}
		if !found {
			return 0, fmt.Errorf("verification failed: record %s, written during the run, is not found", l.y.Key(i))
		}
		if err := l.checkFields(i, fields, math.MaxInt64, math.MaxInt64); err != nil {
			return 0, fmt.Errorf("verification failed: read back after the run: %w", err)
		}
		for f := range dst {
			dst[f] = fields[f][:0]
		}
	}
	return int64(len(recs)), nil
}

// missingRead notes a read that found no record where one exists; checkPhase fails on it.
func (l *recordLog) missingRead(i int64) {
	l.mu.Lock()
	if l.missing < 0 {
		l.missing = i
	}
	l.mu.Unlock()
}

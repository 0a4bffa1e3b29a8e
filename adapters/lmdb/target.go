//go:build cgo

package lmdb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"

	lmdbgo "github.com/PowerDNS/lmdb-go/lmdb"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/lmdb/native"
	"github.com/dbbench/dbbench/adapters/lmdb/store"
	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/procmem"
)

// checkEvery is how many rows a scan reads between looks at its context.
const checkEvery = 1024

// stepEvery is how often a profiled plain scan times a row's cursor step and decoding
// (docs/profile.md): a step costs about two clock reads, so one row in stepEvery is timed and the
// others read no clock.
const stepEvery = 64

// Open opens an environment (the path option, or a fresh directory under env.TempDir). With batch
// > 0 it also binds the C helpers to lmdb-go's handles, which fails if their self-check does.
func (Adapter) Open(ctx context.Context, opts adapters.Options, env adapters.Env) (adapters.Target, error) {
	s, err := parseSettings(opts)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(s.store, env.TempDir)
	if err != nil {
		return nil, err
	}
	t := &target{st: st, rawRead: s.rawRead, batch: s.batch, leak: s.leak, tempDir: env.TempDir, persons: env.Size}
	if s.batch > 0 {
		if t.layout, err = native.Bind(st.Env, st.DBI); err != nil {
			return nil, errors.Join(exitcode.Infraf("lmdb batch helpers: %v", err), st.Close())
		}
	}
	return t, nil
}

// target is one loaded environment. Reads may run on many goroutines at once; each scan or lookup
// has its own read transaction.
type target struct {
	st      *store.Store
	layout  *native.Layout // set when batch > 0
	rawRead bool
	batch   int
	// leak is the test aid leak_c_bytes_per_txn: C bytes never freed per read transaction.
	leak    int
	tempDir string
	// persons is the dataset size and need the map size it needs, for the insert workload's errors.
	persons int
	need    int64

	// idle holds one read transaction in the reset state between reads. Renewing it is the cheapest
	// honest "own read transaction" lmdb-go offers (a new snapshot, no allocation); a read that
	// finds the slot empty (another goroutine holds it) begins its own.
	idle   atomic.Pointer[lmdbgo.Txn]
	closed atomic.Bool
	// rec is the YCSB records' environment, once LoadRecords made it.
	rec atomic.Pointer[records]
	// prof is the phase recorder of a profiled repeat (nil: not profiled).
	prof atomic.Pointer[phase.Recorder]
}

// The capabilities an lmdb target offers (docs/adapters.md): removing a method fails the build.
var (
	_ adapters.OrderedScanner = (*target)(nil)
	_ adapters.PointReader    = (*target)(nil)
	_ adapters.Inserter       = (*target)(nil)
	_ adapters.Profiler       = (*target)(nil)
)

// Profile takes the recorder of a profiled repeat (nil after it): scans and lookups mark txn (the
// read transaction's renew and reset, a cursor's open and close), get (LMDB's get or cursor step)
// and copy (decoding LMDB's bytes into Go values); see docs/profile.md.
func (t *target) Profile(r *phase.Recorder) { t.prof.Store(r) }

// Load stores the dataset (sorted, MDB_APPEND, txn_size pairs per transaction).
func (t *target) Load(ctx context.Context, ds *dataset.Persons) error {
	if err := t.st.Load(ctx, ds); err != nil {
		return err
	}
	t.persons, t.need = ds.Len(), store.Needed(ds, ds.Len())
	return nil
}

// ScansInKeyOrder is true: an LMDB cursor walks keys in memcmp order.
func (t *target) ScansInKeyOrder() bool { return true }

// takeIdle returns a read transaction in the reset state.
func (t *target) takeIdle() (*lmdbgo.Txn, error) {
	if t.closed.Load() {
		return nil, errors.New("lmdb target is closed")
	}
	procmem.LeakC(t.leak)
	if txn := t.idle.Swap(nil); txn != nil {
		return txn, nil
	}
	txn, err := t.st.Env.BeginTxn(nil, lmdbgo.Readonly)
	if err != nil {
		return nil, t.st.ReadError(err)
	}
	txn.RawRead = t.rawRead
	txn.Reset()
	return txn, nil
}

// putIdle keeps a reset transaction for the next read, or aborts it if one is kept already.
func (t *target) putIdle(txn *lmdbgo.Txn) {
	if !t.idle.CompareAndSwap(nil, txn) {
		txn.Abort()
	}
}

// beginRead starts a read transaction on the current snapshot.
func (t *target) beginRead() (*lmdbgo.Txn, error) {
	txn, err := t.takeIdle()
	if err != nil {
		return nil, err
	}
	if err := txn.Renew(); err != nil {
		txn.Abort()
		return nil, t.st.ReadError(err)
	}
	return txn, nil
}

// endRead ends a read transaction started by beginRead.
func (t *target) endRead(txn *lmdbgo.Txn) {
	txn.Reset()
	t.putIdle(txn)
}

// Scan reads the first n persons in key order in one read transaction. Profiled, the transaction's
// renew, the cursor's open and close and the reset are txn; the plain path times one row in
// stepEvery (its cursor step as get, its decoding as copy), the batched path every cgo call (get)
// and the decoding of its pairs (copy).
func (t *target) Scan(ctx context.Context, n int) (adapters.Tally, error) {
	if n < 0 {
		return adapters.Tally{}, exitcode.Usagef("scan of %d rows", n)
	}
	rec := t.prof.Load()
	m := rec.Start()
	txn, err := t.beginRead()
	if err != nil {
		return adapters.Tally{}, err
	}
	cur, err := txn.OpenCursor(t.st.DBI)
	if err != nil {
		t.endRead(txn)
		return adapters.Tally{}, t.st.ReadError(err)
	}
	m = rec.Lap(m, phase.Txn)
	var tally adapters.Tally
	if t.batch > 0 {
		tally, err = scanBatched(ctx, t.layout, cur, n, t.batch, rec)
	} else {
		tally, err = scanPlain(ctx, cur, n, rec)
	}
	m = rec.Start()
	cur.Close()
	t.endRead(txn)
	rec.Lap(m, phase.Txn)
	if err != nil && ctx.Err() == nil {
		err = t.st.ReadError(err)
	}
	return tally, err
}

// scanPlain is the lmdb-go way: one Cursor.Get (one cgo call) per pair. Profiled (rec not nil), one
// row in stepEvery is read by sampledStep instead; the others read no clock.
func scanPlain(ctx context.Context, cur *lmdbgo.Cursor, n int, rec *phase.Recorder) (adapters.Tally, error) {
	var tally adapters.Tally
	for tally.Rows < int64(n) {
		if tally.Rows%checkEvery == 0 && ctx.Err() != nil {
			return tally, ctx.Err()
		}
		if rec != nil && phase.Sample(int(tally.Rows), stepEvery) {
			sum, ok, err := sampledStep(cur, rec)
			if !ok || err != nil {
				return tally, err
			}
			tally.Rows++
			tally.Sum += sum
			continue
		}
		k, v, err := cur.Get(nil, nil, lmdbgo.Next) // Next on an unpositioned cursor is First
		if lmdbgo.IsNotFound(err) {
			break
		}
		if err != nil {
			return tally, err
		}
		age, name, ok := store.DecodeValue(v)
		if !ok {
			return tally, corrupt(k)
		}
		p := dataset.Person{Email: k, Name: name, Age: age}
		tally.Rows++
		tally.Sum += dataset.RowSum(p.Email, p.Name, p.Age)
	}
	return tally, nil
}

// sampledStep is one row of a profiled plain scan, its cursor step timed as get and its decoding as
// copy, each standing for stepEvery rows'. ok is false at the end of the data.
func sampledStep(cur *lmdbgo.Cursor, rec *phase.Recorder) (sum uint64, ok bool, err error) {
	m := rec.Start()
	k, v, err := cur.Get(nil, nil, lmdbgo.Next)
	m = rec.LapSampled(m, phase.Get, stepEvery)
	if lmdbgo.IsNotFound(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	age, name, ok := store.DecodeValue(v)
	if !ok {
		return 0, false, corrupt(k)
	}
	p := dataset.Person{Email: k, Name: name, Age: age}
	sum = dataset.RowSum(p.Email, p.Name, p.Age)
	rec.LapSampled(m, phase.Copy, stepEvery)
	return sum, true, nil
}

// scanBatched reads up to size pairs per cgo call through native.CursorBatch. Profiled, each call is
// timed as get and the decoding of its pairs as copy (a call moves many pairs: dearer than the clock).
func scanBatched(ctx context.Context, l *native.Layout, cur *lmdbgo.Cursor, n, size int, rec *phase.Recorder) (adapters.Tally, error) {
	b, err := l.NewCursorBatch(cur, size)
	if err != nil {
		return adapters.Tally{}, err
	}
	defer b.Close()
	var tally adapters.Tally
	for calls := 0; tally.Rows < int64(n); calls++ {
		if calls%(checkEvery/min(size, checkEvery)) == 0 && ctx.Err() != nil {
			return tally, ctx.Err()
		}
		m := rec.Start()
		pairs, end, err := b.Next(n - int(tally.Rows))
		m = rec.Lap(m, phase.Get)
		for i := range pairs {
			k := pairs[i].Key()
			age, name, ok := store.DecodeValue(pairs[i].Value())
			if !ok {
				return tally, corrupt(k)
			}
			p := dataset.Person{Email: k, Name: name, Age: age}
			tally.Sum += dataset.RowSum(p.Email, p.Name, p.Age)
		}
		rec.Lap(m, phase.Copy)
		tally.Rows += int64(len(pairs))
		if err != nil || end {
			return tally, err
		}
	}
	return tally, nil
}

func corrupt(key []byte) error {
	return exitcode.Infraf("lmdb value of %q is empty: not a person record", key)
}

// Lookup reads one person in its own read transaction: the pooled transaction renewed, Get, Reset.
// With batch > 0 those three steps and a copy of the value are one cgo call.
func (t *target) Lookup(ctx context.Context, email []byte) (adapters.Tally, error) {
	if t.layout != nil {
		return t.lookupFused(email)
	}
	// Profiled, each lookup is timed (its three cgo calls cost several clock reads): the renew and
	// the reset as txn, Get as get (with raw_read false, lmdb-go's copy of the value too: it happens
	// inside Get), the decoding as copy. Unprofiled, rec is nil and its marks read no clock.
	rec := t.prof.Load()
	m := rec.Start()
	txn, err := t.beginRead()
	if err != nil {
		return adapters.Tally{}, err
	}
	m = rec.Lap(m, phase.Txn)
	v, err := txn.Get(t.st.DBI, email)
	m = rec.Lap(m, phase.Get)
	if err != nil {
		t.endRead(txn)
		if lmdbgo.IsNotFound(err) {
			return adapters.Tally{}, nil
		}
		return adapters.Tally{}, t.st.ReadError(err)
	}
	age, name, ok := store.DecodeValue(v)
	if !ok {
		t.endRead(txn)
		return adapters.Tally{}, corrupt(email)
	}
	p := dataset.Person{Email: email, Name: name, Age: age}
	sum := dataset.RowSum(p.Email, p.Name, p.Age)
	m = rec.Lap(m, phase.Copy)
	t.endRead(txn)
	rec.Lap(m, phase.Txn)
	return adapters.Tally{Rows: 1, Sum: sum}, nil
}

// lookupFused is a lookup in one cgo call (renew, get, copy into scratch, reset). Profiled, that
// call is get (its transaction steps cannot be told apart from it) and the decoding copy.
func (t *target) lookupFused(email []byte) (adapters.Tally, error) {
	txn, err := t.takeIdle()
	if err != nil {
		return adapters.Tally{}, err
	}
	rec := t.prof.Load()
	m := rec.Start()
	var scratch [256]byte
	v, found, err := t.layout.LookupCopy(txn, t.st.DBI, email, scratch[:])
	m = rec.Lap(m, phase.Get)
	t.putIdle(txn) // reset again by LookupCopy
	switch {
	case err != nil:
		return adapters.Tally{}, t.st.ReadError(err)
	case !found:
		return adapters.Tally{}, nil
	}
	age, name, ok := store.DecodeValue(v)
	if !ok {
		return adapters.Tally{}, corrupt(email)
	}
	p := dataset.Person{Email: email, Name: name, Age: age}
	sum := dataset.RowSum(p.Email, p.Name, p.Age)
	rec.Lap(m, phase.Copy)
	return adapters.Tally{Rows: 1, Sum: sum}, nil
}

// Info describes the environment and the paths this target measures.
func (t *target) Info() map[string]any {
	m := t.st.Info()
	m["raw_read"] = t.rawRead
	m["batch"] = t.batch
	if t.leak > 0 {
		m["warnings"] = []string{fmt.Sprintf("test aid leak_c_bytes_per_txn: leaks %d bytes of C memory per read transaction", t.leak)}
	}
	if t.batch > 0 {
		m["scan_path"] = fmt.Sprintf("C helper: %d cursor steps per cgo call, zero-copy", t.batch)
		m["insert_path"] = fmt.Sprintf("C helper: %d mdb_put per cgo call from Go-packed buffers", t.batch)
		m["read_strategy"] = "pooled read txn; one cgo call per lookup does renew + get + copy + reset"
	} else {
		copying := "zero-copy (RawRead)"
		if !t.rawRead {
			copying = "copying"
		}
		m["scan_path"] = "lmdb-go Cursor.Get(Next), one cgo call per pair, " + copying
		m["insert_path"] = "lmdb-go Txn.Put, one cgo call per pair"
		m["read_strategy"] = "pooled read txn: Txn.Renew, Txn.Get (" + copying + "), Txn.Reset per lookup"
	}
	if r := t.rec.Load(); r != nil {
		m["records"] = fmt.Sprintf("an environment of their own in the temp dir: key = record key, value = %d fields as uvarint length + bytes; "+
			"reads and scans (cursor SetRange) in pooled read transactions, each update or insert its own write transaction (LMDB serialises writers)", r.fields)
	}
	return m
}

// Close aborts the pooled read transaction and closes the store, removing what it created.
func (t *target) Close() error {
	if !t.closed.CompareAndSwap(false, true) {
		return nil
	}
	if txn := t.idle.Swap(nil); txn != nil {
		txn.Abort()
	}
	return errors.Join(t.closeRecords(), t.st.Close())
}

// NewInsertSession opens an empty environment under the target's temporary directory (never the
// user's path) with the same settings.
func (t *target) NewInsertSession(ctx context.Context) (adapters.InsertSession, error) {
	st, err := store.OpenFresh(t.st.Config(), t.tempDir, "insert")
	if err != nil {
		return nil, err
	}
	return &insertSession{t: t, st: st, txnSize: t.st.Config().TxnSize, val: make([]byte, 0, 64)}, nil
}

// StoreDir is the environment's directory: the Go protocol client describes its stores by it, for
// dbbench to read them back (docs/protocol.md).
func (t *target) StoreDir() string { return t.st.Dir() }

// StoreDir is the fresh environment's directory.
func (s *insertSession) StoreDir() string { return s.st.Dir() }

// insertSession is one fresh environment for the insert workload. Begin locks the calling goroutine
// to its OS thread (an LMDB write transaction belongs to a thread); Commit or Close unlocks it.
type insertSession struct {
	t       *target
	st      *store.Store
	txn     *lmdbgo.Txn
	put     *native.PutBatch // batched variant
	locked  bool
	txnSize int // puts per write transaction; 0: all in one
	inTxn   int
	total   int
	val     []byte
}

func (s *insertSession) Begin(ctx context.Context) error {
	if s.txn != nil {
		return errors.New("lmdb insert: Begin called twice")
	}
	runtime.LockOSThread()
	s.locked = true
	return s.beginTxn()
}

func (s *insertSession) beginTxn() error {
	txn, err := s.st.Env.BeginTxn(nil, 0)
	if err != nil {
		return exitcode.Infraf("lmdb begin write transaction: %v", err)
	}
	s.txn, s.inTxn = txn, 0
	if s.t.layout == nil {
		return nil
	}
	if s.put == nil {
		s.put, err = s.t.layout.NewPutBatch(txn, s.st.DBI, 0, s.t.batch)
	} else {
		err = s.put.Rebind(txn)
	}
	return err
}

func (s *insertSession) Insert(ctx context.Context, p *dataset.Person) error {
	if s.txn == nil {
		return errors.New("lmdb insert: Insert outside Begin/Commit")
	}
	val, err := store.EncodeValue(s.val[:0], p.Age, p.Name)
	if err != nil {
		return exitcode.Usagef("person %q: %v", p.Email, err)
	}
	s.val = val
	if s.put != nil {
		err = s.put.Add(p.Email, val)
	} else {
		err = s.txn.Put(s.st.DBI, p.Email, val, 0)
	}
	if err != nil {
		return s.writeError(err)
	}
	s.total++
	s.inTxn++
	if s.txnSize > 0 && s.inTxn == s.txnSize {
		if err := s.commitTxn(); err != nil {
			return err
		}
		return s.beginTxn()
	}
	return nil
}

func (s *insertSession) commitTxn() error {
	if s.put != nil {
		if err := s.put.Flush(); err != nil {
			return s.writeError(err)
		}
	}
	err := s.txn.Commit()
	s.txn = nil
	if err != nil {
		return s.writeError(err)
	}
	return nil
}

func (s *insertSession) writeError(err error) error {
	return s.st.WriteError(err, s.t.persons, s.t.need)
}

func (s *insertSession) Commit(ctx context.Context) error {
	if s.txn == nil {
		return errors.New("lmdb insert: Commit without Begin")
	}
	err := s.commitTxn()
	s.unlock()
	return err
}

func (s *insertSession) unlock() {
	if s.locked {
		s.locked = false
		runtime.UnlockOSThread()
	}
}

// Verify reads the fresh environment back in one read transaction.
func (s *insertSession) Verify(ctx context.Context) (adapters.Tally, error) {
	txn, err := s.st.Env.BeginTxn(nil, lmdbgo.Readonly)
	if err != nil {
		return adapters.Tally{}, s.st.ReadError(err)
	}
	defer txn.Abort()
	txn.RawRead = true
	cur, err := txn.OpenCursor(s.st.DBI)
	if err != nil {
		return adapters.Tally{}, s.st.ReadError(err)
	}
	defer cur.Close()
	return scanPlain(ctx, cur, math.MaxInt, nil)
}

// Close aborts an unfinished write transaction (on the goroutine that began it, as the engine
// guarantees) and drops the fresh environment.
func (s *insertSession) Close() error {
	if s.txn != nil {
		s.txn.Abort()
		s.txn = nil
	}
	s.unlock()
	return s.st.Close()
}

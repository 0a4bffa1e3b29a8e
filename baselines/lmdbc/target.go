//go:build cgo

package lmdbc

/*
#cgo CFLAGS: -O2 -Wall -I${SRCDIR}/../../adapters/lmdb/native
#cgo LDFLAGS: -pthread
#cgo noescape dbb_scan
#cgo nocallback dbb_scan
#cgo noescape dbb_lookups
#cgo nocallback dbb_lookups
#cgo noescape dbb_insert
#cgo nocallback dbb_insert
#cgo noescape dbb_scan_concurrent
#cgo nocallback dbb_scan_concurrent
#include "baseline.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unsafe"

	lmdbgo "github.com/PowerDNS/lmdb-go/lmdb"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/lmdb/native"
	"github.com/dbbench/dbbench/adapters/lmdb/store"
	"github.com/dbbench/dbbench/baselines/csupport"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// Open opens the environment through lmdb-go and binds the C code to its handle after the
// self-checks (native.Bind, and this package's own LMDB constants against lmdb-go's).
func (Adapter) Open(ctx context.Context, opts adapters.Options, env adapters.Env) (adapters.Target, error) {
	cfg, err := store.ParseConfig(opts)
	if err != nil {
		return nil, err
	}
	if err := checkConstants(); err != nil {
		return nil, exitcode.Infraf("lmdb-c: %v", err)
	}
	st, err := store.Open(cfg, env.TempDir)
	if err != nil {
		return nil, err
	}
	layout, err := native.Bind(st.Env, st.DBI)
	if err != nil {
		return nil, errors.Join(exitcode.Infraf("lmdb-c: %v", err), st.Close())
	}
	return &target{st: st, layout: layout, tempDir: env.TempDir, persons: env.Size}, nil
}

func checkConstants() error {
	var c C.dbb_base_consts
	C.dbb_base_consts_get(&c)
	return native.CompareConstants("lmdb-c", []native.Constant{
		{Name: "MDB_FIRST", C: int64(c.first), Go: lmdbgo.First},
		{Name: "MDB_NEXT", C: int64(c.next), Go: lmdbgo.Next},
		{Name: "MDB_NOTFOUND", C: int64(c.notfound), Go: int64(lmdbgo.NotFound)},
		{Name: "MDB_RDONLY", C: int64(c.rdonly), Go: lmdbgo.Readonly},
	})
}

// rowSum is the C port of dataset.RowSum, exposed for the test that proves they agree.
func rowSum(email, name []byte, age int) uint64 {
	return uint64(C.dbb_rowsum((*C.uchar)(unsafe.Pointer(unsafe.SliceData(email))), C.size_t(len(email)),
		(*C.uchar)(unsafe.Pointer(unsafe.SliceData(name))), C.size_t(len(name)), C.int(age)))
}

type target struct {
	st      *store.Store
	layout  *native.Layout
	tempDir string
	persons int
	need    int64
	closed  bool
}

// A lmdb-c target times every common workload itself (docs/adapters.md): removing a method fails
// the build.
var _ adapters.SelfTimed = (*target)(nil)

// Load uses the same loader as the Go adapter, so both measure identically built files.
func (t *target) Load(ctx context.Context, ds *dataset.Persons) error {
	if err := t.st.Load(ctx, ds); err != nil {
		return err
	}
	t.persons, t.need = ds.Len(), store.Needed(ds, ds.Len())
	return nil
}

func (t *target) env() (*C.MDB_env, error) {
	if t.closed {
		return nil, errors.New("lmdb-c target is closed")
	}
	return (*C.MDB_env)(t.layout.Env(t.st.Env)), nil
}

// readError classifies a C read's return code.
func (t *target) readError(rc C.int) error {
	switch rc {
	case 0:
		return nil
	case C.DBB_BAD_VALUE:
		return exitcode.Infraf("lmdb-c: a stored value is empty: not a person record")
	case C.DBB_NO_THREAD:
		return exitcode.Infraf("lmdb-c: could not start a reader thread")
	case C.DBB_NO_MEMORY:
		return exitcode.Infraf("lmdb-c: out of memory")
	}
	return t.st.ReadError(native.Error("lmdb-c", int(rc)))
}

// ScansInKeyOrder is true: the C scan walks the cursor from the first key.
func (t *target) ScansInKeyOrder() bool { return true }

// Scan is TimedScan without the time, so the baseline is also an OrderedScanner.
func (t *target) Scan(ctx context.Context, n int) (adapters.Tally, error) {
	return adapters.Untimed(t.TimedScan(ctx, n))
}

// TimedScan reads the first n persons in one read transaction, in C.
func (t *target) TimedScan(ctx context.Context, n int) (adapters.Tally, time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return adapters.Tally{}, 0, err
	}
	if n < 0 {
		return adapters.Tally{}, 0, exitcode.Usagef("scan of %d rows", n)
	}
	env, err := t.env()
	if err != nil {
		return adapters.Tally{}, 0, err
	}
	var tally C.dbb_tally
	var ns C.int64_t
	rc := C.dbb_scan(env, C.MDB_dbi(t.st.DBI), C.int64_t(n), &tally, &ns)
	return adapters.Tally{Rows: int64(tally.rows), Sum: uint64(tally.sum)}, time.Duration(ns), t.readError(rc)
}

// TimedLookups looks up the persons idx of ds, each in its own read transaction, in C.
func (t *target) TimedLookups(ctx context.Context, ds *dataset.Persons, idx []int32, lat []time.Duration) (adapters.Tally, error) {
	if err := ctx.Err(); err != nil {
		return adapters.Tally{}, err
	}
	if err := csupport.CheckLookups("lmdb-c", ds, idx, lat); err != nil || len(idx) == 0 {
		return adapters.Tally{}, err
	}
	env, err := t.env()
	if err != nil {
		return adapters.Tally{}, err
	}
	emails, eoff, _, _, _ := ds.Packed()
	var tally C.dbb_tally
	rc := C.dbb_lookups(env, C.MDB_dbi(t.st.DBI),
		(*C.char)(unsafe.Pointer(unsafe.SliceData(emails))), (*C.uint32_t)(unsafe.Pointer(&eoff[0])),
		(*C.int32_t)(unsafe.Pointer(&idx[0])), C.int64_t(len(idx)),
		(*C.int64_t)(unsafe.Pointer(&lat[0])), &tally)
	return adapters.Tally{Rows: int64(tally.rows), Sum: uint64(tally.sum)}, t.readError(rc)
}

// TimedInsert inserts the first n persons of ds into a fresh environment in one write transaction
// (or txn_size-sized ones), in C, then reads them back in C (untimed) and drops the environment.
func (t *target) TimedInsert(ctx context.Context, ds *dataset.Persons, n int) (adapters.Tally, time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return adapters.Tally{}, 0, err
	}
	if err := csupport.CheckInsert("lmdb-c", ds, n); err != nil {
		return adapters.Tally{}, 0, err
	}
	if t.closed {
		return adapters.Tally{}, 0, errors.New("lmdb-c target is closed")
	}
	fresh, err := store.OpenFresh(t.st.Config(), t.tempDir, "insert")
	if err != nil {
		return adapters.Tally{}, 0, err
	}
	verify, d, err := t.insertInto(fresh, ds, n)
	return verify, d, errors.Join(err, fresh.Close())
}

func (t *target) insertInto(fresh *store.Store, ds *dataset.Persons, n int) (adapters.Tally, time.Duration, error) {
	env := (*C.MDB_env)(t.layout.Env(fresh.Env))
	dbi := C.MDB_dbi(fresh.DBI)
	emails, eoff, names, noff, ages := ds.Packed()
	var ns, done C.int64_t
	rc := C.dbb_insert(env, dbi,
		(*C.char)(unsafe.Pointer(unsafe.SliceData(emails))), (*C.uint32_t)(unsafe.Pointer(&eoff[0])),
		(*C.char)(unsafe.Pointer(unsafe.SliceData(names))), (*C.uint32_t)(unsafe.Pointer(&noff[0])),
		(*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(ages))), C.int64_t(n),
		C.int64_t(fresh.Config().TxnSize), &ns, &done)
	switch {
	case rc == C.DBB_NO_MEMORY:
		return adapters.Tally{}, 0, exitcode.Infraf("lmdb-c insert: out of memory")
	case rc != 0:
		return adapters.Tally{}, 0, fresh.WriteError(native.Error("lmdb-c insert", int(rc)), t.persons, t.need)
	}
	var tally C.dbb_tally
	var scanNs C.int64_t
	rc = C.dbb_scan(env, dbi, C.int64_t(n)+1, &tally, &scanNs)
	if err := t.readError(rc); err != nil {
		return adapters.Tally{}, 0, fmt.Errorf("read back the inserted persons: %w", err)
	}
	return adapters.Tally{Rows: int64(tally.rows), Sum: uint64(tally.sum)}, time.Duration(ns), nil
}

// TimedScanConcurrently starts readers pthreads together, each scanning rows persons in its own
// read transaction.
func (t *target) TimedScanConcurrently(ctx context.Context, readers, rows int, lat []time.Duration) ([]adapters.Tally, time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if err := csupport.CheckReaders("lmdb-c", readers, rows, lat); err != nil {
		return nil, 0, err
	}
	if readers > t.st.Config().MaxReaders {
		return nil, 0, exitcode.Usagef("lmdb-c concurrent: %d readers need max_readers of at least %d (it is %d)",
			readers, readers, t.st.Config().MaxReaders)
	}
	env, err := t.env()
	if err != nil {
		return nil, 0, err
	}
	tallies := make([]C.dbb_tally, readers)
	var wall C.int64_t
	rc := C.dbb_scan_concurrent(env, C.MDB_dbi(t.st.DBI), C.int(readers), C.int64_t(rows),
		(*C.int64_t)(unsafe.Pointer(&lat[0])), &tallies[0], &wall)
	if err := t.readError(rc); err != nil {
		return nil, 0, err
	}
	out := make([]adapters.Tally, readers)
	for i, c := range tallies {
		out[i] = adapters.Tally{Rows: int64(c.rows), Sum: uint64(c.sum)}
	}
	return out, time.Duration(wall), nil
}

// Info describes the environment and how the baseline works.
func (t *target) Info() map[string]any {
	m := t.st.Info()
	m["implementation"] = "C (-O2) on lmdb-go's MDB_env, one cgo call per workload run; timed inside C with clock_gettime(CLOCK_MONOTONIC)"
	m["read_strategy"] = "lookup: one read txn, mdb_txn_renew + mdb_get + mdb_txn_reset per lookup; scan: mdb_txn_begin/abort per scan"
	m["insert_path"] = "mdb_put per pair, value built in a scratch buffer; fresh environment per run"
	m["concurrent"] = "pthreads released together; wall = earliest start to latest end"
	return m
}

// Close closes the store, removing what it created.
func (t *target) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	return t.st.Close()
}

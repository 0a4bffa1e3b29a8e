//go:build cgo

package sqlitec

/*
#cgo CFLAGS: -O2 -Wall
#cgo LDFLAGS: -pthread
#cgo noescape dbbsq_scan
#cgo nocallback dbbsq_scan
#cgo noescape dbbsq_lookups
#cgo nocallback dbbsq_lookups
#cgo noescape dbbsq_insert
#cgo nocallback dbbsq_insert
#cgo noescape dbbsq_scan_concurrent
#cgo nocallback dbbsq_scan_concurrent
#include <stdlib.h>
#include "baseline.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"
	"unsafe"

	_ "github.com/mattn/go-sqlite3" // compiles and links the SQLite amalgamation the C code calls

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/baselines/csupport"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/buildinfo"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/sqlitefile"
)

const (
	lookupSQL = "SELECT email, name, age FROM persons WHERE email = ?"
	createSQL = "CREATE TABLE %s (email TEXT PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL) WITHOUT ROWID"
)

// Open creates the database file (never one that exists) with the sql adapter's settings, the empty
// persons table, and the lookup statement.
func (Adapter) Open(ctx context.Context, opts adapters.Options, env adapters.Env) (adapters.Target, error) {
	path, userPath := opts.String("path"), true
	if path == "" {
		if env.TempDir == "" {
			return nil, exitcode.Usagef("sqlite-c: give a path (no temporary directory here)")
		}
		path, userPath = filepath.Join(env.TempDir, "persons.db"), false
	}
	files, err := sqlitefile.New("sqlite-c", path)
	if err != nil {
		return nil, err
	}
	t := &target{path: C.CString(path), files: files, userPath: userPath}
	if rc := C.dbbsq_open(t.path, &t.db); rc != C.SQLITE_OK {
		return nil, errors.Join(t.fail("open "+path, rc), t.Close())
	}
	if err := t.exec(fmt.Sprintf(createSQL, "persons")); err != nil {
		return nil, errors.Join(err, t.Close())
	}
	sql := C.CString(lookupSQL)
	defer C.free(unsafe.Pointer(sql))
	if rc := C.sqlite3_prepare_v2(t.db, sql, -1, &t.lookup, nil); rc != C.SQLITE_OK {
		return nil, errors.Join(t.fail("prepare the lookup", rc), t.Close())
	}
	return t, nil
}

// target is one database file and its main connection. The engine runs one workload at a time; the
// concurrent workload opens a connection per reader thread. The main connection is opened with
// SQLITE_OPEN_NOMUTEX, so mu gives it to one call at a time: a Scanner must be safe for concurrent
// use (adapters.Scanner), and the lock is taken outside the region C times.
type target struct {
	mu       sync.Mutex
	db       *C.sqlite3
	lookup   *C.sqlite3_stmt
	path     *C.char
	files    sqlitefile.Files // the database and its companions: ours, removed at Close
	userPath bool
	closed   bool
}

// A sqlite-c target times every common workload itself (docs/adapters.md): removing a method fails
// the build.
var _ adapters.SelfTimed = (*target)(nil)

// fail is the error for a failed SQLite call, with SQLite's message.
func (t *target) fail(what string, rc C.int) error {
	switch rc {
	case C.DBBSQ_NO_THREAD:
		return exitcode.Infraf("sqlite-c %s: could not start a reader thread", what)
	case C.DBBSQ_NO_MEMORY:
		return exitcode.Infraf("sqlite-c %s: out of memory", what)
	}
	msg := C.GoString(C.sqlite3_errstr(rc))
	if t.db != nil {
		msg = C.GoString(C.sqlite3_errmsg(t.db))
	}
	return exitcode.Infraf("sqlite-c %s: %s (code %d)", what, msg, int(rc))
}

func (t *target) exec(sql string) error {
	if t.closed {
		return errors.New("sqlite-c target is closed")
	}
	cs := C.CString(sql)
	defer C.free(unsafe.Pointer(cs))
	if rc := C.sqlite3_exec(t.db, cs, nil, nil, nil); rc != C.SQLITE_OK {
		return t.fail(sql, rc)
	}
	return nil
}

func (t *target) open() error {
	if t.closed {
		return errors.New("sqlite-c target is closed")
	}
	return nil
}

// packed is ds's buffers as C pointers.
type packed struct {
	emails, names *C.char
	eoff, noff    *C.uint32_t
	ages          *C.uint8_t
}

func pack(ds *dataset.Persons) packed {
	emails, eoff, names, noff, ages := ds.Packed()
	return packed{
		emails: (*C.char)(unsafe.Pointer(unsafe.SliceData(emails))), eoff: (*C.uint32_t)(unsafe.Pointer(&eoff[0])),
		names: (*C.char)(unsafe.Pointer(unsafe.SliceData(names))), noff: (*C.uint32_t)(unsafe.Pointer(&noff[0])),
		ages: (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(ages))),
	}
}

// Load inserts the persons in email order in one transaction of prepared inserts, in C.
func (t *target) Load(ctx context.Context, ds *dataset.Persons) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.open(); err != nil {
		return err
	}
	order := ds.Sorted()
	if len(order) == 0 {
		return nil
	}
	p := pack(ds)
	rc := C.dbbsq_load(t.db, p.emails, p.eoff, p.names, p.noff, p.ages,
		(*C.int32_t)(unsafe.Pointer(&order[0])), C.int64_t(len(order)))
	if rc != C.SQLITE_OK {
		return t.fail("load", rc)
	}
	return nil
}

// ScansInKeyOrder is true: ORDER BY email under SQLite's BINARY collation is byte order.
func (t *target) ScansInKeyOrder() bool { return true }

// Scan is TimedScan without the time, so the baseline is also an OrderedScanner.
func (t *target) Scan(ctx context.Context, n int) (adapters.Tally, error) {
	return adapters.Untimed(t.TimedScan(ctx, n))
}

// TimedScan reads the first n persons in email order in one read transaction, in C.
func (t *target) TimedScan(ctx context.Context, n int) (adapters.Tally, time.Duration, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := errors.Join(ctx.Err(), t.open()); err != nil {
		return adapters.Tally{}, 0, err
	}
	var tally C.dbbsq_tally
	var ns C.int64_t
	if rc := C.dbbsq_scan(t.db, C.int64_t(n), &tally, &ns); rc != C.SQLITE_OK {
		return adapters.Tally{}, 0, t.fail("scan", rc)
	}
	return adapters.Tally{Rows: int64(tally.rows), Sum: uint64(tally.sum)}, time.Duration(ns), nil
}

// TimedLookups runs the prepared lookup for each person idx of ds, each its own transaction, in C.
func (t *target) TimedLookups(ctx context.Context, ds *dataset.Persons, idx []int32, lat []time.Duration) (adapters.Tally, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := errors.Join(ctx.Err(), t.open()); err != nil {
		return adapters.Tally{}, err
	}
	if err := csupport.CheckLookups("sqlite-c", ds, idx, lat); err != nil || len(idx) == 0 {
		return adapters.Tally{}, err
	}
	p := pack(ds)
	var tally C.dbbsq_tally
	rc := C.dbbsq_lookups(t.db, t.lookup, p.emails, p.eoff, (*C.int32_t)(unsafe.Pointer(&idx[0])), C.int64_t(len(idx)),
		(*C.int64_t)(unsafe.Pointer(&lat[0])), &tally)
	if rc != C.SQLITE_OK {
		return adapters.Tally{}, t.fail("lookup", rc)
	}
	return adapters.Tally{Rows: int64(tally.rows), Sum: uint64(tally.sum)}, nil
}

// TimedInsert creates the fresh table persons_insert (untimed), inserts the first n persons in one
// transaction of prepared inserts (timed, in C), reads the table back and drops it.
func (t *target) TimedInsert(ctx context.Context, ds *dataset.Persons, n int) (adapters.Tally, time.Duration, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return adapters.Tally{}, 0, err
	}
	if err := csupport.CheckInsert("sqlite-c", ds, n); err != nil {
		return adapters.Tally{}, 0, err
	}
	if err := t.exec(fmt.Sprintf(createSQL, "persons_insert")); err != nil {
		return adapters.Tally{}, 0, err
	}
	verify, d, err := t.insertInto(ds, n)
	return verify, d, errors.Join(err, t.exec("DROP TABLE persons_insert"))
}

func (t *target) insertInto(ds *dataset.Persons, n int) (adapters.Tally, time.Duration, error) {
	p := pack(ds)
	var ns C.int64_t
	if rc := C.dbbsq_insert(t.db, p.emails, p.eoff, p.names, p.noff, p.ages, C.int64_t(n), &ns); rc != C.SQLITE_OK {
		return adapters.Tally{}, 0, t.fail("insert", rc)
	}
	sql := C.CString("SELECT email, name, age FROM persons_insert")
	defer C.free(unsafe.Pointer(sql))
	var tally C.dbbsq_tally
	if rc := C.dbbsq_read_all(t.db, sql, &tally); rc != C.SQLITE_OK {
		return adapters.Tally{}, 0, t.fail("read back the inserted persons", rc)
	}
	return adapters.Tally{Rows: int64(tally.rows), Sum: uint64(tally.sum)}, time.Duration(ns), nil
}

// TimedScanConcurrently opens a connection per reader and releases readers pthreads together, each
// scanning rows persons in its own read transaction.
func (t *target) TimedScanConcurrently(ctx context.Context, readers, rows int, lat []time.Duration) ([]adapters.Tally, time.Duration, error) {
	t.mu.Lock()
	err := errors.Join(ctx.Err(), t.open())
	t.mu.Unlock()
	if err != nil {
		return nil, 0, err
	}
	if err := csupport.CheckReaders("sqlite-c", readers, rows, lat); err != nil {
		return nil, 0, err
	}
	tallies := make([]C.dbbsq_tally, readers)
	var wall C.int64_t
	rc := C.dbbsq_scan_concurrent(t.path, C.int(readers), C.int64_t(rows), (*C.int64_t)(unsafe.Pointer(&lat[0])),
		&tallies[0], &wall)
	if rc != C.SQLITE_OK {
		return nil, 0, t.fail("concurrent", rc)
	}
	out := make([]adapters.Tally, readers)
	for i, c := range tallies {
		out[i] = adapters.Tally{Rows: int64(c.rows), Sum: uint64(c.sum)}
	}
	return out, time.Duration(wall), nil
}

// Info describes the SQLite build and settings and how the baseline works.
func (t *target) Info() map[string]any {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := map[string]any{
		"sqlite_version": C.GoString(C.sqlite3_libversion()),
		"sqlite_build":   "the amalgamation compiled by " + buildinfo.Named("github.com/mattn/go-sqlite3") + " (cgo, -O2, SQLITE_THREADSAFE=1)",
		"implementation": "C (-O2) calling SQLite's C API, one cgo call per workload run; timed inside C with clock_gettime(CLOCK_MONOTONIC)",
		"connections":    "SQLITE_OPEN_NOMUTEX, one per thread; the concurrent workload opens one per reader before the start gate",
		"scan":           "BEGIN, SELECT ... ORDER BY email LIMIT ? prepared in the transaction, sqlite3_step per row, COMMIT",
		"lookup":         "one prepared statement: bind, step, reset per lookup (its own autocommit transaction)",
		"load_path":      "one transaction of prepared inserts in email order",
		"storage":        "file",
	}
	if t.userPath {
		m["path"] = t.files[0]
	}
	if !t.closed {
		var buf [64]C.char
		for _, k := range []string{"journal_mode", "synchronous"} {
			q := C.CString("PRAGMA " + k)
			if C.dbbsq_query_text(t.db, q, &buf[0], C.int(len(buf))) == C.SQLITE_OK {
				m[k] = C.GoString(&buf[0])
			}
			C.free(unsafe.Pointer(q))
		}
	}
	return m
}

// Close closes the connection and removes the database file and its companions (all created here).
func (t *target) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	var err error
	if t.lookup != nil {
		C.sqlite3_finalize(t.lookup)
	}
	if t.db != nil {
		if rc := C.sqlite3_close_v2(t.db); rc != C.SQLITE_OK {
			err = exitcode.Infraf("sqlite-c close: %s", C.GoString(C.sqlite3_errstr(rc)))
		}
	}
	C.free(unsafe.Pointer(t.path))
	return errors.Join(err, t.files.Remove())
}

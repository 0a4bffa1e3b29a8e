//go:build cgo

package native

/*
#cgo CFLAGS: -O2 -Wall
#cgo noescape dbb_cursor_batch
#cgo nocallback dbb_cursor_batch
#cgo noescape dbb_put_batch
#cgo nocallback dbb_put_batch
#cgo noescape dbb_lookup_copy
#cgo nocallback dbb_lookup_copy
#include <stdlib.h>
#include "native.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"syscall"
	"unsafe"

	lmdbgo "github.com/PowerDNS/lmdb-go/lmdb"
)

// Layout holds the offsets of the C handle fields inside lmdb-go's Env, Txn and Cursor. Only Bind
// hands one out, after verifying it against a live environment.
type Layout struct {
	env, txn, cursor uintptr
}

// Bind locates lmdb-go's C handles and checks them on env and its database dbi: the handles must
// agree with what LMDB reports about them, the library must be the LMDB lmdb-go reports, and the C
// constants the helpers were compiled with must equal lmdb-go's. Any mismatch is an error; no C
// helper runs without a Layout from Bind.
func Bind(env *lmdbgo.Env, dbi lmdbgo.DBI) (*Layout, error) {
	l, err := resolve()
	if err != nil {
		return nil, err
	}
	if err := checkConstants(); err != nil {
		return nil, err
	}
	if err := checkVersion(); err != nil {
		return nil, err
	}
	if err := l.verify(env, dbi); err != nil {
		return nil, err
	}
	return l, nil
}

func resolve() (*Layout, error) {
	var l Layout
	var err error
	if l.env, err = handleOffset(reflect.TypeFor[lmdbgo.Env](), "_env", "MDB_env"); err != nil {
		return nil, err
	}
	if l.txn, err = handleOffset(reflect.TypeFor[lmdbgo.Txn](), "_txn", "MDB_txn"); err != nil {
		return nil, err
	}
	if l.cursor, err = handleOffset(reflect.TypeFor[lmdbgo.Cursor](), "_c", "MDB_cursor"); err != nil {
		return nil, err
	}
	if unsafe.Sizeof(Pair{}) != C.sizeof_dbb_pair {
		return nil, fmt.Errorf("native.Pair is %d bytes but the C dbb_pair is %d", unsafe.Sizeof(Pair{}), C.sizeof_dbb_pair)
	}
	return &l, nil
}

// handleOffset finds the offset of a pointer field to the named C struct.
func handleOffset(t reflect.Type, field, cStruct string) (uintptr, error) {
	f, ok := t.FieldByName(field)
	if !ok {
		return 0, fmt.Errorf("lmdb-go's %s has no field %s: the C handle accessor only knows github.com/PowerDNS/lmdb-go v1.9.3", t, field)
	}
	if f.Type.Kind() != reflect.Pointer || !strings.HasSuffix(f.Type.Elem().Name(), cStruct) {
		return 0, fmt.Errorf("lmdb-go's %s.%s is a %s, not a pointer to C %s", t, field, f.Type, cStruct)
	}
	return f.Offset, nil
}

func checkConstants() error {
	var c C.dbb_consts
	C.dbb_native_consts(&c)
	return CompareConstants("native", []Constant{
		{"MDB_FIRST", int64(c.first), lmdbgo.First},
		{"MDB_NEXT", int64(c.next), lmdbgo.Next},
		{"MDB_NOTFOUND", int64(c.notfound), int64(lmdbgo.NotFound)},
		{"MDB_MAP_FULL", int64(c.map_full), int64(lmdbgo.MapFull)},
		{"MDB_READERS_FULL", int64(c.readers_full), int64(lmdbgo.ReadersFull)},
		{"MDB_KEYEXIST", int64(c.keyexist), int64(lmdbgo.KeyExist)},
		{"MDB_RDONLY", int64(c.rdonly), lmdbgo.Readonly},
		{"MDB_APPEND", int64(c.append), lmdbgo.Append},
	})
}

// Constant pairs a value a C file was compiled with and lmdb-go's value of the same LMDB constant.
type Constant struct {
	Name  string
	C, Go int64
}

// CompareConstants reports every constant whose C and lmdb-go values differ.
func CompareConstants(who string, cs []Constant) error {
	var errs []error
	for _, c := range cs {
		if c.C != c.Go {
			errs = append(errs, fmt.Errorf("%s: C %s is %d but lmdb-go's is %d", who, c.Name, c.C, c.Go))
		}
	}
	return errors.Join(errs...)
}

func checkVersion() error {
	var maj, minor, patch C.int
	s := C.GoString(C.mdb_version(&maj, &minor, &patch))
	gmaj, gmin, gpatch, gs := lmdbgo.Version()
	if int(maj) != gmaj || int(minor) != gmin || int(patch) != gpatch || s != gs {
		return fmt.Errorf("the C helpers link LMDB %q but lmdb-go reports %q: two LMDB builds in one binary", s, gs)
	}
	return nil
}

// verify opens a read transaction and a cursor through lmdb-go and checks that the handles read at
// the layout's offsets are the ones LMDB knows: the txn's env, its id, the cursor's txn and DBI.
func (l *Layout) verify(env *lmdbgo.Env, dbi lmdbgo.DBI) error {
	e := l.Env(env)
	if e == nil {
		return errors.New("lmdb-go environment has no C handle (closed?)")
	}
	txn, err := env.BeginTxn(nil, lmdbgo.Readonly)
	if err != nil {
		return fmt.Errorf("self-check read transaction: %w", err)
	}
	defer txn.Abort()
	cur, err := txn.OpenCursor(dbi)
	if err != nil {
		return fmt.Errorf("self-check cursor: %w", err)
	}
	defer cur.Close()
	t := (*C.MDB_txn)(l.Txn(txn))
	c := (*C.MDB_cursor)(l.Cursor(cur))
	switch {
	case t == nil || c == nil:
		return errors.New("lmdb-go handle self-check: nil txn or cursor handle")
	case unsafe.Pointer(C.mdb_txn_env(t)) != e:
		return errors.New("lmdb-go handle self-check: the txn handle does not belong to the env handle")
	case uintptr(C.mdb_txn_id(t)) != txn.ID():
		return fmt.Errorf("lmdb-go handle self-check: txn id %d via the handle, %d via lmdb-go", uintptr(C.mdb_txn_id(t)), txn.ID())
	case C.mdb_cursor_txn(c) != t:
		return errors.New("lmdb-go handle self-check: the cursor handle does not belong to the txn handle")
	case lmdbgo.DBI(C.mdb_cursor_dbi(c)) != dbi:
		return fmt.Errorf("lmdb-go handle self-check: cursor DBI %d via the handle, %d via lmdb-go", C.mdb_cursor_dbi(c), dbi)
	}
	return nil
}

// Env returns the MDB_env* of an lmdb-go environment (nil once it is closed).
func (l *Layout) Env(e *lmdbgo.Env) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(e), l.env))
}

// Txn returns the MDB_txn* of an lmdb-go transaction (nil once it has ended).
func (l *Layout) Txn(t *lmdbgo.Txn) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(t), l.txn))
}

// Cursor returns the MDB_cursor* of an lmdb-go cursor (nil once it is closed).
func (l *Layout) Cursor(c *lmdbgo.Cursor) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(c), l.cursor))
}

// Error turns an LMDB return code into the error lmdb-go would return for it, so callers can use
// lmdb-go's IsNotFound, IsMapFull and IsErrno on it.
func Error(op string, rc int) error {
	if rc == 0 {
		return nil
	}
	if int(lmdbgo.KeyExist) <= rc && rc <= int(lmdbgo.BadDBI) {
		return &lmdbgo.OpError{Op: op, Errno: lmdbgo.Errno(rc)}
	}
	return &lmdbgo.OpError{Op: op, Errno: syscall.Errno(rc)}
}

// Pair is one key/value pair a CursorBatch read; the bytes live in LMDB's map and are valid until
// the transaction ends. Its layout mirrors the C dbb_pair (checked by Bind).
type Pair struct {
	k  unsafe.Pointer
	kn uintptr
	v  unsafe.Pointer
	vn uintptr
}

// Key returns the pair's key bytes without copying them.
func (p *Pair) Key() []byte { return unsafe.Slice((*byte)(p.k), p.kn) }

// Value returns the pair's value bytes without copying them.
func (p *Pair) Value() []byte { return unsafe.Slice((*byte)(p.v), p.vn) }

// CursorBatch steps an lmdb-go cursor many times per cgo call.
type CursorBatch struct {
	cur   *C.MDB_cursor
	buf   unsafe.Pointer // C array of dbb_pair, so the records hold no Go pointers
	pairs []Pair         // the same array seen from Go
	op    C.int
}

// NewCursorBatch prepares to read cur from its first key, at most size pairs per call. Close frees it.
func (l *Layout) NewCursorBatch(cur *lmdbgo.Cursor, size int) (*CursorBatch, error) {
	if size < 1 || size > MaxBatch {
		return nil, fmt.Errorf("cursor batch size %d outside 1..%d", size, MaxBatch)
	}
	c := (*C.MDB_cursor)(l.Cursor(cur))
	if c == nil {
		return nil, errors.New("cursor batch: the cursor is closed")
	}
	buf := C.malloc(C.size_t(size) * C.sizeof_dbb_pair)
	if buf == nil {
		return nil, errors.New("cursor batch: out of C memory")
	}
	return &CursorBatch{cur: c, buf: buf, pairs: unsafe.Slice((*Pair)(buf), size), op: C.DBB_MDB_FIRST}, nil
}

// Next reads up to max pairs (at most the batch size) after those already read. end reports that
// the cursor ran out of keys; the pairs read before are returned either way.
func (b *CursorBatch) Next(max int) (pairs []Pair, end bool, err error) {
	max = min(max, len(b.pairs))
	if max <= 0 {
		return nil, false, nil
	}
	var n C.int
	rc := C.dbb_cursor_batch(b.cur, b.op, (*C.dbb_pair)(b.buf), C.int(max), &n)
	b.op = C.DBB_MDB_NEXT
	switch rc {
	case 0:
		return b.pairs[:n], false, nil
	case C.DBB_MDB_NOTFOUND:
		return b.pairs[:n], true, nil
	}
	return b.pairs[:n], true, Error("mdb_cursor_get", int(rc))
}

// Close frees the batch's C memory; the cursor itself stays open.
func (b *CursorBatch) Close() {
	if b.buf != nil {
		C.free(b.buf)
		b.buf, b.pairs = nil, nil
	}
}

// PutBatch gathers pairs in Go buffers and stores them with one cgo call per batch, inside an
// lmdb-go write transaction. Like the transaction, it must be used on one locked goroutine.
type PutBatch struct {
	layout     *Layout
	txn        *C.MDB_txn
	dbi        C.MDB_dbi
	flags      C.uint
	size       int
	keys, vals []byte
	klen, vlen []uint32
}

// NewPutBatch prepares to put pairs into dbi inside txn with mdb_put flags, size pairs per call.
func (l *Layout) NewPutBatch(txn *lmdbgo.Txn, dbi lmdbgo.DBI, flags uint, size int) (*PutBatch, error) {
	if size < 1 || size > MaxBatch {
		return nil, fmt.Errorf("put batch size %d outside 1..%d", size, MaxBatch)
	}
	b := &PutBatch{
		layout: l, dbi: C.MDB_dbi(dbi), flags: C.uint(flags), size: size,
		keys: make([]byte, 0, size*48), vals: make([]byte, 0, size*32),
		klen: make([]uint32, 0, size), vlen: make([]uint32, 0, size),
	}
	return b, b.Rebind(txn)
}

// Rebind points the batch at a new write transaction; pending pairs must have been flushed.
func (b *PutBatch) Rebind(txn *lmdbgo.Txn) error {
	if len(b.klen) > 0 {
		return fmt.Errorf("put batch: %d pairs not flushed before rebinding", len(b.klen))
	}
	b.txn = (*C.MDB_txn)(b.layout.Txn(txn))
	if b.txn == nil {
		return errors.New("put batch: the transaction has ended")
	}
	return nil
}

// Pending is the number of pairs added but not yet stored.
func (b *PutBatch) Pending() int { return len(b.klen) }

// Add copies one pair into the batch and stores the batch once it is full.
func (b *PutBatch) Add(k, v []byte) error {
	if uint64(len(v)) > math.MaxUint32 {
		return fmt.Errorf("put batch: a %d-byte value is too large", len(v))
	}
	b.keys = append(b.keys, k...)
	b.klen = append(b.klen, uint32(len(k)))
	b.vals = append(b.vals, v...)
	b.vlen = append(b.vlen, uint32(len(v)))
	if len(b.klen) >= b.size {
		return b.Flush()
	}
	return nil
}

// Flush stores the pending pairs. On an error the pairs before the failed one are stored and the
// rest dropped; the caller should abort the transaction.
func (b *PutBatch) Flush() error {
	n := len(b.klen)
	if n == 0 {
		return nil
	}
	var done C.int
	rc := C.dbb_put_batch(b.txn, b.dbi, b.flags,
		(*C.char)(unsafe.Pointer(unsafe.SliceData(b.keys))), (*C.uint32_t)(unsafe.Pointer(&b.klen[0])),
		(*C.char)(unsafe.Pointer(unsafe.SliceData(b.vals))), (*C.uint32_t)(unsafe.Pointer(&b.vlen[0])),
		C.int(n), &done)
	b.keys, b.vals, b.klen, b.vlen = b.keys[:0], b.vals[:0], b.klen[:0], b.vlen[:0]
	return Error("mdb_put", int(rc))
}

// LookupCopy performs one lookup in its own read transaction with a single cgo call: txn (an lmdb-go
// read transaction in the reset state) is renewed, key looked up, the value copied into buf and txn
// reset again. It returns the value (in buf, or in a new slice if buf was too small) and whether the
// key was found. txn is reset again when LookupCopy returns, whatever happened.
func (l *Layout) LookupCopy(txn *lmdbgo.Txn, dbi lmdbgo.DBI, key, buf []byte) (val []byte, found bool, err error) {
	t := (*C.MDB_txn)(l.Txn(txn))
	if t == nil {
		return nil, false, errors.New("lookup: the transaction has ended")
	}
	for range 3 {
		var vn C.size_t
		rc := C.dbb_lookup_copy(t, C.MDB_dbi(dbi),
			(*C.char)(unsafe.Pointer(unsafe.SliceData(key))), C.size_t(len(key)),
			(*C.char)(unsafe.Pointer(unsafe.SliceData(buf))), C.size_t(len(buf)), &vn)
		switch {
		case rc == C.DBB_MDB_NOTFOUND:
			return nil, false, nil
		case rc != 0:
			return nil, false, Error("mdb_get", int(rc))
		case int(vn) <= len(buf):
			return buf[:vn], true, nil
		}
		// The value did not fit: look it up again with room for it.
		buf = make([]byte, vn)
	}
	return nil, false, errors.New("lookup: the value kept growing between attempts")
}

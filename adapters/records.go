package adapters

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// The record capabilities: what YCSB's core workloads (workloads/ycsb) ask of a store. A record is
// dataset.YCSB's: a key ("user..." bytes) and FieldCount fields field0, field1, ... A target that
// holds records implements RecordLoader and then one interface per operation type it can serve; a
// mix that needs an operation the target lacks is refused at validation, with the reason. A
// read-modify-write is a RecordReader's read followed by a RecordUpdater's update, timed together,
// as YCSB's client does it. Every method must be safe for concurrent use (an open-loop run keeps
// several operations in flight), and each is one operation in its own transaction where the store
// has transactions.

// RecordLoader stores records [0, n) of y with the store's bulk path, in a fresh table (YCSB's load
// phase; untimed, reported as load throughput). The engine calls it instead of Target.Load.
type RecordLoader interface {
	LoadRecords(ctx context.Context, y dataset.YCSB, n int64) error
}

// RecordReader reads every field of one record, in field order, appending each value to the
// matching slice of dst from its start (dst[f][:0]: a caller passes the previous read's result back
// to reuse its arrays; len(dst) == FieldCount) and returning them; the bytes are the caller's, never
// the store's. found is false, with a nil error, when no record has that key.
type RecordReader interface {
	ReadRecord(ctx context.Context, key []byte, dst [][]byte) (fields [][]byte, found bool, err error)
}

// RecordUpdater overwrites one field of an existing record (YCSB's update with writeallfields=false).
// Updating a missing record, or a field outside [0, FieldCount), is an error. The store keeps no
// reference to value (the caller reuses it).
type RecordUpdater interface {
	UpdateRecord(ctx context.Context, key []byte, field int, value []byte) error
}

// RecordInserter adds one new record of FieldCount fields; a key that exists already is an error.
// The store keeps no reference to key or fields.
type RecordInserter interface {
	InsertRecord(ctx context.Context, key []byte, fields [][]byte) error
}

// RecordScanner reads up to n records in key byte order from the first key >= start, decoding
// every field, and returns their tally: Rows the records read, Sum the sum of
// dataset.RecordSum(key, fields) over them.
type RecordScanner interface {
	ScanRecords(ctx context.Context, start []byte, n int) (Tally, error)
}

// CheckUpdateField is a RecordUpdater's check of field against its records' fields: nil for a field
// in [0, fields), else the error, which names the store ("lmdb: update of field 9 of ...").
func CheckUpdateField(store string, key []byte, field, fields int) error {
	if field < 0 || field >= fields {
		return fmt.Errorf("%s: update of field %d of %q: records have %d fields", store, field, key, fields)
	}
	return nil
}

// CheckInsertFields is a RecordInserter's check that a new record has as many fields as its records:
// nil when n == fields, else the error, which names the store.
func CheckInsertFields(store string, key []byte, n, fields int) error {
	if n != fields {
		return fmt.Errorf("%s: insert of %q with %d fields: records have %d", store, key, n, fields)
	}
	return nil
}

// RecordOps returns the operation types of YCSB's mixes that target can serve, in ycsb.Ops order:
// none without a RecordLoader (records it cannot load it cannot serve), and a read-modify-write
// only with both a RecordReader and a RecordUpdater.
func RecordOps(target Target) []ycsb.Op {
	var out []ycsb.Op
	for _, op := range ycsb.Ops() {
		if lacksFor(target, op) == "" {
			out = append(out, op)
		}
	}
	return out
}

// MissingRecordOps returns nil when target can serve every operation type of needed, or an error
// naming each one it cannot with the interface it lacks, in ycsb.Ops order, for a validation that
// refuses the mix ("cannot serve update (no adapters.RecordUpdater), scan (no
// adapters.RecordScanner)").
func MissingRecordOps(target Target, needed []ycsb.Op) error {
	var parts []string
	for _, op := range ycsb.Ops() {
		if !slices.Contains(needed, op) {
			continue
		}
		if lacks := lacksFor(target, op); lacks != "" {
			parts = append(parts, fmt.Sprintf("%s (no adapters.%s)", op, lacks))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("cannot serve %s", strings.Join(parts, ", "))
}

// lacksFor names the first record interface target lacks for op, "" when it has them all.
func lacksFor(target Target, op ycsb.Op) string {
	if _, ok := target.(RecordLoader); !ok {
		return "RecordLoader"
	}
	_, reads := target.(RecordReader)
	_, updates := target.(RecordUpdater)
	switch op {
	case ycsb.Read, ycsb.ReadModifyWrite:
		if !reads {
			return "RecordReader"
		}
		if op == ycsb.ReadModifyWrite && !updates {
			return "RecordUpdater"
		}
	case ycsb.Update:
		if !updates {
			return "RecordUpdater"
		}
	case ycsb.Insert:
		if _, ok := target.(RecordInserter); !ok {
			return "RecordInserter"
		}
	case ycsb.Scan:
		if _, ok := target.(RecordScanner); !ok {
			return "RecordScanner"
		}
	default:
		return fmt.Sprintf("record operation %s", op)
	}
	return ""
}

// MissingRecordOps is MissingRecordOps for an adapter's declaration (Info.Records), before any
// target is opened: nil when it declares every operation type of needed, or the error naming the
// others ("cannot serve update, scan (its targets do not implement those record capabilities)").
func (info Info) MissingRecordOps(needed []ycsb.Op) error {
	var missing []string
	for _, op := range ycsb.Ops() {
		if slices.Contains(needed, op) && !slices.Contains(info.Records, op) {
			missing = append(missing, op.String())
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("cannot serve %s (its targets do not implement those record capabilities, adapters/records.go)", strings.Join(missing, ", "))
}

// RecordStore is a target that serves every operation type of YCSB's core workloads (a store states
// it at compile time in one line, as adapters.SelfTimed does for the common workloads).
type RecordStore interface {
	RecordLoader
	RecordReader
	RecordUpdater
	RecordInserter
	RecordScanner
}

// A target whose record operations are timed by the store's own clock (a client in another process,
// adapters/exec, which reports each operation's time) gives that time to a caller that asks for it
// with WithRecordTime: the engine's round trip around such a call holds the process boundary too.

type recordTimeKey struct{}

// WithRecordTime returns a context that asks the record method it is passed to for the store's own
// time of its operation, which it stores in *d (left 0 by a target that does not time itself). One
// slot per call: a slot must not be shared by calls in flight at once.
func WithRecordTime(ctx context.Context, d *time.Duration) context.Context {
	return context.WithValue(ctx, recordTimeKey{}, d)
}

// RecordTimer is a record store whose operations time themselves (SetRecordTime): a caller asks
// for that time (WithRecordTime) only of a target that says so, so that no other target's timed
// calls carry the context that asks.
type RecordTimer interface {
	TimesRecords() bool
}

// SetRecordTime stores a record operation's own time where WithRecordTime asked for it, if it did.
func SetRecordTime(ctx context.Context, d time.Duration) {
	if p, ok := ctx.Value(recordTimeKey{}).(*time.Duration); ok {
		*p = d
	}
}

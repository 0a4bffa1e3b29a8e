package adapters

import (
	"context"

	"github.com/dbbench/dbbench/dataset"
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
// matching slice of dst (which it may reuse; len(dst) == FieldCount) and returning them; found is
// false, with a nil error, when no record has that key.
type RecordReader interface {
	ReadRecord(ctx context.Context, key []byte, dst [][]byte) (fields [][]byte, found bool, err error)
}

// RecordUpdater overwrites one field of an existing record (YCSB's update with writeallfields=false).
// Updating a missing record is an error.
type RecordUpdater interface {
	UpdateRecord(ctx context.Context, key []byte, field int, value []byte) error
}

// RecordInserter adds one new record; a key that exists already is an error.
type RecordInserter interface {
	InsertRecord(ctx context.Context, key []byte, fields [][]byte) error
}

// RecordScanner reads up to n records in key byte order from the first key >= start, decoding
// every field, and returns their tally: Rows the records read, Sum the sum of
// dataset.RecordSum(key, fields) over them.
type RecordScanner interface {
	ScanRecords(ctx context.Context, start []byte, n int) (Tally, error)
}

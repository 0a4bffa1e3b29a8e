package protocol

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// The record messages of docs/protocol.md (capability ops): load_records and do.
const (
	OpLoadRecords = "load_records"
	OpDo          = "do"
)

// The kinds of a do request. A read-modify-write is a read and an update: two requests.
const (
	KindRead   = "read"
	KindUpdate = "update"
	KindInsert = "insert"
	KindScan   = "scan"
)

type (
	// LoadRecordsRequest asks for the records of File in a fresh store.
	LoadRecordsRequest struct {
		Header
		File        string `json:"file"`
		Count       int64  `json:"count"`
		FieldCount  int    `json:"fieldcount"`
		FieldLength int    `json:"fieldlength"`
	}
	// LoadRecordsReply says how many records the client stored.
	LoadRecordsReply struct {
		ID   int64 `json:"id"`
		Rows int64 `json:"rows"`
	}
	// DoRequest is one operation on the records; which fields it carries depends on Kind.
	DoRequest struct {
		Header
		Kind   string   `json:"kind"`
		Key    string   `json:"key"`
		Field  *int     `json:"field,omitempty"`  // update
		Value  *string  `json:"value,omitempty"`  // update
		Fields []string `json:"fields,omitempty"` // insert
		Count  *int     `json:"count,omitempty"`  // scan
	}
	// DoReply is every do's reply: the client's time, plus a read's fields or a scan's tally.
	DoReply struct {
		ID       int64    `json:"id"`
		Ns       int64    `json:"ns"`
		Found    *bool    `json:"found,omitempty"`    // read
		Fields   []string `json:"fields,omitempty"`   // read, when found
		Rows     *int64   `json:"rows,omitempty"`     // scan
		Checksum string   `json:"checksum,omitempty"` // scan
		PhasesNs Phases   `json:"phases_ns,omitempty"`
	}
)

// recordMagic starts a record file.
const recordMagic = "DBBRECS1"

// RecordSource yields record i's key and fields (dbbench's dataset.YCSB, through the exec adapter).
type RecordSource func(i int64) (key []byte, fields [][]byte)

// WriteRecordFile writes count records of fieldCount fields each to path in the record file layout
// of docs/protocol.md.
func WriteRecordFile(path string, count int64, fieldCount int, rec RecordSource) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	w := bufio.NewWriterSize(f, 1<<20)
	hdr := make([]byte, 0, 24)
	hdr = append(hdr, recordMagic...)
	hdr = binary.LittleEndian.AppendUint32(hdr, 1)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(fieldCount))
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(count))
	w.Write(hdr)
	var n [4]byte
	put := func(b []byte) {
		binary.LittleEndian.PutUint32(n[:], uint32(len(b)))
		w.Write(n[:])
		w.Write(b)
	}
	for i := range count {
		key, fields := rec(i)
		if len(fields) != fieldCount {
			return fmt.Errorf("record %d has %d fields, want %d", i, len(fields), fieldCount)
		}
		put(key)
		for _, v := range fields {
			put(v)
		}
	}
	return w.Flush()
}

// ReadRecordFile reads a record file, calling fn for each record in file order; the slices fn gets
// are reused for the next record.
func ReadRecordFile(path string, fn func(key []byte, fields [][]byte) error) (count int64, fieldCount int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	hdr := make([]byte, 24)
	if _, err := io.ReadFull(r, hdr); err != nil || string(hdr[:8]) != recordMagic {
		return 0, 0, fmt.Errorf("%s is not a record file (magic %s)", path, recordMagic)
	}
	if v := binary.LittleEndian.Uint32(hdr[8:]); v != 1 {
		return 0, 0, fmt.Errorf("%s: record file version %d, want 1", path, v)
	}
	fieldCount = int(binary.LittleEndian.Uint32(hdr[12:]))
	count = int64(binary.LittleEndian.Uint64(hdr[16:]))
	var buf []byte
	fields := make([][]byte, fieldCount)
	for i := range count {
		buf = buf[:0]
		var key []byte
		for j := -1; j < fieldCount; j++ {
			var n [4]byte
			if _, err := io.ReadFull(r, n[:]); err != nil {
				return 0, 0, fmt.Errorf("%s: record %d: %w", path, i, err)
			}
			start := len(buf)
			buf = append(buf, make([]byte, binary.LittleEndian.Uint32(n[:]))...)
			if _, err := io.ReadFull(r, buf[start:]); err != nil {
				return 0, 0, fmt.Errorf("%s: record %d: %w", path, i, err)
			}
			if j < 0 {
				key = buf[start:len(buf):len(buf)]
			} else {
				fields[j] = buf[start:len(buf):len(buf)]
			}
		}
		// buf may have moved as it grew: take the slices again from the final buffer.
		off := 0
		key, off = buf[off:off+len(key)], off+len(key)
		for j := range fields {
			fields[j], off = buf[off:off+len(fields[j])], off+len(fields[j])
		}
		if err := fn(key, fields); err != nil {
			return 0, 0, err
		}
	}
	return count, fieldCount, nil
}

// RecordBackend is a Backend that serves YCSB's records (capability ops). Each method times its
// own operation with the client's clock; the byte slices it gets are its own to keep.
type RecordBackend interface {
	// LoadRecords stores the records of the record file in a fresh store, replacing earlier ones.
	LoadRecords(ctx context.Context, file string, count int64, fieldCount int) (rows int64, err error)
	ReadRecord(ctx context.Context, key []byte) (fields [][]byte, found bool, d time.Duration, err error)
	UpdateRecord(ctx context.Context, key []byte, field int, value []byte) (time.Duration, error)
	InsertRecord(ctx context.Context, key []byte, fields [][]byte) (time.Duration, error)
	ScanRecords(ctx context.Context, start []byte, n int) (Tally, time.Duration, error)
}

// records answers load_records and do on a RecordBackend.
func (s *server) records(ctx context.Context, id int64, req *request) (any, error) {
	rb, ok := s.b.(RecordBackend)
	if !ok || s.version < 2 {
		return nil, fmt.Errorf("%s: this client serves no records (protocol 2, capability ops)", req.Op)
	}
	if req.Op == OpLoadRecords {
		if req.File == "" || req.Count == nil || *req.Count < 0 {
			return nil, errors.New("load_records: missing file, or a missing or negative count")
		}
		rows, err := rb.LoadRecords(ctx, req.File, *req.Count, req.FieldCount)
		return LoadRecordsReply{ID: id, Rows: rows}, err
	}
	if req.Key == nil {
		return nil, errors.New("do: missing key")
	}
	key := []byte(*req.Key)
	switch req.Kind {
	case KindRead:
		fields, found, d, err := rb.ReadRecord(ctx, key)
		r := DoReply{ID: id, Ns: d.Nanoseconds(), Found: &found}
		for _, f := range fields {
			r.Fields = append(r.Fields, string(f))
		}
		return r, err
	case KindUpdate:
		if req.Field == nil || req.Value == nil {
			return nil, errors.New("do update: missing field or value")
		}
		d, err := rb.UpdateRecord(ctx, key, *req.Field, []byte(*req.Value))
		return DoReply{ID: id, Ns: d.Nanoseconds()}, err
	case KindInsert:
		if req.Fields == nil {
			return nil, errors.New("do insert: missing fields")
		}
		fields := make([][]byte, len(req.Fields))
		for i, f := range req.Fields {
			fields[i] = []byte(f)
		}
		d, err := rb.InsertRecord(ctx, key, fields)
		return DoReply{ID: id, Ns: d.Nanoseconds()}, err
	case KindScan:
		if req.Count == nil || *req.Count < 0 || *req.Count > 1<<30 {
			return nil, errors.New("do scan: missing count, or not 0 to 2^30")
		}
		t, d, err := rb.ScanRecords(ctx, key, int(*req.Count))
		rows := t.Rows
		return DoReply{ID: id, Ns: d.Nanoseconds(), Rows: &rows, Checksum: Checksum(t.Sum)}, err
	}
	return nil, fmt.Errorf("do: unknown kind %q (read, update, insert or scan)", req.Kind)
}

package main

import (
	"context"
	"fmt"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/adapters/timing"
	"github.com/dbbench/dbbench/dataset"
)

// YCSB's records (protocol 2, capability ops), served by the adapter's record capabilities, each
// operation timed around exactly the call the engine makes in process.
var _ protocol.RecordBackend = (*adapterBackend)(nil)

// LoadRecords stores the record file's records: the adapter's LoadRecords of none makes the fresh
// store, then each record of the file goes in with InsertRecord. The adapter's bulk path computes
// records from dataset.YCSB's formula, and this client stores what dbbench sent instead.
func (b *adapterBackend) LoadRecords(ctx context.Context, file string, count int64, fieldCount int) (int64, error) {
	loader, err := capability[adapters.RecordLoader](b.t, "load_records")
	if err != nil {
		return 0, err
	}
	ins, err := capability[adapters.RecordInserter](b.t, "load_records")
	if err != nil {
		return 0, err
	}
	y, err := dataset.NewYCSB(0, fieldCount, 0, false)
	if err != nil {
		return 0, fmt.Errorf("load_records: %w", err)
	}
	if err := loader.LoadRecords(ctx, y, 0); err != nil {
		return 0, err
	}
	var rows int64
	n, fc, err := protocol.ReadRecordFile(file, func(key []byte, fields [][]byte) error {
		if rows%timing.CheckEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		rows++
		return ins.InsertRecord(ctx, key, fields)
	})
	switch {
	case err != nil:
		return 0, fmt.Errorf("load_records: %w", err)
	case n != count || fc != fieldCount:
		return 0, fmt.Errorf("load_records: the file holds %d records of %d fields; the request says %d of %d", n, fc, count, fieldCount)
	}
	return rows, nil
}

func (b *adapterBackend) ReadRecord(ctx context.Context, key []byte) ([][]byte, bool, time.Duration, error) {
	r, err := capability[adapters.RecordReader](b.t, "do read")
	if err != nil {
		return nil, false, 0, err
	}
	done := b.profiling(b.t)
	start := time.Now()
	b.fields, b.found, err = r.ReadRecord(ctx, key, b.fields)
	d := time.Since(start)
	done()
	if !b.found {
		return nil, false, d, err
	}
	return b.fields, true, d, err
}

func (b *adapterBackend) UpdateRecord(ctx context.Context, key []byte, field int, value []byte) (time.Duration, error) {
	u, err := capability[adapters.RecordUpdater](b.t, "do update")
	if err != nil {
		return 0, err
	}
	done := b.profiling(b.t)
	start := time.Now()
	err = u.UpdateRecord(ctx, key, field, value)
	d := time.Since(start)
	done()
	return d, err
}

func (b *adapterBackend) InsertRecord(ctx context.Context, key []byte, fields [][]byte) (time.Duration, error) {
	ins, err := capability[adapters.RecordInserter](b.t, "do insert")
	if err != nil {
		return 0, err
	}
	done := b.profiling(b.t)
	start := time.Now()
	err = ins.InsertRecord(ctx, key, fields)
	d := time.Since(start)
	done()
	return d, err
}

func (b *adapterBackend) ScanRecords(ctx context.Context, start []byte, n int) (protocol.Tally, time.Duration, error) {
	sc, err := capability[adapters.RecordScanner](b.t, "do scan")
	if err != nil {
		return protocol.Tally{}, 0, err
	}
	done := b.profiling(b.t)
	t0 := time.Now()
	t, err := sc.ScanRecords(ctx, start, n)
	d := time.Since(t0)
	done()
	return protocol.Tally{Rows: t.Rows, Sum: t.Sum}, d, err
}

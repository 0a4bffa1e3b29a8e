package sqladapter

import (
	"context"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

// TestRecordTableTaken: in a schema of the user's that holds a usertable already, LoadRecords is
// refused with one line (exit 2), the record operations fail rather than touch that table, and
// Close leaves it, rows and all.
func TestRecordTableTaken(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	conn := pgtest.Connect(t, dsn)
	pgtest.Exec(t, conn, "CREATE SCHEMA mine", "CREATE TABLE mine.usertable (ycsb_key TEXT PRIMARY KEY, field0 TEXT)",
		"INSERT INTO mine.usertable VALUES ('user1', 'kept')")
	tg, err := open(t, map[string]any{"driver": "postgres", "dsn": dsn, "schema": "mine"}, adapters.Env{})
	if err != nil {
		t.Fatal(err)
	}
	y, err := dataset.NewYCSB(1, 1, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	err = tg.(adapters.RecordLoader).LoadRecords(ctx, y, 10)
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "table usertable exists already") {
		t.Errorf("LoadRecords into a schema with a usertable of the user's: %v (exit %d)", err, exitcode.Of(err))
	}
	if err := tg.(adapters.RecordUpdater).UpdateRecord(ctx, []byte("user1"), 0, []byte("changed")); err == nil {
		t.Error("UpdateRecord after a refused load: no error")
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if got := pgtest.Strings(t, conn, "SELECT field0 FROM mine.usertable"); len(got) != 1 || got[0] != "kept" {
		t.Errorf("the user's usertable holds %q after Close; want [kept]", got)
	}
}

// TestRecordsReload: a second LoadRecords replaces the first's table (records inserted since are
// gone), on both drivers.
func TestRecordsReload(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	for _, raw := range []map[string]any{nil, {"driver": "postgres", "dsn": dsn}} {
		tg, err := open(t, raw, adapters.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer tg.Close()
		y, err := dataset.NewYCSB(1, 2, 10, true)
		if err != nil {
			t.Fatal(err)
		}
		rt := tg.(interface {
			adapters.RecordLoader
			adapters.RecordInserter
			adapters.RecordScanner
		})
		for _, step := range []func() error{
			func() error { return rt.LoadRecords(ctx, y, 20) },
			func() error { return rt.InsertRecord(ctx, y.Key(20), y.Fields(20)) },
			func() error { return rt.LoadRecords(ctx, y, 5) },
		} {
			if err := step(); err != nil {
				t.Fatalf("%v: %v", raw, err)
			}
		}
		got, err := rt.ScanRecords(ctx, nil, 100)
		if want := (adapters.Tally{Rows: 5, Sum: y.SumRange(0, 5)}); err != nil || got != want {
			t.Errorf("%v: after a reload of 5 records a scan reads %+v, %v; want %+v", raw, got, err, want)
		}
	}
}

package sqladapter

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

// TestTagRowCount: the rows a command tag counts.
func TestTagRowCount(t *testing.T) {
	for tag, want := range map[string]int64{
		"INSERT 0 1": 1, "UPDATE 12": 12, "DELETE 0": 0, "SELECT 3": 3, "BEGIN": 0, "COMMIT": 0,
		"": 0, "7": 0, "COPY 1000000": 1000000, "UPDATE1": 0,
	} {
		if got := tagRowCount([]byte(tag)); got != want {
			t.Errorf("%q: %d, want %d", tag, got, want)
		}
	}
}

// TestPgWire: a worker's connection to a real PostgreSQL: values and NULLs as the server wrote
// them, rows returned or affected, a failed statement (alone, and inside a transaction it leaves
// failed, which Rollback ends) that leaves the connection usable, each kind of argument, a
// statement that cannot be prepared named by its index, an operation's deadline that wakes a
// read blocked in the kernel and ends the connection, and Rollback opening it again.
func TestPgWire(t *testing.T) {
	ctx := context.Background()
	tg, err := open(t, map[string]any{"driver": "postgres", "dsn": pgtest.NewDatabase(t)}, adapters.Env{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	r := tg.(adapters.SQLRunner)
	if tb, ok := tg.(adapters.SQLThreadBound); !ok || !tb.SQLThreadBound() {
		t.Errorf("a PostgreSQL target's connections are thread-bound")
	}
	if err := r.ExecSQL(ctx, "CREATE TABLE t (id integer PRIMARY KEY, s text, f float8, b boolean)"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.OpenSQLConn(ctx, []string{"SELECT 1", "SELECT nope FROM t"}); !isPrepare(err, 1) {
		t.Errorf("a statement that cannot be prepared: %v", err)
	}
	c, err := r.OpenSQLConn(ctx, []string{
		"SELECT $1::integer + 1, NULL::text",                  // 0
		"INSERT INTO t (id, s, f, b) VALUES ($1, $2, $3, $4)", // 1
		"UPDATE t SET s = s WHERE id <= $1",                   // 2
		"SELECT pg_sleep($1)",                                 // 3
		"BEGIN", "COMMIT",                                     // 4, 5
		"SELECT s, f, b FROM t WHERE id = $1", // 6
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var res adapters.SQLResult
	exec := func(i int, args ...any) error {
		t.Helper()
		return c.Exec(ctx, i, args, &res)
	}
	res.Keep = true
	if err := exec(0, int64(41)); err != nil || res.Rows != 1 ||
		string(res.Values) != string(adapters.AppendSQLValue(adapters.AppendSQLValue(nil, []byte("42"), false), nil, true)) {
		t.Errorf("a query: %v, %d rows, values %q", err, res.Rows, res.Values)
	}
	res.Keep = false
	for i := range int64(3) {
		if err := exec(1, i+1, "text's", 2.5, true); err != nil || res.Rows != 1 {
			t.Errorf("an insert: %v, %d rows", err, res.Rows)
		}
	}
	res.Keep = true
	if err := exec(6, int64(2)); err != nil || res.Rows != 1 {
		t.Errorf("reading back: %v, %d rows", err, res.Rows)
	}
	res.Keep = false
	var pe *pgconn.PgError
	if err := exec(1, int64(1), nil, nil, nil); !errors.As(err, &pe) || pe.Code != "23505" {
		t.Errorf("a duplicate key: %v", err)
	}
	if err := exec(2, int64(2)); err != nil || res.Rows != 2 {
		t.Errorf("an update after a failed statement: %v, %d rows affected", err, res.Rows)
	}
	if err := exec(4); err != nil {
		t.Fatal(err)
	}
	if err := exec(1, int64(2), "x", 0.0, false); !errors.As(err, &pe) {
		t.Errorf("a duplicate key in a transaction: %v", err)
	}
	if err := exec(2, int64(9)); !errors.As(err, &pe) || pe.Code != "25P02" {
		t.Errorf("a statement in a failed transaction: %v", err)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Errorf("rollback: %v", err)
	}
	if err := exec(2, int64(9)); err != nil || res.Rows != 3 {
		t.Errorf("after the rollback: %v, %d rows affected", err, res.Rows)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Errorf("a rollback with no transaction open: %v", err)
	}

	opCtx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = c.Exec(opCtx, 3, []any{5.0}, &res)
	if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || took > 3*time.Second {
		t.Errorf("a statement past its operation's deadline returned %v after %v", err, took)
	}
	if err := exec(0, int64(1)); err == nil {
		t.Errorf("a connection whose read was cut off is used again")
	}
	// Rollback opens it again (untimed), unless the run is stopping.
	stopped, stop := context.WithCancel(ctx)
	stop()
	if err := c.Rollback(stopped); err == nil {
		t.Errorf("a connection opened again while the run stops")
	}
	if err := c.Rollback(opCtx); err != nil {
		t.Fatalf("opening again after an operation's timeout (its context past its deadline): %v", err)
	}
	res.Keep = true
	if err := exec(6, int64(2)); err != nil || res.Rows != 1 {
		t.Errorf("on the connection opened again: %v, %d rows", err, res.Rows)
	}
	if n := c.(adapters.SQLReopens).Reopens(); n != 1 {
		t.Errorf("%d reopens, want 1", n)
	}
}

func isPrepare(err error, i int) bool {
	var pe *adapters.SQLPrepareError
	return errors.As(err, &pe) && pe.Index == i
}

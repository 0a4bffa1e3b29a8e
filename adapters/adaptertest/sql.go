package adaptertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/dbbench/dbbench/adapters"
)

// sqlRows is how many rows the sql check's table holds.
const sqlRows = 50

// CheckSQL checks the sql workload's capability (adapters.SQLRunner) of a fresh target when
// tg.SQL says it has one (and that it has none otherwise): setup statements through ExecSQL,
// connections of their own with prepared statements, the rows a statement returns or affects
// (queries, updates, RETURNING), the values kept for the checksum (the same for the same rows,
// others for others), arguments bound as the engine binds them (text on PostgreSQL, typed on
// SQLite), a failed statement rolled back with the transaction it was in, a statement that cannot
// be prepared named by its index, and four connections writing at once.
func CheckSQL(t testing.TB, tg Target) {
	in := tg.open(t, false)
	defer func() {
		if err := in.close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}()
	r, ok := in.Target.(adapters.SQLRunner)
	if ok != tg.SQL {
		t.Fatalf("the test says the target runs sql workloads (Target.SQL): %v, but it implements adapters.SQLRunner: %v", tg.SQL, ok)
	}
	if !ok {
		t.Skip("the target runs no sql workloads")
	}
	ctx := context.Background()
	dialect := r.SQLDialect()
	if dialect != adapters.DialectPostgres && dialect != adapters.DialectSQLite {
		t.Fatalf("SQLDialect %q, want %s or %s", dialect, adapters.DialectPostgres, adapters.DialectSQLite)
	}
	// arg is an integer argument as the engine binds it: text on PostgreSQL, typed on SQLite.
	arg := func(n int64) any {
		if dialect == adapters.DialectPostgres {
			return fmt.Sprint(n)
		}
		return n
	}
	var values []string
	for i := 1; i <= sqlRows; i++ {
		values = append(values, fmt.Sprintf("(%d, 'v%d', 0)", i, i))
	}
	for _, q := range []string{
		"CREATE TABLE kit_sql (id INTEGER PRIMARY KEY, v TEXT NOT NULL, n INTEGER NOT NULL)",
		"INSERT INTO kit_sql (id, v, n) VALUES " + strings.Join(values, ", "),
	} {
		if err := r.ExecSQL(ctx, q); err != nil {
			t.Fatalf("ExecSQL %q: %v", q, err)
		}
	}
	if err := r.ExecSQL(ctx, "SELEC 1"); err == nil {
		t.Error("ExecSQL of a syntax error returned no error")
	}
	stmts := []string{
		"SELECT id, v, n FROM kit_sql WHERE id = $1",        // 0
		"UPDATE kit_sql SET n = n + $1 WHERE id = $2",       // 1
		"SELECT id FROM kit_sql WHERE id >= $1 ORDER BY id", // 2
		"BEGIN",  // 3
		"COMMIT", // 4
		"INSERT INTO kit_sql (id, v, n) VALUES ($1, $2, 0)",      // 5
		"SELECT v FROM kit_sql WHERE id = $1 AND v = $2",         // 6
		"DELETE FROM kit_sql WHERE id = $1 RETURNING id, v",      // 7
		"SELECT n FROM kit_sql WHERE id = $1",                    // 8
		"SELECT NULL, '' FROM kit_sql WHERE id = $1",             // 9
		"SELECT count(*) FROM kit_sql WHERE id BETWEEN $1 AND 5", // 10
		"SELECT id FROM kit_sql WHERE id = $1 AND n = $2",        // 11
	}
	if _, err := r.OpenSQLConn(ctx, []string{stmts[0], "SELECT * FROM kit_no_such_table"}); err == nil {
		t.Error("OpenSQLConn prepared a statement on a table that does not exist")
	} else if pe := (*adapters.SQLPrepareError)(nil); !errors.As(err, &pe) || pe.Index != 1 {
		t.Errorf("OpenSQLConn's error for statement 1 is %v, want an *adapters.SQLPrepareError with index 1", err)
	}
	c, err := r.OpenSQLConn(ctx, stmts)
	if err != nil {
		t.Fatalf("OpenSQLConn: %v", err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Errorf("SQLConn.Close: %v", err)
		}
	}()
	exec := func(i int, keep bool, args ...any) adapters.SQLResult {
		t.Helper()
		res := adapters.SQLResult{Keep: keep, Values: []byte("stale")}
		if err := c.Exec(ctx, i, args, &res); err != nil {
			t.Fatalf("statement %d %v: %v", i, args, err)
		}
		if !keep && len(res.Values) > 0 {
			t.Errorf("statement %d: values kept without Keep", i)
		}
		return res
	}
	rows := func(i int, want int64, args ...any) {
		t.Helper()
		if got := exec(i, false, args...).Rows; got != want {
			t.Errorf("statement %d %v: %d rows, want %d", i, args, got, want)
		}
	}
	row5 := exec(0, true, arg(5))
	if row5.Rows != 1 || len(row5.Values) == 0 {
		t.Fatalf("the row of id 5: %d rows, values %q", row5.Rows, row5.Values)
	}
	if again := exec(0, true, arg(5)); !bytes.Equal(again.Values, row5.Values) {
		t.Errorf("the same row read twice kept different values: %q and %q", row5.Values, again.Values)
	}
	if other := exec(0, true, arg(6)); bytes.Equal(other.Values, row5.Values) {
		t.Errorf("rows 5 and 6 kept the same values %q", row5.Values)
	}
	if none := exec(0, true, arg(999)); none.Rows != 0 || len(none.Values) != 0 {
		t.Errorf("no row: %d rows, values %q", none.Rows, none.Values)
	}
	nulls := exec(9, true, arg(5))
	if nulls.Rows != 1 || !bytes.Equal(nulls.Values, adapters.AppendSQLValue(adapters.AppendSQLValue(nil, nil, true), nil, false)) {
		t.Errorf("NULL and '': kept %q, want NULL apart from the empty string", nulls.Values)
	}
	rows(1, 1, arg(3), arg(5))   // an update: the rows it affected
	rows(1, 0, arg(3), arg(999)) // of no row
	if changed := exec(0, true, arg(5)); bytes.Equal(changed.Values, row5.Values) {
		t.Errorf("row 5 after an update kept the values it had before: %q", changed.Values)
	}
	rows(2, 10, arg(sqlRows-9))
	rows(6, 1, arg(7), "v7") // a text parameter
	rows(6, 0, arg(7), "v8")
	rows(10, 1, arg(1))      // count(*): one row
	rows(7, 1, arg(sqlRows)) // DELETE ... RETURNING: the rows it returned
	rows(0, 0, arg(sqlRows))

	// A failed statement inside a transaction: Rollback undoes what came before it.
	rows(3, 0)
	rows(1, 1, arg(100), arg(8))
	if err := c.Exec(ctx, 5, []any{arg(9), "dup"}, &adapters.SQLResult{}); err == nil {
		t.Fatal("inserting a duplicate primary key returned no error")
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatalf("Rollback after a failed statement: %v", err)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Errorf("Rollback with no transaction open: %v", err)
	}
	rows(11, 1, arg(8), arg(0)) // the update before the failure was rolled back
	if n8 := exec(8, true, arg(8)); dialect == adapters.DialectSQLite && !bytes.Equal(n8.Values, adapters.AppendSQLValue(nil, []byte("0"), false)) {
		t.Errorf("row 8's n after the rollback kept as %q, want the text 0", n8.Values)
	}
	rows(3, 0)
	rows(1, 1, arg(1), arg(8))
	rows(4, 0)
	rows(11, 1, arg(8), arg(1)) // committed

	// A row another connection deletes is not found any more.
	rows(0, 1, arg(11))
	if err := r.ExecSQL(ctx, "DELETE FROM kit_sql WHERE id = 11"); err != nil {
		t.Fatal(err)
	}
	rows(0, 0, arg(11))

	// Four connections at once, each adding to rows of its own.
	const conns, adds = 4, 50
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wc, err := r.OpenSQLConn(ctx, stmts[:2])
			if err != nil {
				errs <- err
				return
			}
			defer wc.Close()
			for range adds {
				res := adapters.SQLResult{}
				if err := wc.Exec(ctx, 1, []any{arg(1), arg(int64(20 + w))}, &res); err != nil || res.Rows != 1 {
					errs <- fmt.Errorf("connection %d: %d rows, %v", w, res.Rows, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w := range conns {
		rows(11, 1, arg(int64(20+w)), arg(adds))
	}
	if err := r.ExecSQL(ctx, "DROP TABLE kit_sql"); err != nil {
		t.Errorf("teardown: %v", err)
	}
}

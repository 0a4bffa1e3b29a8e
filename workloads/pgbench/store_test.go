package pgbench

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // the "sqlite" one

	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

// store is a database the checks run statements on: one connection (BEGIN and END must reach the
// same one), through database/sql (pgx's driver for PostgreSQL, modernc's for SQLite).
type store struct{ c *sql.Conn }

// exec runs a statement with arguments; a query's rows are read and counted, another statement's
// affected rows are.
func (s store) exec(ctx context.Context, q string, args []any) (int64, error) {
	if strings.HasPrefix(q, "SELECT") {
		rows, err := s.c.QueryContext(ctx, q, args...)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		var n int64
		for rows.Next() {
			n++
		}
		return n, rows.Err()
	}
	res, err := s.c.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s store) int(ctx context.Context, q string) (v int64, err error) {
	err = s.c.QueryRowContext(ctx, q).Scan(&v)
	return v, err
}

// openStore opens one connection of a driver's database for the test.
func openStore(t *testing.T, ctx context.Context, driver, dsn string) store {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return store{c}
}

const storeScale = 2

// storeOps is how many operations of each built-in run against a store.
const storeOps = 300

// checkInit runs InitSQL and reads the tables back: pgbench -i's row counts, ids and balances.
func checkInit(t *testing.T, ctx context.Context, s store, d Dialect) {
	t.Helper()
	stmts, err := InitSQL(d, storeScale)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := s.exec(ctx, q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for q, want := range map[string]int64{
		"SELECT count(*) FROM pgbench_branches":                                          BranchesPerScale * storeScale,
		"SELECT count(*) FROM pgbench_tellers":                                           TellersPerScale * storeScale,
		"SELECT count(*) FROM pgbench_accounts":                                          AccountsPerScale * storeScale,
		"SELECT count(*) FROM pgbench_history":                                           0,
		"SELECT count(DISTINCT aid) FROM pgbench_accounts":                               AccountsPerScale * storeScale,
		"SELECT min(aid) * 1000000 + max(aid) FROM pgbench_accounts":                     1*1000000 + AccountsPerScale*storeScale,
		"SELECT count(*) FROM pgbench_accounts WHERE bid <> (aid - 1) / 100000 + 1":      0,
		"SELECT count(*) FROM pgbench_tellers WHERE bid <> (tid - 1) / 10 + 1":           0,
		"SELECT count(*) FROM pgbench_accounts WHERE abalance <> 0 OR filler IS NULL":    0,
		"SELECT count(*) FROM pgbench_tellers WHERE tbalance <> 0 OR filler IS NOT NULL": 0,
		"SELECT sum(bbalance) FROM pgbench_branches":                                     0,
	} {
		if got, err := s.int(ctx, q); err != nil || got != want {
			t.Errorf("after init: %s = %d (%v), want %d", q, got, err, want)
		}
	}
	// The primary keys (PostgreSQL) or their unique indexes (SQLite) are there: a second account 1 fails.
	if _, err := s.exec(ctx, "INSERT INTO pgbench_accounts (aid, bid, abalance) VALUES (1, 1, 0)", nil); err == nil {
		t.Error("a second account 1 was inserted: no primary key on aid")
	}
}

// runScript draws and runs ops operations of a built-in (text: its arguments bound as text).
func runScript(t *testing.T, ctx context.Context, s store, name string, ops int, text bool) (selects int64) {
	t.Helper()
	sc, err := Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGenerator(sc, Config{Vars: map[string]Value{ScaleVar: Int(storeScale)}, Seed: 2024, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	for k := range uint64(ops) {
		op, err := g.Draw(k)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range op.Steps {
			n, err := s.exec(ctx, st.Stmt.SQL, st.Args)
			if err != nil {
				t.Fatalf("%s operation %d: %s %v: %v", name, k, st.Stmt.SQL, st.Args, err)
			}
			if strings.HasPrefix(st.Stmt.SQL, "SELECT") || strings.HasPrefix(st.Stmt.SQL, "UPDATE") {
				if n != 1 {
					t.Fatalf("%s operation %d: %s %v: %d rows, want 1", name, k, st.Stmt.SQL, st.Args, n)
				}
				if st.Stmt.SQL[0] == 'S' {
					selects++
				}
			}
		}
	}
	return selects
}

// checkBalances reads the invariants of pgbench's tables back after a run: every account's, teller's
// and branch's balance is the sum of the deltas the history holds for it (all zero for tellers and
// branches when only simple-update ran), and the history holds one row per operation.
func checkBalances(t *testing.T, ctx context.Context, s store, history int64, tellersToo bool) {
	t.Helper()
	checks := map[string]int64{
		"SELECT count(*) FROM pgbench_history": history,
		"SELECT count(*) FROM pgbench_accounts a LEFT JOIN (SELECT aid, sum(delta) AS d FROM pgbench_history GROUP BY aid) h ON h.aid = a.aid WHERE a.abalance <> coalesce(h.d, 0)": 0,
		"SELECT (SELECT coalesce(sum(delta), 0) FROM pgbench_history) - (SELECT sum(abalance) FROM pgbench_accounts)":                                                               0,
	}
	if tellersToo {
		checks["SELECT count(*) FROM pgbench_tellers t LEFT JOIN (SELECT tid, sum(delta) AS d FROM pgbench_history GROUP BY tid) h ON h.tid = t.tid WHERE t.tbalance <> coalesce(h.d, 0)"] = 0
		checks["SELECT count(*) FROM pgbench_branches b LEFT JOIN (SELECT bid, sum(delta) AS d FROM pgbench_history GROUP BY bid) h ON h.bid = b.bid WHERE b.bbalance <> coalesce(h.d, 0)"] = 0
		checks["SELECT (SELECT sum(tbalance) FROM pgbench_tellers) - (SELECT sum(bbalance) FROM pgbench_branches)"] = 0
	} else {
		checks["SELECT count(*) FROM pgbench_tellers WHERE tbalance <> 0"] = 0
	}
	for q, want := range checks {
		if got, err := s.int(ctx, q); err != nil || got != want {
			t.Errorf("%s = %d (%v), want %d", q, got, err, want)
		}
	}
	// The run changed something: a check of zeros against zeros proves nothing.
	if moved, err := s.int(ctx, "SELECT count(*) FROM pgbench_accounts WHERE abalance <> 0"); err != nil || moved < history/2 {
		t.Errorf("%d accounts changed after %d operations (%v)", moved, history, err)
	}
}

// testStore initializes a store as pgbench -i -s 2 would, then runs each built-in's statements for
// storeOps operations and reads the tables back.
func testStore(t *testing.T, ctx context.Context, open func(t *testing.T) store, d Dialect, text bool) {
	for _, c := range []struct {
		script      string
		history     int64
		tellersToo  bool
		selectsWant int64
	}{
		{TPCBLike, storeOps, true, storeOps},
		{SimpleUpdate, storeOps, false, storeOps},
		{SelectOnly, 0, false, storeOps},
	} {
		t.Run(c.script, func(t *testing.T) {
			s := open(t)
			checkInit(t, ctx, s, d)
			if got := runScript(t, ctx, s, c.script, storeOps, text); got != c.selectsWant {
				t.Errorf("%d selects returned their account, want %d", got, c.selectsWant)
			}
			if c.script == SelectOnly {
				if got, err := s.int(ctx, "SELECT count(*) FROM pgbench_accounts WHERE abalance <> 0"); err != nil || got != 0 {
					t.Errorf("select-only changed %d accounts (%v)", got, err)
				}
				return
			}
			checkBalances(t, ctx, s, c.history, c.tellersToo)
		})
	}
}

func TestSQLite(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	n := 0
	testStore(t, ctx, func(t *testing.T) store {
		n++
		return openStore(t, ctx, "sqlite", fmt.Sprintf("file:pgbench%d?mode=memory&cache=shared", n))
	}, SQLite, false)
}

func TestPostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	testStore(t, ctx, func(t *testing.T) store {
		return openStore(t, ctx, "pgx", pgtest.NewDatabase(t))
	}, Postgres, true)
}

// TestPostgresArgs: why PostgreSQL takes the arguments as text (Config.Text), as pgbench -M prepared
// sends them: the server reads them by the type it infers. Typed, pgx cannot bind an integer where
// the server infers text, and binds a double where it infers an integer by truncating it.
func TestPostgresArgs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := openStore(t, ctx, "pgx", pgtest.NewDatabase(t))
	sc, err := Parse("a.sql", []byte("\\set x 5\n\\set d 2.5\nSELECT :x, :x || 'a', :d + 1.5, :d + 1;\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	try := func(text bool) (string, error) {
		g, _ := NewGenerator(sc, Config{Text: text})
		op, err := g.Draw(0)
		if err != nil {
			t.Fatal(err)
		}
		var a, b, c, d string
		err = s.c.QueryRowContext(ctx, op.Steps[0].Stmt.SQL, op.Steps[0].Args...).Scan(&a, &b, &c, &d)
		return strings.Join([]string{a, b, c, d}, " "), err
	}
	if got, err := try(false); err == nil {
		t.Errorf("typed arguments: %q, expected pgx to refuse an int64 for a text parameter", got)
	}
	_, err = try(true)
	if err == nil || !strings.Contains(err.Error(), `invalid input syntax for type integer: "2.5"`) {
		t.Errorf("text arguments: %v, want the server's error for 2.5 as an integer (pgbench's)", err)
	}
	sc, _ = Parse("a.sql", []byte("\\set x 5\n\\set d 2.5\nSELECT :x, :x || 'a', :d + 1.5, :d * 2.0;\n"), nil)
	if got, err := try(true); err != nil || got != "5 5a 4.0 5.00" {
		t.Errorf("text arguments: %q %v, want 5 5a 4.0 5.00", got, err)
	}
}

func TestInitSQL(t *testing.T) {
	for _, c := range []struct {
		d     Dialect
		scale int64
		want  string
	}{
		{Postgres, 1, "create table pgbench_accounts(aid    int not null,bid int,abalance int,filler char(84)) with (fillfactor=100)"},
		{Postgres, 20000, "create table pgbench_accounts(aid bigint not null,bid int,abalance int,filler char(84)) with (fillfactor=100)"},
		{Postgres, 3, "insert into pgbench_accounts(aid,bid,abalance,filler) select aid, (aid - 1) / 100000 + 1, 0, '' from generate_series(1, 300000) as aid"},
		{Postgres, 1, "alter table pgbench_accounts add primary key (aid)"},
		{SQLite, 1, "create table pgbench_history(tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22))"},
		{SQLite, 1, "create unique index pgbench_accounts_pkey on pgbench_accounts (aid)"},
	} {
		stmts, err := InitSQL(c.d, c.scale)
		if err != nil || !strings.Contains(strings.Join(stmts, "\n")+"\n", c.want+"\n") {
			t.Errorf("%s scale %d: %v, want a statement %q among\n%s", c.d, c.scale, err, c.want, strings.Join(stmts, "\n"))
		}
	}
	for _, c := range []struct {
		d     Dialect
		scale int64
		want  string
	}{
		{Postgres, 0, "scale must be in 1..2147483647, got 0"},
		{SQLite, 1 << 31, "scale must be in 1..2147483647, got 2147483648"},
		{"mysql", 1, `unknown dialect "mysql"`},
	} {
		if _, err := InitSQL(c.d, c.scale); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s scale %d: %v, want %q", c.d, c.scale, err, c.want)
		}
	}
}

package sqladapter

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func open(t *testing.T, raw map[string]any, env adapters.Env) (adapters.Target, error) {
	t.Helper()
	opts, err := adapters.ParseOptions(New().Info().Options, raw)
	if err != nil {
		t.Fatal(err)
	}
	if env.TempDir == "" {
		env.TempDir = t.TempDir()
	}
	return New().Open(context.Background(), opts, env)
}

// TestOwnSchema: on a dsn the target works in a schema of its own, which Close drops (the kit's
// close check covers what Close removes; this is where the target works meanwhile).
func TestOwnSchema(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	conn := pgtest.Connect(t, dsn)
	schemas := func() (n int) {
		t.Helper()
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'dbbench_sql_%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	tg, err := open(t, map[string]any{"driver": "postgres", "dsn": dsn}, adapters.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if schemas() != 1 {
		t.Errorf("want one schema of its own while open")
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if n := schemas(); n != 0 {
		t.Errorf("%d schemas left after Close", n)
	}
}

// TestBadInput: each bad option is one clear error with the right exit code, and nothing the user
// owns is touched.
func TestBadInput(t *testing.T) {
	existing := filepath.Join(t.TempDir(), "mine.db")
	if err := os.WriteFile(existing, []byte("user data"), 0o600); err != nil {
		t.Fatal(err)
	}
	dsn := pgtest.NewDatabase(t)
	conn := pgtest.Connect(t, dsn)
	if _, err := conn.Exec(context.Background(), "CREATE SCHEMA taken; CREATE TABLE taken.persons (x int)"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts map[string]any
		env  adapters.Env
		code int
		msg  string
	}{
		{"existing file", map[string]any{"path": existing}, adapters.Env{}, exitcode.Usage, "already exists; refusing to overwrite it"},
		{"missing directory", map[string]any{"path": "/nonexistent/dir/p.db"}, adapters.Env{}, exitcode.Usage, "directory /nonexistent/dir does not exist"},
		{"path in memory", map[string]any{"storage": "memory", "path": "x.db"}, adapters.Env{}, exitcode.Usage, "path needs storage: file"},
		{"dsn on sqlite", map[string]any{"dsn": dsn}, adapters.Env{}, exitcode.Usage, "dsn and schema are postgres options"},
		{"path on postgres", map[string]any{"driver": "postgres", "dsn": dsn, "path": "x.db"}, adapters.Env{}, exitcode.Usage, "sqlite options"},
		{"no server", map[string]any{"driver": "postgres"}, adapters.Env{}, exitcode.Infra, "needs the run's throwaway server"},
		{"bad dsn", map[string]any{"driver": "postgres", "dsn": "postgres://u:secret@[::1"}, adapters.Env{}, exitcode.Usage, "sql: dsn"},
		{"unreachable", map[string]any{"driver": "postgres", "dsn": "postgres://u:secret@127.0.0.1:1/db?connect_timeout=2"}, adapters.Env{}, exitcode.Infra, "cannot connect"},
		{"missing schema", map[string]any{"driver": "postgres", "dsn": dsn, "schema": "nope"}, adapters.Env{}, exitcode.Usage, `schema "nope" does not exist`},
		{"taken table", map[string]any{"driver": "postgres", "dsn": dsn, "schema": "taken"}, adapters.Env{}, exitcode.Usage, "table persons exists already"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg, err := open(t, tt.opts, tt.env)
			if err == nil {
				tg.Close()
				t.Fatal("opened")
			}
			if got := exitcode.Of(err); got != tt.code {
				t.Errorf("exit code %d, want %d (%v)", got, tt.code, err)
			}
			if !strings.Contains(err.Error(), tt.msg) || strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line containing %q and no password", err, tt.msg)
			}
		})
	}
	// Without a dsn or a server the target is unavailable, so that an optional one is skipped.
	if _, err := open(t, map[string]any{"driver": "postgres"}, adapters.Env{}); !errors.Is(err, adapters.ErrUnavailable) {
		t.Errorf("no server: %v does not wrap ErrUnavailable", err)
	}
	if b, _ := os.ReadFile(existing); string(b) != "user data" {
		t.Errorf("the user's file was changed: %q", b)
	}
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM taken.persons").Scan(&n); err != nil {
		t.Errorf("the user's table taken.persons is gone: %v", err)
	}
}

// TestSetupDeadline: a server that accepts the connection and then does not answer (here: the
// target's CREATE TABLE waits for a lock a session of the user's holds on the schema) ends Open after
// the setup deadline with one line (exit 3), instead of holding the run; the user's schema is left.
func TestSetupDeadline(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	user := pgtest.Connect(t, dsn)
	if _, err := user.Exec(ctx, "CREATE SCHEMA users_own"); err != nil {
		t.Fatal(err)
	}
	tx, err := user.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// An uncommitted DROP SCHEMA holds the schema's lock until the transaction ends.
	if _, err := tx.Exec(ctx, "DROP SCHEMA users_own"); err != nil {
		t.Fatal(err)
	}
	defer setSetupTimeout(time.Second)()

	t0 := time.Now()
	tg, err := open(t, map[string]any{"driver": "postgres", "dsn": dsn, "schema": "users_own"}, adapters.Env{})
	took := time.Since(t0)
	tx.Rollback(ctx)
	if err == nil {
		tg.Close()
		t.Fatal("opened")
	}
	t.Logf("after %v: %v", took, err)
	if exitcode.Of(err) != exitcode.Infra || !strings.Contains(err.Error(), "did not answer within 1s") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q (exit %d), want one line saying the server did not answer in time, exit 3", err, exitcode.Of(err))
	}
	if took > 5*time.Second {
		t.Errorf("Open took %v with a 1s setup deadline", took)
	}
	var n int
	if err := user.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = 'users_own'").Scan(&n); err != nil || n != 1 {
		t.Errorf("the user's schema: %d, %v", n, err)
	}
}

// TestInsertPreparedBeforeBegin: the insert's statement is prepared when the session is made
// (untimed), not in the timed Begin, and its executions still run inside the session's transaction
// (a rollback leaves the table empty). On PostgreSQL the server's list of the connection's
// prepared statements shows the statement before Begin and no new one after the transaction.
func TestInsertPreparedBeforeBegin(t *testing.T) {
	ctx := context.Background()
	ds, err := dataset.Generate(5, 1)
	if err != nil {
		t.Fatal(err)
	}
	setups := map[string]map[string]any{"sqlite memory": {"storage": "memory"}, "sqlite file": nil}
	if os.Getenv(pgtest.SkipEnv) != "1" {
		setups["postgres"] = map[string]any{"driver": "postgres", "dsn": pgtest.NewDatabase(t)}
	}
	for name, raw := range setups {
		t.Run(name, func(t *testing.T) {
			tg, err := open(t, raw, adapters.Env{})
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			prepared := func(s *insertSession) (n int) {
				t.Helper()
				if s.t.s.driver != DriverPostgres {
					return -1
				}
				if err := s.conn.QueryRowContext(ctx, "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE 'INSERT INTO persons_insert%'").Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			rows := func(s *insertSession) (n int) {
				t.Helper()
				if err := s.t.s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+insertTable).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			is, err := tg.(adapters.Inserter).NewInsertSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			s := is.(*insertSession)
			defer s.Close()
			before := prepared(s)
			if s.stmt == nil || before == 0 {
				t.Fatalf("no statement prepared before Begin (server lists %d)", before)
			}
			p0, p1 := ds.Person(0), ds.Person(1)
			if err := s.Begin(ctx); err != nil {
				t.Fatal(err)
			}
			if err := s.Insert(ctx, &p0); err != nil {
				t.Fatal(err)
			}
			if err := s.tx.Rollback(); err != nil {
				t.Fatal(err)
			}
			s.tx = nil
			if n := rows(s); n != 0 {
				t.Fatalf("%d rows after a rollback: the insert ran outside the transaction", n)
			}
			for _, step := range []func() error{
				func() error { return s.Begin(ctx) }, func() error { return s.Insert(ctx, &p0) },
				func() error { return s.Insert(ctx, &p1) }, func() error { return s.Commit(ctx) },
			} {
				if err := step(); err != nil {
					t.Fatal(err)
				}
			}
			if tally, err := s.Verify(ctx); err != nil || tally.Rows != 2 || rows(s) != 2 {
				t.Errorf("read back %d rows (%v), want 2", tally.Rows, err)
			}
			if after := prepared(s); after != before {
				t.Errorf("the server lists %d prepared inserts after the transaction, %d before: prepared again in the timed region", after, before)
			}
		})
	}
}

// TestPhases: profiled, on SQLite and PostgreSQL, a scan marks txn, execute, fetch and scan (each
// row timed), a lookup execute, fetch and scan, and an insert txn and execute; each sums to no more
// than the operations' time.
func TestPhases(t *testing.T) {
	ctx := context.Background()
	ds, err := dataset.Generate(1000, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		name string
		raw  func() map[string]any
	}{
		{"sqlite", func() map[string]any { return nil }},
		{"postgres", func() map[string]any { return map[string]any{"driver": "postgres", "dsn": pgtest.NewDatabase(t)} }},
	} {
		t.Run(v.name, func(t *testing.T) {
			tg, err := open(t, v.raw(), adapters.Env{})
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			if err := tg.Load(ctx, ds); err != nil {
				t.Fatal(err)
			}
			scan := adaptertest.CheckPhases(t, tg, 3, func(int) error {
				tl, err := tg.(adapters.Scanner).Scan(ctx, ds.Len())
				if err == nil && tl.Rows != int64(ds.Len()) {
					err = fmt.Errorf("scan read %d rows, want %d", tl.Rows, ds.Len())
				}
				return err
			}, "txn", "execute", "fetch", "scan")
			if laps := scan.Laps; laps != 3*(2*int64(ds.Len())+5) {
				t.Errorf("%d laps for 3 scans of %d rows, want 2 a row and 5 a scan (begin, execute, commit)", laps, ds.Len())
			}
			adaptertest.CheckPhases(t, tg, 200, func(i int) error {
				tl, err := tg.(adapters.PointReader).Lookup(ctx, ds.Email(i))
				if err == nil && (tl.Rows != 1 || tl.Sum != ds.Sum(i)) {
					err = fmt.Errorf("lookup of %s: %+v", ds.Email(i), tl)
				}
				return err
			}, "execute", "fetch", "scan")
			adaptertest.CheckPhases(t, tg, 2, func(int) error {
				s, err := tg.(adapters.Inserter).NewInsertSession(ctx)
				if err != nil {
					return err
				}
				defer s.Close()
				if err := s.Begin(ctx); err != nil {
					return err
				}
				for i := range 100 {
					p := ds.Person(i)
					if err := s.Insert(ctx, &p); err != nil {
						return err
					}
				}
				return s.Commit(ctx)
			}, "txn", "execute")
		})
	}
}

// TestLoadOnlyRetry: a load-only run (adapters.StoreKeep) marks the tables it makes in the user's
// schema, so that the next one (a Kubernetes load Job retried after an eviction, half-loaded, or a
// second run of the same rendering) drops them and starts from a clean store; a table of the user's,
// without the mark, is still refused and left as it was.
func TestLoadOnlyRetry(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	conn := pgtest.Connect(t, dsn)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA shared; CREATE SCHEMA users_own; CREATE TABLE users_own.usertable (x int)"); err != nil {
		t.Fatal(err)
	}
	y, err := dataset.NewYCSB(1, 2, 8, false)
	if err != nil {
		t.Fatal(err)
	}
	load := func(schema string, n int64) error {
		tg, err := open(t, map[string]any{"driver": "postgres", "dsn": dsn, "schema": schema}, adapters.Env{Store: adapters.StoreKeep})
		if err != nil {
			return err
		}
		defer tg.Close()
		return tg.(adapters.RecordLoader).LoadRecords(ctx, y, n)
	}
	// The first load is cut short: its table stays, half loaded (a pod evicted in the middle).
	if _, err := conn.Exec(ctx, "CREATE TABLE shared.usertable (ycsb_key text); COMMENT ON TABLE shared.usertable IS '"+keptMark+"'; INSERT INTO shared.usertable VALUES ('half')"); err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		if err := load("shared", 50); err != nil {
			t.Fatalf("load %d over an earlier load's table: %v", round+1, err)
		}
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM shared.usertable").Scan(&n); err != nil || n != 50 {
			t.Fatalf("load %d: %d rows (%v), want the 50 loaded", round+1, n, err)
		}
	}
	err = load("users_own", 50)
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(fmt.Sprint(err), "table usertable exists already") {
		t.Errorf("a table of the user's: %v, want it refused (exit 2)", err)
	}
	var cols int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'users_own' AND table_name = 'usertable'").Scan(&cols); err != nil || cols != 1 {
		t.Errorf("the user's table has %d columns (%v): it was replaced", cols, err)
	}
}

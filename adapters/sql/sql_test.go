package sqladapter

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbbench/dbbench/adapters"
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

// TestWorkloads runs the four common workloads on every driver and storage and checks them against
// the dataset's own checksums.
func TestWorkloads(t *testing.T) {
	ctx := context.Background()
	ds, err := dataset.Generate(500, 1)
	if err != nil {
		t.Fatal(err)
	}
	pgDSN := pgtest.NewDatabase(t)
	tests := []struct {
		name string
		opts map[string]any
		env  adapters.Env
	}{
		{"sqlite file", map[string]any{}, adapters.Env{}},
		{"sqlite memory", map[string]any{"storage": "memory"}, adapters.Env{}},
		{"postgres dsn", map[string]any{"driver": "postgres", "dsn": pgDSN}, adapters.Env{}},
		{"postgres throwaway", map[string]any{"driver": "postgres"},
			adapters.Env{PostgreSQL: func(context.Context) (string, error) { return pgDSN, nil }}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg, err := open(t, tt.opts, tt.env)
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			if err := tg.Load(ctx, ds); err != nil {
				t.Fatal(err)
			}
			sc := tg.(adapters.OrderedScanner)
			for _, n := range []int{0, 1, 150, 500, 600} {
				got, err := sc.Scan(ctx, n)
				if err != nil {
					t.Fatal(err)
				}
				if want := (adapters.Tally{Rows: int64(min(n, 500)), Sum: ds.SumSortedPrefix(n)}); got != want {
					t.Errorf("scan %d = %+v, want %+v", n, got, want)
				}
			}
			for _, i := range ds.Sample(20, 1) {
				got, err := tg.(adapters.PointReader).Lookup(ctx, ds.Email(int(i)))
				if want := (adapters.Tally{Rows: 1, Sum: ds.Sum(int(i))}); err != nil || got != want {
					t.Errorf("lookup %d = %+v, %v, want %+v", i, got, err, want)
				}
			}
			if got, err := tg.(adapters.PointReader).Lookup(ctx, []byte("nobody@example.com")); err != nil || got.Rows != 0 {
				t.Errorf("lookup of a missing email = %+v, %v", got, err)
			}
			for range 2 { // a second session gets a fresh table again
				insert(t, tg, ds, 250)
			}
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					if got, err := sc.Scan(ctx, 500); err != nil || got.Sum != ds.SumFirst(500) {
						t.Errorf("concurrent scan = %+v, %v", got, err)
					}
				})
			}
			wg.Wait()
			info := tg.Info()
			for _, k := range []string{"driver", "load_path"} {
				if info[k] == nil {
					t.Errorf("info has no %s: %v", k, info)
				}
			}
			if strings.Contains(tt.name, "postgres") {
				if info["server_version"] == nil || info["schema"] == nil {
					t.Errorf("info has no server_version or schema: %v", info)
				}
			}
		})
	}
}

func insert(t *testing.T, tg adapters.Target, ds *dataset.Persons, n int) {
	t.Helper()
	ctx := context.Background()
	sess, err := tg.(adapters.Inserter).NewInsertSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := sess.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		p := ds.Person(i)
		if err := sess.Insert(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	if err := sess.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := sess.Verify(ctx)
	if want := (adapters.Tally{Rows: int64(n), Sum: ds.SumFirst(n)}); err != nil || got != want {
		t.Errorf("insert read back %+v, %v, want %+v", got, err, want)
	}
	if err := sess.Close(); err != nil {
		t.Errorf("insert session close: %v", err)
	}
}

// TestCleanup: Close removes the SQLite file it created and the PostgreSQL schema it created, and
// leaves a schema the options named in place, without the tables it made.
func TestCleanup(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "persons.db")
	tg, err := open(t, map[string]any{"path": path}, adapters.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database file was not created: %v", err)
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %d files behind: %v", len(entries), entries)
	}

	dsn := pgtest.NewDatabase(t)
	conn := pgtest.Connect(t, dsn)
	schemas := func() (n int) {
		t.Helper()
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'dbbench_sql_%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	tg, err = open(t, map[string]any{"driver": "postgres", "dsn": dsn}, adapters.Env{})
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

	if _, err := conn.Exec(ctx, "CREATE SCHEMA given; CREATE TABLE given.keep (x int)"); err != nil {
		t.Fatal(err)
	}
	tg, err = open(t, map[string]any{"driver": "postgres", "dsn": dsn, "schema": "given"}, adapters.Env{})
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := dataset.Generate(50, 1)
	if err := tg.Load(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	var tables []string
	rows, _ := conn.Query(ctx, "SELECT tablename FROM pg_tables WHERE schemaname = 'given'")
	tables, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) != 1 || tables[0] != "keep" {
		t.Errorf("schema given holds %v (%v), want only the user's table keep", tables, err)
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

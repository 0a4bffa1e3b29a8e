package postgres_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbbench/dbbench/internal/exitcode"

	"github.com/dbbench/dbbench/internal/postgres"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestCreateAndSweep: a new schema carries its owner's mark; a sweep drops the schemas of the prefix
// whose owner is dead, and leaves a live owner's, an unmarked one and other prefixes alone.
func TestCreateAndSweep(t *testing.T) {
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.NewDatabase(t))
	live, err := postgres.CreateSchema(ctx, conn, "dbbench_t_")
	if err != nil || !strings.HasPrefix(live, "dbbench_t_") {
		t.Fatalf("CreateSchema: %q, %v", live, err)
	}
	var mark string
	if err := conn.QueryRow(ctx, "SELECT obj_description($1::regnamespace, 'pg_namespace')", live).Scan(&mark); err != nil || !strings.Contains(mark, "pid=") {
		t.Fatalf("owner mark of %s: %q, %v", live, mark, err)
	}
	pgtest.Exec(t, conn, "CREATE SCHEMA dbbench_t_dead", "COMMENT ON SCHEMA dbbench_t_dead IS '"+deadOwner()+"'",
		"CREATE SCHEMA dbbench_t_unmarked", "CREATE SCHEMA other_dead", "COMMENT ON SCHEMA other_dead IS '"+deadOwner()+"'")
	postgres.SweepSchemas(ctx, conn, "dbbench_t_", t.Logf)
	left := pgtest.Strings(t, conn, "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'dbbench_t_%' OR nspname = 'other_dead' ORDER BY 1")
	want := []string{live, "dbbench_t_unmarked", "other_dead"}
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("after the sweep: %v, want %v", left, want)
	}
}

// TestSweepDoesNotWaitForLocks: a dead run's schema that a session of the user's holds a lock in (a
// transaction left open on one of its tables) is left alone after sweepLockTimeout instead of
// holding up the run for as long as that session lives; the connection stays usable.
func TestSweepDoesNotWaitForLocks(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	conn := pgtest.Connect(t, dsn)
	pgtest.Exec(t, conn, "CREATE SCHEMA dbbench_t_locked", "COMMENT ON SCHEMA dbbench_t_locked IS '"+deadOwner()+"'",
		"CREATE TABLE dbbench_t_locked.x (i int)")
	tx, err := pgtest.Connect(t, dsn).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT * FROM dbbench_t_locked.x"); err != nil { // holds ACCESS SHARE until the end
		t.Fatal(err)
	}

	t0 := time.Now()
	done := make(chan struct{})
	go func() { postgres.SweepSchemas(ctx, conn, "dbbench_t_", t.Logf); close(done) }()
	select {
	case <-done:
	case <-time.After(postgres.SweepLockTimeout + 10*time.Second):
		tx.Rollback(ctx) // lets the sweep go on, so that the test ends
		<-done
		t.Fatalf("the sweep waited %v for a lock the user holds", time.Since(t0))
	}
	t.Logf("sweep returned after %v", time.Since(t0))
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = 'dbbench_t_locked'").Scan(&n); err != nil || n != 1 {
		t.Errorf("after the sweep: the locked schema count %d, err %v; want it left, and the connection usable", n, err)
	}
}

// TestOpenSchema: a target's new schema is made after a sweep, its Config works in it (search path
// and session settings on every connection), and Drop removes it and nothing else; a schema the
// user names is used as it is and never dropped.
func TestOpenSchema(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	conn := pgtest.Connect(t, dsn)
	pgtest.Exec(t, conn, "CREATE TABLE mine (x int)", "CREATE SCHEMA dbbench_t_dead", "COMMENT ON SCHEMA dbbench_t_dead IS '"+deadOwner()+"'",
		"CREATE SCHEMA users_own", "CREATE TABLE users_own.keep (x int)")
	schemas := func() []string {
		return pgtest.Strings(t, conn, "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'dbbench_t_%' OR nspname = 'users_own' ORDER BY 1")
	}

	s, err := postgres.OpenSchema(ctx, dsn, postgres.SchemaOptions{Prefix: "dbbench_t_", Session: map[string]string{"enable_memoize": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Created || !strings.HasPrefix(s.Name, "dbbench_t_") || s.Version == "" {
		t.Fatalf("schema %+v", s)
	}
	if got, want := schemas(), []string{s.Name, "users_own"}; !slices.Equal(got, want) {
		t.Errorf("schemas %v, want %v (the dead run's swept)", got, want)
	}
	in := pgtest.Connect(t, s.Config.ConnString())
	for _, c := range []*pgx.Conn{in, connectConfig(t, s.Config)} {
		var schema, memoize string
		if err := c.QueryRow(ctx, "SELECT current_schema(), current_setting('enable_memoize')").Scan(&schema, &memoize); err != nil {
			t.Fatal(err)
		}
		if c == in && (schema != "public" || memoize != "on") {
			t.Errorf("the plain DSN: schema %s, enable_memoize %s", schema, memoize)
		}
		if c != in && (schema != s.Name || memoize != "off") {
			t.Errorf("Config: schema %s, enable_memoize %s; want %s, off", schema, memoize, s.Name)
		}
	}
	if err := s.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if got := schemas(); !slices.Equal(got, []string{"users_own"}) {
		t.Errorf("after Drop: %v", got)
	}
	if _, err := conn.Exec(ctx, "SELECT * FROM mine"); err != nil {
		t.Errorf("the user's table: %v", err)
	}

	own, err := postgres.OpenSchema(ctx, dsn, postgres.SchemaOptions{Prefix: "dbbench_t_", Existing: "users_own"})
	if err != nil || own.Created || own.Name != "users_own" {
		t.Fatalf("existing schema: %+v, %v", own, err)
	}
	if err := own.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SELECT * FROM users_own.keep"); err != nil {
		t.Errorf("the user's schema after Drop: %v", err)
	}
	_, err = postgres.OpenSchema(ctx, dsn, postgres.SchemaOptions{Prefix: "dbbench_t_", Existing: "nope"})
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), `schema "nope" does not exist`) {
		t.Errorf("a missing schema: %v (exit %d)", err, exitcode.Of(err))
	}
}

// deadOwner is the owner mark of a dbbench run that died on this host.
func deadOwner() string {
	host, _ := os.Hostname()
	return "dbbench pid=999999999 host=" + host
}

func connectConfig(t *testing.T, cfg *pgx.ConnConfig) *pgx.Conn {
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// TestOpenSchemaErrors: a server that cannot be used is one line naming it without its password,
// exit 2 when the user can fix the DSN, 3 when the server is not there.
func TestOpenSchemaErrors(t *testing.T) {
	u, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("no_such_role", "secret")
	tests := []struct {
		name, dsn string
		code      int
		want      string
	}{
		{"malformed", "postgres://u:secret@[::1", exitcode.Usage, "dsn postgres://u:***@[::1: "},
		{"unreachable", "postgres://u:secret@127.0.0.1:1/db?connect_timeout=2", exitcode.Infra, "postgres postgres://u:***@127.0.0.1:1/db?connect_timeout=2: cannot connect: "},
		{"unknown role", u.String(), exitcode.Usage, "authentication failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := postgres.OpenSchema(context.Background(), tt.dsn, postgres.SchemaOptions{Prefix: "dbbench_t_"})
			if exitcode.Of(err) != tt.code || !strings.Contains(fmt.Sprint(err), tt.want) ||
				strings.Contains(fmt.Sprint(err), "secret") || strings.Contains(fmt.Sprint(err), "\n") {
				t.Errorf("got %v (exit %d), want one line with %q, exit %d, no password", err, exitcode.Of(err), tt.want, tt.code)
			}
		})
	}
	// A wrong password (the test server trusts every password, so the server's answer is made up).
	err = postgres.ConnectErr("postgres://u:***@h/db", &pgconn.PgError{Code: "28P01", Message: `password authentication failed for user "u"`})
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "authentication failed") {
		t.Errorf("wrong password: %v (exit %d)", err, exitcode.Of(err))
	}
}

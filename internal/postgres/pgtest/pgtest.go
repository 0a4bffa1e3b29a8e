// Package pgtest gives tests a real PostgreSQL server: one throwaway server per test binary, started
// on first use by internal/postgres (local binaries, else a container) and stopped by Main.
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		dsn := pgtest.NewDatabase(t) // a fresh database, dropped after the test
//		conn := pgtest.Connect(t, dsn) // closed after the test
//		...
//	}
//
// When PostgreSQL cannot be started the test fails with the reason: a suite must not pass quietly
// without the server it claims to test. Set DBBENCH_SKIP_POSTGRES=1 to skip these tests on purpose.
// Without Main, the server still dies with the test binary (Pdeathsig) and its directory is removed
// by the next server started in the same temp directory.
package pgtest

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbbench/dbbench/internal/postgres"
)

// SkipEnv names the variable that, set to 1, skips tests needing PostgreSQL.
const SkipEnv = "DBBENCH_SKIP_POSTGRES"

// startTimeout bounds starting the shared server, container pulls included.
const startTimeout = 5 * time.Minute

// shared is the test binary's server. Package state is the point here: the server outlives any
// one test, and Main stops it.
var shared = struct {
	postgres.Lazy
	dbs atomic.Int64 // databases created, for unique names
}{Lazy: postgres.Lazy{Timeout: startTimeout}}

// ForTest returns the test binary's server, starting it on first use. It fails tb when the server
// cannot be started or has died, and skips tb when DBBENCH_SKIP_POSTGRES=1.
func ForTest(tb testing.TB) *postgres.Server {
	tb.Helper()
	if os.Getenv(SkipEnv) == "1" {
		tb.Skipf("%s=1: skipping a test that needs PostgreSQL", SkipEnv)
	}
	srv, err := shared.Server(context.Background())
	if err != nil {
		tb.Fatalf("PostgreSQL for tests: %v (set %s=1 to skip tests that need it)", err, SkipEnv)
	}
	if err := srv.Err(); err != nil {
		tb.Fatalf("PostgreSQL for tests died: %v", err)
	}
	return srv
}

// Main runs the tests and then stops the shared server, if one was started. Use it from TestMain:
// os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if err := shared.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// NewDatabase creates a fresh, empty database on the shared server, named after the test, and
// returns its DSN. The database is dropped (connections and all) when the test ends.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	srv := ForTest(tb)
	name := databaseName(tb.Name(), shared.dbs.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := admin(ctx, srv, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		tb.Fatalf("create database %s: %v", name, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		drop := "DROP DATABASE IF EXISTS " + pgx.Identifier{name}.Sanitize()
		if srv.VersionNum() >= 130000 {
			drop += " WITH (FORCE)" // also ends connections a test left open
		}
		if err := admin(ctx, srv, drop); err != nil {
			tb.Errorf("drop database %s: %v", name, err)
		}
	})
	return srv.DSN(name)
}

// Connect connects to dsn (a database NewDatabase made, say) and closes the connection when the test
// ends. It fails tb when the connection fails.
func Connect(tb testing.TB, dsn string) *pgx.Conn {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		tb.Fatalf("connect to the test server: %v", err)
	}
	tb.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// Exec runs statements on conn, one by one, failing tb at the first that fails.
func Exec(tb testing.TB, conn *pgx.Conn, statements ...string) {
	tb.Helper()
	for _, q := range statements {
		if _, err := conn.Exec(context.Background(), q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
}

// Strings runs a query of one text column on conn and returns its values, failing tb on an error.
func Strings(tb testing.TB, conn *pgx.Conn, query string, args ...any) []string {
	tb.Helper()
	rows, _ := conn.Query(context.Background(), query, args...) // an error comes back from CollectRows
	s, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return s
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9_]+`)

// databaseName makes a valid, unique database name (at most 63 bytes) from a test name.
func databaseName(test string, n int64) string {
	base := strings.Trim(unsafeChars.ReplaceAllString(strings.ToLower(test), "_"), "_")
	suffix := fmt.Sprintf("_%d", n)
	if max := 63 - len("t_") - len(suffix); len(base) > max {
		base = base[:max]
	}
	return "t_" + base + suffix
}

func admin(ctx context.Context, srv *postgres.Server, sql string) error {
	conn, err := pgx.Connect(ctx, srv.DSN("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

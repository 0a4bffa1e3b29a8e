package postgres_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbbench/dbbench/internal/postgres"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestCreateAndSweep: a new schema carries its owner's mark; a sweep drops the schemas of the prefix
// whose owner is dead, and leaves a live owner's, an unmarked one and other prefixes alone.
func TestCreateAndSweep(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	live, err := postgres.CreateSchema(ctx, conn, "dbbench_t_")
	if err != nil || !strings.HasPrefix(live, "dbbench_t_") {
		t.Fatalf("CreateSchema: %q, %v", live, err)
	}
	var mark string
	if err := conn.QueryRow(ctx, "SELECT obj_description($1::regnamespace, 'pg_namespace')", live).Scan(&mark); err != nil || !strings.Contains(mark, "pid=") {
		t.Fatalf("owner mark of %s: %q, %v", live, mark, err)
	}
	host, _ := os.Hostname()
	for _, q := range []string{
		"CREATE SCHEMA dbbench_t_dead",
		"COMMENT ON SCHEMA dbbench_t_dead IS 'dbbench pid=999999999 host=" + host + "'",
		"CREATE SCHEMA dbbench_t_unmarked",
		"CREATE SCHEMA other_dead",
		"COMMENT ON SCHEMA other_dead IS 'dbbench pid=999999999 host=" + host + "'",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	postgres.SweepSchemas(ctx, conn, "dbbench_t_", t.Logf)
	rows, _ := conn.Query(ctx, "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'dbbench_t_%' OR nspname = 'other_dead' ORDER BY 1")
	left, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
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
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	host, _ := os.Hostname()
	for _, q := range []string{
		"CREATE SCHEMA dbbench_t_locked",
		"COMMENT ON SCHEMA dbbench_t_locked IS 'dbbench pid=999999999 host=" + host + "'",
		"CREATE TABLE dbbench_t_locked.x (i int)",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	user, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close(ctx)
	tx, err := user.Begin(ctx)
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

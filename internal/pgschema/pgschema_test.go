package pgschema

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/dbbench/dbbench/internal/pgserver/pgtest"
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
	live, err := Create(ctx, conn, "dbbench_t_")
	if err != nil || !strings.HasPrefix(live, "dbbench_t_") {
		t.Fatalf("Create: %q, %v", live, err)
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
	Sweep(ctx, conn, "dbbench_t_", t.Logf)
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

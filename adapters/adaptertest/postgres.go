package adaptertest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresRemains returns a Target.Remains for targets working on the PostgreSQL database at dsn:
// its schemas and tables, outside the system's.
func PostgresRemains(dsn string) func(testing.TB) []string {
	return func(t testing.TB) []string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("list the database's schemas: %v", err)
		}
		defer conn.Close(ctx)
		rows, _ := conn.Query(ctx, `SELECT 'schema ' || nspname FROM pg_namespace
WHERE nspname NOT LIKE 'pg\_%' AND nspname <> 'information_schema'
UNION ALL SELECT 'table ' || schemaname || '.' || tablename FROM pg_tables
WHERE schemaname NOT LIKE 'pg\_%' AND schemaname <> 'information_schema'`)
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("list the database's schemas: %v", err)
		}
		return names
	}
}

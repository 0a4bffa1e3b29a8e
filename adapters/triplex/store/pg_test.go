package store

import (
	"context"
	"database/sql"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/dbbench/dbbench/internal/pgserver/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// postgresForTest returns an opener of fresh PostgreSQL databases on the test binary's server.
func postgresForTest(t *testing.T) func(t *testing.T) *sql.DB {
	pgtest.ForTest(t)
	return func(t *testing.T) *sql.DB {
		t.Helper()
		cfg, err := pgx.ParseConfig(pgtest.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		db := stdlib.OpenDB(*cfg)
		if err := db.PingContext(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
}

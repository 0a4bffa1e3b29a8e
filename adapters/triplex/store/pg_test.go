package store

import (
	"context"
	"database/sql"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// postgresForTest returns an opener of fresh PostgreSQL databases on the test binary's server: a
// database/sql handle and a pgx pool on the same database.
func postgresForTest(t *testing.T) func(t *testing.T) (*sql.DB, TxBeginner) {
	pgtest.ForTest(t)
	return func(t *testing.T) (*sql.DB, TxBeginner) {
		t.Helper()
		dsn := pgtest.NewDatabase(t)
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		db := stdlib.OpenDB(*cfg)
		if err := db.PingContext(context.Background()); err != nil {
			t.Fatal(err)
		}
		pool, err := pgxpool.New(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pool.Close(); db.Close() })
		return db, pool
	}
}

package postgres

// The one thing dbbench creates on a PostgreSQL server: a schema of its own per target, named
// PREFIX<random> and marked with its owner (pid and host, internal/cleanup), so that a later run can
// drop the schemas of runs that died (SIGKILL, a crash) and only those.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbbench/dbbench/internal/cleanup"
)

// CreateSchema creates a new schema PREFIX<random> and marks it with this process as its owner.
func CreateSchema(ctx context.Context, conn *pgx.Conn, prefix string) (string, error) {
	var err error
	for range 5 {
		var b [6]byte
		rand.Read(b[:])
		name := prefix + hex.EncodeToString(b[:])
		if _, err = conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize()); err == nil {
			// The owner's mark lets a later run remove the schema if this process dies first.
			_, err = conn.Exec(ctx, "COMMENT ON SCHEMA "+pgx.Identifier{name}.Sanitize()+" IS '"+cleanup.Owner()+"'")
			return name, err
		}
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "42P06" { // duplicate_schema: pick another name
			break
		}
	}
	return "", err
}

// sweepLockTimeout bounds how long dropping a dead run's schema waits for a lock: a session of the
// user's holding one (say, a transaction left open on one of its tables) must not hold up the run.
const sweepLockTimeout = 2 * time.Second

// SweepSchemas drops the schemas with the prefix that runs which died left on the server: those whose owner
// mark names a dead process of this host, and only those. Failures are ignored: a sweep is a courtesy.
// A schema that cannot be locked within sweepLockTimeout is left for a later run (a lock timeout,
// not a cancelled context, so that conn stays usable).
func SweepSchemas(ctx context.Context, conn *pgx.Conn, prefix string, logf func(string, ...any)) {
	rows, err := conn.Query(ctx, `SELECT nspname, coalesce(obj_description(oid, 'pg_namespace'), '')
		FROM pg_namespace WHERE starts_with(nspname, $1)`, prefix)
	if err != nil {
		return
	}
	var stale []string
	for rows.Next() {
		var name, mark string
		if rows.Scan(&name, &mark) == nil && cleanup.Dead(mark) {
			stale = append(stale, name)
		}
	}
	rows.Close()
	for _, name := range stale {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, fmt.Sprintf("SET LOCAL lock_timeout = %d", sweepLockTimeout.Milliseconds())); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE")
			return err
		})
		if err == nil && logf != nil {
			logf("removed schema %s, left by a dbbench run that did not finish", name)
		}
	}
}

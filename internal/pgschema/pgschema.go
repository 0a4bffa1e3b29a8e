// Package pgschema is the one thing dbbench creates on a PostgreSQL server: a schema of its own per
// target, named PREFIX<random> and marked with its owner (pid and host, internal/cleanup), so that a
// later run can drop the schemas of runs that died (SIGKILL, a crash) and only those.
package pgschema

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbbench/dbbench/internal/cleanup"
)

// Create creates a new schema PREFIX<random> and marks it with this process as its owner.
func Create(ctx context.Context, conn *pgx.Conn, prefix string) (string, error) {
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

// Sweep drops the schemas with the prefix that runs which died left on the server: those whose owner
// mark names a dead process of this host, and only those. Failures are ignored: a sweep is a courtesy.
func Sweep(ctx context.Context, conn *pgx.Conn, prefix string, logf func(string, ...any)) {
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
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err == nil && logf != nil {
			logf("removed schema %s, left by a dbbench run that did not finish", name)
		}
	}
}

package postgres

// The one thing dbbench creates on a PostgreSQL server: a schema of its own per target, named
// PREFIX<random> and marked with its owner (pid and host, internal/cleanup), so that a later run can
// drop the schemas of runs that died (SIGKILL, a crash) and only those. OpenSchema is what targets
// use: it connects, makes the schema (or checks the user's) and gives the connection settings that
// work in it.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/randhex"
	"github.com/dbbench/dbbench/internal/redact"
)

// CreateSchema creates a new schema PREFIX<random> and marks it with this process as its owner.
func CreateSchema(ctx context.Context, conn *pgx.Conn, prefix string) (string, error) {
	var err error
	for range 5 {
		name := prefix + randhex.String(6)
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

// Schema is the schema one target works in on a server, and how to reach it: a new schema dbbench
// made (Created; Drop removes it), or an existing one the user named (never dropped).
type Schema struct {
	Name    string
	Created bool
	// Version is the server's server_version.
	Version string
	// Config connects to the server with the schema as the search path (and the session settings
	// SchemaOptions gave), for every connection of the target's pools.
	Config *pgx.ConnConfig
	// Server is the DSN with its password masked, for messages and reports.
	Server string
}

// SchemaOptions says which schema OpenSchema gives a target.
type SchemaOptions struct {
	// Prefix names a new schema: PREFIX<random>. Before making it, OpenSchema drops the schemas with
	// the prefix that dead dbbench runs left (SweepSchemas).
	Prefix string
	// Existing, when set, is the user's schema to work in instead of a new one; it must exist.
	Existing string
	// Session holds settings (PostgreSQL names) for every connection, beside the search path.
	Session map[string]string
	// Logf receives a line per swept schema; nil means quiet.
	Logf func(format string, args ...any)
}

// connectTimeout bounds connecting, unless the DSN asks for less.
const connectTimeout = 10 * time.Second

// OpenSchema connects to the server at dsn, reads its version and makes (or checks) the target's
// schema, as the SQL and Triplex adapters and exec targets do on a dsn of the user's or a throwaway
// server. Errors are one line naming the server with its password masked, "postgres SERVER: ...":
// a DSN that does not parse, rejected credentials, a missing database or schema are usage errors
// (exit 2), anything else an infrastructure error (exit 3).
func OpenSchema(ctx context.Context, dsn string, o SchemaOptions) (*Schema, error) {
	s := &Schema{Server: redact.DSN(dsn)}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, exitcode.Usagef("dsn %s: %v", s.Server, exitcode.OneLine(err.Error()))
	}
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > connectTimeout {
		cfg.ConnectTimeout = connectTimeout
	}
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, connectErr(s.Server, err)
	}
	defer admin.Close(context.WithoutCancel(ctx))
	if err := admin.QueryRow(ctx, "SHOW server_version").Scan(&s.Version); err != nil {
		return nil, exitcode.Infraf("postgres %s: %v", s.Server, exitcode.OneLine(err.Error()))
	}
	if err := s.make(ctx, admin, o); err != nil {
		return nil, err
	}
	cfg.RuntimeParams["search_path"] = pgx.Identifier{s.Name}.Sanitize()
	for k, v := range o.Session {
		cfg.RuntimeParams[k] = v
	}
	s.Config = cfg
	return s, nil
}

// make checks the existing schema the options name, or sweeps and creates a new one.
func (s *Schema) make(ctx context.Context, admin *pgx.Conn, o SchemaOptions) error {
	if o.Existing != "" {
		var ok bool
		if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", o.Existing).Scan(&ok); err != nil {
			return exitcode.Infraf("postgres %s: look up schema %s: %v", s.Server, o.Existing, exitcode.OneLine(err.Error()))
		}
		if !ok {
			return exitcode.Usagef("postgres schema %q does not exist (leave schema empty for a new one)", o.Existing)
		}
		s.Name = o.Existing
		return nil
	}
	SweepSchemas(ctx, admin, o.Prefix, o.Logf)
	name, err := CreateSchema(ctx, admin, o.Prefix)
	if err != nil {
		if name != "" { // made, but not marked: a sweep could never remove it
			admin.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{name}.Sanitize())
		}
		return exitcode.Infraf("postgres %s: create schema: %v", s.Server, exitcode.OneLine(err.Error()))
	}
	s.Name, s.Created = name, true
	return nil
}

// Drop drops the schema, if OpenSchema created it, with everything in it, through a connection of
// its own, within ctx. A schema of the user's is left alone.
func (s *Schema) Drop(ctx context.Context) error {
	if !s.Created {
		return nil
	}
	conn, err := pgx.ConnectConfig(ctx, s.Config)
	if err == nil {
		defer conn.Close(context.WithoutCancel(ctx))
		_, err = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{s.Name}.Sanitize()+" CASCADE")
	}
	if err != nil {
		return exitcode.Infraf("postgres %s: drop schema %s: %v", s.Server, s.Name, exitcode.OneLine(err.Error()))
	}
	return nil
}

// connectErr classifies a failed connection: rejected credentials or a missing database are the
// user's to fix (exit 2); an unreachable server is infrastructure (exit 3).
func connectErr(server string, err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "28P01", "28000":
			return exitcode.Usagef("postgres %s: authentication failed (%s): check the user and password in the dsn", server, pgErr.Message)
		case "3D000":
			return exitcode.Usagef("postgres %s: %s", server, pgErr.Message)
		}
	}
	return exitcode.Infraf("postgres %s: cannot connect: %v", server, exitcode.OneLine(err.Error()))
}

package sqladapter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/buildinfo"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/postgres"
)

// dropTimeout bounds dropping a table or the schema, so that a server gone away cannot hang the run;
// interruptedDropTimeout does once the run's context is done (Ctrl-C, or the engine gave up on a
// stalled server): then the drop is only tried, and a schema left behind is removed by the next run.
const (
	dropTimeout            = time.Minute
	interruptedDropTimeout = 500 * time.Millisecond
)

// openPostgres connects to the dsn (or the run's throwaway server) and works in a schema of its own:
// a new dbbench_sql_<random>, or the existing schema the options name. Nothing else is touched.
// runCtx is the run's context (starting the throwaway server, and the store's cleanup); ctx bounds
// setting up.
func openPostgres(runCtx, ctx context.Context, c config, env adapters.Env) (*store, error) {
	dsn, server := c.dsn, "dsn "+adapters.RedactDSN(c.dsn)
	if dsn == "" {
		if env.PostgreSQL == nil {
			return nil, adapters.Unavailable("sql: driver postgres without a dsn needs the run's throwaway server, and there is none here")
		}
		var err error
		if dsn, err = env.PostgreSQL(runCtx); err != nil {
			return nil, err
		}
		server = "the run's throwaway server"
	}
	sc, err := postgres.OpenSchema(ctx, dsn, postgres.SchemaOptions{Prefix: schemaPrefix, Existing: c.schema})
	if err != nil {
		return nil, fmt.Errorf("sql: %w", err)
	}
	db := stdlib.OpenDB(*sc.Config)
	db.SetMaxIdleConns(16)
	s := &store{db: db, driver: DriverPostgres, readTx: &sql.TxOptions{ReadOnly: true}, runCtx: runCtx, pgConfig: sc.Config,
		createSQL: `CREATE TABLE %s (email TEXT COLLATE "C" PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL)`}
	s.close = func() error {
		ctx, cancel := s.cleanupContext()
		defer cancel()
		var err error
		if derr := sc.Drop(ctx); derr != nil {
			err = fmt.Errorf("sql: %w", derr)
		}
		return errors.Join(err, db.Close())
	}
	if err := db.PingContext(ctx); err != nil {
		return nil, errors.Join(exitcode.Infraf("sql: postgres %s: %v", sc.Server, exitcode.OneLine(err.Error())), s.close())
	}
	progress := env.ProgressFunc()
	s.progress = progress
	s.load = func(ctx context.Context, ds *dataset.Persons) error { return s.copyPersons(ctx, sc.Name, ds, progress) }
	s.info = func(ctx context.Context) map[string]any {
		m := map[string]any{
			"driver":         buildinfo.Named("github.com/jackc/pgx/v5") + " through database/sql (pgx/stdlib); YCSB reads and updates through pgx itself on the same connections",
			"server_version": sc.Version, "server": server, "schema": sc.Name, "schema_created": sc.Created,
			"load_path": "COPY (pgx CopyFrom) in email order, then VACUUM ANALYZE",
		}
		for _, name := range []string{"shared_buffers", "synchronous_commit", "fsync", "jit"} {
			var v string
			if err := db.QueryRowContext(ctx, "SELECT current_setting($1)", name).Scan(&v); err == nil {
				m[name] = v
			}
		}
		return m
	}
	return s, nil
}

// schemaPrefix names the schemas the adapter creates on a server.
const schemaPrefix = "dbbench_sql_"

// copyPersons loads the persons in email order with COPY (copyIn).
func (s *store) copyPersons(ctx context.Context, schema string, ds *dataset.Persons, progress func()) error {
	order := ds.Sorted()
	return s.copyIn(ctx, bulkCopy{
		table: pgx.Identifier{schema, personsTable}, cols: []string{"email", "name", "age"}, rows: len(order),
		row: func(i int) []any {
			j := int(order[i])
			return []any{string(ds.Email(j)), string(ds.Name(j)), int32(ds.Age(j))}
		},
		what: "load", noun: "persons",
	}, progress)
}

// bulkCopy is one table's load by COPY.
type bulkCopy struct {
	table pgx.Identifier
	cols  []string
	rows  int
	row   func(i int) []any // row i's values, in cols' order
	what  string            // the load, in errors: "load"
	noun  string            // its rows, in errors: "persons"
}

// copyIn loads c's rows with COPY, then vacuums and analyzes the table so that the first timed reads
// do not set hint bits or plan on guesses. progress is called per row as pgx encodes it
// (adapters.Env.Progress): a server that stops reading the COPY stops the calls.
func (s *store) copyIn(ctx context.Context, c bulkCopy, progress func()) error {
	progress() // from here on, the engine watches the load
	err := s.withPgx(ctx, func(pc *pgx.Conn) error {
		rows := pgx.CopyFromSlice(c.rows, func(i int) ([]any, error) {
			progress()
			return c.row(i), nil
		})
		n, err := pc.CopyFrom(ctx, c.table, c.cols, rows)
		if err == nil && n != int64(c.rows) {
			err = fmt.Errorf("COPY stored %d of %d %s", n, c.rows, c.noun)
		}
		progress() // VACUUM ANALYZE gets a whole stall_timeout
		return err
	})
	if err == nil {
		// The table by its name alone, as the connection's search path finds it.
		_, err = s.db.ExecContext(ctx, "VACUUM ANALYZE "+c.table[len(c.table)-1])
	}
	if err != nil {
		return exitcode.Infraf("sql: %s: %v", c.what, exitcode.OneLine(err.Error()))
	}
	return nil
}

// withPgx runs f on one of the pool's connections, as pgx's own connection: pgx's calls cost less
// than database/sql's (no goroutine per result set watching the context; pgx watches it with
// context.AfterFunc), which a closed loop of 16 workers sharing two cores with the server shows.
func (s *store) withPgx(ctx context.Context, f func(*pgx.Conn) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error { return f(dc.(*stdlib.Conn).Conn()) })
}

// pgRecords are the record statements' texts for pgx, placeholders numbered.
type pgRecords struct {
	read   string
	update []string // one per field
}

// readPG is ReadRecord on PostgreSQL: the row's values as the server sent them (a TEXT column's
// binary format is its bytes), copied into dst before the connection goes back to the pool.
func (s *store) readPG(ctx context.Context, r *records, key []byte, dst [][]byte) ([][]byte, bool, error) {
	found := false
	err := s.withPgx(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, r.pg.read, string(key))
		if err != nil {
			return err
		}
		defer rows.Close()
		if !rows.Next() {
			return rows.Err()
		}
		raw := rows.RawValues()
		if len(raw) != r.fields {
			return fmt.Errorf("a row of %d values, want %d fields", len(raw), r.fields)
		}
		dst = slices.Grow(dst[:0], r.fields)[:r.fields]
		for f, v := range raw {
			dst[f] = append(dst[f][:0], v...)
		}
		found = true
		rows.Close()
		return rows.Err()
	})
	return dst, found, readErr(err)
}

// updatePG runs an update on PostgreSQL: the rows it changed.
func (s *store) updatePG(ctx context.Context, q string, key, value []byte) (int64, error) {
	var n int64
	err := s.withPgx(ctx, func(c *pgx.Conn) error {
		tag, err := c.Exec(ctx, q, string(value), string(key))
		n = tag.RowsAffected()
		return err
	})
	return n, err
}

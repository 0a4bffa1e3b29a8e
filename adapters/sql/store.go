package sqladapter

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// The reference statements of docs/protocol.md, with ? placeholders (numbered for PostgreSQL by bind).
const (
	scanSQL   = "SELECT email, name, age FROM persons ORDER BY email LIMIT ?"
	lookupSQL = "SELECT email, name, age FROM persons WHERE email = ?"
	insertSQL = "INSERT INTO %s (email, name, age) VALUES (?, ?, ?)"
	readSQL   = "SELECT email, name, age FROM %s"
)

// Table names: the loaded persons and the insert workload's fresh table.
const (
	personsTable = "persons"
	insertTable  = "persons_insert"
)

// store is the database the person tables live in, with what differs between the drivers.
type store struct {
	db     *sql.DB
	driver string
	// createSQL creates a person table (one %s: its name).
	createSQL string
	// readTx begins a scan's read transaction.
	readTx *sql.TxOptions
	// load stores ds into the persons table with the driver's fastest path.
	load func(ctx context.Context, ds *dataset.Persons) error
	// progress is the run's Env.Progress for a load over the network (nil: none watched).
	progress func()
	info     func(ctx context.Context) map[string]any
	close    func() error
	// runCtx is the context the store was opened with (nil for SQLite): once it is done, cleaning
	// up on the server gets a short deadline.
	runCtx context.Context
	// use is whose store it is (adapters.Env.Store): a kept or attached one keeps its tables.
	use adapters.StoreUse
	// pgConfig connects to PostgreSQL in the target's schema (nil for SQLite): a sql workload's
	// workers each get a pgx connection of their own with it.
	pgConfig *pgx.ConnConfig
}

// cleanupContext bounds a drop on the server: dropTimeout, or interruptedDropTimeout once the run's
// context is done.
func (s *store) cleanupContext() (context.Context, context.CancelFunc) {
	if s.runCtx != nil && s.runCtx.Err() != nil {
		return context.WithTimeout(context.Background(), interruptedDropTimeout)
	}
	return context.WithTimeout(context.Background(), dropTimeout)
}

// progressFunc returns progress, or a function that does nothing.
func (s *store) progressFunc() func() {
	if s.progress == nil {
		return func() {}
	}
	return s.progress
}

// bind numbers the placeholders for PostgreSQL ($1, $2, ...); SQLite takes ? as written.
func (s *store) bind(q string) string {
	if s.driver != DriverPostgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// keptMark is the comment a load-only run (adapters.StoreKeep) puts on each table it makes in the
// user's schema: the one sign that a table there is dbbench's, so that a later load-only run (a
// Kubernetes load Job retried after an eviction, or a second run of the same rendering) replaces
// it and starts from a clean store, while a table without it stays the user's and is refused.
const keptMark = "made by dbbench run --load-only; a later --load-only replaces it"

// markKept marks table as a load-only run's (nothing for a store of the target's own).
func (s *store) markKept(ctx context.Context, table string) error {
	if s.use != adapters.StoreKeep {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, fmt.Sprintf("COMMENT ON TABLE %s IS '%s'", table, keptMark)); err != nil {
		return exitcode.Infraf("sql: mark table %s as the load's: %v", table, exitcode.OneLine(err.Error()))
	}
	return nil
}

// reclaimKept drops table when an earlier load-only run made it (it carries keptMark), so that a
// load-only run starts from a clean store; a table without the mark is left for the create to
// refuse.
func (s *store) reclaimKept(ctx context.Context, table string) error {
	if s.use != adapters.StoreKeep || s.driver != DriverPostgres {
		return nil
	}
	var mark sql.NullString
	if err := s.db.QueryRowContext(ctx, "SELECT obj_description(to_regclass($1), 'pg_class')", table).Scan(&mark); err != nil {
		return exitcode.Infraf("sql: look up table %s: %v", table, exitcode.OneLine(err.Error()))
	}
	if !mark.Valid || mark.String != keptMark {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, "DROP TABLE "+table); err != nil {
		return exitcode.Infraf("sql: drop table %s an earlier load left: %v", table, exitcode.OneLine(err.Error()))
	}
	return nil
}

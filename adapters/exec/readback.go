package exec

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // registers the "sqlite" database/sql driver

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// Reading back what a client wrote (protocol 2, docs/protocol.md "Stores dbbench reads"): dbbench
// opens the store itself, read-only, with its own drivers (lmdb-go, modernc SQLite, pgx), decodes
// every row of the person layout and folds it into a tally, so that what a client claims to have
// written is checked by a path the client does not control.

// readBackTimeout bounds one read-back.
const readBackTimeout = 2 * time.Minute

// sqlTable is what a store's table may be called: a plain identifier.
var sqlTable = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// ReadBack reads every person of a store a client describes and returns their tally. pg is the
// server and schema dbbench handed the client (nil for none): dbbench reads a PostgreSQL store only
// there. A store dbbench cannot open (kind other) is an error; callers use the challenge instead.
func ReadBack(ctx context.Context, st protocol.Store, pg *protocol.Postgres) (adapters.Tally, error) {
	ctx, cancel := context.WithTimeout(ctx, readBackTimeout)
	defer cancel()
	table := st.Table
	if table == "" {
		table = "persons"
	}
	switch st.Kind {
	case protocol.StoreLMDB:
		if st.Path == "" {
			return adapters.Tally{}, fmt.Errorf("store kind lmdb without a path")
		}
		return readLMDB(st.Path)
	case protocol.StoreSQLite:
		if st.Path == "" {
			return adapters.Tally{}, fmt.Errorf("store kind sqlite without a path")
		}
		if !sqlTable.MatchString(table) {
			return adapters.Tally{}, fmt.Errorf("store table %q is not a plain SQL identifier", table)
		}
		return readSQL(ctx, "sqlite", "file:"+st.Path+"?mode=ro&_pragma=busy_timeout(5000)", `"`+table+`"`)
	case protocol.StorePostgres:
		if pg == nil {
			return adapters.Tally{}, fmt.Errorf("store kind postgres, but dbbench handed this client no PostgreSQL schema")
		}
		if st.Schema != pg.Schema {
			return adapters.Tally{}, fmt.Errorf("store schema %q is not the schema %q dbbench handed the client", st.Schema, pg.Schema)
		}
		if !sqlTable.MatchString(table) {
			return adapters.Tally{}, fmt.Errorf("store table %q is not a plain SQL identifier", table)
		}
		return readSQL(ctx, "pgx", pg.DSN, pgx.Identifier{pg.Schema, table}.Sanitize())
	case protocol.StoreOther:
		return adapters.Tally{}, fmt.Errorf("store kind other: dbbench cannot open it")
	}
	return adapters.Tally{}, fmt.Errorf("unknown store kind %q (want lmdb, sqlite, postgres or other)", st.Kind)
}

// readSQL reads every row of table (quoted already) in one read-only transaction.
func readSQL(ctx context.Context, driver, dsn, table string) (t adapters.Tally, err error) {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return t, err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return t, exitcode.Infraf("%s: %v", driver, exitcode.OneLine(err.Error()))
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, "SELECT email, name, age FROM "+table)
	if err != nil {
		return t, exitcode.Infraf("%s: %v", driver, exitcode.OneLine(err.Error()))
	}
	defer rows.Close()
	var email, name sql.RawBytes
	var age int
	for rows.Next() {
		if err := rows.Scan(&email, &name, &age); err != nil {
			return t, err
		}
		t.Rows++
		t.Sum += dataset.RowSum(email, name, age)
	}
	return t, rows.Err()
}

// storeNames says where dbbench read a store from, for the report's verification line.
var storeNames = map[string]string{
	protocol.StoreLMDB: "the LMDB environment", protocol.StoreSQLite: "the SQLite file", protocol.StorePostgres: "the PostgreSQL schema",
}

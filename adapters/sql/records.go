package sqladapter

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// The record capabilities of a sql target (adapters/records.go): removing a method fails the build.
var _ adapters.RecordStore = (*target)(nil)

// YCSB's table and key column, as its JDBC binding names them; the fields are field0, field1, ...
const (
	recordTable = "usertable"
	keyColumn   = "ycsb_key"
)

// records is the loaded usertable and its statements, each prepared once at load time (outside any
// timed region) on the pool, so that every operation is one execution in its own implicit
// transaction on whichever connection is free.
type records struct {
	fields int
	// pg: on PostgreSQL, reads and updates go to pgx directly (on the pool's connections, its
	// statement cache preparing each statement once per connection), not through database/sql.
	pg     *pgRecords
	read   *sql.Stmt
	update []*sql.Stmt // one per field: UPDATE usertable SET fieldF = ? WHERE ycsb_key = ?
	insert *sql.Stmt
	scan   *sql.Stmt
}

// recordStatements are the statements, with ? placeholders, for a usertable of n fields.
func recordStatements(n int) (read, insert, scan string, update []string) {
	cols := make([]string, n)
	for f := range cols {
		cols[f] = dataset.FieldName(f)
		update = append(update, fmt.Sprintf("UPDATE %s SET %s = ? WHERE %s = ?", recordTable, cols[f], keyColumn))
	}
	list := strings.Join(cols, ", ")
	read = fmt.Sprintf("SELECT %s FROM %s WHERE %s = ?", list, recordTable, keyColumn)
	insert = fmt.Sprintf("INSERT INTO %s (%s, %s) VALUES (?%s)", recordTable, keyColumn, list, strings.Repeat(", ?", n))
	scan = fmt.Sprintf("SELECT %s, %s FROM %s WHERE %s >= ? ORDER BY %s LIMIT ?", keyColumn, list, recordTable, keyColumn, keyColumn)
	return read, insert, scan, update
}

// createRecordTable is the usertable's DDL: the key in byte order (SQLite's default BINARY
// collation; "C" on PostgreSQL, whose default follows the server's locale), as scans need.
func (s *store) createRecordTable(n int) string {
	var b strings.Builder
	if s.driver == DriverPostgres {
		fmt.Fprintf(&b, `CREATE TABLE %s (%s TEXT COLLATE "C" PRIMARY KEY`, recordTable, keyColumn)
	} else {
		fmt.Fprintf(&b, "CREATE TABLE %s (%s TEXT PRIMARY KEY", recordTable, keyColumn)
	}
	for f := range n {
		fmt.Fprintf(&b, ", %s TEXT NOT NULL", dataset.FieldName(f))
	}
	b.WriteString(")")
	if s.driver != DriverPostgres {
		b.WriteString(" WITHOUT ROWID") // the table is its primary key's B-tree, as the person table
	}
	return b.String()
}

// LoadRecords creates a fresh usertable (dropping the one a previous load of this target made;
// refusing one it did not make), stores records [0, n) in key order with the driver's bulk path
// (COPY on PostgreSQL, one transaction of prepared inserts on SQLite) and prepares the operations.
func (t *target) LoadRecords(ctx context.Context, y dataset.YCSB, n int64) error {
	if n < 0 {
		return exitcode.Usagef("sql: %d records to load", n)
	}
	if t.s.use == adapters.StoreAttach { // loaded once for every shard: check it, prepare
		if err := t.checkCount(ctx, recordTable, n, true); err != nil {
			return err
		}
		var err error
		t.rec, err = t.prepareRecords(ctx, y.FieldCount)
		return err
	}
	if err := t.dropRecords(ctx); err != nil {
		return err
	}
	if err := t.s.reclaimKept(ctx, recordTable); err != nil {
		return err
	}
	if _, err := t.s.db.ExecContext(ctx, t.s.createRecordTable(y.FieldCount)); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P07" { // duplicate_table
			return exitcode.Usagef("sql: table %s exists already in the schema; dbbench never touches a table it did not create", recordTable)
		}
		return exitcode.Infraf("sql: create table %s: %v", recordTable, exitcode.OneLine(err.Error()))
	}
	t.recordTable = true
	if err := t.s.markKept(ctx, recordTable); err != nil {
		return err
	}
	order := keyOrder(y, n)
	var err error
	if t.s.driver == DriverPostgres {
		err = t.copyRecords(ctx, y, order)
	} else {
		err = t.insertRecords(ctx, y, order)
	}
	if err != nil {
		return err
	}
	t.rec, err = t.prepareRecords(ctx, y.FieldCount)
	return err
}

// keyOrder is the record numbers [0, n) in key byte order: loading in the primary key's order
// fills its B-tree page by page, as the person table's load does.
func keyOrder(y dataset.YCSB, n int64) []int64 {
	keys := make([][]byte, n)
	order := make([]int64, n)
	for i := range order {
		order[i] = int64(i)
		keys[i] = y.Key(int64(i))
	}
	slices.SortFunc(order, func(a, b int64) int { return bytes.Compare(keys[a], keys[b]) })
	return order
}

// recordArgs is record i's key and fields as statement arguments (strings: SQLite stores a []byte
// as a BLOB, which never equals nor sorts with TEXT).
func recordArgs(y dataset.YCSB, i int64) []any {
	args := make([]any, 0, 1+y.FieldCount)
	args = append(args, string(y.Key(i)))
	for _, f := range y.Fields(i) {
		args = append(args, string(f))
	}
	return args
}

// insertRecords is SQLite's bulk path: one transaction of prepared inserts.
func (t *target) insertRecords(ctx context.Context, y dataset.YCSB, order []int64) error {
	tx, err := t.s.db.BeginTx(ctx, nil)
	if err != nil {
		return exitcode.Infraf("sql: load records: %w", err)
	}
	defer tx.Rollback()
	_, insert, _, _ := recordStatements(y.FieldCount)
	stmt, err := tx.PrepareContext(ctx, t.s.bind(insert))
	if err != nil {
		return exitcode.Infraf("sql: load records: %w", err)
	}
	for _, i := range order {
		if _, err := stmt.ExecContext(ctx, recordArgs(y, i)...); err != nil {
			return exitcode.Infraf("sql: load record %d: %v", i, exitcode.OneLine(err.Error()))
		}
	}
	if err := tx.Commit(); err != nil {
		return exitcode.Infraf("sql: load records: commit: %w", err)
	}
	return nil
}

// copyRecords is PostgreSQL's bulk path: COPY, then VACUUM ANALYZE, as for the persons.
func (t *target) copyRecords(ctx context.Context, y dataset.YCSB, order []int64) error {
	cols := []string{keyColumn}
	for f := range y.FieldCount {
		cols = append(cols, dataset.FieldName(f))
	}
	return t.s.copyIn(ctx, bulkCopy{
		table: pgx.Identifier{recordTable}, cols: cols, rows: len(order),
		row:  func(k int) []any { return recordArgs(y, order[k]) },
		what: "load records", noun: "records",
	}, t.s.progressFunc())
}

// prepareRecords prepares the operations' statements on the pool.
func (t *target) prepareRecords(ctx context.Context, fields int) (*records, error) {
	read, insert, scan, update := recordStatements(fields)
	r := &records{fields: fields, update: make([]*sql.Stmt, fields)}
	if t.s.driver == DriverPostgres {
		r.pg = &pgRecords{read: t.s.bind(read)}
		for _, q := range update {
			r.pg.update = append(r.pg.update, t.s.bind(q))
		}
	}
	dst, queries := []**sql.Stmt{&r.read, &r.insert, &r.scan}, []string{read, insert, scan}
	for f, q := range update {
		dst, queries = append(dst, &r.update[f]), append(queries, q)
	}
	for k, q := range queries {
		stmt, err := t.s.db.PrepareContext(ctx, t.s.bind(q))
		if err != nil {
			return nil, errors.Join(exitcode.Infraf("sql: prepare %q: %v", q, exitcode.OneLine(err.Error())), r.close())
		}
		*dst[k] = stmt
	}
	return r, nil
}

// close closes the statements prepared so far.
func (r *records) close() error {
	var err error
	for _, stmt := range append([]*sql.Stmt{r.read, r.insert, r.scan}, r.update...) {
		if stmt != nil {
			err = errors.Join(err, stmt.Close())
		}
	}
	return err
}

// dropRecords drops the usertable a previous load of this target made, and its statements.
func (t *target) dropRecords(ctx context.Context) error {
	if t.rec != nil {
		err := t.rec.close()
		t.rec = nil
		if err != nil {
			return exitcode.Infraf("sql: close the record statements: %v", err)
		}
	}
	if !t.recordTable {
		return nil
	}
	if _, err := t.s.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+recordTable); err != nil {
		return exitcode.Infraf("sql: drop table %s: %v", recordTable, exitcode.OneLine(err.Error()))
	}
	t.recordTable = false
	return nil
}

// loaded returns the record statements, or an error before LoadRecords.
func (t *target) loaded() (*records, error) {
	if t.rec == nil {
		return nil, errors.New("sql: no records loaded (LoadRecords first)")
	}
	return t.rec, nil
}

// ReadRecord runs the prepared read, copying each field into dst (the row's bytes are the driver's
// until the next row).
func (t *target) ReadRecord(ctx context.Context, key []byte, dst [][]byte) ([][]byte, bool, error) {
	r, err := t.loaded()
	if err != nil {
		return dst, false, err
	}
	if r.pg != nil {
		return t.s.readPG(ctx, r, key, dst)
	}
	rows, err := r.read.QueryContext(ctx, string(key))
	if err != nil {
		return dst, false, readErr(err)
	}
	defer rows.Close()
	if !rows.Next() {
		return dst, false, readErr(rows.Err())
	}
	raw := make([]sql.RawBytes, r.fields)
	ptrs := make([]any, r.fields)
	for f := range raw {
		ptrs[f] = &raw[f]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return dst, false, readErr(err)
	}
	dst = slices.Grow(dst[:0], r.fields)[:r.fields]
	for f, v := range raw {
		dst[f] = append(dst[f][:0], v...)
	}
	return dst, true, readErr(rows.Close())
}

// UpdateRecord runs the field's prepared update; no row changed means no such record.
func (t *target) UpdateRecord(ctx context.Context, key []byte, field int, value []byte) error {
	r, err := t.loaded()
	if err != nil {
		return err
	}
	if err := adapters.CheckUpdateField("sql", key, field, r.fields); err != nil {
		return err
	}
	var n int64
	if r.pg != nil {
		n, err = t.s.updatePG(ctx, r.pg.update[field], key, value)
	} else {
		var res sql.Result
		if res, err = r.update[field].ExecContext(ctx, string(value), string(key)); err == nil {
			n, err = res.RowsAffected()
		}
	}
	switch {
	case err != nil:
		return writeErr(err)
	case n != 1:
		return fmt.Errorf("sql: update of %q: %d records have that key", key, n)
	}
	return nil
}

// InsertRecord runs the prepared insert; the primary key refuses a key that exists.
func (t *target) InsertRecord(ctx context.Context, key []byte, fields [][]byte) error {
	r, err := t.loaded()
	if err != nil {
		return err
	}
	if err := adapters.CheckInsertFields("sql", key, len(fields), r.fields); err != nil {
		return err
	}
	args := make([]any, 0, 1+len(fields))
	args = append(args, string(key))
	for _, v := range fields {
		args = append(args, string(v))
	}
	if _, err := r.insert.ExecContext(ctx, args...); err != nil {
		return writeErr(err)
	}
	return nil
}

// ScanRecords runs the prepared scan from start, decoding every field of every row.
func (t *target) ScanRecords(ctx context.Context, start []byte, n int) (adapters.Tally, error) {
	r, err := t.loaded()
	if err != nil {
		return adapters.Tally{}, err
	}
	rows, err := r.scan.QueryContext(ctx, string(start), n)
	if err != nil {
		return adapters.Tally{}, readErr(err)
	}
	defer rows.Close()
	raw := make([]sql.RawBytes, 1+r.fields) // the key, then the fields
	ptrs := make([]any, len(raw))
	for k := range raw {
		ptrs[k] = &raw[k]
	}
	var tl adapters.Tally
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return tl, readErr(err)
		}
		tl.Rows++
		tl.Sum += dataset.RecordSum(raw[0], raw[1:])
	}
	return tl, readErr(rows.Err())
}

func writeErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("sql write: %v", exitcode.OneLine(err.Error()))
}

package sqladapter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// The sql workload (docs/sql.md, adapters.SQLRunner): setup and teardown statements on the pool,
// and each worker a connection of its own with the transactions' statements prepared on it. On
// PostgreSQL a worker's connection is pgx's own (not the database/sql pool's): one connection, its
// statements prepared by name once, each execution a Bind and Execute of it, as pgbench -M prepared
// does, with the target's search path. On SQLite it is a connection of the pool and its prepared
// statements (database/sql).

var (
	_ adapters.SQLRunner      = (*target)(nil)
	_ adapters.SQLThreadBound = (*target)(nil)
)

// SQLDialect says which SQL the target speaks.
func (t *target) SQLDialect() string {
	if t.s.driver == DriverPostgres {
		return adapters.DialectPostgres
	}
	return adapters.DialectSQLite
}

// SQLThreadBound: on PostgreSQL a worker's connection waits for the server in a blocking read on
// its goroutine's thread (pgwire.go).
func (t *target) SQLThreadBound() bool { return t.s.driver == DriverPostgres }

// ExecSQL runs one statement on the pool, outside any transaction (pgx sends a statement without
// arguments with the simple protocol, so VACUUM runs and a text may hold several statements).
func (t *target) ExecSQL(ctx context.Context, stmt string) error {
	if _, err := t.s.db.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("%s", exitcode.OneLine(err.Error()))
	}
	return nil
}

// sqlCloseTimeout bounds closing a worker's connection (a Terminate message; a server gone away
// must not hold the run).
const sqlCloseTimeout = 5 * time.Second

// OpenSQLConn opens a worker's connection and prepares stmts on it.
func (t *target) OpenSQLConn(ctx context.Context, stmts []string) (adapters.SQLConn, error) {
	if t.s.driver == DriverPostgres {
		return t.openPGConn(ctx, stmts)
	}
	return t.openSQLiteConn(ctx, stmts)
}

// sqliteConn is a worker's connection to SQLite: one of the pool's, with its prepared statements.
type sqliteConn struct {
	c     *sql.Conn
	stmts []*sql.Stmt
	cols  []int  // columns the statement returns (0: it returns no rows)
	dml   []bool // an INSERT, UPDATE, DELETE or REPLACE: RowsAffected is its own
	dest  [][]any
	vals  [][]any // what dest points to: a row's values as the driver gives them (nil: NULL)
}

func (t *target) openSQLiteConn(ctx context.Context, stmts []string) (adapters.SQLConn, error) {
	c, err := t.s.db.Conn(ctx)
	if err != nil {
		return nil, exitcode.Infraf("sql: sqlite: %v", err)
	}
	sc := &sqliteConn{c: c}
	for i, q := range stmts {
		cols, err := sqliteColumns(ctx, c, q)
		var st *sql.Stmt
		if err == nil {
			st, err = c.PrepareContext(ctx, q)
		}
		if err != nil {
			return nil, errors.Join(&adapters.SQLPrepareError{Index: i, Err: errors.New(exitcode.OneLine(err.Error()))}, sc.Close())
		}
		vals := make([]any, cols)
		dest := make([]any, cols)
		for j := range vals {
			dest[j] = &vals[j]
		}
		sc.stmts, sc.cols, sc.vals, sc.dest = append(sc.stmts, st), append(sc.cols, cols), append(sc.vals, vals), append(sc.dest, dest)
		sc.dml = append(sc.dml, isDML(q))
	}
	return sc, nil
}

// sqliteColumns is how many columns a statement returns (a query, a RETURNING clause), as SQLite
// says of the prepared statement without running it.
func sqliteColumns(ctx context.Context, c *sql.Conn, q string) (int, error) {
	n := 0
	err := c.Raw(func(dc any) error {
		ci, ok := dc.(interface {
			ColumnInfo(query string) ([]sqlite.ColumnInfo, error)
		})
		if !ok {
			return fmt.Errorf("the SQLite driver does not describe a statement's columns")
		}
		info, err := ci.ColumnInfo(q)
		n = len(info)
		return err
	})
	return n, err
}

// Exec runs the prepared statement: a query's rows read to the end (counted, their values kept in
// their text form, NULL apart), another statement's affected rows.
func (s *sqliteConn) Exec(ctx context.Context, i int, args []any, res *adapters.SQLResult) error {
	res.Rows, res.Values = 0, res.Values[:0]
	if s.cols[i] == 0 {
		r, err := s.stmts[i].ExecContext(ctx, args...)
		if err != nil || !s.dml[i] {
			return err // SQLite's changes() is the last INSERT, UPDATE or DELETE's: not a BEGIN's
		}
		res.Rows, err = r.RowsAffected()
		return err
	}
	rows, err := s.stmts[i].QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		res.Rows++
		if !res.Keep {
			continue
		}
		if err := rows.Scan(s.dest[i]...); err != nil {
			return err
		}
		for _, v := range s.vals[i] {
			res.Values = appendValue(res.Values, v)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// Rollback ends a transaction a failed statement left open: SQLite keeps it open after most
// errors. "No transaction is active" is no error here.
func (s *sqliteConn) Rollback(ctx context.Context) error {
	_, err := s.c.ExecContext(ctx, "ROLLBACK")
	if err != nil && strings.Contains(err.Error(), "no transaction is active") {
		return nil
	}
	return err
}

// isDML says whether a statement changes rows (its first word, after comments, is INSERT, UPDATE,
// DELETE, REPLACE, or WITH, which leads one of them when the statement returns no columns).
func isDML(q string) bool {
	for {
		q = strings.TrimLeft(q, " \t\r\n\f(")
		switch {
		case strings.HasPrefix(q, "--"):
			if i := strings.IndexByte(q, '\n'); i >= 0 {
				q = q[i:]
				continue
			}
			return false
		case strings.HasPrefix(q, "/*"):
			if i := strings.Index(q, "*/"); i >= 0 {
				q = q[i+2:]
				continue
			}
			return false
		}
		break
	}
	word := q
	if i := strings.IndexFunc(q, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }); i >= 0 {
		word = q[:i]
	}
	switch strings.ToUpper(word) {
	case "INSERT", "UPDATE", "DELETE", "REPLACE", "WITH":
		return true
	}
	return false
}

// appendValue appends a value as the SQLite driver gives it (int64, float64, string, []byte, bool,
// time.Time or nil), in its text form.
func appendValue(b []byte, v any) []byte {
	var text []byte
	switch x := v.(type) {
	case nil:
		return adapters.AppendSQLValue(b, nil, true)
	case []byte:
		text = x
	case string:
		text = []byte(x)
	case int64:
		text = strconv.AppendInt(nil, x, 10)
	case float64:
		text = strconv.AppendFloat(nil, x, 'g', -1, 64)
	default:
		text = fmt.Append(nil, x)
	}
	return adapters.AppendSQLValue(b, text, false)
}

func (s *sqliteConn) Close() error {
	var err error
	for _, st := range s.stmts {
		err = errors.Join(err, st.Close())
	}
	return errors.Join(err, s.c.Close())
}

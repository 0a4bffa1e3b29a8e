package sqladapter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/buildinfo"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/randhex"
	"github.com/dbbench/dbbench/internal/sqlitefile"
)

// sqlitePragmas apply to every connection. File storage uses WAL, so concurrent readers do not block
// one another, and synchronous=NORMAL, so a commit does not wait for the disk (LMDB runs with
// MDB_NOSYNC for the same reason: the engine is measured, not the disk).
var sqlitePragmas = []string{"busy_timeout(5000)", "journal_mode(WAL)", "synchronous(NORMAL)"}

// openSQLite creates the database: a new file (never one that exists), or a memdb database shared by
// the pool's connections.
func openSQLite(ctx context.Context, c config, env adapters.Env) (*store, error) {
	dsn, files, err := sqliteDSN(c, env)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, exitcode.Infraf("sql: sqlite: %w", err)
	}
	db.SetMaxIdleConns(16)
	db.SetConnMaxIdleTime(0)
	// A memdb database lives as long as one connection is open: pin one for the store's lifetime.
	keep, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, exitcode.Infraf("sql: sqlite: %w", err)
	}
	s := &store{db: db, driver: DriverSQLite,
		createSQL: "CREATE TABLE %s (email TEXT PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL) WITHOUT ROWID"}
	s.close = func() error {
		return errors.Join(keep.Close(), db.Close(), files.Remove()) // ours: none of them existed before
	}
	settings, err := readSQLiteSettings(ctx, keep)
	if err != nil {
		return nil, errors.Join(exitcode.Infraf("sql: sqlite %s: %v", c.storage, err), s.close())
	}
	s.load = func(ctx context.Context, ds *dataset.Persons) error { return s.insertSorted(ctx, ds) }
	s.info = func(context.Context) map[string]any { return sqliteInfo(c, settings) }
	return s, nil
}

// sqliteDSN is the database to open and the files closing the store removes: a memdb database, or a
// file that must not exist yet (nor its companions), in a directory that does.
func sqliteDSN(c config, env adapters.Env) (dsn string, files sqlitefile.Files, err error) {
	if c.storage == storageMemory {
		return "file:/dbbench-sql-" + randhex.String(6) + "?vfs=memdb&_pragma=busy_timeout(5000)", nil, nil
	}
	path := c.path
	if path == "" {
		if env.TempDir == "" {
			return "", nil, exitcode.Usagef("sql: sqlite file storage needs a path (no temporary directory here)")
		}
		path = filepath.Join(env.TempDir, "persons.db")
	}
	if files, err = sqlitefile.New("sql", path); err != nil {
		return "", nil, err
	}
	q := url.Values{}
	for _, p := range sqlitePragmas {
		q.Add("_pragma", p)
	}
	return "file:" + path + "?" + q.Encode(), files, nil
}

// sqliteSettings are what the database says it runs with, for the report.
type sqliteSettings struct {
	version, journal string
	synchronous      int
}

func readSQLiteSettings(ctx context.Context, conn *sql.Conn) (sqliteSettings, error) {
	var st sqliteSettings
	err := conn.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&st.version)
	if err == nil {
		err = conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&st.journal)
	}
	if err == nil {
		err = conn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&st.synchronous)
	}
	return st, err
}

func sqliteInfo(c config, st sqliteSettings) map[string]any {
	m := map[string]any{
		"driver": buildinfo.Named("modernc.org/sqlite") + " (pure Go, database/sql)", "sqlite_version": st.version,
		"storage": c.storage, "journal_mode": st.journal, "synchronous": synchronousNames[st.synchronous],
		"load_path": "one transaction of prepared inserts in email order",
	}
	if c.storage == storageMemory {
		m["storage_detail"] = "memdb VFS, one in-memory database shared by the pool's connections"
	}
	if c.path != "" {
		m["path"] = c.path
	}
	return m
}

var synchronousNames = map[int]string{0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}

// insertSorted loads the persons in email order in one transaction of prepared inserts.
func (s *store) insertSorted(ctx context.Context, ds *dataset.Persons) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return exitcode.Infraf("sql: load: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, s.bind(fmt.Sprintf(insertSQL, personsTable)))
	if err != nil {
		return exitcode.Infraf("sql: load: %w", err)
	}
	for _, i := range ds.Sorted() {
		if _, err := stmt.ExecContext(ctx, string(ds.Email(int(i))), string(ds.Name(int(i))), ds.Age(int(i))); err != nil {
			return exitcode.Infraf("sql: load person %d: %w", i, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return exitcode.Infraf("sql: load: commit: %w", err)
	}
	return nil
}

package sqladapter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// sqlitePragmas apply to every connection. File storage uses WAL, so concurrent readers do not block
// one another, and synchronous=NORMAL, so a commit does not wait for the disk (LMDB runs with
// MDB_NOSYNC for the same reason: the engine is measured, not the disk).
var sqlitePragmas = []string{"busy_timeout(5000)", "journal_mode(WAL)", "synchronous(NORMAL)"}

// openSQLite creates the database: a new file (never one that exists), or a memdb database shared by
// the pool's connections.
func openSQLite(ctx context.Context, c config, env adapters.Env) (*store, error) {
	var (
		dsn, path string
		files     []string // what close removes: the database file and its companions
	)
	if c.storage == storageMemory {
		dsn = "file:/dbbench-sql-" + randomID() + "?vfs=memdb&_pragma=busy_timeout(5000)"
	} else {
		path = c.path
		if path == "" {
			if env.TempDir == "" {
				return nil, exitcode.Usagef("sql: sqlite file storage needs a path (no temporary directory here)")
			}
			path = filepath.Join(env.TempDir, "persons.db")
		}
		files = []string{path, path + "-wal", path + "-shm", path + "-journal"}
		// Never touch a file the user owns: refuse an existing path or companion.
		for _, p := range files {
			if _, err := os.Lstat(p); err == nil {
				return nil, exitcode.Usagef("sql: path %s already exists; refusing to overwrite it (give a path that does not exist)", p)
			} else if !errors.Is(err, os.ErrNotExist) {
				return nil, exitcode.Usagef("sql: path %s: %v", p, err)
			}
		}
		if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
			return nil, exitcode.Usagef("sql: path %s: directory %s does not exist", path, filepath.Dir(path))
		}
		q := url.Values{}
		for _, p := range sqlitePragmas {
			q.Add("_pragma", p)
		}
		dsn = "file:" + path + "?" + q.Encode()
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
		err := errors.Join(keep.Close(), db.Close())
		for _, p := range files { // ours: none of them existed before
			if rmErr := os.Remove(p); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
				err = errors.Join(err, rmErr)
			}
		}
		return err
	}
	var version, journal string
	var synchronous int
	err = keep.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&version)
	if err == nil {
		err = keep.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&journal)
	}
	if err == nil {
		err = keep.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&synchronous)
	}
	if err != nil {
		return nil, errors.Join(exitcode.Infraf("sql: sqlite %s: %v", c.storage, err), s.close())
	}
	s.load = func(ctx context.Context, ds *dataset.Persons) error { return s.insertSorted(ctx, ds) }
	s.info = func(context.Context) map[string]any {
		m := map[string]any{
			"driver": moduleVersion("modernc.org/sqlite") + " (pure Go, database/sql)", "sqlite_version": version,
			"storage": c.storage, "journal_mode": journal, "synchronous": synchronousNames[synchronous],
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
	return s, nil
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

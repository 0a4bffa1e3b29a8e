// Package sqlitefile is the one rule for a SQLite database file dbbench creates (the sql adapter,
// the sqlite-c baseline, the triplex adapter): it must be new, so that what dbbench removes at the
// end is only ever what it made.
package sqlitefile

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/dbbench/dbbench/internal/exitcode"
)

// Files are a database file and the companions SQLite may create beside it: the WAL, its
// shared-memory index and the rollback journal.
type Files []string

// New checks that a database dbbench is to create at path is new: neither the file nor any
// companion exists (a file the user owns is never opened, so never removed), and its directory does.
// who begins the error, a usage error (exit 2).
func New(who, path string) (Files, error) {
	files := Files{path, path + "-wal", path + "-shm", path + "-journal"}
	for _, p := range files {
		if _, err := os.Lstat(p); err == nil {
			return nil, exitcode.Usagef("%s: path %s already exists; refusing to overwrite it (give a path that does not exist)", who, p)
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, exitcode.Usagef("%s: path %s: %v", who, p, err)
		}
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return nil, exitcode.Usagef("%s: path %s: directory %s does not exist", who, path, filepath.Dir(path))
	}
	return files, nil
}

// Path is the database file.
func (f Files) Path() string { return f[0] }

// Remove removes the files that exist (call it only after closing the database).
func (f Files) Remove() error {
	var err error
	for _, p := range f {
		if rmErr := os.Remove(p); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
			err = errors.Join(err, rmErr)
		}
	}
	return err
}

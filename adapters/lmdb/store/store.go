//go:build cgo

package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	lmdbgo "github.com/PowerDNS/lmdb-go/lmdb"

	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/buildinfo"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// lmdbGoModule is the binding whose version the report records.
const lmdbGoModule = "github.com/PowerDNS/lmdb-go"

// The files LMDB creates in an environment directory (without MDB_NOSUBDIR).
var envFiles = []string{"data.mdb", "lock.mdb"}

// Store is one open LMDB environment and its unnamed database. Env and DBI are for the adapters'
// workloads; everything else about the environment's life goes through Store.
type Store struct {
	Env *lmdbgo.Env
	DBI lmdbgo.DBI

	cfg Config
	dir string
	// userDir is true when dir is the user's path option (it is never removed if it existed).
	userDir bool
	// created lists the directories this store created, deepest first; Close removes them if empty.
	created []string
	closed  bool
}

// Open opens the environment the config asks for: the user's path (which must be empty or missing),
// or a fresh directory under tempDir ("" means the system's temporary directory).
func Open(cfg Config, tempDir string) (*Store, error) {
	s := &Store{cfg: cfg}
	var err error
	if cfg.Path != "" {
		s.dir, s.userDir = cfg.Path, true
		s.created, err = prepareUserDir(cfg.Path)
	} else {
		s.dir, s.created, err = freshDir(tempDir, "lmdb")
	}
	if err != nil {
		return nil, err
	}
	if err := s.open(); err != nil {
		return nil, errors.Join(err, s.cleanup())
	}
	return s, nil
}

// OpenFresh opens an empty environment in a new directory under tempDir with the config's settings
// but never its path: the insert workload's throw-away store.
func OpenFresh(cfg Config, tempDir, name string) (*Store, error) {
	s := &Store{cfg: cfg}
	var err error
	if s.dir, s.created, err = freshDir(tempDir, name); err != nil {
		return nil, err
	}
	if err := s.open(); err != nil {
		return nil, errors.Join(err, s.cleanup())
	}
	return s, nil
}

// freshDir creates a new uniquely named directory under parent.
func freshDir(parent, name string) (string, []string, error) {
	dir, err := os.MkdirTemp(parent, "dbbench-"+name+"-")
	if err != nil {
		return "", nil, exitcode.Infraf("create a directory for the LMDB environment: %v", err)
	}
	return dir, []string{dir}, nil
}

// prepareUserDir checks that path is an empty directory or does not exist yet, creating it (and any
// missing parents) in the latter case. It returns the directories it created, deepest first.
func prepareUserDir(path string) ([]string, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil:
		if !fi.IsDir() {
			return nil, exitcode.Usagef("lmdb path %s exists and is not a directory; give an empty or new directory", path)
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, exitcode.Usagef("lmdb path %s: %v", path, err)
		}
		if len(entries) > 0 {
			return nil, exitcode.Usagef("lmdb path %s exists and is not empty; dbbench never deletes your data — give an empty or new directory", path)
		}
		return nil, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, exitcode.Usagef("lmdb path %s: %v", path, err)
	}
	var missing []string
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, exitcode.Usagef("lmdb path %s: %v", path, err)
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, errors.Join(exitcode.Usagef("lmdb path %s: cannot create it: %v", path, err), removeDirs(missing))
	}
	return missing, nil
}

func (s *Store) open() error {
	env, err := lmdbgo.NewEnv()
	if err != nil {
		return exitcode.Infraf("create LMDB environment: %v", err)
	}
	if err := env.SetMapSize(s.cfg.MapSize); err != nil {
		env.Close()
		return exitcode.Usagef("lmdb option map_size %s: %v", FormatBytes(s.cfg.MapSize), err)
	}
	if err := env.SetMaxReaders(s.cfg.MaxReaders); err != nil {
		env.Close()
		return exitcode.Usagef("lmdb option max_readers %d: %v", s.cfg.MaxReaders, err)
	}
	var flags uint
	if !s.cfg.Durable {
		flags |= lmdbgo.NoSync
	}
	if err := env.Open(s.dir, flags, 0o644); err != nil {
		env.Close()
		return exitcode.Infraf("open LMDB environment in %s (map_size %s): %v", s.dir, FormatBytes(s.cfg.MapSize), err)
	}
	var dbi lmdbgo.DBI
	err = env.Update(func(txn *lmdbgo.Txn) (err error) {
		dbi, err = txn.OpenRoot(0)
		return err
	})
	if err != nil {
		env.Close()
		return exitcode.Infraf("open the LMDB main database in %s: %v", s.dir, err)
	}
	s.Env, s.DBI = env, dbi
	return nil
}

// Load stores the dataset with the fastest bulk path: persons in key order, MDB_APPEND, txn_size
// pairs per write transaction (all in one by default). It refuses a map too small to hold them.
func (s *Store) Load(ctx context.Context, ds *dataset.Persons) error {
	if need := Needed(ds, ds.Len()); s.cfg.MapSize < need {
		return TooSmall(s.cfg.MapSize, ds.Len(), need)
	}
	return s.load(ctx, ds)
}

// load is Load without the size estimate, so tests can reach the MDB_MAP_FULL path.
func (s *Store) load(ctx context.Context, ds *dataset.Persons) error {
	// Write transactions must stay on one OS thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	order := ds.Sorted()
	chunk := s.cfg.TxnSize
	if chunk == 0 {
		chunk = len(order)
	}
	val := make([]byte, 0, 64)
	for start := 0; start < len(order); start += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		part := order[start:min(start+chunk, len(order))]
		err := s.Env.UpdateLocked(func(txn *lmdbgo.Txn) error {
			for _, i := range part {
				var err error
				if val, err = EncodeValue(val[:0], ds.Age(int(i)), ds.Name(int(i))); err != nil {
					return exitcode.Usagef("person %d: %v", i, err)
				}
				if err := txn.Put(s.DBI, ds.Email(int(i)), val, lmdbgo.Append); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return s.WriteError(err, ds.Len(), Needed(ds, ds.Len()))
		}
	}
	return nil
}

// WriteError classifies a failed write of n persons: a full map becomes the usage error naming the
// size needed (never a bare MDB_MAP_FULL), anything else an infrastructure error.
func (s *Store) WriteError(err error, n int, need int64) error {
	switch {
	case lmdbgo.IsMapFull(err):
		return TooSmall(s.cfg.MapSize, n, max(need, 2*s.cfg.MapSize))
	case exitcode.Of(err) != exitcode.Infra:
		return err
	}
	return exitcode.Infraf("lmdb write: %v", err)
}

// ReadError classifies a failed read; a full reader table is a usage error naming the option.
func (s *Store) ReadError(err error) error {
	if lmdbgo.IsErrno(err, lmdbgo.ReadersFull) {
		return exitcode.Usagef("lmdb reader table is full (max_readers %d); raise max_readers to at least the concurrent readers + 2", s.cfg.MaxReaders)
	}
	return exitcode.AsInfra(fmt.Errorf("lmdb read: %w", err))
}

// Config returns the settings the store was opened with.
func (s *Store) Config() Config { return s.cfg }

// Dir is the environment's directory.
func (s *Store) Dir() string { return s.dir }

// Info describes the environment for the report.
func (s *Store) Info() map[string]any {
	kind := "temp"
	if s.userDir {
		kind = "user"
	}
	m := map[string]any{
		"lmdb_version":    lmdbgo.VersionString(),
		"lmdb_go_version": buildinfo.Module(lmdbGoModule),
		"map_size_bytes":  s.cfg.MapSize,
		"max_readers":     s.cfg.MaxReaders,
		"durable":         s.cfg.Durable,
		"txn_size":        s.cfg.TxnSize,
		"path_kind":       kind,
	}
	if s.userDir {
		m["path"] = s.dir
	}
	if s.closed {
		return m
	}
	if flags, err := s.Env.Flags(); err == nil {
		m["env_flags"] = FlagNames(flags)
	}
	if fi, err := os.Stat(filepath.Join(s.dir, "data.mdb")); err == nil {
		m["file_size_bytes"] = fi.Size()
	}
	if st, err := s.Env.Stat(); err == nil {
		m["entries"] = st.Entries
		m["btree_depth"] = st.Depth
		m["page_size"] = st.PSize
		m["leaf_pages"] = st.LeafPages
		m["branch_pages"] = st.BranchPages
	}
	return m
}

// FlagNames spells out environment flags, e.g. "NoTLS|NoSync".
func FlagNames(flags uint) string {
	known := []struct {
		flag uint
		name string
	}{
		{lmdbgo.FixedMap, "FixedMap"}, {lmdbgo.NoSubdir, "NoSubdir"}, {lmdbgo.Readonly, "Readonly"},
		{lmdbgo.WriteMap, "WriteMap"}, {lmdbgo.NoMetaSync, "NoMetaSync"}, {lmdbgo.NoSync, "NoSync"},
		{lmdbgo.MapAsync, "MapAsync"}, {lmdbgo.NoTLS, "NoTLS"}, {lmdbgo.NoLock, "NoLock"},
		{lmdbgo.NoReadahead, "NoReadahead"}, {lmdbgo.NoMemInit, "NoMemInit"},
	}
	var names []string
	for _, k := range known {
		if flags&k.flag != 0 {
			names = append(names, k.name)
			flags &^= k.flag
		}
	}
	if flags != 0 {
		names = append(names, fmt.Sprintf("%#x", flags))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}

// Close closes the environment and removes what this store created: LMDB's two files (the directory
// was empty or new, so they are ours) and the directories it made. A user's directory stays.
// Callers must have ended every transaction first.
func (s *Store) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.Env != nil {
		s.Env.Close()
	}
	if s.userDir && s.cfg.Keep {
		return nil // the user asked to keep it
	}
	return s.cleanup()
}

func (s *Store) cleanup() error {
	var errs []error
	for _, f := range envFiles {
		if err := os.Remove(filepath.Join(s.dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	errs = append(errs, removeDirs(s.created))
	return errors.Join(errs...)
}

// removeDirs removes directories deepest first; one that is not empty (someone put files there
// during the run) is left in place and reported.
func removeDirs(dirs []string) error {
	var errs []error
	for _, d := range dirs {
		if err := os.Remove(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("left %s in place: %w", d, err))
		}
	}
	return errors.Join(errs...)
}

package triplex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/dbbench/dbbench/adapters/triplex/store"
	"github.com/dbbench/dbbench/internal/buildinfo"
	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/postgres"
	"github.com/dbbench/dbbench/internal/randhex"
	"github.com/dbbench/dbbench/internal/sqlitefile"
)

// backend hands out the databases stores live in.
type backend interface {
	dialect() string
	// storeDB returns the database for a new store named name: a fresh in-memory database per store
	// (SQLite memory), or the one shared database (a SQLite file, the PostgreSQL schema), in which
	// case release is a no-op and stores are told apart by table prefix. On PostgreSQL, pgx is the
	// native pool the indexed layout writes through (nil on SQLite).
	storeDB(ctx context.Context, name string) (db *sql.DB, pgx store.TxBeginner, release func() error, err error)
	info(ctx context.Context) map[string]any
	close() error
}

// sqliteBackend is SQLite through modernc.org/sqlite.
type sqliteBackend struct {
	storage string           // "memory" or "file"
	files   sqlitefile.Files // file storage: the database file and its companions (created by us)
	keep    bool             // leave the file in place at close (the user's path, keep: true)
	file    *sql.DB
	id      string // unique per target, names the memdb databases
	seq     int
	version string
}

func openSQLite(ctx context.Context, storage, path string, keep bool, env tempDirEnv) (*sqliteBackend, error) {
	b := &sqliteBackend{storage: storage, id: randhex.String(6), keep: keep}
	if storage == storageMemory {
		db, _, release, err := b.storeDB(ctx, "probe")
		if err != nil {
			return nil, err
		}
		defer release()
		if err := db.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&b.version); err != nil {
			return nil, exitcode.Infraf("triplex: sqlite: %w", err)
		}
		return b, nil
	}
	if path == "" {
		path = filepath.Join(env.dir(), "triplex.db")
	}
	files, err := sqlitefile.New("triplex", path)
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	for _, p := range []string{"busy_timeout(5000)", "journal_mode(WAL)", "synchronous(NORMAL)", "temp_store(memory)",
		"cache_size(-262144)", "mmap_size(1073741824)"} {
		q.Add("_pragma", p)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, exitcode.Infraf("triplex: sqlite %s: %w", path, err)
	}
	db.SetMaxIdleConns(16)
	if err := db.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&b.version); err != nil {
		db.Close()
		return nil, exitcode.Infraf("triplex: sqlite %s: %w", path, err)
	}
	b.files, b.file = files, db
	return b, nil
}

func (b *sqliteBackend) dialect() string { return store.SQLite }

func (b *sqliteBackend) storeDB(ctx context.Context, name string) (*sql.DB, store.TxBeginner, func() error, error) {
	if b.storage == storageFile {
		return b.file, nil, func() error { return nil }, nil
	}
	b.seq++
	// memdb: shared by name between this process's connections (so readers run concurrently),
	// capped at 1 GiB per database by SQLite.
	dsn := fmt.Sprintf("file:/dbbench-triplex-%s-%d-%s?vfs=memdb&_pragma=temp_store(memory)", b.id, b.seq, name)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, nil, nil, exitcode.Infraf("triplex: sqlite memory: %w", err)
	}
	db.SetMaxIdleConns(16)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	// The database lives as long as one connection is open: pin one for the store's lifetime.
	keep, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, nil, exitcode.Infraf("triplex: sqlite memory: %w", err)
	}
	return db, nil, func() error { keep.Close(); return db.Close() }, nil
}

func (b *sqliteBackend) info(context.Context) map[string]any {
	m := map[string]any{"driver": buildinfo.Named("modernc.org/sqlite") + " (pure Go, database/sql)", "sqlite_version": b.version, "storage": b.storage}
	if b.storage == storageMemory {
		m["storage_detail"] = "memdb VFS, one in-memory database per store shared by the pool's connections (SQLite caps each at 1 GiB)"
	} else {
		m["storage_detail"] = "file, WAL, synchronous=NORMAL, 256 MiB page cache, 1 GiB mmap"
		m["path"] = b.files.Path()
		m["kept"] = b.keep
	}
	return m
}

func (b *sqliteBackend) close() error {
	if b.file == nil {
		return nil
	}
	err := b.file.Close()
	if b.keep {
		return err // closing checkpoints the WAL: the file alone holds everything
	}
	return errors.Join(err, b.files.Remove())
}

// pgBackend is PostgreSQL through pgx. Everything the adapter creates lives in one schema of its
// own, created by Open and dropped by Close; nothing else on the server is touched.
type pgBackend struct {
	db      *sql.DB          // reads, DDL, the triplex layout's writes
	pool    *pgxpool.Pool    // the indexed layout's write transactions (COPY)
	schema  *postgres.Schema // ours, on the server
	server  *postgres.Server // the throwaway server, when no dsn was given
	runCtx  context.Context  // the run's context: cleaning up after Ctrl-C gets a short deadline
	pending func()           // marks the manual DROP SCHEMA step done
	sb      string
	session map[string]string // session settings of the layout, beyond jit=off
}

type tempDirEnv interface{ dir() string }

// openPostgres connects to dsn (or a throwaway server when it is empty). session holds the layout's
// session settings (store.PostgresSettings), set on every connection of the target.
func openPostgres(ctx context.Context, dsn string, sharedBuffers int64, session map[string]string, env tempDirEnv, logf func(string, ...any)) (*pgBackend, error) {
	b := &pgBackend{runCtx: ctx, session: session}
	if dsn == "" {
		settings := map[string]string{
			"shared_buffers":       fmt.Sprintf("%dkB", sharedBuffers/1024),
			"jit":                  "off",
			"maintenance_work_mem": "512MB",
			"max_wal_size":         "4GB",
		}
		srv, err := postgres.Start(ctx, postgres.Options{TempDir: env.dir(), Logf: logf, Settings: settings})
		if err != nil {
			return nil, err // ErrUnavailable when this machine can run no server
		}
		b.server, b.sb = srv, settings["shared_buffers"]
		dsn = srv.DSN("postgres")
	}
	// Setting up (version, schema, pools) gets a deadline of its own: a server that accepts the
	// connection and then stalls must not hold the run.
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	settings := map[string]string{"jit": "off"}
	maps.Copy(settings, session)
	sc, err := postgres.OpenSchema(ctx, dsn, postgres.SchemaOptions{Prefix: schemaPrefix, Session: settings, Logf: logf})
	if err != nil {
		b.close()
		return nil, fmt.Errorf("triplex: %w", err)
	}
	b.schema = sc
	if b.server == nil {
		b.pending = cleanup.Register(fmt.Sprintf("DROP SCHEMA %s CASCADE (on %s)", sc.Name, sc.Server))
	}
	b.db = stdlib.OpenDB(*sc.Config)
	b.db.SetMaxIdleConns(16)
	if err := b.db.PingContext(ctx); err != nil {
		b.close()
		return nil, exitcode.Infraf("triplex: postgres %s: %w", sc.Server, err)
	}
	// Writers are serialised per store and there are two stores: a small pool is plenty.
	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		b.close()
		return nil, exitcode.Infraf("triplex: postgres %s: %w", sc.Server, err)
	}
	pcfg.ConnConfig, pcfg.MaxConns = sc.Config.Copy(), 4
	if b.pool, err = pgxpool.NewWithConfig(ctx, pcfg); err != nil {
		b.close()
		return nil, exitcode.Infraf("triplex: postgres %s: %w", sc.Server, err)
	}
	return b, nil
}

// schemaPrefix names the schemas the adapter creates on a server.
const schemaPrefix = "dbbench_triplex_"

// Deadlines of setting up on a server, of dropping the schema at the end of a run, and after Ctrl-C.
const (
	setupTimeout              = time.Minute
	cleanupTimeout            = 30 * time.Second
	interruptedCleanupTimeout = 500 * time.Millisecond
)

func (b *pgBackend) dialect() string { return store.Postgres }

func (b *pgBackend) storeDB(context.Context, string) (*sql.DB, store.TxBeginner, func() error, error) {
	return b.db, b.pool, func() error { return nil }, nil
}

func (b *pgBackend) info(ctx context.Context) map[string]any {
	m := map[string]any{"driver": buildinfo.Named("github.com/jackc/pgx/v5") + " (reads and the triplex layout through database/sql via pgx/stdlib; the indexed layout's writes natively: COPY, array parameters, pipelined batches)", "server_version": b.schema.Version, "schema": b.schema.Name, "storage": "server"}
	if b.server != nil {
		m["server"] = "throwaway (" + b.server.Mode() + ")"
		m["shared_buffers"] = b.sb
	} else {
		m["server"] = "dsn " + b.schema.Server
	}
	settings := []string{"jit=off"}
	for _, k := range slices.Sorted(maps.Keys(b.session)) {
		settings = append(settings, k+"="+b.session[k])
	}
	m["session_settings"] = strings.Join(settings, ", ")
	if b.db != nil {
		var sb string
		if err := b.db.QueryRowContext(ctx, "SHOW shared_buffers").Scan(&sb); err == nil {
			m["shared_buffers"] = sb
		}
	}
	return m
}

func (b *pgBackend) close() error {
	var err error
	if b.pool != nil {
		// Closing a connection whose query was cancelled first asks the server to cancel it, for up
		// to 15 s (pgx), and Close waits for that: after Ctrl-C or a stall, not longer than the
		// short deadline; the rest finishes in the background.
		closed := make(chan struct{})
		go func() { b.pool.Close(); close(closed) }()
		if b.runCtx != nil && b.runCtx.Err() != nil {
			select {
			case <-closed:
			case <-time.After(interruptedCleanupTimeout):
			}
		} else {
			<-closed
		}
	}
	if b.db != nil {
		// A throwaway server goes with everything in it; on a server the user gave, the schema is
		// dropped under a deadline (short after Ctrl-C), so that a stalled server cannot hold up
		// the end of the run. What could not be dropped is named, and the next run removes it.
		if b.schema != nil && b.server == nil {
			timeout := cleanupTimeout
			if b.runCtx != nil && b.runCtx.Err() != nil {
				timeout = interruptedCleanupTimeout
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			err = b.schema.Drop(ctx)
			cancel()
			if err != nil {
				err = fmt.Errorf("%w (drop it by hand: DROP SCHEMA %s CASCADE; the next run removes it too)", err, b.schema.Name)
			} else if b.pending != nil {
				b.pending()
			}
		}
		if cerr := b.db.Close(); err == nil {
			err = cerr
		}
	}
	if b.server != nil {
		if serr := b.server.Stop(); err == nil {
			err = serr
		}
	}
	return err
}

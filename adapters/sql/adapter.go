// Package sqladapter is the dbbench adapter "sql": the four common workloads on a person table
// through database/sql, on SQLite (modernc.org/sqlite, pure Go) or PostgreSQL (pgx through its
// database/sql driver), with the statements docs/protocol.md gives every SQL client, so that the Go
// drivers have peers in the same run as the SQL clients in other languages.
package sqladapter

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/workloads"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// Name is the adapter's name in configs.
const Name = "sql"

// Drivers and SQLite storages.
const (
	DriverSQLite   = "sqlite"
	DriverPostgres = "postgres"
	storageMemory  = "memory"
	storageFile    = "file"
)

var optionSpecs = []adapters.OptionSpec{
	{Name: "driver", Kind: adapters.Enum, Default: DriverSQLite, Choices: []string{DriverSQLite, DriverPostgres},
		Help: "sqlite: modernc.org/sqlite (pure Go, in process); postgres: github.com/jackc/pgx/v5 through database/sql"},
	{Name: "storage", Kind: adapters.Enum, Default: storageFile, Choices: []string{storageMemory, storageFile},
		Help: "sqlite: file (WAL, synchronous=NORMAL) or memory (memdb VFS shared by the pool's connections, at most 1 GiB)"},
	{Name: "path", Kind: adapters.String,
		Help: "sqlite file storage: the database file to create; it must not exist (default: a file in the target's temp dir)"},
	{Name: "dsn", Kind: adapters.DSN,
		Help: "postgres: the server; empty: the run's shared throwaway server"},
	{Name: "schema", Kind: adapters.String,
		Help: "postgres: an existing schema to work in, neither created nor dropped; empty: a new schema " +
			"dbbench_sql_<random>, dropped at the end"},
}

// Adapter opens sql targets.
type Adapter struct{}

// New returns the sql adapter.
func New() adapters.Adapter { return Adapter{} }

// Info describes the adapter and its options.
func (Adapter) Info() adapters.Info {
	return adapters.Info{
		Name: Name,
		Summary: "a person table through database/sql: SQLite (modernc.org/sqlite, file or memory) or PostgreSQL " +
			"(pgx; a dsn or the run's throwaway server), the statements every SQL client runs (docs/protocol.md)",
		Options: optionSpecs,
		Builtin: workloads.Builtins,
		Records: ycsb.Ops(),
		SQL:     true,
	}
}

// config is a validated target configuration.
type config struct {
	driver, storage, path, dsn, schema string
}

func parseConfig(o adapters.Options) (config, error) {
	c := config{driver: o.String("driver"), storage: o.String("storage"), path: o.String("path"),
		dsn: o.String("dsn"), schema: o.String("schema")}
	if c.driver == "" {
		c.driver = DriverSQLite
	}
	if c.storage == "" {
		c.storage = storageFile
	}
	switch {
	case c.driver == DriverSQLite && (c.dsn != "" || c.schema != ""):
		return c, exitcode.Usagef("sql: dsn and schema are postgres options; driver is sqlite")
	case c.driver == DriverSQLite && c.path != "" && c.storage != storageFile:
		return c, exitcode.Usagef("sql: path needs storage: file")
	case c.driver == DriverPostgres && (c.storage == storageMemory || c.path != ""):
		return c, exitcode.Usagef("sql: storage and path are sqlite options; driver is postgres")
	}
	return c, nil
}

// Open connects (or creates the SQLite database) and creates the empty person table.
func (Adapter) Open(ctx context.Context, opts adapters.Options, env adapters.Env) (adapters.Target, error) {
	c, err := parseConfig(opts)
	if err != nil {
		return nil, err
	}
	// Setting up gets a deadline of its own: a server that accepts the connection and then stalls
	// must not hold the run. The run's context stays the store's, for its cleanup.
	setup, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	var s *store
	if c.driver == DriverPostgres {
		s, err = openPostgres(ctx, setup, c, env)
	} else {
		s, err = openSQLite(ctx, c, env) // local: no server to stall
	}
	var t *target
	if err == nil {
		s.use = env.Store
		if t, err = newTarget(setup, s, runsPersons(env.Workloads)); err != nil {
			err = errors.Join(err, s.close())
		}
	}
	if err != nil && ctx.Err() == nil && errors.Is(setup.Err(), context.DeadlineExceeded) {
		return nil, exitcode.Infraf("sql: the server did not answer within %v while the target was set up (a stalled server?)", setupTimeout)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// runsPersons says whether a target runs a workload on the person table: one of the common
// workloads, or an unknown list (outside the engine).
func runsPersons(ws []string) bool {
	if len(ws) == 0 {
		return true
	}
	for _, w := range ws {
		if slices.Contains(workloads.Builtins, w) {
			return true
		}
	}
	return false
}

// SharedStore accepts what shards can share loaded once: a postgres server the user gives (dsn)
// and a schema of the user's, which every process names alike and none drops (adapters.StoreSharer).
func (Adapter) SharedStore(opts adapters.Options) error {
	c, err := parseConfig(opts)
	switch {
	case err != nil:
		return err
	case c.driver != DriverPostgres || c.dsn == "":
		return errors.New("sql: only driver postgres with a dsn has a store other processes reach")
	case c.schema == "":
		return errors.New("sql: give schema (an existing schema of yours): without it every process makes a schema of its own")
	}
	return nil
}

var _ adapters.StoreSharer = Adapter{}

// setupTimeout bounds opening a target: connecting, creating its schema and table, preparing.
var setupTimeout = time.Minute // a variable for tests

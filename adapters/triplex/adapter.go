// Package triplex is the dbbench adapter for a temporal triple store with Triplex's model
// (bjacobso/triplex): entity/attribute/value facts with the transaction that asserted and the one that
// retracted them, current and as-of reads, on SQLite (modernc.org/sqlite, in memory or a file) or
// PostgreSQL (pgx; a dsn, or a throwaway server). Each target picks a layout: "triplex", a
// reconstruction of Triplex's published layout and query shapes (the same-machine baseline), or
// "indexed", the flat design (see package store).
//
// A target of size N holds Triplex's bench fixture, N entities with three facts each (3N facts), plus
// the person dataset as facts (email, name, age: another 3N facts, for the common workloads).
package triplex

import (
	"context"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/triplex/store"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/workloads"
)

// Name is the adapter name.
const Name = "triplex"

const (
	backendSQLite   = "sqlite"
	backendPostgres = "postgres"
	storageMemory   = "memory"
	storageFile     = "file"
)

type adapter struct{}

// New returns the triplex adapter.
func New() adapters.Adapter { return adapter{} }

var optionSpecs = []adapters.OptionSpec{
	{Name: "backend", Kind: adapters.Enum, Default: backendSQLite, Choices: []string{backendSQLite, backendPostgres},
		Help: "database: sqlite (modernc.org/sqlite, in process) or postgres (pgx)"},
	{Name: "layout", Kind: adapters.Enum, Default: store.LayoutIndexed, Choices: []string{store.LayoutTriplex, store.LayoutIndexed},
		Help: "triplex: reconstruction of Triplex's layout and query shapes (the baseline); indexed: interned ids, covering partial indexes, keyset pages, maintained counts"},
	{Name: "storage", Kind: adapters.Enum, Default: storageMemory, Choices: []string{storageMemory, storageFile},
		Help: "sqlite only: memory (memdb, at most 1 GiB per store) or file"},
	{Name: "path", Kind: adapters.String,
		Help: "sqlite file storage: the database file to create; it must not exist (default: a file in the target's temp dir)"},
	{Name: "keep", Kind: adapters.Bool, Default: "false",
		Help: "sqlite file storage at a given path: keep the database file after the run, for inspection (false: removed at the end; one dataset size per path, as the file is never overwritten)"},
	{Name: "dsn", Kind: adapters.DSN,
		Help: "postgres only: server to use (works in a schema of its own, dropped at the end); empty: start a throwaway server"},
	{Name: "shared_buffers", Kind: adapters.Bytes, Default: "1GiB", HasMin: true, Min: 1 << 20,
		Help: "postgres throwaway server: shared_buffers"},
	{Name: "history_depth", Kind: adapters.Int, Default: "2",
		Help: "versions of each updated fact after load: history_depth-1 update rounds retract and re-assert the score of update_share of the entities (1: no history)"},
	{Name: "update_share", Kind: adapters.Float, Default: "0.1",
		Help: "share of the entities (0 < share <= 1) whose score the update rounds replace"},
	{Name: "max_persons", Kind: adapters.Int, Default: "0", HasMin: true, Min: 0,
		Help: "in a size sweep, report the target unavailable above this size (an optional target is then skipped there with the reason); 0: no limit"},
	{Name: "persons", Kind: adapters.Bool, Default: "true",
		Help: "also load the person dataset as facts, for scan/lookup/insert/concurrent (false: Triplex workloads only, half the load)"},
}

func (adapter) Info() adapters.Info {
	return adapters.Info{
		Name: Name,
		Summary: "temporal triple store (Triplex's model) on SQLite or PostgreSQL; layouts: triplex (reconstruction " +
			"of Triplex's published layout, the baseline) and indexed (flat first pages); N persons -> N fixture entities, 3N facts",
		Options:   optionSpecs,
		Workloads: workloadSpecs(),
		Builtin:   workloads.Builtins,
	}
}

// config is a validated target configuration.
type config struct {
	backend, layout, storage, path, dsn string
	keep                                bool
	sharedBuffers                       int64
	historyDepth                        int
	updateShare                         float64
	persons                             bool
	maxPersons                          int
}

func parseConfig(o adapters.Options) (config, error) {
	c := config{
		backend: o.String("backend"), layout: o.String("layout"), storage: o.String("storage"),
		path: o.String("path"), keep: o.Bool("keep"), dsn: o.String("dsn"), sharedBuffers: o.Int("shared_buffers"),
		historyDepth: int(o.Int("history_depth")), updateShare: o.Float("update_share"), persons: o.Bool("persons"),
		maxPersons: int(o.Int("max_persons")),
	}
	if c.backend == "" {
		c.backend = backendSQLite
	}
	if c.layout == "" {
		c.layout = store.LayoutIndexed
	}
	if c.storage == "" {
		c.storage = storageMemory
	}
	if c.sharedBuffers == 0 {
		c.sharedBuffers = 1 << 30
	}
	if !o.Has("history_depth") {
		c.historyDepth = 2
	}
	if !o.Has("update_share") {
		c.updateShare = 0.1
	}
	if !o.Has("persons") {
		c.persons = true
	}
	switch {
	case c.historyDepth < 1:
		return c, exitcode.Usagef("triplex: history_depth must be at least 1 (1 = no update rounds), got %d", c.historyDepth)
	case c.historyDepth > 1000:
		return c, exitcode.Usagef("triplex: history_depth %d is more than 1000 update rounds", c.historyDepth)
	case !(c.updateShare > 0 && c.updateShare <= 1):
		return c, exitcode.Usagef("triplex: update_share must be in (0, 1], got %v", c.updateShare)
	case c.backend == backendPostgres && o.Has("path") && c.path != "":
		return c, exitcode.Usagef("triplex: path is a sqlite option; backend is postgres")
	case c.backend == backendPostgres && c.storage == storageFile:
		return c, exitcode.Usagef("triplex: storage is a sqlite option; backend is postgres")
	case c.backend == backendSQLite && c.dsn != "":
		return c, exitcode.Usagef("triplex: dsn is a postgres option; backend is sqlite")
	case c.backend == backendSQLite && c.path != "" && c.storage != storageFile:
		return c, exitcode.Usagef("triplex: path needs storage: file")
	case c.keep && (c.backend != backendSQLite || c.path == ""):
		return c, exitcode.Usagef("triplex: keep needs backend sqlite, storage file and a path (it keeps the file at that path)")
	}
	return c, nil
}

var _ adapters.Checker = adapter{}

// Check reports the option and parameter mistakes Open and PrepareWorkload would find before
// touching any data (see adapters.Checker).
func (adapter) Check(o adapters.Options, ds adapters.DatasetSpec, params map[string]adapters.Options) error {
	size := ds.Size
	c, err := parseConfig(o)
	if err != nil {
		return err
	}
	for name, p := range params {
		// Upper bounds a 24 GiB machine survives: a batch is built in memory, pages are queried in turn.
		for param, limit := range map[string]int64{"batch": 1_000_000, "pages": 100_000} {
			if p.Int(param) > limit {
				return exitcode.Usagef("triplex: workload %s: %s must be at most %d, got %d", name, param, limit, p.Int(param))
			}
		}
		if p.Has("page") && p.Int("page") > maxPage {
			return exitcode.Usagef("triplex: workload %s: page %d is larger than Triplex's maximum of %d", name, p.Int("page"), maxPage)
		}
		if name == wAsOfPage || name == wAsOfEntity {
			if back := max(int(p.Int("back")), 1); back > c.historyDepth-1 {
				return exitcode.Usagef("triplex: workload %s: back %d needs history_depth >= %d (the target has history_depth %d, i.e. %d update round(s))",
					name, back, back+1, c.historyDepth, c.historyDepth-1)
			}
		}
		if name == wNextPage || name == wPageAll || name == wPageAttr || name == wPageJoin || name == wGroupCount || name == wAsOfPage {
			page := int(p.Int("page"))
			if page == 0 {
				page = 100
			}
			if page >= size {
				return exitcode.Usagef("triplex: workload %s: a page of %d rows needs more than %d entities: use a larger dataset size or a smaller page", name, page, size)
			}
		}
	}
	return nil
}

type envDir string

func (e envDir) dir() string { return string(e) }

func (adapter) Open(ctx context.Context, opts adapters.Options, env adapters.Env) (adapters.Target, error) {
	c, err := parseConfig(opts)
	if err != nil {
		return nil, err
	}
	if env.Size < 1 {
		return nil, exitcode.Usagef("triplex: dataset size must be at least 1, got %d", env.Size)
	}
	if c.maxPersons > 0 && env.Size > c.maxPersons {
		return nil, adapters.Unavailable("triplex: %s layout is limited to %d persons by max_persons (this size: %d)", c.layout, c.maxPersons, env.Size)
	}
	logf := env.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var b backend
	switch c.backend {
	case backendSQLite:
		b, err = openSQLite(ctx, c.storage, c.path, c.keep, envDir(env.TempDir))
	case backendPostgres:
		b, err = openPostgres(ctx, c.dsn, c.sharedBuffers, store.PostgresSettings(c.layout), envDir(env.TempDir), logf)
	default:
		err = exitcode.Usagef("triplex: unknown backend %q", c.backend)
	}
	if err != nil {
		return nil, err
	}
	return &target{cfg: c, b: b, env: env, logf: logf}, nil
}

// errNoPersons is returned by the common workloads of a target opened with persons: false.
func errNoPersons(w string) error {
	return exitcode.Usagef("triplex: workload %s needs the person dataset, but the target has persons: false", w)
}

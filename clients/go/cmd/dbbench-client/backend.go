package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/adapters/phase"
	sqladapter "github.com/dbbench/dbbench/adapters/sql"
	"github.com/dbbench/dbbench/adapters/timing"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/buildinfo"
	"github.com/dbbench/dbbench/workloads"
)

// adapterBackend serves one of dbbench's own adapters over the protocol. It times each call exactly
// where the engine times the same adapter in process, so the two sets of figures differ only by
// the process they run in: that difference is what this client exists to show.
type adapterBackend struct {
	adapter adapters.Adapter
	library string
	// fixed are options the library choice sets (the SQL driver); hide, options that do not apply to
	// it. Neither is offered in hello.
	fixed map[string]any
	hide  []string
	// postgres: the store is the schema open.postgres names (passed as the dsn and schema options).
	postgres bool
	// phases: the adapter's targets split their operations into phases (adapters.Profiler), so the
	// client offers capability phases; prof is the recorder Serve lends for the current request.
	phases bool
	prof   *phase.Recorder

	t  adapters.Target
	ds *dataset.Persons
	// loaded describes t's store for dbbench (capability store); kept is the insert session whose
	// fresh store waits for dbbench to read it (capability keep_store), until Drop.
	loaded protocol.Store
	kept   adapters.InsertSession
	// persons holds the first persons of ds, built once for all insert requests, as the engine builds
	// its insert workload's once: no allocation per request to trigger a collection in timed work.
	persons []dataset.Person
	// fields is the last read's record, reused by the next (the reply is encoded before it).
	fields [][]byte
	found  bool
}

// hidden lists the options the client sets itself and so does not offer in hello.
func (b *adapterBackend) hidden(name string) bool {
	_, fixed := b.fixed[name]
	return fixed || slices.Contains(b.hide, name)
}

func (b *adapterBackend) Hello() protocol.Hello {
	info := b.adapter.Info()
	h := protocol.Hello{
		Client: "dbbench-client-go", ClientVersion: "1.0.0", Language: "Go", Runtime: runtime.Version(),
		Library: b.library, LibraryVersion: buildinfo.Module(b.library),
		Workloads: slices.Clone(info.Builtin), Options: []string{},
	}
	for _, w := range info.Workloads {
		h.Workloads = append(h.Workloads, w.Name)
	}
	for _, o := range info.Options {
		if !b.hidden(o.Name) {
			h.Options = append(h.Options, o.Name)
		}
	}
	return h
}

func (b *adapterBackend) Open(ctx context.Context, req protocol.Open) (protocol.Opened, error) {
	raw := map[string]any{}
	takes := b.Hello().Options
	for k, v := range req.Options {
		if !slices.Contains(takes, k) {
			known := strings.Join(takes, ", ")
			if known == "" {
				known = "none"
			}
			return protocol.Opened{}, fmt.Errorf("open: unknown option %q (%s takes: %s)", k, b.library, known)
		}
		raw[k] = v
	}
	for k, v := range b.fixed {
		raw[k] = v
	}
	if b.postgres {
		if req.Postgres == nil {
			return protocol.Opened{}, errors.New("open: no postgres server given (the target needs postgres: true or a dsn)")
		}
		raw["dsn"], raw["schema"] = req.Postgres.DSN, req.Postgres.Schema
	}
	if req.TempDir == "" {
		return protocol.Opened{}, errors.New("open: no temp_dir given")
	}
	opts, err := adapters.ParseOptions(b.adapter.Info().Options, raw)
	if err != nil {
		return protocol.Opened{}, fmt.Errorf("open: %w", err)
	}
	ds, err := dataset.ReadFile(req.Dataset)
	if err != nil {
		return protocol.Opened{}, fmt.Errorf("open: %w", err)
	}
	if req.Size != 0 && req.Size != ds.Len() {
		return protocol.Opened{}, fmt.Errorf("open: size %d, but the person file holds %d persons", req.Size, ds.Len())
	}
	env := adapters.Env{TempDir: req.TempDir, Logf: logf, Seed: req.Seed, Size: ds.Len()}
	t, err := b.adapter.Open(ctx, opts, env)
	if err != nil {
		return protocol.Opened{}, err
	}
	b.t, b.ds = t, ds
	b.loaded = b.describe(t, opts, req)
	info := t.Info()
	info["timing"] = "Go time.Now around each call, where the engine times the in-process adapter"
	info["concurrent_readers"] = "goroutines"
	if b.postgres {
		info["server"] = "open.postgres (the DSN is dbbench's secret: not repeated here)"
	}
	ord, ok := t.(adapters.OrderedScanner)
	return protocol.Opened{Info: info, ScansInKeyOrder: ok && ord.ScansInKeyOrder()}, nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "dbbench-client: "+format+"\n", args...)
}

// capability returns the target as the workload's interface, or an error naming the workload.
func capability[T any](t adapters.Target, workload string) (T, error) {
	c, ok := t.(T)
	if !ok {
		return c, fmt.Errorf("this library does not support the %s workload", workload)
	}
	return c, nil
}

func (b *adapterBackend) Load(ctx context.Context) (int64, time.Duration, error) {
	start := time.Now()
	if err := b.t.Load(ctx, b.ds); err != nil {
		return 0, 0, err
	}
	return int64(b.ds.Len()), time.Since(start), nil
}

func (b *adapterBackend) Scan(ctx context.Context, rows int) (protocol.Tally, time.Duration, error) {
	sc, err := capability[adapters.Scanner](b.t, workloads.Scan)
	if err != nil {
		return protocol.Tally{}, 0, err
	}
	done := b.profiling(b.t)
	start := time.Now()
	t, err := sc.Scan(ctx, rows)
	d := time.Since(start)
	done()
	return protocol.Tally(t), d, err
}

func (b *adapterBackend) Lookup(ctx context.Context, keys []int, lat []time.Duration) (protocol.Tally, error) {
	pr, err := capability[adapters.PointReader](b.t, workloads.Lookup)
	if err != nil {
		return protocol.Tally{}, err
	}
	emails := make([][]byte, len(keys))
	for i, k := range keys {
		if k < 0 || k >= b.ds.Len() {
			return protocol.Tally{}, fmt.Errorf("lookup: key %d is not an index of the %d persons", k, b.ds.Len())
		}
		emails[i] = b.ds.Email(k)
	}
	defer b.profiling(b.t)()
	return timeEach(ctx, lat[:len(emails)], "lookup", func(i int) (adapters.Tally, error) {
		return pr.Lookup(ctx, emails[i])
	})
}

// timeEach runs op for each index of lat, timing each call into lat, and sums the tallies. what names
// the operation in an error: "lookup 3 of 10: ...". The clock reads are the engine's, around each call.
func timeEach(ctx context.Context, lat []time.Duration, what string, op func(i int) (adapters.Tally, error)) (protocol.Tally, error) {
	var sum adapters.Tally
	for i := range lat {
		if i%timing.CheckEvery == 0 && ctx.Err() != nil {
			return protocol.Tally{}, ctx.Err()
		}
		start := time.Now()
		t, err := op(i)
		lat[i] = time.Since(start)
		if err != nil {
			return protocol.Tally{}, fmt.Errorf("%s %d of %d: %w", what, i+1, len(lat), err)
		}
		sum.Add(t)
	}
	return protocol.Tally(sum), nil
}

// insertSession prepares a fresh store (untimed) and the first rows persons to insert into it.
func (b *adapterBackend) insertSession(ctx context.Context, rows int) (adapters.InsertSession, []dataset.Person, error) {
	in, err := capability[adapters.Inserter](b.t, workloads.Insert)
	if err != nil {
		return nil, nil, err
	}
	if b.kept != nil {
		return nil, nil, errors.New("insert: the last insert's store is still kept (send drop first)")
	}
	if rows > b.ds.Len() {
		return nil, nil, fmt.Errorf("insert: %d rows, but the dataset has %d persons", rows, b.ds.Len())
	}
	for i := len(b.persons); i < rows; i++ {
		b.persons = append(b.persons, b.ds.Person(i))
	}
	sess, err := in.NewInsertSession(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("insert: prepare a fresh store: %w", err)
	}
	return sess, b.persons[:rows], nil
}

func (b *adapterBackend) Insert(ctx context.Context, rows int) (protocol.Tally, time.Duration, error) {
	sess, persons, err := b.insertSession(ctx, rows)
	if err != nil {
		return protocol.Tally{}, 0, err
	}
	defer sess.Close()
	done := b.profiling(b.t)
	d, err := timing.Insert(ctx, sess, persons, nil) // the region the engine times
	done()
	if err != nil {
		return protocol.Tally{}, 0, err
	}
	verify, err := sess.Verify(ctx)
	if err != nil {
		return protocol.Tally{}, 0, fmt.Errorf("insert: read back: %w", err)
	}
	if err := sess.Close(); err != nil {
		return protocol.Tally{}, 0, fmt.Errorf("insert: drop the fresh store: %w", err)
	}
	return protocol.Tally(verify), d, nil
}

// InsertKeep is Insert without the read-back: the fresh store stays until Drop (protocol 2,
// capability keep_store), for dbbench to read itself.
func (b *adapterBackend) InsertKeep(ctx context.Context, rows int) (protocol.Store, time.Duration, error) {
	sess, persons, err := b.insertSession(ctx, rows)
	if err != nil {
		return protocol.Store{}, 0, err
	}
	done := b.profiling(b.t)
	d, err := timing.Insert(ctx, sess, persons, nil) // the region the engine times
	done()
	if err != nil {
		return protocol.Store{}, 0, errors.Join(err, sess.Close())
	}
	b.kept = sess
	st := b.loaded
	switch st.Kind {
	case protocol.StoreLMDB:
		sd, ok := sess.(storeDir)
		if !ok {
			return protocol.Store{}, 0, errors.Join(errors.New("insert: the fresh store has no directory to describe"), b.Drop())
		}
		st.Path = sd.StoreDir()
	case protocol.StoreSQLite, protocol.StorePostgres:
		st.Table = insertTable
	}
	return st, d, nil
}

// Drop drops the store InsertKeep kept.
func (b *adapterBackend) Drop() error {
	if b.kept == nil {
		return errors.New("drop: no store is kept")
	}
	err := b.kept.Close()
	b.kept = nil
	if err != nil {
		return fmt.Errorf("drop the fresh store: %w", err)
	}
	return nil
}

// LoadedStore describes the loaded store for dbbench (protocol 2, capability store).
func (b *adapterBackend) LoadedStore() protocol.Store { return b.loaded }

// storeDir is an LMDB target or insert session: its environment's directory.
type storeDir interface{ StoreDir() string }

// The tables of the sql adapter's stores (docs/protocol.md, "The reference workloads on SQL stores").
const (
	personsTable = "persons"
	insertTable  = "persons_insert"
)

// describe says where t's store is, in the person layout of docs/protocol.md: an LMDB environment,
// a SQLite file, a table of dbbench's PostgreSQL schema, or (a SQLite database in memory) other.
func (b *adapterBackend) describe(t adapters.Target, opts adapters.Options, req protocol.Open) protocol.Store {
	switch {
	case b.postgres:
		return protocol.Store{Kind: protocol.StorePostgres, Schema: req.Postgres.Schema, Table: personsTable}
	case b.fixed["driver"] == sqladapter.DriverSQLite:
		if opts.String("storage") == "memory" {
			return protocol.Store{Kind: protocol.StoreOther}
		}
		path := opts.String("path")
		if path == "" {
			path = filepath.Join(req.TempDir, "persons.db") // the sql adapter's default file
		}
		return protocol.Store{Kind: protocol.StoreSQLite, Path: path, Table: personsTable}
	}
	if d, ok := t.(storeDir); ok {
		return protocol.Store{Kind: protocol.StoreLMDB, Path: d.StoreDir()}
	}
	return protocol.Store{Kind: protocol.StoreOther}
}

func (b *adapterBackend) Concurrent(ctx context.Context, rows int, lat []time.Duration) ([]protocol.Tally, time.Duration, error) {
	var (
		tallies []adapters.Tally
		wall    time.Duration
		err     error
	)
	done := b.profiling(b.t)
	defer done()
	if cs, ok := b.t.(adapters.ConcurrentScanner); ok {
		tallies, wall, err = cs.ScanConcurrently(ctx, len(lat), rows, lat)
	} else {
		var sc adapters.Scanner
		if sc, err = capability[adapters.Scanner](b.t, workloads.Concurrent); err != nil {
			return nil, 0, err
		}
		tallies, wall, err = timing.ScanConcurrently(ctx, sc, rows, lat)
	}
	if err != nil {
		return nil, 0, err
	}
	out := make([]protocol.Tally, len(tallies))
	for i, t := range tallies {
		out[i] = protocol.Tally(t)
	}
	return out, wall, nil
}

func (b *adapterBackend) Run(ctx context.Context, workload string, params map[string]any, lat []time.Duration) (protocol.Tally, error) {
	i := slices.IndexFunc(b.adapter.Info().Workloads, func(w adapters.WorkloadSpec) bool { return w.Name == workload })
	if i < 0 {
		return protocol.Tally{}, fmt.Errorf("run: unknown workload %q", workload)
	}
	cr, err := capability[adapters.CustomRunner](b.t, workload)
	if err != nil {
		return protocol.Tally{}, err
	}
	p, err := adapters.ParseOptions(b.adapter.Info().Workloads[i].Params, params)
	if err != nil {
		return protocol.Tally{}, fmt.Errorf("run %s: %w", workload, err)
	}
	op, err := cr.PrepareWorkload(ctx, workload, p)
	if err != nil {
		return protocol.Tally{}, err
	}
	if c, ok := op.(io.Closer); ok {
		defer c.Close()
	}
	defer b.profiling(op)()
	return timeEach(ctx, lat, "run "+workload+": operation", func(i int) (adapters.Tally, error) {
		return op.Do(ctx, i)
	})
}

func (b *adapterBackend) Close() error {
	if b.t == nil {
		return nil
	}
	var err error
	if b.kept != nil {
		err = b.Drop()
	}
	err = errors.Join(err, b.t.Close())
	b.t, b.ds, b.persons = nil, nil, nil
	return err
}

// The phases (protocol 2, capability phases) of the adapter's own --profile.
var _ protocol.PhaseBackend = (*adapterBackend)(nil)

// OffersPhases says whether the adapter's targets split their operations into phases.
func (b *adapterBackend) OffersPhases() bool { return b.phases }

// Profile keeps the recorder Serve lends for one request; the timed regions hand it on.
func (b *adapterBackend) Profile(r *phase.Recorder) { b.prof = r }

// profiling lends the request's recorder to x (the target, or a workload's op) for a timed region,
// as the engine lends it in process, and returns what takes it back. Called outside the clock.
func (b *adapterBackend) profiling(x any) (done func()) {
	p, ok := x.(adapters.Profiler)
	if b.prof == nil || !ok {
		return func() {}
	}
	p.Profile(b.prof)
	return func() { p.Profile(nil) }
}

// knownLibraries lists the LIBRARY arguments, for the usage line.
func knownLibraries() string {
	names := slices.Sorted(maps.Keys(libraries))
	return strings.Join(names, ", ")
}

package triplex

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/triplex/store"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// target is one opened instance: the bench fixture store, the person store and the model of what
// the fixture holds (for checking answers).
type target struct {
	cfg  config
	b    backend
	env  adapters.Env
	logf func(string, ...any)

	bench, persons *store.Store
	releases       []func() error
	closeOnce      sync.Once
	closeErr       error

	mu sync.Mutex // guards the model and the write statistics below
	// n is the fixture's size at load; entities n+1.. come from insert_facts.
	n          int
	updates    []uint16 // per fixture entity: how many times its score was replaced
	selected   []int32  // the entities update rounds touch
	updCursor  int      // next position in selected for update_round
	roundTx    []int64  // roundTx[k]: the transaction after which k load-time rounds were applied
	benchLoad  store.LoadStats
	personLoad store.LoadStats
	rounds     writeStats // load-time update rounds
	updateOps  writeStats // update_round workload
	insertOps  writeStats // insert_facts workload
	sessions   int        // insert sessions opened, for unique table prefixes
	rssAfter   int64

	// next is the next entity number insert_facts creates: atomic, so that the timed insert takes
	// no lock.
	next atomic.Int64
}

// The capabilities a triplex target offers (docs/adapters.md): removing a method fails the build.
var (
	_ adapters.OrderedScanner = (*target)(nil)
	_ adapters.PointReader    = (*target)(nil)
	_ adapters.Inserter       = (*target)(nil)
	_ adapters.CustomRunner   = (*target)(nil)
	_ adapters.ProcessOwner   = (*target)(nil)
)

// Processes is the throwaway PostgreSQL server the target started for itself (its postmaster: the
// engine reads the tree), so that its memory and its reads from storage are measured with the
// target's repeats; none on SQLite, on a dsn or on a server in a container.
func (t *target) Processes() []adapters.Process {
	if pg, ok := t.b.(*pgBackend); ok && pg.server != nil {
		if pid := pg.server.PID(); pid > 0 {
			return []adapters.Process{{Role: adapters.RoleServer, PID: pid}}
		}
	}
	return nil
}

// writeStats accumulates write throughput.
type writeStats struct {
	n   int64 // facts (or retract+assert pairs)
	dur time.Duration
}

func (w writeStats) perSecond() float64 {
	if w.dur <= 0 {
		return 0
	}
	return float64(w.n) / w.dur.Seconds()
}

// newStore returns the configuration of a new store and the function that releases its database.
func (t *target) newStore(ctx context.Context, name string) (store.Config, func() error, error) {
	db, pgx, release, err := t.b.storeDB(ctx, name)
	if err != nil {
		return store.Config{}, nil, err
	}
	return store.Config{DB: db, PGX: pgx, Dialect: t.b.dialect(), Layout: t.cfg.layout, Prefix: name + "_"}, release, nil
}

func (t *target) Load(ctx context.Context, ds *dataset.Persons) error {
	n := ds.Len()
	cfg, release, err := t.newStore(ctx, "bench")
	if err != nil {
		return err
	}
	t.releases = append(t.releases, release)
	cfg.Schema = benchSchema
	t.logf("triplex: loading %d fixture entities (%d facts, %s layout)", n, n*factsPerEntity, t.cfg.layout)
	progress := func() {}
	if t.b.dialect() == store.Postgres { // a load over a network reports progress per entity
		progress = t.env.ProgressFunc()
		progress()
	}
	bench, st, err := store.Load(ctx, cfg, n, func(i int, vals []store.Value) int64 {
		progress()
		benchValues(i, 0, vals)
		return int64(i + 1)
	})
	if err != nil {
		return t.storeErr("load fixture", err)
	}
	t.bench, t.benchLoad, t.n = bench, st, n
	t.next.Store(int64(n + 1))
	t.updates = make([]uint16, n)
	for i := 0; i < n; i++ {
		if updated(i, t.cfg.updateShare) {
			t.selected = append(t.selected, int32(i))
		}
	}
	t.roundTx = []int64{bench.LastTx()}
	for r := 1; r < t.cfg.historyDepth; r++ {
		start := time.Now()
		tx, err := t.updateRound(ctx, t.selected)
		if err != nil {
			return t.storeErr("update round", err)
		}
		t.rounds.dur += time.Since(start)
		t.rounds.n += int64(len(t.selected))
		t.roundTx = append(t.roundTx, tx)
		progress()
	}
	if t.cfg.historyDepth > 1 {
		if err := bench.Analyze(ctx); err != nil {
			return t.storeErr("analyze", err)
		}
	}
	if t.cfg.persons {
		cfg, release, err := t.newStore(ctx, "person")
		if err != nil {
			return err
		}
		t.releases = append(t.releases, release)
		cfg.Schema = personSchema
		sorted := ds.Sorted()
		t.logf("triplex: loading %d persons as facts", n)
		t.persons, t.personLoad, err = store.Load(ctx, cfg, n, func(i int, vals []store.Value) int64 {
			progress()
			personValues(ds.Person(int(sorted[i])), vals)
			return int64(i + 1)
		})
		if err != nil {
			return t.storeErr("load persons", err)
		}
	}
	t.rssAfter = rss()
	return nil
}

// updateRound replaces the score of the given entities in one transaction and, once it commits,
// records the new values in the model.
func (t *target) updateRound(ctx context.Context, ents []int32) (int64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w, err := t.bench.Begin(ctx)
	if err != nil {
		return 0, err
	}
	for _, i := range ents {
		k := int(t.updates[i]) + 1
		if err := w.Replace(ctx, int64(i)+1, attrScore, store.NumberValue(benchScore(int(i), k))); err != nil {
			_ = w.Rollback()
			return 0, err
		}
	}
	if err := w.Commit(ctx); err != nil {
		return 0, err
	}
	for _, i := range ents {
		t.updates[i]++
	}
	return w.Tx(), nil
}

// storeErr classifies a store error: a full in-memory database is the user's choice of storage.
func (t *target) storeErr(what string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return exitcode.Infraf("triplex: %s: %w", what, err)
	}
	if t.cfg.backend == backendSQLite && t.cfg.storage == storageMemory && strings.Contains(err.Error(), "full") {
		return exitcode.Usagef("triplex: %s: %v (in-memory SQLite is capped at 1 GiB per store; use storage: file for this size)", what, err)
	}
	return exitcode.AsInfra(fmt.Errorf("triplex: %s: %w", what, err))
}

// currentScore is fixture entity i's score in the model.
func (t *target) currentScore(i int) float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return benchScore(i, int(t.updates[i]))
}

func (t *target) Info() map[string]any {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m := t.b.info(ctx)
	m["backend"] = t.cfg.backend
	m["layout"] = t.cfg.layout
	if t.cfg.layout == store.LayoutTriplex {
		m["layout_detail"] = "reconstruction of Triplex's published SQL layout and generated query shapes (not Triplex itself)"
	} else {
		m["layout_detail"] = "interned ids, covering partial indexes on current facts + AEVT history index, keyset pages, maintained (a,v) counts"
	}
	m["cache"] = "warm (data loaded in this process/server; warm-up runs before timing)"
	m["history_depth"] = t.cfg.historyDepth
	m["update_share"] = t.cfg.updateShare
	t.mu.Lock()
	defer t.mu.Unlock()
	m["fixture_entities"] = t.n
	m["fixture_facts_loaded"] = t.benchLoad.Facts
	m["load_mode"] = t.benchLoad.Mode
	m["load_facts_per_s"] = round(t.benchLoad.FactsPerSecond())
	m["load_seconds"] = map[string]float64{"insert": t.benchLoad.Insert.Seconds(), "index": t.benchLoad.Index.Seconds(), "analyze": t.benchLoad.Analyze.Seconds()}
	if t.rounds.n > 0 {
		m["update_rounds"] = len(t.roundTx) - 1
		m["update_pairs_per_round"] = len(t.selected)
		m["update_pairs_per_s"] = round(t.rounds.perSecond())
	}
	if t.updateOps.n > 0 {
		m["update_round_workload_pairs_per_s"] = round(t.updateOps.perSecond())
	}
	if t.insertOps.n > 0 {
		m["insert_facts_total"] = t.insertOps.n // its rate is the result's: Do keeps no clock of its own
	}
	if t.bench != nil {
		if cur, versions, err := t.bench.Count(ctx); err == nil {
			m["fixture_facts"] = cur
			m["fixture_versions"] = versions
		}
		if sz, err := t.bench.Size(ctx); err == nil {
			if t.cfg.storage == storageFile && t.cfg.backend == backendSQLite {
				m["db_file_bytes"] = sz // both stores share the file
			} else {
				m["fixture_db_bytes"] = sz
			}
		}
	}
	if t.persons != nil {
		m["person_facts"] = t.personLoad.Facts
		m["person_load_facts_per_s"] = round(t.personLoad.FactsPerSecond())
		if sz, err := t.persons.Size(ctx); err == nil && !(t.cfg.storage == storageFile && t.cfg.backend == backendSQLite) {
			m["person_db_bytes"] = sz
		}
	}
	if t.rssAfter > 0 {
		m["rss_after_load_bytes"] = t.rssAfter
		if t.cfg.backend == backendPostgres {
			m["rss_note"] = "dbbench process only; PostgreSQL's memory is in the server processes"
		}
	}
	return m
}

func round(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }

// rss returns the process's resident set size (Linux), or 0.
func rss() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

func (t *target) Close() error {
	t.closeOnce.Do(func() { t.closeErr = t.close() })
	return t.closeErr
}

func (t *target) close() error {
	var errs []error
	// Stores go with their database: in-memory databases vanish with their last connection, the
	// SQLite file is removed and the PostgreSQL schema dropped by the backend.
	for _, r := range t.releases {
		errs = append(errs, r())
	}
	errs = append(errs, t.b.close())
	return errors.Join(errs...)
}

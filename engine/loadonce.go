package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/workloads"
)

// Shards against one server the user gives share one store (docs/shards.md, "One store on a
// server"): `dbbench run --load-only` loads it once (LoadOnce) and writes a marker of what it
// loaded; each shard checks the marker against its own plan (CheckLoaded) and attaches to the
// store instead of loading it (adapters.StoreAttach).

// LoadMarker is what a load-only run loaded: the file the shards check before they attach.
type LoadMarker struct {
	Kind string `json:"kind"`
	// ConfigHash is the SHA-256 of the config as run (report's config): informative, since a
	// shard may change what does not touch the store (its rate, its duration).
	ConfigHash string        `json:"config_hash"`
	Seed       int64         `json:"seed"`
	Salt       uint64        `json:"salt"` // the persons dataset's: the shards take it
	Size       int           `json:"size"`
	Stores     []LoadedStore `json:"stores"`
	LoadedAt   time.Time     `json:"loaded_at"`
}

// markerKind names the file's kind, so that a report or another JSON file is not taken for one.
const markerKind = "dbbench load-once marker"

// LoadedStore is one target's shared store as loaded: where (options, secrets masked) and what.
type LoadedStore struct {
	Target  string         `json:"target"`
	Adapter string         `json:"adapter"`
	Options map[string]any `json:"options"`
	Persons int            `json:"persons,omitempty"` // persons loaded (0: none, a YCSB-only target)
	Records *LoadedRecords `json:"records,omitempty"`
}

// LoadedRecords is a YCSB workload's records as loaded: what fixes their every byte.
type LoadedRecords struct {
	Workload    string `json:"workload"`
	Count       int64  `json:"count"`
	FieldCount  int    `json:"fieldcount"`
	FieldLength int    `json:"fieldlength"`
	Ordered     bool   `json:"ordered"`
	Seed        int64  `json:"seed"`
}

// sharedStore says whether target t works on a store on a server the user gives, which shards
// share (config.TargetPlan.SharedServer).
func sharedStore(t *config.TargetPlan) bool { return t.SharedServer() != "" }

// storeUse is how target t treats its store in this run (adapters.Env.Store).
func (r *Runner) storeUse(t *config.TargetPlan) adapters.StoreUse {
	switch {
	case !sharedStore(t):
		return adapters.StoreOwn
	case r.Plan.LoadOnly:
		return adapters.StoreKeep
	case r.Plan.Shard != nil:
		return adapters.StoreAttach
	}
	return adapters.StoreOwn
}

// SharesStores says whether the plan has a target on a shared server.
func SharesStores(p *config.Plan) bool {
	for i := range p.Targets {
		if sharedStore(&p.Targets[i]) {
			return true
		}
	}
	return false
}

// Marker is the marker of what a load of plan p puts in its shared stores (LoadedAt zero).
func Marker(p *config.Plan) (*LoadMarker, error) {
	if len(p.Sizes) != 1 {
		return nil, exitcode.Usagef("a store loaded once holds one dataset size; the config sweeps %d (give one size)", len(p.Sizes))
	}
	h := sha256.New()
	if err := json.NewEncoder(h).Encode(p.AsRun); err != nil {
		return nil, exitcode.Usagef("config: %v", err)
	}
	fmt.Fprintf(h, "ci=%v", p.CI)
	m := &LoadMarker{Kind: markerKind, ConfigHash: hex.EncodeToString(h.Sum(nil)), Seed: p.Seed, Salt: p.Salt, Size: p.Sizes[0]}
	for i := range p.Targets {
		t := &p.Targets[i]
		if !sharedStore(t) {
			continue
		}
		st := LoadedStore{Target: t.Name, Adapter: t.Adapter.Info().Name, Options: t.Options.Redacted()}
		for _, w := range p.Workloads {
			switch {
			case !t.Runs(w.Name):
			case w.SQL != nil:
				return nil, exitcode.Usagef("target %s: sql workload %s runs its setup on the target's own store: a store loaded once for shards does not hold it (give it a config of its own)", t.Name, w.Name)
			case !w.YCSB:
				st.Persons = m.Size
			case st.Records != nil:
				return nil, exitcode.Usagef("target %s: a shared store holds one YCSB table: it runs workloads %s and %s (give each its own config)", t.Name, st.Records.Workload, w.Name)
			default:
				def, err := p.YCSB.Definition(w.Name)
				if err != nil {
					return nil, exitcode.Usagef("workload %s: %v", w.Name, err)
				}
				st.Records = &LoadedRecords{Workload: w.Name, Count: p.YCSB.RecordCount, FieldCount: def.FieldCount,
					FieldLength: def.FieldLength, Ordered: def.Ordered, Seed: workloads.Seed(p.Seed, w.Name)}
			}
		}
		m.Stores = append(m.Stores, st)
	}
	if len(m.Stores) == 0 {
		return nil, exitcode.Usagef("no target works on a server you give (a dsn, an address): nothing to load once (embedded stores and throwaway servers load per shard)")
	}
	return m, nil
}

// CheckLoaded refuses, as a usage error of one line, a marker that is not what a load of plan p
// would have left: another seed, size or store, other records. The persons' salt is the marker's:
// the caller gives it to the plan.
func CheckLoaded(p *config.Plan, got *LoadMarker) error {
	if got == nil || got.Kind != markerKind {
		return exitcode.Usagef("the load-once marker is not one (its kind is not %q)", markerKind)
	}
	want, err := Marker(p)
	if err != nil {
		return err
	}
	switch {
	case got.Seed != want.Seed:
		return exitcode.Usagef("the shared stores were loaded with seed %d, this run's is %d: load them again with --load-only", got.Seed, want.Seed)
	case got.Size != want.Size:
		return exitcode.Usagef("the shared stores were loaded at size %d, this run's is %d: load them again with --load-only", got.Size, want.Size)
	}
	loaded := map[string]LoadedStore{}
	for _, s := range got.Stores {
		loaded[s.Target] = s
	}
	for _, w := range want.Stores {
		g, ok := loaded[w.Target]
		w.Options, g.Options = jsonRound(w.Options), jsonRound(g.Options)
		switch {
		case !ok:
			return exitcode.Usagef("target %s: the load-once marker has no store of it: load it with --load-only", w.Target)
		case g.Adapter != w.Adapter || !reflect.DeepEqual(g.Options, w.Options):
			return exitcode.Usagef("target %s: the load-once marker names another store (its adapter or options differ)", w.Target)
		case g.Persons != w.Persons:
			return exitcode.Usagef("target %s: %d persons were loaded, this run wants %d", w.Target, g.Persons, w.Persons)
		case !reflect.DeepEqual(g.Records, w.Records):
			return exitcode.Usagef("target %s: the YCSB records loaded (%s) are not the ones this run wants (%s)", w.Target, g.Records.describe(), w.Records.describe())
		}
	}
	return nil
}

// jsonRound is v as it reads back from the marker's JSON (numbers as float64), to compare alike.
func jsonRound(v map[string]any) map[string]any {
	b, _ := json.Marshal(v)
	var out map[string]any
	json.Unmarshal(b, &out)
	return out
}

func (r *LoadedRecords) describe() string {
	if r == nil {
		return "none"
	}
	return fmt.Sprintf("workload %s, %d records of %d x %d bytes, seed %d", r.Workload, r.Count, r.FieldCount, r.FieldLength, r.Seed)
}

// LoadOnce loads the shared stores of the plan (its targets on a server the user gives) and leaves
// them in place for the shards (adapters.StoreKeep); the other targets load per shard and are not
// opened. It returns the marker of what it loaded; every target's load is a progress line.
func (r *Runner) LoadOnce(ctx context.Context) (*LoadMarker, error) {
	p := r.Plan.Normalize()
	m, err := Marker(p)
	if err != nil {
		return nil, err
	}
	prog := newTracker(r.Events, r.Clock)
	runDir, removeRunDir, err := r.makeRunDir(prog)
	if err != nil {
		return nil, err
	}
	defer removeRunDir()
	sh := newShared(runDir, prog.logf("postgres"))
	defer sh.stop()
	var ds *dataset.Persons
	if !onlyLoadModel(p.Workloads) {
		if ds, err = dataset.GenerateSalted(m.Size, p.Seed, p.Salt); err != nil {
			return nil, exitcode.Usagef("%v", err)
		}
	}
	states, _ := newTargetStates(p)
	runErr := &RunError{}
	defer closeTargets(states, runErr)
	for _, s := range states {
		if !sharedStore(s.plan) {
			continue
		}
		s.ctx, s.cancel = context.WithCancelCause(ctx)
		if err := r.open(ctx, s, m.Size, runDir, sh, ds, prog); err != nil {
			return nil, err
		}
		if s.inst == nil {
			return nil, exitcode.Infraf("target %s: %s", s.plan.Name, s.rep.Instances[len(s.rep.Instances)-1].Skipped)
		}
		if err := r.loadRecordsOnce(s, m, prog); err != nil {
			return nil, err
		}
	}
	closeTargets(states, runErr)
	if len(runErr.Cleanup) > 0 {
		return nil, runErr
	}
	m.LoadedAt = time.Now().UTC()
	return m, nil
}

// loadRecordsOnce loads the YCSB records the marker names for target s, if any.
func (r *Runner) loadRecordsOnce(s *targetState, m *LoadMarker, prog *tracker) error {
	var rec *LoadedRecords
	for _, st := range m.Stores {
		if st.Target == s.plan.Name {
			rec = st.Records
		}
	}
	if rec == nil {
		return nil
	}
	def, err := r.Plan.YCSB.Definition(rec.Workload)
	if err != nil {
		return exitcode.Usagef("workload %s: %v", rec.Workload, err)
	}
	y, err := dataset.NewYCSB(rec.Seed, def.FieldCount, def.FieldLength, def.Ordered)
	if err != nil {
		return exitcode.Usagef("workload %s: %v", rec.Workload, err)
	}
	ops := recordOpsOf(s.inst)
	if ops.loader == nil {
		return exitcode.Usagef("target %s cannot load YCSB records", s.plan.Name)
	}
	prog.printf("loading %d YCSB records into %s", rec.Count, s.plan.Name)
	start := time.Now()
	if err := ops.loader.LoadRecords(s.ctx, y, rec.Count); err != nil {
		return exitcode.AsInfra(fmt.Errorf("target %s: load %d records: %w", s.plan.Name, rec.Count, err))
	}
	prog.printf("loaded %d YCSB records into %s in %v", rec.Count, s.plan.Name, time.Since(start).Round(time.Millisecond))
	return nil
}

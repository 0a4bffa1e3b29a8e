package triplex

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/triplex/store"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// Workload names.
const (
	wPageAll      = "page_all"
	wPageAttr     = "page_attribute"
	wPageJoin     = "page_join"
	wGroupCount   = "group_count"
	wNextPage     = "next_page"
	wEntityLookup = "entity_lookup"
	wAsOfPage     = "asof_page"
	wAsOfEntity   = "asof_entity"
	wInsertFacts  = "insert_facts"
	wUpdateRound  = "update_round"
)

// Every op is checked outside the timed region and describes its plan: without Verify the engine
// would take Do's unchecked tally (docs/adapters.md).
var (
	_ adapters.Verifier  = (*entityLookupOp)(nil)
	_ adapters.Describer = (*entityLookupOp)(nil)
	_ adapters.Verifier  = (*insertOp)(nil)
	_ adapters.Describer = (*insertOp)(nil)
	_ adapters.Verifier  = (*updateOp)(nil)
	_ adapters.Describer = (*updateOp)(nil)
	_ adapters.Verifier  = (*pageOp[store.Fact])(nil)
	_ adapters.Describer = (*pageOp[store.Fact])(nil)
	_ adapters.Profiler  = (*pageOp[store.Fact])(nil)
)

// maxPage is Triplex's largest page.
const maxPage = 1000

var (
	minScoreParam = adapters.OptionSpec{Name: "min_score", Kind: adapters.Int, Default: "50", HasMin: true, Min: 0, Help: "join: score lower bound (0..99)"}
	pageParam     = adapters.OptionSpec{Name: "page", Kind: adapters.Int, Default: "100", HasMin: true, Min: 1,
		Help: "rows per page (at most 1000); one more row is fetched to know a next page exists"}
	attrParam = adapters.OptionSpec{Name: "attribute", Kind: adapters.Enum, Default: "name", Choices: []string{"name", "score", "group"},
		Help: "the fixed attribute: :bench/name, :bench/score or :bench/group"}
	groupModeParam = adapters.OptionSpec{Name: "mode", Kind: adapters.Enum, Default: "maintained", Choices: []string{"maintained", "computed"},
		Help: "group count, indexed layout: read maintained counts, or compute them with a streaming GROUP BY (the triplex layout always computes)"}
	backParam = adapters.OptionSpec{Name: "back", Kind: adapters.Int, Default: "1", HasMin: true, Min: 1,
		Help: "read as of this many load-time update rounds before the last (at most history_depth-1)"}
)

func workloadSpecs() []adapters.WorkloadSpec {
	return []adapters.WorkloadSpec{
		{Name: wPageAll, Help: "first page of [?e ?a ?v] (all current facts) in (e, a, v) order", Params: []adapters.OptionSpec{pageParam}},
		{Name: wPageAttr, Help: "first page of [?e :bench/<attribute> ?v] in (e, v) order", Params: []adapters.OptionSpec{pageParam, attrParam}},
		{Name: wPageJoin, Help: "first page of Triplex's join: name and score of entities with score >= min_score, by score descending",
			Params: []adapters.OptionSpec{pageParam, minScoreParam}},
		{Name: wGroupCount, Help: "first page of ?group (count ?e) over :bench/group (250 groups)",
			Params: []adapters.OptionSpec{pageParam, groupModeParam}},
		{Name: wNextPage, Help: "a later page by keyset cursor (pages 2..pages+1 in turn, cursors taken untimed)",
			Params: []adapters.OptionSpec{pageParam,
				{Name: "shape", Kind: adapters.Enum, Default: "all", Choices: []string{"all", "attribute", "join", "group"}, Help: "which shape to page through"},
				{Name: "pages", Kind: adapters.Int, Default: "5", HasMin: true, Min: 1, Help: "how many later pages to cycle through (fewer if the shape ends)"},
				attrParam, minScoreParam, groupModeParam}},
		{Name: wEntityLookup, Help: "all current facts of one entity by its external id (seeded random fixture entities)"},
		{Name: wAsOfPage, Help: "first page of [?e :bench/<attribute> ?v] as of a past transaction (needs history_depth >= 2)",
			Params: []adapters.OptionSpec{pageParam, backParam, {Name: "attribute", Kind: adapters.Enum, Default: "score", Choices: []string{"name", "score", "group"},
				Help: "the attribute (score is the one update rounds change)"}}},
		{Name: wAsOfEntity, Help: "the facts of an updated entity as of a past transaction (needs history_depth >= 2)",
			Params: []adapters.OptionSpec{backParam}},
		{Name: wInsertFacts, Help: "one transaction inserting batch new fixture entities (3 facts each) with every index live; rows = facts",
			Params: []adapters.OptionSpec{{Name: "batch", Kind: adapters.Int, Default: "1000", HasMin: true, Min: 1, Help: "entities per transaction"}}},
		{Name: wUpdateRound, Help: "one transaction retracting and re-asserting the score of batch updated entities (in turn); rows = pairs",
			Params: []adapters.OptionSpec{{Name: "batch", Kind: adapters.Int, Default: "1000", HasMin: true, Min: 1, Help: "retract+assert pairs per transaction"}}},
	}
}

func attrOf(name string) int {
	switch name {
	case "score":
		return attrScore
	case "group":
		return attrGroup
	}
	return attrName
}

// PrepareWorkload readies a Triplex workload (untimed): checks its parameters against the data,
// takes cursors and samples, and records the query plan.
func (t *target) PrepareWorkload(ctx context.Context, name string, params adapters.Options) (adapters.Op, error) {
	if t.bench == nil {
		return nil, exitcode.Infraf("triplex: workload %s before Load", name)
	}
	page := int(params.Int("page"))
	if params.Has("page") && page > maxPage {
		return nil, exitcode.Usagef("triplex: workload %s: page %d is larger than Triplex's maximum of %d", name, page, maxPage)
	}
	if page == 0 {
		page = 100
	}
	w := prep{t: t, name: name, page: page}
	usage, need := w.usage, w.need
	switch name {
	case wPageAll, wPageAttr, wPageJoin, wGroupCount:
		p, rows, what, err := t.pagerFor(name, params)
		if err != nil {
			return nil, err
		}
		if err := need(rows, what); err != nil {
			return nil, err
		}
		return p.firstPage(ctx, page)
	case wNextPage:
		shape := map[string]string{"all": wPageAll, "attribute": wPageAttr, "join": wPageJoin, "group": wGroupCount}[params.String("shape")]
		if shape == "" {
			shape = wPageAll
		}
		pages := max(int(params.Int("pages")), 1)
		p, rows, what, err := t.pagerFor(shape, params)
		if err != nil {
			return nil, err
		}
		if err := need(rows, what); err != nil { // a second page must exist; later ones while they do
			return nil, err
		}
		return p.nextPages(ctx, page, pages)
	case wEntityLookup:
		return t.entityLookup(ctx)
	case wAsOfPage, wAsOfEntity:
		return t.prepareAsOf(ctx, w, params)
	case wInsertFacts:
		op := &insertOp{t: t, batch: max(int(params.Int("batch")), 1)}
		op.build()
		return op, nil
	case wUpdateRound:
		if len(t.selected) == 0 {
			return nil, usage("no entity is updated at update_share %v and %d entities", t.cfg.updateShare, t.n)
		}
		return &updateOp{t: t, batch: max(int(params.Int("batch")), 1)}, nil
	}
	return nil, exitcode.Usagef("triplex: no workload %q", name)
}

// prep is one PrepareWorkload call: the workload and its page size, for its checks and messages.
type prep struct {
	t    *target
	name string
	page int
}

func (w prep) usage(format string, args ...any) error {
	return exitcode.Usagef("triplex: workload %s: "+format, append([]any{w.name}, args...)...)
}

// need refuses a fixture too small for a page and a row more (which shows a next page exists).
func (w prep) need(rows int, what string) error {
	if want := w.page + 1; rows < want {
		return w.usage("a page of %d rows needs at least %d %s (one more shows that a next page exists), but the fixture at %d entities has %d; use a larger dataset size or a smaller page",
			w.page, want, what, w.t.entities(), rows)
	}
	return nil
}

// prepareAsOf readies as_of_page or as_of_entity: a page, or the updated entities, as they were
// `back` update rounds ago.
func (t *target) prepareAsOf(ctx context.Context, w prep, params adapters.Options) (adapters.Op, error) {
	back := max(int(params.Int("back")), 1)
	if back > t.cfg.historyDepth-1 {
		return nil, w.usage("back %d needs history_depth >= %d (the target has history_depth %d, i.e. %d update round(s))",
			back, back+1, t.cfg.historyDepth, t.cfg.historyDepth-1)
	}
	rounds := t.cfg.historyDepth - 1 - back
	at := t.roundTx[rounds]
	if w.name == wAsOfEntity {
		if len(t.selected) == 0 {
			return nil, w.usage("no entity is updated at update_share %v and %d entities", t.cfg.updateShare, t.n)
		}
		return t.asOfEntity(ctx, at, rounds)
	}
	a := attrOf(params.String("attribute"))
	if !params.Has("attribute") {
		a = attrScore
	}
	p := t.attrPager(a, at, rounds)
	if err := w.need(t.n, "entities"); err != nil {
		return nil, err
	}
	return p.firstPage(ctx, w.page)
}

// entities is the fixture's current entity count (load plus insert_facts).
func (t *target) entities() int { return int(t.next.Load() - 1) }

// scoreOf is entity e's current score in the model.
func (t *target) scoreOf(e int64) float64 {
	i := int(e - 1)
	if i < t.n {
		return t.currentScore(i)
	}
	return benchScore(i, 0)
}

// expectValue checks a fixture fact against the model; rounds >= 0 means as of that many
// load-time update rounds (for the score), -1 means current.
func (t *target) expectValue(e int64, a int, v store.Value, rounds int) error {
	if i := int(e - 1); i < 0 || e >= t.nextEntity() {
		return fmt.Errorf("triplex: entity %d is not in the fixture", e)
	}
	// Verify checks every row of every page with this: the model's strings are built on the stack.
	var buf [32]byte
	want, err := t.modelValue(buf[:0], e, a, rounds)
	if err != nil {
		return err
	}
	if v.Kind != want.Kind || v.Num != want.Num || !bytes.Equal(v.Str, want.Str) {
		return fmt.Errorf("triplex: entity %d attribute %s = %s, want %s", e, benchSchemaIdent(a), show(v), show(want))
	}
	return nil
}

// modelValue is fixture fact (e, a)'s value by the fixture's definition and the update rounds
// dbbench applied: current (rounds -1) or as of that many load-time update rounds. A string value
// is appended to buf.
func (t *target) modelValue(buf []byte, e int64, a int, rounds int) (store.Value, error) {
	i := int(e - 1)
	switch a {
	case attrGroup:
		return store.Value{Kind: store.String, Str: strconv.AppendInt(append(buf, "group:"...), int64(i%groupCount), 10)}, nil
	case attrName:
		return store.Value{Kind: store.String, Str: strconv.AppendInt(append(buf, "Person "...), int64(i), 10)}, nil
	case attrScore:
		switch {
		case rounds < 0:
			return store.NumberValue(t.scoreOf(e)), nil
		case i < t.n && updated(i, t.cfg.updateShare):
			return store.NumberValue(benchScore(i, rounds)), nil
		}
		return store.NumberValue(benchScore(i, 0)), nil
	}
	return store.Value{}, fmt.Errorf("triplex: entity %d: unknown attribute %d", e, a)
}

func (t *target) nextEntity() int64 { return t.next.Load() }

func benchSchemaIdent(a int) string {
	return [...]string{":bench/group", ":bench/name", ":bench/score"}[a]
}

func show(v store.Value) string {
	if v.Kind == store.String {
		return fmt.Sprintf("%q", v.Str)
	}
	return fmt.Sprint(v.Num)
}

// groupSize is how many current fixture entities are in group g.
func (t *target) groupSize(g int) int64 {
	m := t.entities()
	if g >= m {
		return 0
	}
	return int64((m-1-g)/groupCount + 1)
}

// hashing: a row's checksum mixes its content and its position in the page, so two targets agree
// only when they return the same rows in the same order.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

func hashValue(v store.Value) uint64 {
	h := uint64(v.Kind)*0x9e3779b97f4a7c15 ^ math.Float64bits(v.Num)
	for _, c := range v.Str {
		h = (h ^ uint64(c)) * 0x100000001b3
	}
	return mix(h)
}

func hashFact(f store.Fact) uint64 {
	return mix(uint64(f.E)*0x9e3779b97f4a7c15 ^ uint64(f.A+1)<<56 ^ hashValue(f.V))
}

// entityLookupOp reads one entity by external id.
type entityLookupOp struct {
	t      *target
	sample []int32
	at     int64
	rounds int // -1: current
	plan   store.Plan
	err    error

	got   []store.Fact // the last Do's facts, their bytes in arena
	arena []byte
}

func (t *target) entityLookup(ctx context.Context) (adapters.Op, error) {
	n := min(t.n, 10000)
	rng := rand.New(rand.NewPCG(uint64(t.env.Seed), 0x7472706c))
	sample := make([]int32, n)
	for i := range sample {
		sample[i] = int32(rng.IntN(t.n))
	}
	op := &entityLookupOp{t: t, sample: sample, rounds: -1}
	op.plan, op.err = t.bench.Explain(ctx, store.PlanQuery{Shape: store.PlanEntity, Ident: t.bench.Ident(int64(sample[0]) + 1)})
	return op, nil
}

func (t *target) asOfEntity(ctx context.Context, at int64, rounds int) (adapters.Op, error) {
	op := &entityLookupOp{t: t, sample: t.selected, at: at, rounds: rounds}
	op.plan, op.err = t.bench.Explain(ctx, store.PlanQuery{Shape: store.PlanEntity, At: at, Ident: t.bench.Ident(int64(t.selected[0]) + 1)})
	return op, nil
}

func (o *entityLookupOp) entity(i int) int64 { return int64(o.sample[i%len(o.sample)]) + 1 }

// Do reads the entity and keeps its facts; Verify checks them.
func (o *entityLookupOp) Do(ctx context.Context, i int) (adapters.Tally, error) {
	o.got, o.arena = o.got[:0], o.arena[:0]
	err := o.t.bench.Entity(ctx, o.at, o.t.bench.Ident(o.entity(i)), func(f store.Fact) error {
		o.arena, f = keepFact(o.arena, f)
		o.got = append(o.got, f)
		return nil
	})
	return adapters.Tally{Rows: int64(len(o.got))}, err
}

// Verify checks the facts the last Do read (untimed): every attribute once, in order, each value
// the model's.
func (o *entityLookupOp) Verify(_ context.Context, i int) (adapters.Tally, error) {
	e := o.entity(i)
	var tally adapters.Tally
	for a, f := range o.got {
		if f.E != e || f.A != a {
			return tally, fmt.Errorf("triplex: entity %d: got fact (%d, %d), want attribute %d", e, f.E, f.A, a)
		}
		if err := o.t.expectValue(e, f.A, f.V, o.rounds); err != nil {
			return tally, err
		}
		tally.Rows++
		tally.Sum += mix(hashFact(f) + uint64(a+1))
	}
	if tally.Rows != factsPerEntity {
		return tally, fmt.Errorf("triplex: entity %d: %d facts, want %d", e, tally.Rows, factsPerEntity)
	}
	return tally, nil
}

func (o *entityLookupOp) Info() map[string]any {
	m := map[string]any{"shape": "entity by external id", "flat_declared": false}
	if o.at != 0 {
		m["as_of_tx"] = o.at
	}
	describePlan(m, o.plan, o.err, false)
	return m
}

// describePlan adds a plan to an op's report entry, with a warning when a read declared flat sorts.
func describePlan(m map[string]any, p store.Plan, err error, flat bool) {
	if err != nil {
		m["plan_error"] = err.Error()
		return
	}
	m["sql"] = p.SQL
	m["plan"] = p.Lines
	m["plan_method"] = p.Method
	if flat && len(p.Sorts) > 0 {
		m["warnings"] = []string{fmt.Sprintf("shape declared flat, but its plan sorts: %v", p.Sorts)}
	}
}

// insertOp inserts new fixture entities with every index live. The values of a batch are built
// before it, untimed (at prepare, then by each Verify for the next batch), so that Do holds the
// transaction alone: no lock, no clock, no allocation of its own.
type insertOp struct {
	t     *target
	batch int
	from  int64           // first entity the last Do inserted (0: none)
	vals  [][]store.Value // the next batch's values, per entity
	built int64           // the first entity vals are for (0: none)
}

// loseFact, set by a test, makes insertOp drop one fact of each batch, as a store that loses a
// write would: the op's read-back must catch it.
var loseFact bool

// build makes the values of the batch that starts at the next entity.
func (o *insertOp) build() {
	from := o.t.nextEntity()
	if o.vals == nil {
		o.vals = make([][]store.Value, o.batch)
		for j := range o.vals {
			o.vals[j] = make([]store.Value, len(benchSchema.Attrs))
		}
	}
	for j, vals := range o.vals {
		benchValues(int(from-1)+j, 0, vals)
	}
	o.built = from
}

func (o *insertOp) Do(ctx context.Context, _ int) (adapters.Tally, error) {
	t := o.t
	o.from = 0
	from := t.next.Load()
	if o.built != from {
		o.build() // a caller that skipped Verify; the engine never does
	}
	w, err := t.bench.Begin(ctx)
	if err != nil {
		return adapters.Tally{}, err
	}
	for j, vals := range o.vals {
		e := from + int64(j)
		if err := w.NewEntity(ctx, e); err != nil {
			_ = w.Rollback()
			return adapters.Tally{}, err
		}
		for a, v := range vals {
			if loseFact && j == o.batch/2 && a == attrName {
				continue
			}
			if err := w.Assert(ctx, e, a, v); err != nil {
				_ = w.Rollback()
				return adapters.Tally{}, err
			}
		}
	}
	if err := w.Commit(ctx); err != nil {
		return adapters.Tally{}, err
	}
	o.from = from
	t.next.Store(from + int64(o.batch))
	return adapters.Tally{Rows: int64(o.batch * factsPerEntity)}, nil
}

// Verify reads back (untimed) every fact the last Do inserted, in one keyset page that starts after
// the entity before them, and checks each against the model; the tally comes from what was read.
func (o *insertOp) Verify(ctx context.Context, _ int) (adapters.Tally, error) {
	t := o.t
	if o.from == 0 {
		return adapters.Tally{}, fmt.Errorf("triplex: insert_facts: nothing was inserted")
	}
	prev := o.from - 1 // its last fact in (e, a, v) order is its score
	after := store.Fact{E: prev, A: attrScore, V: store.NumberValue(t.scoreOf(prev))}
	want := int64(o.batch * factsPerEntity)
	var tally adapters.Tally
	e, a := o.from, 0
	err := t.bench.PageAll(ctx, 0, &after, int(want)+1, func(f store.Fact) error {
		if f.E != e || f.A != a {
			return fmt.Errorf("triplex: insert_facts: read back fact (%d, %s), want (%d, %s): a write was lost or misplaced",
				f.E, benchSchemaIdent(f.A), e, benchSchemaIdent(a))
		}
		if err := t.expectValue(f.E, f.A, f.V, -1); err != nil {
			return fmt.Errorf("%w (insert_facts read-back)", err)
		}
		tally.Rows++
		tally.Sum += hashFact(f)
		if a++; a == factsPerEntity {
			e, a = e+1, 0
		}
		return nil
	})
	if err == nil && tally.Rows != want {
		err = fmt.Errorf("triplex: insert_facts: read back %d facts, want %d", tally.Rows, want)
	}
	t.mu.Lock()
	t.insertOps.n += want
	t.mu.Unlock()
	o.build() // the next batch's values, with the clock stopped
	return tally, err
}

func (o *insertOp) Info() map[string]any {
	return map[string]any{"shape": "insert fixture entities, indexes live", "facts_per_txn": o.batch * factsPerEntity,
		"verified": "every inserted fact read back from the store after each transaction (untimed)"}
}

// updateOp retracts and re-asserts scores of the updated entities, batch per transaction.
type updateOp struct {
	t     *target
	batch int
	ents  []int32 // the entities the last Do updated
}

func (o *updateOp) Do(ctx context.Context, _ int) (adapters.Tally, error) {
	t := o.t
	t.mu.Lock()
	o.ents = o.ents[:0]
	for len(o.ents) < o.batch && len(o.ents) < len(t.selected) {
		o.ents = append(o.ents, t.selected[t.updCursor])
		t.updCursor = (t.updCursor + 1) % len(t.selected)
	}
	t.mu.Unlock()
	start := time.Now()
	if _, err := t.updateRound(ctx, o.ents); err != nil {
		return adapters.Tally{}, err
	}
	d := time.Since(start)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.updateOps.n += int64(len(o.ents))
	t.updateOps.dur += d
	return adapters.Tally{Rows: int64(len(o.ents))}, nil
}

// Verify reads back (untimed) the current facts of every entity the last Do updated: exactly one
// current score, the new one, with name and group untouched. The tally comes from what was read.
func (o *updateOp) Verify(ctx context.Context, _ int) (adapters.Tally, error) {
	t := o.t
	var tally adapters.Tally
	for _, i := range o.ents {
		e := int64(i) + 1
		a := 0
		err := t.bench.Entity(ctx, 0, t.bench.Ident(e), func(f store.Fact) error {
			if f.A != a {
				return fmt.Errorf("triplex: update_round: entity %d reads back attribute %s, want %s", e, benchSchemaIdent(f.A), benchSchemaIdent(a))
			}
			a++
			if err := t.expectValue(e, f.A, f.V, -1); err != nil {
				return fmt.Errorf("%w (update_round read-back)", err)
			}
			if f.A == attrScore {
				tally.Rows++
				tally.Sum += hashFact(f)
			}
			return nil
		})
		if err != nil {
			return tally, err
		}
		if a != factsPerEntity {
			return tally, fmt.Errorf("triplex: update_round: entity %d reads back %d current facts, want %d", e, a, factsPerEntity)
		}
	}
	return tally, nil
}

func (o *updateOp) Info() map[string]any {
	return map[string]any{"shape": "retract + re-assert :bench/score (UPDATE of the open version, INSERT of the new)", "pairs_per_txn": o.batch,
		"verified": "every updated entity read back from the store after each transaction (untimed)"}
}

package triplex

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/adapters/triplex/store"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// pager pages through one query shape with keyset cursors; R is the shape's row type. Everything
// the ops check comes from here: the order of rows (which also proves keyset continuity), each
// row's value against the model, and the page's completeness: every row and the row count against
// the answer computed from the fixture's definition (row), so that one target alone is checked.
type pager[R any] struct {
	t     *target
	shape string
	flat  bool // declared flat: its plan must not sort
	fetch func(ctx context.Context, after *R, limit int, fn func(R) error) error
	// keep copies a row's bytes out of driver memory into arena (reused from op to op).
	keep func(arena []byte, r R) ([]byte, R)
	// print is a row's fingerprint: a few loads and multiplies, cheap enough for the timed region.
	print func(R) uint64
	// timed is fetch for the timed region: the rows go straight to the printer's method for R
	// (concrete code; a generic callback costs several times the fingerprint itself).
	timed func(ctx context.Context, after *R, limit int, pr *printer) error
	// before reports whether a comes strictly before b in the shape's order.
	before func(a, b R) bool
	hash   func(R) uint64
	check  func(R) error
	plan   func(after *R, limit int) store.PlanQuery
	// row is the answer computed independently of the store: the row at position pos (0-based) of
	// the shape's whole answer, from the fixture's definition and the writes dbbench made, in the
	// shape's order (Triplex's); false past its end.
	row  func(pos int) (R, bool)
	show func(R) string // a row, for an error message
}

// shapeOps is what PrepareWorkload needs of a pager, whatever its row type.
type shapeOps interface {
	firstPage(ctx context.Context, page int) (adapters.Op, error)
	nextPages(ctx context.Context, page, pages int) (adapters.Op, error)
}

// pageOp fetches one page per call: the first page, or the pages after cursors taken at prepare.
// Do takes only the page's row count and an order-sensitive fingerprint of its rows (a few
// nanoseconds a row); Verify, with the clock stopped, reads the page again, checks every row of it
// (order, values, membership and count against the computed answer) and that its fingerprint is
// the timed read's.
type pageOp[R any] struct {
	p       *pager[R]
	page    int
	cursors []*R  // nil: the first page
	starts  []int // the position in the shape's answer of each cursor's page
	plan    store.Plan
	planErr error

	pr      *printer
	prof    *phase.Recorder // the profiled repeat's recorder (Profile), nil otherwise
	fetched int             // rows the last Do fetched
	print   uint64          // fingerprint of the last Do's page
	got     pageRows[R]
}

// pageRows is one fetched page: its first page rows, copied, and how many rows the fetch returned.
type pageRows[R any] struct {
	rows    []R
	arena   []byte
	fetched int
}

// dropRow, set by a test, makes every page read skip its row at this position (1-based; 0: none)
// and read one more in its place, as a store that loses a row from a page would: the completeness
// check must catch it.
var dropRow int

// fetchPage fetches the page after cursor (page+1 rows at most) into into, reusing its memory.
func (p *pager[R]) fetchPage(ctx context.Context, after *R, page int, into *pageRows[R]) error {
	into.rows, into.arena, into.fetched = into.rows[:0], into.arena[:0], 0
	seen := 0
	return p.fetch(ctx, after, page+1+min(dropRow, 1), func(r R) error {
		if seen++; seen == dropRow {
			return nil
		}
		into.fetched++
		if into.fetched <= page { // the extra row only says that a next page exists
			into.arena, r = p.keep(into.arena, r)
			into.rows = append(into.rows, r)
		}
		return nil
	})
}

// verify checks a fetched page, the one at position start of the shape's answer: order (and
// continuity after the cursor), every row against the model, and then that the rows are exactly
// the computed answer's, none missing, none extra, and that the fetch returned as many rows as the
// answer has there (page+1 while a next page exists). It returns the page's tally.
func (p *pager[R]) verify(after *R, start int, got *pageRows[R]) (tally adapters.Tally, err error) {
	for n, r := range got.rows {
		switch {
		case n > 0 && !p.before(got.rows[n-1], r):
			return tally, fmt.Errorf("triplex: %s: row %d is out of order", p.shape, n+1)
		case n == 0 && after != nil && !p.before(*after, r):
			return tally, fmt.Errorf("triplex: %s: first row does not follow the cursor", p.shape)
		}
		if err := p.check(r); err != nil {
			return tally, fmt.Errorf("%w (%s, row %d)", err, p.shape, n+1)
		}
		h := p.hash(r)
		if want, ok := p.row(start + n); !ok || p.hash(want) != h {
			return tally, p.incomplete(start, n, r, want, ok)
		}
		tally.Rows++
		tally.Sum += mix(h + uint64(n+1))
	}
	want := 0
	for ; want <= len(got.rows); want++ { // the rows the answer has from start, page+1 at most
		if _, ok := p.row(start + want); !ok {
			break
		}
	}
	if got.fetched != want {
		return tally, fmt.Errorf("triplex: %s: the page at row %d fetched %d rows, the answer has %d there: rows are missing or extra",
			p.shape, start+1, got.fetched, want)
	}
	return tally, nil
}

// incomplete says how row n of the page at start differs from the computed answer.
func (p *pager[R]) incomplete(start, n int, got, want R, ok bool) error {
	if !ok {
		return fmt.Errorf("triplex: %s: row %d of the page at row %d is %s, past the end of the answer: an extra row",
			p.shape, n+1, start+1, p.show(got))
	}
	return fmt.Errorf("triplex: %s: row %d of the page at row %d is %s, want %s: a row is missing or extra",
		p.shape, n+1, start+1, p.show(got), p.show(want))
}

func (p *pager[R]) firstPage(ctx context.Context, page int) (adapters.Op, error) {
	op := &pageOp[R]{p: p, page: page, cursors: []*R{nil}, starts: []int{0}}
	op.plan, op.planErr = p.t.bench.Explain(ctx, p.plan(nil, page+1))
	return op, nil
}

func (p *pager[R]) nextPages(ctx context.Context, page, pages int) (adapters.Op, error) {
	op := &pageOp[R]{p: p, page: page}
	var got pageRows[R]
	var after *R
	for k := 0; k <= pages; k++ {
		if err := p.fetchPage(ctx, after, page, &got); err != nil {
			return nil, err
		}
		if _, err := p.verify(after, k*page, &got); err != nil {
			return nil, err
		}
		if k > 0 {
			op.cursors = append(op.cursors, after)
			op.starts = append(op.starts, k*page)
		}
		if got.fetched <= page || k == pages {
			break
		}
		// the last row of this page, out of the reused buffers, is the next cursor
		_, last := p.keep(nil, got.rows[len(got.rows)-1])
		after = &last
	}
	if len(op.cursors) == 0 {
		return nil, exitcode.Usagef("triplex: next_page: %s has a single page of %d rows", p.shape, page)
	}
	op.plan, op.planErr = p.t.bench.Explain(ctx, p.plan(op.cursors[0], page+1))
	return op, nil
}

// fingerprint folds row fingerprints in order.
func fingerprint(acc, row uint64) uint64 { return acc*0x100000001b3 + row }

// printer counts and fingerprints the rows of a timed read, one method per row type.
type printer struct {
	n, page int
	fp      uint64
	// the methods as funcs, bound once (a method value made per call would allocate)
	factFn  func(store.Fact) error
	joinFn  func(store.JoinRow) error
	groupFn func(store.Group) error
	// Under --profile the funcs are the profiled methods, which end phase query at the first row
	// (m: the operation's start); otherwise the plain ones, so an unprofiled row pays nothing.
	prof *phase.Recorder
	m    phase.Mark
}

func newPrinter() *printer {
	p := &printer{}
	p.factFn, p.joinFn, p.groupFn = p.fact, p.join, p.group
	return p
}

// The methods spell out printFact, printJoin and printGroup from their inlinable parts, so that a
// row costs no call beyond the store's callback (those three are over the inlining budget).

func (p *printer) fact(f store.Fact) error {
	if p.n++; p.n <= p.page {
		p.fp = fingerprint(p.fp, factPrint(f.E, f.A, printValue(f.V.Kind, f.V.Num, f.V.Str)))
	}
	return nil
}

func (p *printer) join(r store.JoinRow) error {
	if p.n++; p.n <= p.page {
		p.fp = fingerprint(p.fp, joinPrint(r.E, printValue(r.Order.Kind, r.Order.Num, r.Order.Str),
			printValue(r.With.Kind, r.With.Num, r.With.Str)))
	}
	return nil
}

func (p *printer) group(g store.Group) error {
	if p.n++; p.n <= p.page {
		p.fp = fingerprint(p.fp, groupPrint(g.N, printValue(g.V.Kind, g.V.Num, g.V.Str)))
	}
	return nil
}

// profile binds the row funcs to the profiled methods (r not nil) or to the plain ones.
func (p *printer) profile(r *phase.Recorder) {
	p.prof = r
	if r == nil {
		p.factFn, p.joinFn, p.groupFn = p.fact, p.join, p.group
		return
	}
	p.factFn, p.joinFn, p.groupFn = p.factProfiled, p.joinProfiled, p.groupProfiled
}

// firstRow ends phase query: the store has run the query up to its first row.
func (p *printer) firstRow() {
	if p.n == 0 {
		p.m = p.prof.Lap(p.m, phase.Query)
	}
}

func (p *printer) factProfiled(f store.Fact) error    { p.firstRow(); return p.fact(f) }
func (p *printer) joinProfiled(r store.JoinRow) error { p.firstRow(); return p.join(r) }
func (p *printer) groupProfiled(g store.Group) error  { p.firstRow(); return p.group(g) }

// Profile splits the next operations into query (from the call to the store until its first row
// arrives) and page (stepping through the rows and assembling the page from them) on r; nil: none.
func (o *pageOp[R]) Profile(r *phase.Recorder) {
	if o.pr == nil {
		o.pr = newPrinter()
	}
	o.prof = r
	o.pr.profile(r)
}

// Do fetches one page, counting its rows and fingerprinting them; Verify checks it.
func (o *pageOp[R]) Do(ctx context.Context, i int) (adapters.Tally, error) {
	if o.pr == nil {
		o.pr = newPrinter()
	}
	pr := o.pr
	pr.n, pr.fp, pr.page = 0, 0, o.page
	if o.prof != nil {
		pr.m = o.prof.Start()
	}
	var err error
	if dropRow == 0 {
		err = o.p.timed(ctx, o.cursors[i%len(o.cursors)], o.page+1, pr)
	} else {
		err = o.dropping(ctx, i, pr)
	}
	if o.prof != nil {
		last := phase.Page
		if pr.n == 0 {
			last = phase.Query // no row: the query was all of it
		}
		o.prof.Lap(pr.m, last)
	}
	o.fetched, o.print = pr.n, pr.fp
	return adapters.Tally{Rows: int64(min(pr.n, o.page))}, err
}

// dropping is Do's read when a test sets dropRow: the same count and fingerprint, with the row
// skipped as fetchPage skips it.
func (o *pageOp[R]) dropping(ctx context.Context, i int, pr *printer) error {
	seen := 0
	return o.p.fetch(ctx, o.cursors[i%len(o.cursors)], o.page+2, func(r R) error {
		if seen++; seen != dropRow {
			if pr.n++; pr.n <= pr.page {
				pr.fp = fingerprint(pr.fp, o.p.print(r))
			}
		}
		return nil
	})
}

// Verify (untimed) reads the page of the last Do again, checks it and that it is the page the
// timed read returned, and returns its tally.
func (o *pageOp[R]) Verify(ctx context.Context, i int) (adapters.Tally, error) {
	k := i % len(o.cursors)
	if err := o.p.fetchPage(ctx, o.cursors[k], o.page, &o.got); err != nil {
		return adapters.Tally{}, err
	}
	tally, err := o.p.verify(o.cursors[k], o.starts[k], &o.got)
	var fp uint64
	for _, r := range o.got.rows {
		fp = fingerprint(fp, o.p.print(r))
	}
	switch {
	case err != nil:
		return tally, err
	case fp != o.print || o.got.fetched != o.fetched:
		return tally, fmt.Errorf("triplex: %s: the timed read returned other rows than the checked one", o.p.shape)
	}
	return tally, nil
}

func (o *pageOp[R]) Info() map[string]any {
	m := map[string]any{"shape": o.p.shape, "page": o.page, "flat_declared": o.p.flat, "layout": o.p.t.cfg.layout}
	if o.cursors[0] != nil {
		m["pages"] = len(o.cursors)
		m["continuation"] = "keyset"
	}
	describePlan(m, o.plan, o.planErr, o.p.flat)
	return m
}

func factBefore(a, b store.Fact) bool {
	switch {
	case a.E != b.E:
		return a.E < b.E
	case a.A != b.A:
		return a.A < b.A
	}
	return a.V.Compare(b.V) < 0
}

// keepBytes appends b to arena and returns the copy (capacity-capped, so later appends to arena
// never write into it).
func keepBytes(arena, b []byte) ([]byte, []byte) {
	if b == nil {
		return arena, nil
	}
	n := len(arena)
	arena = append(arena, b...)
	return arena, arena[n:len(arena):len(arena)]
}

// printValue fingerprints a value in constant time: kind, number, length and the first and last
// eight bytes (every byte of the fixture's strings, which are at most 16 bytes long). It takes the
// value's fields, not the Value: a Value argument made the compiler copy the struct through the
// stack (byte, float and slice stores reloaded by 16-byte loads, which stall store forwarding),
// 18 ns a row where the fields in registers take 4.
func printValue(kind store.Kind, num float64, str []byte) uint64 {
	h := uint64(kind)<<56 ^ math.Float64bits(num) ^ uint64(len(str))<<48
	if n := len(str); n >= 8 {
		h = h*0x100000001b3 + binary.LittleEndian.Uint64(str)
		h = h*0x100000001b3 + binary.LittleEndian.Uint64(str[n-8:])
	} else {
		for _, c := range str {
			h = h*0x100000001b3 + uint64(c)
		}
	}
	return h
}

func factPrint(e int64, a int, v uint64) uint64 {
	return uint64(e)*0x9e3779b97f4a7c15 + uint64(a)<<40 + v
}

func joinPrint(e int64, order, with uint64) uint64 {
	return uint64(e)*0x9e3779b97f4a7c15 + order*31 + with
}

func groupPrint(n int64, v uint64) uint64 { return uint64(n)*0x9e3779b97f4a7c15 + v }

func printFact(f store.Fact) uint64 {
	return factPrint(f.E, f.A, printValue(f.V.Kind, f.V.Num, f.V.Str))
}

func printJoin(r store.JoinRow) uint64 {
	return joinPrint(r.E, printValue(r.Order.Kind, r.Order.Num, r.Order.Str), printValue(r.With.Kind, r.With.Num, r.With.Str))
}

func printGroup(g store.Group) uint64 { return groupPrint(g.N, printValue(g.V.Kind, g.V.Num, g.V.Str)) }

func keepFact(arena []byte, f store.Fact) ([]byte, store.Fact) {
	arena, f.V.Str = keepBytes(arena, f.V.Str)
	return arena, f
}

// pagerFor builds the pager of a first-page shape and says how many rows the shape has now.
func (t *target) pagerFor(name string, params adapters.Options) (shapeOps, int, string, error) {
	indexed := t.cfg.layout == store.LayoutIndexed
	entities := t.entities()
	switch name {
	case wPageAll:
		return t.allPager(indexed), entities * factsPerEntity, "facts", nil
	case wPageAttr:
		a := attrOf(params.String("attribute"))
		return t.attrPager(a, 0, -1), entities, "entities", nil
	case wPageJoin:
		minScore := int(params.Int("min_score"))
		if !params.Has("min_score") {
			minScore = 50
		}
		if minScore < 0 || minScore >= scoreRange {
			return nil, 0, "", exitcode.Usagef("triplex: workload %s: min_score must be in 0..%d, got %d", name, scoreRange-1, minScore)
		}
		j := store.Join{Order: attrScore, With: attrName, Min: float64(minScore)}
		order := t.joinOrder(minScore)
		return t.joinPager(j, minScore, indexed, order), len(order), "entities with score >= min_score", nil
	case wGroupCount:
		computed := params.String("mode") == "computed"
		return t.groupPager(computed, indexed), min(entities, groupCount), "groups", nil
	}
	return nil, 0, "", exitcode.Usagef("triplex: no workload %q", name)
}

// allPager pages every current fact [?e ?a ?v].
func (t *target) allPager(indexed bool) *pager[store.Fact] {
	return &pager[store.Fact]{
		t: t, shape: "all facts [?e ?a ?v]", flat: indexed,
		fetch: func(ctx context.Context, after *store.Fact, limit int, fn func(store.Fact) error) error {
			return t.bench.PageAll(ctx, 0, after, limit, fn)
		},
		timed: func(ctx context.Context, after *store.Fact, limit int, pr *printer) error {
			return t.bench.PageAll(ctx, 0, after, limit, pr.factFn)
		},
		keep: keepFact, print: printFact, before: factBefore, hash: hashFact, show: showFact,
		check: func(f store.Fact) error { return t.expectValue(f.E, f.A, f.V, -1) },
		plan: func(after *store.Fact, limit int) store.PlanQuery {
			return store.PlanQuery{Shape: store.PlanAll, AfterFact: after, Limit: limit}
		},
		// every current entity has one fact of each attribute: (e, a) in order
		row: func(pos int) (store.Fact, bool) {
			return t.modelFact(int64(pos/factsPerEntity)+1, pos%factsPerEntity, -1, t.nextEntity()-1)
		},
	}
}

// modelFact is fact (e, a) of the model (current, or as of rounds load-time update rounds), among
// entities 1..last.
func (t *target) modelFact(e int64, a, rounds int, last int64) (store.Fact, bool) {
	if e > last {
		return store.Fact{}, false
	}
	v, err := t.modelValue(nil, e, a, rounds)
	return store.Fact{E: e, A: a, V: v}, err == nil
}

func showFact(f store.Fact) string {
	return fmt.Sprintf("(%d, %s, %s)", f.E, benchSchemaIdent(f.A), show(f.V))
}

// joinOrder is the join's answer from the model: the entities with a current score of at least min,
// by score descending, then entity ascending (Triplex's order; a name is the entity's alone).
func (t *target) joinOrder(min int) []int64 {
	var byScore [scoreRange][]int64
	last := t.nextEntity() - 1
	for e := int64(1); e <= last; e++ {
		if s := int(t.scoreOf(e)); s >= min {
			byScore[s] = append(byScore[s], e)
		}
	}
	var order []int64
	for s := scoreRange - 1; s >= min; s-- {
		order = append(order, byScore[s]...)
	}
	return order
}

// joinPager pages the join of name and score for scores of at least j.Min, in Triplex's order;
// order is the answer, joinOrder's.
func (t *target) joinPager(j store.Join, minScore int, indexed bool, order []int64) *pager[store.JoinRow] {
	return &pager[store.JoinRow]{
		t: t, shape: fmt.Sprintf("join name+score, score >= %d, by score desc", minScore), flat: indexed,
		fetch: func(ctx context.Context, after *store.JoinRow, limit int, fn func(store.JoinRow) error) error {
			return t.bench.PageJoin(ctx, 0, j, after, limit, fn)
		},
		keep: func(arena []byte, r store.JoinRow) ([]byte, store.JoinRow) {
			arena, r.With.Str = keepBytes(arena, r.With.Str)
			return arena, r
		},
		print: printJoin,
		timed: func(ctx context.Context, after *store.JoinRow, limit int, pr *printer) error {
			return t.bench.PageJoin(ctx, 0, j, after, limit, pr.joinFn)
		},
		before: func(a, b store.JoinRow) bool { // Triplex's order: score desc, then ?e and ?name asc
			return a.Order.Num > b.Order.Num || a.Order.Num == b.Order.Num && a.E < b.E
		},
		hash: func(r store.JoinRow) uint64 {
			return mix(uint64(r.E)*0x9e3779b97f4a7c15 ^ hashValue(r.Order) ^ hashValue(r.With)<<1)
		},
		check: func(r store.JoinRow) error {
			if r.Order.Num < j.Min {
				return fmt.Errorf("triplex: join: entity %d has score %v < %v", r.E, r.Order.Num, j.Min)
			}
			if err := t.expectValue(r.E, attrScore, r.Order, -1); err != nil {
				return err
			}
			return t.expectValue(r.E, attrName, r.With, -1)
		},
		plan: func(after *store.JoinRow, limit int) store.PlanQuery {
			return store.PlanQuery{Shape: store.PlanJoin, Join: j, AfterJoin: after, Limit: limit}
		},
		row: func(pos int) (store.JoinRow, bool) {
			if pos >= len(order) {
				return store.JoinRow{}, false
			}
			e := order[pos]
			return store.JoinRow{E: e, Order: store.NumberValue(t.scoreOf(e)), With: store.StringValue(benchName(int(e - 1)))}, true
		},
		show: func(r store.JoinRow) string {
			return fmt.Sprintf("(%d, score %s, %s)", r.E, show(r.Order), show(r.With))
		},
	}
}

// groupPager pages the entity count of each :bench/group value: the maintained counts, or (computed,
// and always on the triplex layout) a GROUP BY.
func (t *target) groupPager(computed, indexed bool) *pager[store.Group] {
	groups := t.groupOrder()
	return &pager[store.Group]{
		t: t, shape: "group count ?group (count ?e) over :bench/group" + map[bool]string{true: ", computed", false: ", maintained"}[computed || !indexed],
		flat: indexed && !computed,
		fetch: func(ctx context.Context, after *store.Group, limit int, fn func(store.Group) error) error {
			var v *store.Value
			if after != nil {
				v = &after.V
			}
			return t.bench.Groups(ctx, 0, attrGroup, computed, v, limit, fn)
		},
		keep: func(arena []byte, g store.Group) ([]byte, store.Group) {
			arena, g.V.Str = keepBytes(arena, g.V.Str)
			return arena, g
		},
		print: printGroup,
		timed: func(ctx context.Context, after *store.Group, limit int, pr *printer) error {
			var v *store.Value
			if after != nil {
				v = &after.V
			}
			return t.bench.Groups(ctx, 0, attrGroup, computed, v, limit, pr.groupFn)
		},
		before: func(a, b store.Group) bool { return a.V.Compare(b.V) < 0 },
		hash:   func(g store.Group) uint64 { return mix(hashValue(g.V) ^ uint64(g.N)*0x9e3779b97f4a7c15) },
		check: func(g store.Group) error {
			s, ok := strings.CutPrefix(string(g.V.Str), "group:")
			k, err := strconv.Atoi(s)
			if g.V.Kind != store.String || !ok || err != nil {
				return fmt.Errorf("triplex: group count: unexpected group %s", show(g.V))
			}
			if want := t.groupSize(k); g.N != want {
				return fmt.Errorf("triplex: group count: %s has %d entities, want %d", g.V.Str, g.N, want)
			}
			return nil
		},
		plan: func(after *store.Group, limit int) store.PlanQuery {
			q := store.PlanQuery{Shape: store.PlanGroups, Attr: attrGroup, Computed: computed, Limit: limit}
			if after != nil {
				q.AfterValue = &after.V
			}
			return q
		},
		row: func(pos int) (store.Group, bool) {
			if pos >= len(groups) {
				return store.Group{}, false
			}
			return store.Group{V: store.StringValue(benchGroup(groups[pos])), N: t.groupSize(groups[pos])}, true
		},
		show: func(g store.Group) string { return fmt.Sprintf("(%s, %d)", show(g.V), g.N) },
	}
}

// groupOrder is the group count's answer from the model: the groups with entities, in the order of
// their values (bytes: "group:0", "group:1", "group:10", ...).
func (t *target) groupOrder() []int {
	groups := make([]int, min(t.entities(), groupCount))
	for k := range groups {
		groups[k] = k
	}
	slices.SortFunc(groups, func(a, b int) int { return strings.Compare(benchGroup(a), benchGroup(b)) })
	return groups
}

// attrPager pages [?e attr ?v] as of transaction at (0: current); rounds is the model's state at
// that transaction (-1: current).
func (t *target) attrPager(a int, at int64, rounds int) *pager[store.Fact] {
	shape := "fixed attribute [?e " + benchSchemaIdent(a) + " ?v]"
	last := t.nextEntity() - 1 // every current entity, in entity order
	if at != 0 {
		last = int64(t.n) // as of a load-time round: the loaded entities
		shape += fmt.Sprintf(" as of tx %d", at)
	}
	return &pager[store.Fact]{
		t: t, shape: shape, flat: t.cfg.layout == store.LayoutIndexed,
		fetch: func(ctx context.Context, after *store.Fact, limit int, fn func(store.Fact) error) error {
			return t.bench.PageAttr(ctx, at, a, after, limit, fn)
		},
		timed: func(ctx context.Context, after *store.Fact, limit int, pr *printer) error {
			return t.bench.PageAttr(ctx, at, a, after, limit, pr.factFn)
		},
		keep: keepFact, print: printFact, before: factBefore, hash: hashFact, show: showFact,
		row: func(pos int) (store.Fact, bool) { return t.modelFact(int64(pos)+1, a, rounds, last) },
		check: func(f store.Fact) error {
			if f.A != a {
				return fmt.Errorf("triplex: attribute page: got attribute %d, want %d", f.A, a)
			}
			return t.expectValue(f.E, f.A, f.V, rounds)
		},
		plan: func(after *store.Fact, limit int) store.PlanQuery {
			return store.PlanQuery{Shape: store.PlanAttr, At: at, Attr: a, AfterFact: after, Limit: limit}
		},
	}
}

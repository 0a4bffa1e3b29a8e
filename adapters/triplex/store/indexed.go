package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// indexed is the flat layout: interned integer entity and attribute ids, one row per asserted
// version with the interval [tx_from, tx_to) it was current in, clustered on EAVT (SQLite WITHOUT
// ROWID; the primary key in PostgreSQL), covering partial indexes on the current facts (EAV, AEV,
// AVE), one history index (AEVT) for as-of attribute reads, and maintained (a, v) counts.
//
// Values are stored as (vt, vn, vs) with sentinels instead of NULLs (vn = 0 for strings, vs = ”
// for numbers) so that raw columns sort in Triplex's canonical value order and row-value keyset
// comparisons never meet a NULL.
type indexed struct {
	s *Store
	q indexedSQL
}

type indexedSQL struct {
	scan, pageAll, pageAllNext, asofAll, asofAllNext                string
	pageAttr, pageAttrNext, asofAttr, asofAttrNext                  string
	join, joinNext, joinTie, asofJoin, asofJoinNext, asofJoinTie    string
	groups, groupsNext, computed, computedNext, asofGroups, asofGrN string
	entity, asofEntity, byValue                                     string
}

func (x *indexed) ddl(bulk bool) []string {
	s := x.s
	var stmts []string
	if s.d.name == SQLite {
		stmts = []string{
			`CREATE TABLE {attr} (id INTEGER PRIMARY KEY, ident TEXT NOT NULL UNIQUE, value_kind INTEGER NOT NULL, counted INTEGER NOT NULL)`,
			`CREATE TABLE {entity} (id INTEGER PRIMARY KEY, ident TEXT NOT NULL UNIQUE)`,
			`CREATE TABLE {txlog} (id INTEGER PRIMARY KEY, recorded_at INTEGER NOT NULL)`,
			`CREATE TABLE {fact} (
  e INTEGER NOT NULL, a INTEGER NOT NULL, vt INTEGER NOT NULL,
  vn REAL NOT NULL DEFAULT 0, vs TEXT NOT NULL DEFAULT '',
  tx_from INTEGER NOT NULL, tx_to INTEGER NOT NULL DEFAULT ` + open + `,
  PRIMARY KEY (e, a, vt, vn, vs, tx_from)) WITHOUT ROWID`,
			`CREATE TABLE {av_count} (a INTEGER NOT NULL, vt INTEGER NOT NULL, vn REAL NOT NULL, vs TEXT NOT NULL,
  n INTEGER NOT NULL, PRIMARY KEY (a, vt, vn, vs)) WITHOUT ROWID`,
		}
	} else {
		stmts = []string{
			`CREATE TABLE {attr} (id integer PRIMARY KEY, ident text NOT NULL UNIQUE, value_kind smallint NOT NULL, counted boolean NOT NULL)`,
			`CREATE TABLE {entity} (id bigint PRIMARY KEY, ident text COLLATE "C" NOT NULL UNIQUE)`,
			`CREATE TABLE {txlog} (id bigint PRIMARY KEY, recorded_at bigint NOT NULL)`,
			`CREATE TABLE {fact} (
  e bigint NOT NULL, a integer NOT NULL, vt smallint NOT NULL,
  vn double precision NOT NULL DEFAULT 0, vs text COLLATE "C" NOT NULL DEFAULT '',
  tx_from bigint NOT NULL, tx_to bigint NOT NULL DEFAULT ` + open + `,
  PRIMARY KEY (e, a, vt, vn, vs, tx_from) INCLUDE (tx_to))`,
			`CREATE TABLE {av_count} (a integer NOT NULL, vt smallint NOT NULL, vn double precision NOT NULL,
  vs text COLLATE "C" NOT NULL, n bigint NOT NULL, PRIMARY KEY (a, vt, vn, vs))`,
		}
	}
	if !bulk {
		stmts = append(stmts, x.indexDDL()...)
	}
	for i := range stmts {
		stmts[i] = s.sqlTemplate(stmts[i], "attr", "entity", "txlog", "fact", "av_count")
	}
	return stmts
}

// indexDDL is the secondary indexes. SQLite only counts a partial index as covering when the column
// of its WHERE is also an index column, hence the trailing tx_to there. AVE keeps e descending so
// that a backward scan yields Triplex's join order (value descending, then entity ascending)
// without a sort; an equality on the value scans it forwards or backwards alike.
func (x *indexed) indexDDL() []string {
	s := x.s
	var stmts []string
	if s.d.name == SQLite {
		stmts = []string{
			`CREATE UNIQUE INDEX {fact}_cur_eav ON {fact} (e, a, vt, vn, vs, tx_to) WHERE tx_to = ` + open,
			`CREATE INDEX {fact}_cur_aev ON {fact} (a, e, vt, vn, vs, tx_to) WHERE tx_to = ` + open,
			`CREATE INDEX {fact}_cur_ave ON {fact} (a, vt, vn, vs, e DESC, tx_to) WHERE tx_to = ` + open,
			`CREATE INDEX {fact}_hist_aev ON {fact} (a, e, vt, vn, vs, tx_from, tx_to)`,
		}
	} else {
		stmts = []string{
			`CREATE UNIQUE INDEX {fact}_cur_eav ON {fact} (e, a, vt, vn, vs) WHERE tx_to = ` + open,
			`CREATE INDEX {fact}_cur_aev ON {fact} (a, e, vt, vn, vs) WHERE tx_to = ` + open,
			`CREATE INDEX {fact}_cur_ave ON {fact} (a, vt, vn, vs, e DESC) WHERE tx_to = ` + open,
			`CREATE INDEX {fact}_hist_aev ON {fact} (a, e, vt, vn, vs, tx_from) INCLUDE (tx_to)`,
		}
	}
	for i := range stmts {
		stmts[i] = s.sqlTemplate(stmts[i], "fact")
	}
	return stmts
}

func (x *indexed) create(ctx context.Context, bulk bool) error {
	s := x.s
	if err := s.exec(ctx, x.ddl(bulk)...); err != nil {
		return err
	}
	for i, a := range s.attrs {
		q := s.sqlTemplate(`INSERT INTO {attr} (id, ident, value_kind, counted) VALUES (?, ?, ?, ?)`, "attr")
		if _, err := s.cfg.DB.ExecContext(ctx, q, i+1, a.Ident, int(a.Kind), a.Counted); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	x.prepareSQL()
	return nil
}

// finishBulk builds the secondary indexes and the maintained counts. The counts are inserted in
// their key order: PostgreSQL's planner costs a walk of the count table's primary key by the
// correlation of heap and key order, and a GROUP BY guarantees no order: from a few hundred
// thousand facts on it wrote the rows out of key order, and the group page's generic plan became a
// seq scan and a top-N sort of every count row of the attribute (0.15-0.27 ms against 0.03 ms for
// the key walk).
func (x *indexed) finishBulk(ctx context.Context) error {
	s := x.s
	stmts := x.indexDDL()
	stmts = append(stmts, s.sqlTemplate(`INSERT INTO {av_count} (a, vt, vn, vs, n)
SELECT f.a, f.vt, f.vn, f.vs, count(*) FROM {fact} f JOIN {attr} t ON t.id = f.a AND t.counted
WHERE f.tx_to = `+open+` GROUP BY f.a, f.vt, f.vn, f.vs ORDER BY f.a, f.vt, f.vn, f.vs`, "fact", "attr", "av_count"))
	return s.exec(ctx, stmts...)
}

func (x *indexed) prepareSQL() {
	t := x.sqlTemplater()
	x.prepareFactSQL(t)
	x.prepareJoinSQL(t)
	x.prepareGroupSQL(t)
	x.prepareEntitySQL(t)
}

// Predicates on a fact's transactions: current (not retracted), and as of a transaction (two
// placeholders, both the transaction).
const (
	curPred  = "tx_to = " + open
	asofPred = "tx_from <= ? AND tx_to > ?"
)

// sqlTemplater returns the function that fills in a statement's table names and index hints.
func (x *indexed) sqlTemplater() func(q string) string {
	s := x.s
	// {eav}, {aev} and {ave} follow a current read's table: on SQLite they pin the current-facts
	// index. Its planner otherwise takes the primary key or the history index, equally covering
	// by its costing, whose ranges grow with the versions per key (history depth); PostgreSQL
	// prefers the smaller partial indexes by itself.
	hints := func(current bool) *strings.Replacer {
		var pairs []string
		for _, idx := range []string{"eav", "aev", "ave"} {
			h := ""
			if current && s.d.name == SQLite {
				h = " INDEXED BY " + s.table("fact_cur_"+idx)
			}
			pairs = append(pairs, "{"+idx+"}", h)
		}
		return strings.NewReplacer(pairs...)
	}
	curHints, asofHints := hints(true), hints(false)
	return func(q string) string {
		h := asofHints
		if strings.Contains(q, curPred) {
			h = curHints
		}
		return s.sqlTemplate(h.Replace(q), "fact", "entity", "av_count")
	}
}

// prepareFactSQL prepares the scan and the pages of facts: all of them, or one attribute's.
func (x *indexed) prepareFactSQL(t func(string) string) {
	cur, asof := curPred, asofPred
	q := &x.q
	q.scan = t(`SELECT e, a, vt, vn, vs FROM {fact}{eav} WHERE ` + cur + ` ORDER BY e, a, vt, vn, vs`)
	all := func(pred, next string) string {
		return t(`SELECT e, a, vt, vn, vs FROM {fact}{eav} WHERE ` + pred + next + ` ORDER BY e, a, vt, vn, vs`)
	}
	q.pageAll = all(cur, "")
	q.pageAllNext = all(cur, ` AND (e, a, vt, vn, vs) > (?, ?, ?, ?, ?)`)
	q.asofAll = all(asof, "")
	q.asofAllNext = all(asof, ` AND (e, a, vt, vn, vs) > (?, ?, ?, ?, ?)`)
	attr := func(pred, next string) string {
		return t(`SELECT e, vt, vn, vs FROM {fact}{aev} WHERE a = ? AND ` + pred + next + ` ORDER BY e, vt, vn, vs`)
	}
	q.pageAttr = attr(cur, "")
	q.pageAttrNext = attr(cur, ` AND (e, vt, vn, vs) > (?, ?, ?, ?)`)
	q.asofAttr = attr(asof, "")
	q.asofAttrNext = attr(asof, ` AND (e, vt, vn, vs) > (?, ?, ?, ?)`)
}

// prepareJoinSQL prepares the pages of the join.
func (x *indexed) prepareJoinSQL(t func(string) string) {
	cur, asof := curPred, asofPred
	q := &x.q
	// Drive backwards over AVE of the ordering attribute from the range bound and probe EAV of the
	// joined attribute once per row. The order is Triplex's (score descending, then the projected
	// ?e and ?name ascending; ?name is cardinality one, so ?e alone breaks every tie). A mixed-
	// direction order has no single row-value cursor, so a later page is two index seeks: the rest
	// of the cursor's score (joinTie: e > cursor, ascending), then the lower scores (joinNext).
	join := func(pred, next string) string {
		sp := strings.ReplaceAll(pred, "tx_", "s.tx_")
		wp := strings.ReplaceAll(pred, "tx_", "w.tx_")
		return t(`SELECT s.e, s.vn, w.vt, w.vn, w.vs FROM {fact} s{ave}
JOIN {fact} w{eav} ON w.e = s.e AND w.a = ? AND ` + wp + `
WHERE s.a = ? AND ` + sp + ` AND s.vt = 0 AND s.vn >= ?` + next + `
ORDER BY s.vn DESC, s.vs DESC, s.e`)
	}
	q.join = join(cur, "")
	q.joinNext = join(cur, ` AND (s.vn, s.vs) < (?, ?)`)
	q.joinTie = join(cur, ` AND s.vn = ? AND s.vs = ? AND s.e > ?`)
	q.asofJoin = join(asof, "")
	q.asofJoinNext = join(asof, ` AND (s.vn, s.vs) < (?, ?)`)
	q.asofJoinTie = join(asof, ` AND s.vn = ? AND s.vs = ? AND s.e > ?`)
}

// prepareGroupSQL prepares the pages of group counts: maintained, computed, and as of a transaction.
func (x *indexed) prepareGroupSQL(t func(string) string) {
	cur, asof := curPred, asofPred
	q := &x.q
	q.groups = t(`SELECT vt, vn, vs, n FROM {av_count} WHERE a = ? ORDER BY vt, vn, vs`)
	q.groupsNext = t(`SELECT vt, vn, vs, n FROM {av_count} WHERE a = ? AND (vt, vn, vs) > (?, ?, ?) ORDER BY vt, vn, vs`)
	grp := func(pred, next string) string {
		return t(`SELECT vt, vn, vs, count(*) FROM {fact}{ave} WHERE a = ? AND ` + pred + next + ` GROUP BY vt, vn, vs ORDER BY vt, vn, vs`)
	}
	q.computed = grp(cur, "")
	q.computedNext = grp(cur, ` AND (vt, vn, vs) > (?, ?, ?)`)
	q.asofGroups = grp(asof, "")
	q.asofGrN = grp(asof, ` AND (vt, vn, vs) > (?, ?, ?)`)
}

// prepareEntitySQL prepares the reads of one entity: by its ident, now or as of a transaction, and
// by the value of an attribute.
func (x *indexed) prepareEntitySQL(t func(string) string) {
	cur := curPred
	q := &x.q
	// The entity id comes from a scalar subquery, so the fact read is a plain range of the EAV index
	// in (a, v) order: no join, no sort.
	q.entity = t(`SELECT e, a, vt, vn, vs FROM {fact}{eav}
WHERE e = (SELECT id FROM {entity} WHERE ident = ?) AND ` + cur + ` ORDER BY a, vt, vn, vs`)
	q.asofEntity = t(`SELECT e, a, vt, vn, vs FROM {fact}
WHERE e = (SELECT id FROM {entity} WHERE ident = ?) AND tx_from <= ? AND tx_to > ? ORDER BY a, vt, vn, vs`)
	q.byValue = t(`SELECT f.e, f.a, f.vt, f.vn, f.vs FROM {fact} k{ave}
JOIN {fact} f{eav} ON f.e = k.e AND f.` + cur + `
WHERE k.a = ? AND k.vt = ? AND k.vn = ? AND k.vs = ? AND k.` + cur + `
ORDER BY f.e, f.a, f.vt, f.vn, f.vs`)
}

// withLimit appends a page's LIMIT as a literal. With a bound LIMIT, PostgreSQL's plan cache
// costs the generic plan for an unknown limit (a tenth of the rows), finds it dearer than the
// custom plans once the table is large, and so re-plans every execution: planning time that grows
// with the table, not the page (0.87 ms against 0.53 ms per join page at 300k facts).
func withLimit(q string, limit int) string { return q + " LIMIT " + strconv.Itoa(limit) }

// row holds the scan targets of one fact row, reused across rows.
type indexedRow struct {
	e, a, vt int64
	vn       float64
	vs       sql.RawBytes
}

func (r *indexedRow) value() Value { return Value{Kind: Kind(r.vt), Num: r.vn, Str: r.vs} }

func (x *indexed) facts(ctx context.Context, q string, args []any, withA bool, a int, fn func(Fact) error) error {
	var r indexedRow
	return x.s.query(ctx, q, args, func(rows *sql.Rows) error {
		var err error
		if withA {
			err = rows.Scan(&r.e, &r.a, &r.vt, &r.vn, &r.vs)
		} else {
			err = rows.Scan(&r.e, &r.vt, &r.vn, &r.vs)
			r.a = int64(a + 1)
		}
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		return fn(Fact{E: r.e, A: int(r.a - 1), V: r.value()})
	})
}

func valueArgs(v Value) []any { return []any{int64(v.Kind), v.Num, string(v.Str)} }

func (x *indexed) scanCurrent(ctx context.Context, limit int, fn func(Fact) error) error {
	return x.facts(ctx, withLimit(x.q.scan, limit), nil, true, 0, fn)
}

func (x *indexed) pageAll(ctx context.Context, at int64, after *Fact, limit int, fn func(Fact) error) error {
	q, args := x.allSQL(at, after, limit)
	return x.facts(ctx, q, args, true, 0, fn)
}

func (x *indexed) allSQL(at int64, after *Fact, limit int) (string, []any) {
	t, cur := x.s.current(at)
	var args []any
	q := x.q.pageAll
	switch {
	case cur && after != nil:
		q = x.q.pageAllNext
	case !cur && after == nil:
		q, args = x.q.asofAll, []any{t, t}
	case !cur:
		q, args = x.q.asofAllNext, []any{t, t}
	}
	if after != nil {
		args = append(args, after.E, int64(after.A+1))
		args = append(args, valueArgs(after.V)...)
	}
	return withLimit(q, limit), args
}

func (x *indexed) pageAttr(ctx context.Context, at int64, a int, after *Fact, limit int, fn func(Fact) error) error {
	q, args := x.attrSQL(at, a, after, limit)
	return x.facts(ctx, q, args, false, a, fn)
}

func (x *indexed) attrSQL(at int64, a int, after *Fact, limit int) (string, []any) {
	t, cur := x.s.current(at)
	args := []any{a + 1}
	q := x.q.pageAttr
	switch {
	case cur && after != nil:
		q = x.q.pageAttrNext
	case !cur && after == nil:
		q, args = x.q.asofAttr, append(args, t, t)
	case !cur:
		q, args = x.q.asofAttrNext, append(args, t, t)
	}
	if after != nil {
		args = append(args, after.E)
		args = append(args, valueArgs(after.V)...)
	}
	return withLimit(q, limit), args
}

func (x *indexed) pageJoin(ctx context.Context, at int64, j Join, after *JoinRow, limit int, fn func(JoinRow) error) error {
	var r indexedRow
	var score float64
	n := 0
	read := func(rows *sql.Rows) error {
		if err := rows.Scan(&r.e, &score, &r.vt, &r.vn, &r.vs); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		n++
		return fn(JoinRow{E: r.e, Order: NumberValue(score), With: r.value()})
	}
	if after != nil {
		q, args := x.joinTieSQL(at, j, after, limit)
		if err := x.s.query(ctx, q, args, read); err != nil || n >= limit {
			return err
		}
	}
	q, args := x.joinSQL(at, j, after, limit-n)
	return x.s.query(ctx, q, args, read)
}

func (x *indexed) joinArgs(at int64, j Join) (q, next, tie string, args []any) {
	t, cur := x.s.current(at)
	if cur {
		return x.q.join, x.q.joinNext, x.q.joinTie, []any{j.With + 1, j.Order + 1, j.Min}
	}
	return x.q.asofJoin, x.q.asofJoinNext, x.q.asofJoinTie, []any{j.With + 1, t, t, j.Order + 1, t, t, j.Min}
}

// joinSQL is the first page, or after a cursor the rows of lower scores.
func (x *indexed) joinSQL(at int64, j Join, after *JoinRow, limit int) (string, []any) {
	q, next, _, args := x.joinArgs(at, j)
	if after != nil {
		q = next
		args = append(args, after.Order.Num, "")
	}
	return withLimit(q, limit), args
}

// joinTieSQL is the rest of the cursor's score, entities after the cursor's.
func (x *indexed) joinTieSQL(at int64, j Join, after *JoinRow, limit int) (string, []any) {
	_, _, tie, args := x.joinArgs(at, j)
	return withLimit(tie, limit), append(args, after.Order.Num, "", after.E)
}

func (x *indexed) groups(ctx context.Context, at int64, a int, computed bool, after *Value, limit int, fn func(Group) error) error {
	q, args := x.groupsSQL(at, a, computed, after, limit)
	var r indexedRow
	var n int64
	return x.s.query(ctx, q, args, func(rows *sql.Rows) error {
		if err := rows.Scan(&r.vt, &r.vn, &r.vs, &n); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		return fn(Group{V: r.value(), N: n})
	})
}

func (x *indexed) groupsSQL(at int64, a int, computed bool, after *Value, limit int) (string, []any) {
	t, cur := x.s.current(at)
	args := []any{a + 1}
	var q string
	switch {
	case cur && !computed && x.s.attrs[a].Counted:
		q = x.q.groups
		if after != nil {
			q = x.q.groupsNext
		}
	case cur:
		q = x.q.computed
		if after != nil {
			q = x.q.computedNext
		}
	default:
		q, args = x.q.asofGroups, append(args, t, t)
		if after != nil {
			q = x.q.asofGrN
		}
	}
	if after != nil {
		args = append(args, valueArgs(*after)...)
	}
	return withLimit(q, limit), args
}

func (x *indexed) entity(ctx context.Context, at int64, ident string, fn func(Fact) error) error {
	q, args := x.entitySQL(at, ident)
	return x.facts(ctx, q, args, true, 0, fn)
}

func (x *indexed) entitySQL(at int64, ident string) (string, []any) {
	t, cur := x.s.current(at)
	if cur {
		return x.q.entity, []any{ident}
	}
	return x.q.asofEntity, []any{ident, t, t}
}

func (x *indexed) entityByValue(ctx context.Context, a int, v Value, fn func(Fact) error) error {
	return x.facts(ctx, x.q.byValue, append([]any{a + 1}, valueArgs(v)...), true, 0, fn)
}

func (x *indexed) sqlFor(p PlanQuery) (string, []any, error) {
	switch p.Shape {
	case PlanAll:
		return planSQL(x.allSQL(p.At, p.AfterFact, p.Limit))
	case PlanAttr:
		return planSQL(x.attrSQL(p.At, p.Attr, p.AfterFact, p.Limit))
	case PlanJoin:
		return planSQL(x.joinSQL(p.At, p.Join, p.AfterJoin, p.Limit))
	case PlanJoinTie:
		if p.AfterJoin == nil {
			return "", nil, fmt.Errorf("store: plan %q needs a cursor", p.Shape)
		}
		return planSQL(x.joinTieSQL(p.At, p.Join, p.AfterJoin, p.Limit))
	case PlanGroups:
		return planSQL(x.groupsSQL(p.At, p.Attr, p.Computed, p.AfterValue, p.Limit))
	case PlanEntity:
		return planSQL(x.entitySQL(p.At, p.Ident))
	case PlanByValue:
		return x.q.byValue, append([]any{p.Attr + 1}, valueArgs(p.Value)...), nil
	case PlanScan:
		return withLimit(x.q.scan, p.Limit), nil, nil
	}
	return "", nil, fmt.Errorf("store: no plan for shape %q", p.Shape)
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// triplex reconstructs Triplex's SQL layout and the SQL shape its Datalog compiler generates, from
// its public source and docs (see the adapter's README.md). It is a same-machine baseline,
// not Triplex itself. What it keeps:
//
//   - one wide table "triples" with a TEXT primary key ("<entity>:<attribute>"), TEXT entity ids and
//     attribute names, one value column per kind, recorded and valid time, and thirteen secondary
//     indexes, most of them partial on "retracted_at IS NULL";
//   - every Datalog read pins a snapshot: each pattern's "retracted_at IS NULL" becomes ranges on
//     recorded position, recorded time and valid time, so the partial indexes do not apply;
//   - each value variable is projected as computed columns (category, numeric and text sort keys,
//     type and raw columns) under SELECT DISTINCT in a CTE, and the outer query orders by those
//     computed columns, with keyset continuation as an OR-expansion over the sort components.
//
// It omits Triplex's side tables (entity snapshots and blobs, command receipts), so its writes are
// if anything cheaper than Triplex's. Page order is Triplex's: the query's explicit keys, then every
// projected variable not already ordered, ascending (its normalizePaginationOrder), so ties are
// never left open.
type triplex struct {
	s *Store
}

const triplexCols = `id, entity_id, attribute, value_type, value_string, value_number, value_boolean,
recorded_at, recorded_position, tx_id, valid_from, entity_type, created_by, schema_version`

// msPerTx maps transaction positions to the recorded/valid time columns (epoch ms in Triplex).
const msPerTx = 1000

func (x *triplex) create(ctx context.Context, _ bool) error {
	s := x.s
	var stmts []string
	text, num, boolean, ts := "TEXT", "REAL", "INTEGER", "INTEGER"
	if s.d.name == Postgres {
		text, num, boolean, ts = `text COLLATE "C"`, "double precision", "boolean", "bigint"
	}
	stmts = append(stmts,
		`CREATE TABLE {triples} (
  id `+text+` PRIMARY KEY,
  entity_id `+text+` NOT NULL,
  attribute `+text+` NOT NULL,
  value_type `+text+` NOT NULL,
  value_string `+text+`,
  value_number `+num+`,
  value_boolean `+boolean+`,
  value_datetime `+ts+`,
  value_json `+text+`,
  recorded_at `+ts+` NOT NULL,
  recorded_position `+ts+` NOT NULL,
  retracted_at `+ts+`,
  retracted_position `+ts+`,
  tx_id `+text+`,
  retract_tx_id `+text+`,
  valid_from `+ts+` NOT NULL,
  valid_to `+ts+`,
  entity_type `+text+`,
  created_by `+text+`,
  schema_version `+ts+`)`,
		`CREATE TABLE {commit_position} (id integer PRIMARY KEY, position `+ts+` NOT NULL)`,
		`INSERT INTO {commit_position} (id, position) VALUES (1, 0)`,
		`CREATE INDEX {triples}_entity ON {triples} (entity_id) WHERE retracted_at IS NULL`,
		`CREATE INDEX {triples}_attribute ON {triples} (attribute) WHERE retracted_at IS NULL`,
		`CREATE INDEX {triples}_attr_valid ON {triples} (attribute, valid_from, valid_to) WHERE retracted_at IS NULL`,
		`CREATE INDEX {triples}_entity_type ON {triples} (entity_type) WHERE retracted_at IS NULL`,
		`CREATE INDEX {triples}_entity_attr ON {triples} (entity_id, attribute) WHERE retracted_at IS NULL`,
		`CREATE INDEX {triples}_tx ON {triples} (tx_id)`,
		`CREATE INDEX {triples}_string ON {triples} (attribute, value_string) WHERE retracted_at IS NULL AND value_type = 'string'`,
		`CREATE INDEX {triples}_number ON {triples} (attribute, value_number) WHERE retracted_at IS NULL AND value_type = 'number'`,
		`CREATE INDEX {triples}_ref ON {triples} (attribute, value_string, entity_id) WHERE retracted_at IS NULL AND value_type = 'ref'`,
		`CREATE INDEX {triples}_attr_hist ON {triples} (attribute, recorded_position, retracted_position)`,
		`CREATE INDEX {triples}_entity_hist ON {triples} (entity_id, recorded_at, retracted_at, valid_from, valid_to)`,
		`CREATE INDEX {triples}_position ON {triples} (recorded_position, retracted_position)`,
		`CREATE INDEX {triples}_order_number ON {triples} (attribute, (COALESCE(value_number, value_datetime)))`,
	)
	for i := range stmts {
		stmts[i] = s.sqlTemplate(stmts[i], "triples", "commit_position")
	}
	return s.exec(ctx, stmts...)
}

func (x *triplex) finishBulk(context.Context) error { return nil } // Triplex seeds with indexes live

// snapshot is the predicate a pinned read puts in place of "alias.retracted_at IS NULL": the
// snapshot's position and time written into the SQL as literals, as Triplex's compiler does (bound
// parameters would let PostgreSQL switch to a generic plan after five executions, a cost Triplex
// does not pay).
func snapshot(alias string, pos int64) string {
	p, t := strconv.FormatInt(pos, 10), strconv.FormatInt(pos*msPerTx, 10)
	return strings.NewReplacer("t.", alias+".", "{p}", p, "{t}", t).Replace(
		`t.recorded_position <= {p} AND (t.retracted_position IS NULL OR t.retracted_position > {p})` +
			` AND t.recorded_at <= {t} AND (t.retracted_at IS NULL OR t.retracted_at > {t})` +
			` AND t.valid_from <= {t} AND (t.valid_to IS NULL OR t.valid_to > {t})`)
}

// valueColumns projects a value variable the way Triplex's compiler does: sort keys computed from
// the typed columns, plus the raw columns for decoding.
func valueColumns(alias, v string) string {
	r := strings.NewReplacer("t.", alias+".", "?v", v)
	return r.Replace(`CASE t.value_type WHEN 'number' THEN 0 WHEN 'datetime' THEN 0 WHEN 'boolean' THEN 1 ELSE 2 END AS "?v_category",
COALESCE(t.value_number, t.value_datetime) AS "?v_order_number",
CASE WHEN t.value_type IN ('string', 'ref') THEN t.value_string ELSE t.value_json END AS "?v_order_text",
t.value_type AS "?v_type", t.value_string AS "?v_string", t.value_number AS "?v_number", t.value_boolean AS "?v_boolean"`)
}

// valueOutput lists the outer columns of a value variable (what the decoder reads).
func valueOutput(v string) string {
	return strings.ReplaceAll(`"?v_type", "?v_string", "?v_number", "?v_boolean", "?v_category", "?v_order_number", "?v_order_text"`, "?v", v)
}

// component is one sort key of the outer ORDER BY and keyset clause.
type component struct {
	expr string
	desc bool
	val  any // cursor value; nil: the row's component is NULL
}

func varComponents(name string, desc bool, val any) []component {
	var isNull any
	if val != nil {
		isNull = 0
	} else {
		isNull = 1
	}
	return []component{
		{expr: `CASE WHEN "` + name + `" IS NULL THEN 1 ELSE 0 END`, val: isNull},
		{expr: `"` + name + `"`, desc: desc, val: val},
	}
}

func valueComponents(name string, desc bool, v *Value) []component {
	c := []component{
		{expr: `"` + name + `_category"`},
		{expr: `"` + name + `_order_number"`, desc: desc},
		{expr: `"` + name + `_boolean"`, desc: desc},
		{expr: `"` + name + `_order_text"`, desc: desc},
	}
	if v != nil {
		c[0].val = int64(v.Kind)
		switch v.Kind {
		case Number:
			c[1].val = v.Num
		case Bool:
			c[2].val = v.Num != 0
		default:
			c[3].val = string(v.Str)
		}
	}
	return c
}

func orderBy(cs []component) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		dir := " ASC"
		if c.desc {
			dir = " DESC"
		}
		parts[i] = c.expr + dir
	}
	return "ORDER BY " + strings.Join(parts, ", ")
}

// keyset builds Triplex's OR-expansion: (c0 > v0) OR (c0 = v0 AND c1 > v1) OR ..., skipping the
// branches of NULL components and comparing earlier NULL components with IS NULL.
func keyset(cs []component, boolAsInt bool) (string, []any) {
	var branches []string
	var args []any
	arg := func(v any) any {
		if b, ok := v.(bool); ok && boolAsInt {
			if b {
				return int64(1)
			}
			return int64(0)
		}
		return v
	}
	for i, c := range cs {
		if c.val == nil {
			continue
		}
		var parts []string
		for _, p := range cs[:i] {
			if p.val == nil {
				parts = append(parts, p.expr+" IS NULL")
				continue
			}
			parts = append(parts, p.expr+" = ?")
			args = append(args, arg(p.val))
		}
		op := " > ?"
		if c.desc {
			op = " < ?"
		}
		parts = append(parts, c.expr+op)
		args = append(args, arg(c.val))
		branches = append(branches, "("+strings.Join(parts, " AND ")+")")
	}
	if len(branches) == 0 {
		return "0 = 1", nil
	}
	return "(" + strings.Join(branches, " OR ") + ")", args
}

// wrapped assembles the CTE query: inner SQL, outer columns, keyset, order, limit.
func (x *triplex) wrapped(inner string, innerArgs []any, cols string, cs []component, after bool, limit int) (string, []any) {
	q := "WITH inner_results AS (\n" + inner + "\n)\nSELECT " + cols + "\nFROM inner_results"
	args := append([]any(nil), innerArgs...)
	if after {
		k, kargs := keyset(cs, x.s.d.name == SQLite)
		q += "\nWHERE " + k
		args = append(args, kargs...)
	}
	q += "\n" + orderBy(cs) + "\nLIMIT " + strconv.Itoa(limit) // a literal, as Triplex writes it
	return x.s.sqlTemplate(q, "triples"), args
}

// triplexRow decodes the raw value columns.
type triplexRow struct {
	typ     sql.RawBytes
	str     sql.RawBytes
	num     sql.NullFloat64
	boolean sql.NullBool
	skip    [3]sql.RawBytes // sort keys, read but unused
}

func (r *triplexRow) dest() []any {
	return []any{&r.typ, &r.str, &r.num, &r.boolean, &r.skip[0], &r.skip[1], &r.skip[2]}
}

func (r *triplexRow) value() (Value, error) {
	switch string(r.typ) {
	case "number":
		return Value{Kind: Number, Num: r.num.Float64}, nil
	case "string":
		return Value{Kind: String, Str: r.str}, nil
	case "boolean":
		v := Value{Kind: Bool}
		if r.boolean.Bool {
			v.Num = 1
		}
		return v, nil
	}
	return Value{}, fmt.Errorf("store: unsupported value type %q", r.typ)
}

func kindName(k Kind) string { return k.String() }

func (x *triplex) attrOf(name []byte) (int, error) {
	a, ok := x.s.byName[string(name)]
	if !ok {
		return 0, fmt.Errorf("store: unknown attribute %q", name)
	}
	return a, nil
}

func (x *triplex) allSQL(at int64, after *Fact, limit int) (string, []any) {
	pos, _ := x.s.current(at)
	inner := `SELECT DISTINCT t0.entity_id AS "?e", t0.attribute AS "?a", ` + valueColumns("t0", "?v") +
		"\nFROM {triples} t0 WHERE " + snapshot("t0", pos)
	var e, a any
	var v *Value
	if after != nil {
		e, a, v = x.s.Ident(after.E), x.s.attrs[after.A].Ident, &after.V
	}
	cs := append(varComponents("?e", false, e), varComponents("?a", false, a)...)
	cs = append(cs, valueComponents("?v", false, v)...)
	return x.wrapped(inner, nil, `"?e", "?a", `+valueOutput("?v"), cs, after != nil, limit)
}

func (x *triplex) pageAll(ctx context.Context, at int64, after *Fact, limit int, fn func(Fact) error) error {
	q, args := x.allSQL(at, after, limit)
	var ent, attr sql.RawBytes
	var r triplexRow
	dest := append([]any{&ent, &attr}, r.dest()...)
	return x.s.query(ctx, q, args, func(rows *sql.Rows) error {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		return x.emit(ent, attr, -1, &r, fn)
	})
}

func (x *triplex) emit(ent, attr sql.RawBytes, a int, r *triplexRow, fn func(Fact) error) error {
	e, err := x.s.entityOf(ent)
	if err != nil {
		return err
	}
	if a < 0 {
		if a, err = x.attrOf(attr); err != nil {
			return err
		}
	}
	v, err := r.value()
	if err != nil {
		return err
	}
	return fn(Fact{E: e, A: a, V: v})
}

func (x *triplex) attrSQL(at int64, a int, after *Fact, limit int) (string, []any) {
	pos, _ := x.s.current(at)
	inner := `SELECT DISTINCT t0.entity_id AS "?e", ` + valueColumns("t0", "?v") +
		"\nFROM {triples} t0 WHERE t0.attribute = ? AND " + snapshot("t0", pos)
	var e any
	var v *Value
	if after != nil {
		e, v = x.s.Ident(after.E), &after.V
	}
	cs := append(varComponents("?e", false, e), valueComponents("?v", false, v)...)
	args := []any{x.s.attrs[a].Ident}
	return x.wrapped(inner, args, `"?e", `+valueOutput("?v"), cs, after != nil, limit)
}

func (x *triplex) pageAttr(ctx context.Context, at int64, a int, after *Fact, limit int, fn func(Fact) error) error {
	q, args := x.attrSQL(at, a, after, limit)
	var ent sql.RawBytes
	var r triplexRow
	dest := append([]any{&ent}, r.dest()...)
	return x.s.query(ctx, q, args, func(rows *sql.Rows) error {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		return x.emit(ent, nil, a, &r, fn)
	})
}

func (x *triplex) joinSQL(at int64, j Join, after *JoinRow, limit int) (string, []any) {
	pos, _ := x.s.current(at)
	inner := `SELECT DISTINCT t0.entity_id AS "?e", ` + valueColumns("t0", "?w") + ",\n" + valueColumns("t1", "?o") +
		"\nFROM {triples} t0 JOIN {triples} t1 ON t1.entity_id = t0.entity_id" +
		"\nWHERE t0.attribute = ? AND " + snapshot("t0", pos) +
		"\nAND t1.attribute = ? AND " + snapshot("t1", pos) +
		"\nAND (t1.value_type IN ('number', 'datetime') AND COALESCE(t1.value_number, t1.value_datetime) >= ?)"
	args := []any{x.s.attrs[j.With].Ident, x.s.attrs[j.Order].Ident, j.Min}
	var e any
	var o, w *Value
	if after != nil {
		e, o, w = x.s.Ident(after.E), &after.Order, &after.With
	}
	// Triplex completes the order before paging: the explicit key (score descending), then every
	// projected variable not yet ordered, ascending (?e, then ?name).
	cs := append(valueComponents("?o", true, o), varComponents("?e", false, e)...)
	cs = append(cs, valueComponents("?w", false, w)...)
	return x.wrapped(inner, args, `"?e", `+valueOutput("?o")+", "+valueOutput("?w"), cs, after != nil, limit)
}

func (x *triplex) pageJoin(ctx context.Context, at int64, j Join, after *JoinRow, limit int, fn func(JoinRow) error) error {
	q, args := x.joinSQL(at, j, after, limit)
	var ent sql.RawBytes
	var o, w triplexRow
	dest := append(append([]any{&ent}, o.dest()...), w.dest()...)
	return x.s.query(ctx, q, args, func(rows *sql.Rows) error {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		e, err := x.s.entityOf(ent)
		if err != nil {
			return err
		}
		ov, err := o.value()
		if err != nil {
			return err
		}
		wv, err := w.value()
		if err != nil {
			return err
		}
		return fn(JoinRow{E: e, Order: ov, With: wv})
	})
}

func (x *triplex) groupsSQL(at int64, a int, after *Value, limit int) (string, []any) {
	pos, _ := x.s.current(at)
	keys := `CASE t0.value_type WHEN 'number' THEN 0 WHEN 'datetime' THEN 0 WHEN 'boolean' THEN 1 ELSE 2 END,
COALESCE(t0.value_number, t0.value_datetime),
CASE WHEN t0.value_type IN ('string', 'ref') THEN t0.value_string ELSE t0.value_json END,
t0.value_type, t0.value_string, t0.value_number, t0.value_boolean`
	inner := `SELECT ` + valueColumns("t0", "?g") + `, COUNT(DISTINCT t0.entity_id) AS "?count"` +
		"\nFROM {triples} t0 WHERE t0.attribute = ? AND " + snapshot("t0", pos) + "\nGROUP BY " + keys
	args := []any{x.s.attrs[a].Ident}
	cs := valueComponents("?g", false, after)
	return x.wrapped(inner, args, valueOutput("?g")+`, "?count"`, cs, after != nil, limit)
}

func (x *triplex) groups(ctx context.Context, at int64, a int, _ bool, after *Value, limit int, fn func(Group) error) error {
	q, args := x.groupsSQL(at, a, after, limit)
	var r triplexRow
	var n int64
	dest := append(r.dest(), &n)
	return x.s.query(ctx, q, args, func(rows *sql.Rows) error {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		v, err := r.value()
		if err != nil {
			return err
		}
		return fn(Group{V: v, N: n})
	})
}

// The entity reads are Triplex's non-Datalog API (entity(id), match, entities): plain SQL on the
// partial indexes, complete results, no snapshot rewrite.
const triplexFactCols = `t.entity_id, t.attribute, t.value_type, t.value_string, t.value_number, t.value_boolean`

const triplexValueOrder = `CASE t.value_type WHEN 'number' THEN 0 WHEN 'datetime' THEN 0 WHEN 'boolean' THEN 1 ELSE 2 END,
COALESCE(t.value_number, t.value_datetime), t.value_string`

func (x *triplex) entitySQL(at int64, ident string) (string, []any) {
	pos, cur := x.s.current(at)
	if cur {
		return x.s.sqlTemplate(`SELECT `+triplexFactCols+` FROM {triples} t
WHERE t.entity_id = ? AND t.retracted_at IS NULL ORDER BY t.attribute, `+triplexValueOrder, "triples"), []any{ident}
	}
	return x.s.sqlTemplate(`SELECT `+triplexFactCols+` FROM {triples} t
WHERE t.entity_id = ? AND t.recorded_position <= ? AND (t.retracted_position IS NULL OR t.retracted_position > ?)
ORDER BY t.attribute, `+triplexValueOrder, "triples"), []any{ident, pos, pos}
}

func (x *triplex) plainFacts(ctx context.Context, q string, args []any, fn func(Fact) error) error {
	var ent, attr sql.RawBytes
	var r triplexRow
	dest := []any{&ent, &attr, &r.typ, &r.str, &r.num, &r.boolean}
	return x.s.query(ctx, q, args, func(rows *sql.Rows) error {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		return x.emit(ent, attr, -1, &r, fn)
	})
}

func (x *triplex) entity(ctx context.Context, at int64, ident string, fn func(Fact) error) error {
	q, args := x.entitySQL(at, ident)
	return x.plainFacts(ctx, q, args, fn)
}

func (x *triplex) byValueSQL(a int, v Value) (string, []any) {
	col, arg := "value_string", any(string(v.Str))
	switch v.Kind {
	case Number:
		col, arg = "value_number", v.Num
	case Bool:
		col, arg = "value_boolean", v.Num != 0
	}
	return x.s.sqlTemplate(`SELECT `+triplexFactCols+` FROM {triples} k
JOIN {triples} t ON t.entity_id = k.entity_id AND t.retracted_at IS NULL
WHERE k.attribute = ? AND k.value_type = ? AND k.`+col+` = ? AND k.retracted_at IS NULL
ORDER BY t.entity_id, t.attribute, `+triplexValueOrder, "triples"), []any{x.s.attrs[a].Ident, kindName(v.Kind), arg}
}

func (x *triplex) entityByValue(ctx context.Context, a int, v Value, fn func(Fact) error) error {
	q, args := x.byValueSQL(a, v)
	return x.plainFacts(ctx, q, args, fn)
}

func (x *triplex) scanSQL(limit int) (string, []any) {
	return x.s.sqlTemplate(`SELECT `+triplexFactCols+` FROM {triples} t
WHERE t.retracted_at IS NULL ORDER BY t.entity_id, t.attribute LIMIT `+strconv.Itoa(limit), "triples"), nil
}

func (x *triplex) scanCurrent(ctx context.Context, limit int, fn func(Fact) error) error {
	q, args := x.scanSQL(limit)
	return x.plainFacts(ctx, q, args, fn)
}

func (x *triplex) sqlFor(p PlanQuery) (string, []any, error) {
	switch p.Shape {
	case PlanAll:
		return planSQL(x.allSQL(p.At, p.AfterFact, p.Limit))
	case PlanAttr:
		return planSQL(x.attrSQL(p.At, p.Attr, p.AfterFact, p.Limit))
	case PlanJoin, PlanJoinTie: // one statement pages the join here
		return planSQL(x.joinSQL(p.At, p.Join, p.AfterJoin, p.Limit))
	case PlanGroups:
		return planSQL(x.groupsSQL(p.At, p.Attr, p.AfterValue, p.Limit))
	case PlanEntity:
		return planSQL(x.entitySQL(p.At, p.Ident))
	case PlanByValue:
		return planSQL(x.byValueSQL(p.Attr, p.Value))
	case PlanScan:
		return planSQL(x.scanSQL(p.Limit))
	}
	return "", nil, fmt.Errorf("store: no plan for shape %q", p.Shape)
}

// triplexWriter inserts Triplex rows (multi-row INSERTs, as Triplex's seeding does) and retracts by
// filling the retracted_* columns of the current row.
type triplexWriter struct {
	x       *triplex
	tx      *sqlWriteTx
	id      int64
	rows    *batch
	retract retractions[string] // entity ids
	plain   bool
}

func (x *triplex) newWriter(ctx context.Context, id int64, _ bool) (writerEngine, error) {
	s := x.s
	tx, err := s.cfg.DB.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: begin: %w", err)
	}
	if _, err := tx.ExecContext(ctx, s.sqlTemplate(`UPDATE {commit_position} SET position = ? WHERE id = 1`, "commit_position"), id); err != nil {
		_ = tx.Rollback()
		return nil, fmt.Errorf("store: commit position: %w", err)
	}
	rows := newBatch(tx, s.d, "INSERT INTO "+s.table("triples")+" ("+triplexCols+") VALUES ", "", 14)
	return &triplexWriter{
		x: x, tx: &sqlWriteTx{tx: tx, batches: []*batch{rows}}, id: id,
		rows:    rows,
		retract: newRetractions[string](),
	}, nil
}

func (w *triplexWriter) newEntity(context.Context, int64, string) error { return nil }

func (w *triplexWriter) add(e int64, a int, v Value) {
	ent := w.x.s.Ident(e)
	attr := w.x.s.attrs[a].Ident
	id := ent + ":" + attr
	if w.id > 1 {
		id += ":" + strconv.FormatInt(w.id, 10)
	}
	var str, num, boolean any
	switch v.Kind {
	case Number:
		num = v.Num
	case Bool:
		boolean = v.Num != 0
	default:
		str = string(v.Str)
	}
	t := w.id * msPerTx
	w.rows.add(id, ent, attr, kindName(v.Kind), str, num, boolean,
		t, w.id, "tx:"+strconv.FormatInt(w.id, 10), t, nil, nil, 1)
}

func (w *triplexWriter) assert(ctx context.Context, e int64, a int, v Value) error {
	if len(w.retract.keys) > 0 {
		if err := w.flushRetractions(ctx); err != nil {
			return err
		}
	}
	w.plain = true
	w.add(e, a, v)
	if w.rows.full() {
		return w.flush(ctx)
	}
	return nil
}

func (w *triplexWriter) replace(ctx context.Context, e int64, a int, v Value) error {
	ent := w.x.s.Ident(e)
	if w.plain || w.retract.has(a, ent) {
		if err := w.flush(ctx); err != nil {
			return err
		}
	}
	full := w.retract.add(a, ent)
	w.add(e, a, v)
	if w.rows.full() || full {
		return w.flush(ctx) // retractions first, then the new versions
	}
	return nil
}

func (w *triplexWriter) flushRetractions(ctx context.Context) error {
	s := w.x.s
	for a, ents := range w.retract.keys {
		q := s.d.rebind("UPDATE " + s.table("triples") + " SET retracted_at = ?, retracted_position = ?, retract_tx_id = ?" +
			" WHERE attribute = ? AND retracted_at IS NULL AND entity_id IN (" + inList(len(ents)) + ")")
		args := []any{w.id * msPerTx, w.id, "tx:" + strconv.FormatInt(w.id, 10), s.attrs[a].Ident}
		for _, e := range ents {
			args = append(args, e)
		}
		if _, err := w.tx.tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("store: retract: %w", err)
		}
		w.retract.done(a)
	}
	return nil
}

func (w *triplexWriter) flush(ctx context.Context) error {
	if err := w.flushRetractions(ctx); err != nil {
		return err
	}
	if err := w.rows.flush(ctx); err != nil {
		return err
	}
	w.plain = false
	return nil
}

func (w *triplexWriter) commit(context.Context) error { return w.tx.commit() }

func (w *triplexWriter) rollback() error { return w.tx.rollback() }

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Writer is one write transaction. Writes are buffered and sent as multi-row statements; Commit
// sends the rest. Only one Writer of a store is open at a time (Begin waits for the previous one).
type Writer struct {
	s    *Store
	tx   *sql.Tx
	w    writerEngine
	id   int64
	done bool
}

// Begin starts a write transaction, which becomes transaction LastTx()+1 when it commits.
func (s *Store) Begin(ctx context.Context) (*Writer, error) {
	return s.begin(ctx, false)
}

func (s *Store) begin(ctx context.Context, bulk bool) (*Writer, error) {
	s.writeMu.Lock()
	tx, err := s.cfg.DB.BeginTx(ctx, nil)
	if err != nil {
		s.writeMu.Unlock()
		return nil, fmt.Errorf("store: begin: %w", err)
	}
	id := s.lastTx + 1
	w := &Writer{s: s, tx: tx, id: id}
	w.w, err = s.eng.newWriter(ctx, tx, id)
	if err == nil && bulk {
		if b, ok := w.w.(interface{ setBulk() }); ok {
			b.setBulk()
		}
	}
	if err != nil {
		_ = tx.Rollback()
		s.writeMu.Unlock()
		return nil, err
	}
	return w, nil
}

// Tx is the transaction this writer will commit as.
func (w *Writer) Tx() int64 { return w.id }

// NewEntity registers entity e (its external ident is Store.Ident(e)).
func (w *Writer) NewEntity(ctx context.Context, e int64) error {
	return w.w.newEntity(ctx, e, w.s.Ident(e))
}

// Assert adds the fact (e, a, v).
func (w *Writer) Assert(ctx context.Context, e int64, a int, v Value) error {
	if err := w.s.checkAttr(a); err != nil {
		return err
	}
	return w.w.assert(ctx, e, a, v)
}

// Replace retracts e's current values of a (cardinality one) and asserts v.
func (w *Writer) Replace(ctx context.Context, e int64, a int, v Value) error {
	if err := w.s.checkAttr(a); err != nil {
		return err
	}
	return w.w.replace(ctx, e, a, v)
}

// Commit sends the buffered writes and commits.
func (w *Writer) Commit(ctx context.Context) error {
	if w.done {
		return errors.New("store: writer already finished")
	}
	w.done = true
	defer w.s.writeMu.Unlock()
	defer w.w.close()
	if err := w.w.commit(ctx); err != nil {
		_ = w.tx.Rollback()
		return err
	}
	if err := w.tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	w.s.lastTx = w.id
	return nil
}

// Rollback abandons the transaction; it is a no-op after Commit.
func (w *Writer) Rollback() error {
	if w.done {
		return nil
	}
	w.done = true
	defer w.s.writeMu.Unlock()
	w.w.close()
	return w.tx.Rollback()
}

// batch accumulates rows of one multi-row INSERT and sends them when full.
type batch struct {
	tx      *sql.Tx
	d       dialect
	head    string // "INSERT INTO t (cols) VALUES "
	tail    string // e.g. " ON CONFLICT ..."
	cols    int
	maxRows int
	args    []any
	stmts   map[int]*sql.Stmt // prepared full-size statement, by row count
	// arrays, on PostgreSQL, are the column types of an INSERT ... SELECT FROM unnest($1::t[], ...):
	// one parameter per column instead of one per value, so a batch is parsed and bound once.
	arrays []string
}

func newBatch(tx *sql.Tx, d dialect, head, tail string, cols int) *batch {
	maxRows := min(500, d.maxParams/cols)
	return &batch{tx: tx, d: d, head: head, tail: tail, cols: cols, maxRows: maxRows, stmts: map[int]*sql.Stmt{}}
}

// newArrayBatch is newBatch with PostgreSQL's array form when the dialect has it; every value must
// be an int64 (integer types), float64 (double precision) or string (text).
func newArrayBatch(tx *sql.Tx, d dialect, head string, types ...string) *batch {
	b := newBatch(tx, d, head, "", len(types))
	if d.name == Postgres {
		b.arrays, b.maxRows = types, 5000
	}
	return b
}

// flushArrays sends the batch as one INSERT ... SELECT FROM unnest(...).
func (b *batch) flushArrays(ctx context.Context) error {
	rows := len(b.args) / b.cols
	params := make([]any, b.cols)
	casts := make([]string, b.cols)
	for c, typ := range b.arrays {
		casts[c] = "?::" + typ + "[]"
		switch typ {
		case "double precision":
			col := make([]float64, rows)
			for r := range col {
				col[r] = b.args[r*b.cols+c].(float64)
			}
			params[c] = col
		case "text":
			col := make([]string, rows)
			for r := range col {
				col[r] = b.args[r*b.cols+c].(string)
			}
			params[c] = col
		default:
			col := make([]int64, rows)
			for r := range col {
				col[r] = b.args[r*b.cols+c].(int64)
			}
			params[c] = col
		}
	}
	head := strings.Replace(b.head, " VALUES ", " ", 1)
	q := b.d.rebind(head + "SELECT * FROM unnest(" + strings.Join(casts, ", ") + ")" + b.tail)
	if _, err := b.tx.ExecContext(ctx, q, params...); err != nil {
		return fmt.Errorf("store: %s: %w", firstLine(b.head), err)
	}
	b.args = b.args[:0]
	return nil
}

// add appends a row; the caller flushes when full reports true (the order of statements matters
// to the writers, so a batch never sends itself).
func (b *batch) add(vals ...any) { b.args = append(b.args, vals...) }

func (b *batch) full() bool { return len(b.args) >= b.maxRows*b.cols }

func (b *batch) pending() bool { return len(b.args) > 0 }

func (b *batch) flush(ctx context.Context) error {
	if len(b.args) == 0 {
		return nil
	}
	if b.arrays != nil {
		return b.flushArrays(ctx)
	}
	rows := len(b.args) / b.cols
	st, ok := b.stmts[rows]
	if !ok {
		var err error
		q := b.d.rebind(b.head + placeholders(rows, b.cols) + b.tail)
		if st, err = b.tx.PrepareContext(ctx, q); err != nil {
			return fmt.Errorf("store: %s: %w", firstLine(b.head), err)
		}
		if rows == b.maxRows {
			b.stmts[rows] = st // a full batch recurs; a partial one is the last
		} else {
			defer st.Close()
		}
	}
	if _, err := st.ExecContext(ctx, b.args...); err != nil {
		return fmt.Errorf("store: %s: %w", firstLine(b.head), err)
	}
	b.args = b.args[:0]
	return nil
}

func (b *batch) close() {
	for _, st := range b.stmts {
		_ = st.Close()
	}
}

// avKey identifies a maintained count row.
type avKey struct {
	a    int
	kind Kind
	num  float64
	str  string
}

// indexedWriter is the write path of the indexed layout: close the current version with
// UPDATE ... RETURNING (batched per attribute), insert new versions with multi-row INSERTs, and sum
// count deltas in memory to flush once per key at commit (per-fact counter updates collapse on
// PostgreSQL: every update of a hot row in one transaction walks its version chain).
type indexedWriter struct {
	x        *indexed
	tx       *sql.Tx
	id       int64
	bulk     bool
	facts    *batch
	entities *batch
	retract  map[int][]int64 // attribute -> entities whose current value is being replaced
	pendingE map[int]map[int64]bool
	plain    bool // facts holds plain asserts (which must be flushed before retractions run)
	deltas   map[avKey]int64
}

func (x *indexed) newWriter(ctx context.Context, tx *sql.Tx, id int64) (writerEngine, error) {
	s := x.s
	q := s.sqlTemplate(`INSERT INTO {txlog} (id, recorded_at) VALUES (?, ?)`, "txlog")
	if _, err := tx.ExecContext(ctx, q, id, time.Now().UnixMilli()); err != nil {
		return nil, fmt.Errorf("store: txlog: %w", err)
	}
	return &indexedWriter{
		x: x, tx: tx, id: id,
		facts: newArrayBatch(tx, s.d, "INSERT INTO "+s.table("fact")+" (e, a, vt, vn, vs, tx_from) VALUES ",
			"bigint", "integer", "smallint", "double precision", "text", "bigint"),
		entities: newArrayBatch(tx, s.d, "INSERT INTO "+s.table("entity")+" (id, ident) VALUES ", "bigint", "text"),
		retract:  map[int][]int64{},
		pendingE: map[int]map[int64]bool{},
		deltas:   map[avKey]int64{},
	}, nil
}

func (w *indexedWriter) setBulk() { w.bulk = true }

func (w *indexedWriter) newEntity(ctx context.Context, e int64, ident string) error {
	w.entities.add(e, ident)
	if w.entities.full() {
		return w.entities.flush(ctx)
	}
	return nil
}

func (w *indexedWriter) count(a int, v Value, d int64) {
	if w.bulk || !w.x.s.attrs[a].Counted {
		return
	}
	w.deltas[avKey{a, v.Kind, v.Num, string(v.Str)}] += d
}

func (w *indexedWriter) addFact(e int64, a int, v Value) {
	w.count(a, v, +1)
	w.facts.add(e, int64(a+1), int64(v.Kind), v.Num, string(v.Str), w.id)
}

func (w *indexedWriter) assert(ctx context.Context, e int64, a int, v Value) error {
	if len(w.retract) > 0 {
		if err := w.flushRetractions(ctx); err != nil {
			return err
		}
	}
	w.plain = true
	w.addFact(e, a, v)
	if w.facts.full() {
		return w.flush(ctx)
	}
	return nil
}

func (w *indexedWriter) replace(ctx context.Context, e int64, a int, v Value) error {
	if w.plain || w.pendingE[a][e] {
		// Plain asserts (or an earlier replace of the same key) must reach the table before the
		// retraction that may close them.
		if err := w.flush(ctx); err != nil {
			return err
		}
	}
	if w.pendingE[a] == nil {
		w.pendingE[a] = map[int64]bool{}
	}
	w.pendingE[a][e] = true
	w.retract[a] = append(w.retract[a], e)
	w.addFact(e, a, v)
	if w.facts.full() || len(w.retract[a]) >= 500 {
		return w.flush(ctx) // retractions first, then the new versions
	}
	return nil
}

// flushRetractions closes the current versions being replaced; it must run before their new
// versions are inserted (which are current too).
func (w *indexedWriter) flushRetractions(ctx context.Context) error {
	s := w.x.s
	for a, es := range w.retract {
		q := s.d.rebind("UPDATE " + s.table("fact") + " SET tx_to = ? WHERE a = ? AND tx_to = " + open +
			" AND e IN (" + inList(len(es)) + ") RETURNING vt, vn, vs")
		args := make([]any, 0, len(es)+2)
		args = append(args, w.id, int64(a+1))
		for _, e := range es {
			args = append(args, e)
		}
		rows, err := w.tx.QueryContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("store: retract: %w", err)
		}
		var r indexedRow
		for rows.Next() {
			if err := rows.Scan(&r.vt, &r.vn, &r.vs); err != nil {
				rows.Close()
				return fmt.Errorf("store: retract: %w", err)
			}
			w.count(a, r.value(), -1)
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return fmt.Errorf("store: retract: %w", err)
		}
		rows.Close()
		delete(w.retract, a)
		delete(w.pendingE, a)
	}
	return nil
}

func (w *indexedWriter) flush(ctx context.Context) error {
	if err := w.entities.flush(ctx); err != nil {
		return err
	}
	if err := w.flushRetractions(ctx); err != nil {
		return err
	}
	if err := w.facts.flush(ctx); err != nil {
		return err
	}
	w.plain = false
	return nil
}

// flushCounts sends the summed count deltas, one upsert row per key.
func (w *indexedWriter) flushCounts(ctx context.Context) error {
	if len(w.deltas) == 0 {
		return nil
	}
	s := w.x.s
	b := newBatch(w.tx, s.d, "INSERT INTO "+s.table("av_count")+" (a, vt, vn, vs, n) VALUES ",
		" ON CONFLICT (a, vt, vn, vs) DO UPDATE SET n = "+s.table("av_count")+".n + excluded.n", 5)
	defer b.close()
	negative := false
	for k, d := range w.deltas {
		if d == 0 {
			continue
		}
		negative = negative || d < 0
		b.add(int64(k.a+1), int64(k.kind), k.num, k.str, d)
		if b.full() {
			if err := b.flush(ctx); err != nil {
				return err
			}
		}
	}
	if err := b.flush(ctx); err != nil {
		return err
	}
	if negative {
		if _, err := w.tx.ExecContext(ctx, "DELETE FROM "+s.table("av_count")+" WHERE n <= 0"); err != nil {
			return fmt.Errorf("store: counts: %w", err)
		}
	}
	clear(w.deltas)
	return nil
}

func (w *indexedWriter) commit(ctx context.Context) error {
	if err := w.flush(ctx); err != nil {
		return err
	}
	return w.flushCounts(ctx)
}

func (w *indexedWriter) close() {
	w.facts.close()
	w.entities.close()
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Writer is one write transaction. Writes are buffered and sent in bulk (multi-row statements, or
// COPY on PostgreSQL's indexed layout); Commit sends the rest. Only one Writer of a store is open at
// a time (Begin waits for the previous one).
type Writer struct {
	s    *Store
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
	id := s.lastTx + 1
	w, err := s.eng.newWriter(ctx, id, bulk)
	if err != nil {
		s.writeMu.Unlock()
		return nil, err
	}
	return &Writer{s: s, w: w, id: id}, nil
}

// Tx is the transaction this writer will commit as.
func (w *Writer) Tx() int64 { return w.id }

// NewEntity registers entity e (its external ident is Store.Ident(e)).
func (w *Writer) NewEntity(ctx context.Context, e int64) error {
	if e < 1 || e > MaxEntity {
		return fmt.Errorf("store: entity %d: numbers run from 1 to %d (seven-digit idents, as Triplex pads them)", e, MaxEntity)
	}
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

// Commit sends the buffered writes and commits; on failure the transaction is rolled back.
func (w *Writer) Commit(ctx context.Context) error {
	if w.done {
		return errors.New("store: writer already finished")
	}
	w.done = true
	defer w.s.writeMu.Unlock()
	if err := w.w.flush(ctx); err != nil {
		_ = w.w.rollback()
		return err
	}
	if err := w.w.commit(ctx); err != nil {
		return err
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
	return w.w.rollback()
}

// batch accumulates rows of one multi-row INSERT (database/sql) and sends them when full.
type batch struct {
	tx      *sql.Tx
	d       dialect
	head    string // "INSERT INTO t (cols) VALUES "
	tail    string // e.g. " ON CONFLICT ..."
	cols    int
	maxRows int
	args    []any
	stmts   map[int]*sql.Stmt // prepared full-size statement, by row count
}

func newBatch(tx *sql.Tx, d dialect, head, tail string, cols int) *batch {
	maxRows := min(500, d.maxParams/cols)
	return &batch{tx: tx, d: d, head: head, tail: tail, cols: cols, maxRows: maxRows, stmts: map[int]*sql.Stmt{}}
}

// add appends a row; the caller flushes when full reports true (the order of statements matters
// to the writers, so a batch never sends itself).
func (b *batch) add(vals ...any) { b.args = append(b.args, vals...) }

func (b *batch) full() bool { return len(b.args) >= b.maxRows*b.cols }

func (b *batch) flush(ctx context.Context) error {
	if len(b.args) == 0 {
		return nil
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

// indexedSink is where the indexed layout's writer sends one transaction's rows. It hides how
// rows travel: multi-row statements through database/sql (sqlSink), or natively through pgx with
// COPY and array parameters (pgxSink, PostgreSQL).
type indexedSink interface {
	// entity and fact buffer a row and report whether that buffer is full.
	entity(e int64, ident string) (full bool)
	fact(e int64, a int, v Value) (full bool)
	flushEntities(ctx context.Context) error
	flushFacts(ctx context.Context) error
	// retract closes the current versions of attribute a of the given entities and calls fn with
	// each closed value.
	retract(ctx context.Context, a int, es []int64, fn func(Value)) error
	// commit sends the summed count deltas (one upsert row per key, rows reaching 0 deleted) and
	// commits; on failure it rolls back.
	commit(ctx context.Context, deltas map[avKey]int64) error
	rollback() error
}

// indexedWriter is the write path of the indexed layout: close the current version (batched per
// attribute, before its new version is inserted), insert new versions in bulk, and sum count
// deltas in memory to flush once per key at commit (per-fact counter updates collapse on
// PostgreSQL: every update of a hot row in one transaction walks its version chain).
type indexedWriter struct {
	x        *indexed
	sink     indexedSink
	bulk     bool
	retracts retractions[int64]
	plain    bool // the sink holds plain asserts (which must be flushed before retractions run)
	deltas   map[avKey]int64
}

// maxRetract bounds the entities of one retraction statement.
const maxRetract = 500

// retractions are the keys (entities) whose current value of an attribute a writer is replacing,
// batched per attribute into one retraction statement that must run before the new versions are
// inserted. A key replaced twice before that forces them out first: the second retraction has to
// close the first replacement's version.
type retractions[K comparable] struct {
	keys    map[int][]K
	pending map[int]map[K]bool
}

func newRetractions[K comparable]() retractions[K] {
	return retractions[K]{keys: map[int][]K{}, pending: map[int]map[K]bool{}}
}

// has reports whether k's retraction under attribute a is still waiting.
func (r retractions[K]) has(a int, k K) bool { return r.pending[a][k] }

// add queues k's retraction under a and reports whether a's batch is full.
func (r retractions[K]) add(a int, k K) bool {
	if r.pending[a] == nil {
		r.pending[a] = map[K]bool{}
	}
	r.pending[a][k] = true
	r.keys[a] = append(r.keys[a], k)
	return len(r.keys[a]) >= maxRetract
}

// done forgets a's batch once its statement ran.
func (r retractions[K]) done(a int) {
	delete(r.keys, a)
	delete(r.pending, a)
}

func (x *indexed) newWriter(ctx context.Context, id int64, bulk bool) (writerEngine, error) {
	var sink indexedSink
	var err error
	if x.s.d.name == Postgres {
		sink, err = newPgxSink(ctx, x.s, id)
	} else {
		sink, err = newSQLSink(ctx, x.s, id)
	}
	if err != nil {
		return nil, err
	}
	return &indexedWriter{x: x, sink: sink, bulk: bulk, retracts: newRetractions[int64](),
		deltas: map[avKey]int64{}}, nil
}

func (w *indexedWriter) newEntity(ctx context.Context, e int64, ident string) error {
	if w.sink.entity(e, ident) {
		return w.sink.flushEntities(ctx)
	}
	return nil
}

func (w *indexedWriter) count(a int, v Value, d int64) {
	if w.bulk || !w.x.s.attrs[a].Counted {
		return // a bulk load builds the counts afterwards
	}
	w.deltas[avKey{a, v.Kind, v.Num, string(v.Str)}] += d
}

func (w *indexedWriter) assert(ctx context.Context, e int64, a int, v Value) error {
	if len(w.retracts.keys) > 0 {
		if err := w.flushRetractions(ctx); err != nil {
			return err
		}
	}
	w.plain = true
	w.count(a, v, +1)
	if w.sink.fact(e, a, v) {
		return w.flush(ctx)
	}
	return nil
}

func (w *indexedWriter) replace(ctx context.Context, e int64, a int, v Value) error {
	if w.plain || w.retracts.has(a, e) {
		// Plain asserts (or an earlier replace of the same key) must reach the table before the
		// retraction that may close them.
		if err := w.flush(ctx); err != nil {
			return err
		}
	}
	full := w.retracts.add(a, e)
	w.count(a, v, +1)
	if w.sink.fact(e, a, v) || full {
		return w.flush(ctx) // retractions first, then the new versions
	}
	return nil
}

// flushRetractions closes the current versions being replaced; it must run before their new
// versions are inserted (which are current too).
func (w *indexedWriter) flushRetractions(ctx context.Context) error {
	for a, es := range w.retracts.keys {
		if err := w.sink.retract(ctx, a, es, func(v Value) { w.count(a, v, -1) }); err != nil {
			return err
		}
		w.retracts.done(a)
	}
	return nil
}

func (w *indexedWriter) flush(ctx context.Context) error {
	if err := w.sink.flushEntities(ctx); err != nil {
		return err
	}
	if err := w.flushRetractions(ctx); err != nil {
		return err
	}
	if err := w.sink.flushFacts(ctx); err != nil {
		return err
	}
	w.plain = false
	return nil
}

func (w *indexedWriter) commit(ctx context.Context) error { return w.sink.commit(ctx, w.deltas) }

func (w *indexedWriter) rollback() error { return w.sink.rollback() }

// sqlSink sends the indexed layout's rows through database/sql: prepared multi-row INSERTs, an
// UPDATE ... RETURNING per retraction batch, a multi-row upsert for the counts.
type sqlSink struct {
	s        *Store
	tx       *sql.Tx
	id       int64
	facts    *batch
	entities *batch
}

func newSQLSink(ctx context.Context, s *Store, id int64) (*sqlSink, error) {
	tx, err := s.cfg.DB.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: begin: %w", err)
	}
	q := s.sqlTemplate(`INSERT INTO {txlog} (id, recorded_at) VALUES (?, ?)`, "txlog")
	if _, err := tx.ExecContext(ctx, q, id, time.Now().UnixMilli()); err != nil {
		_ = tx.Rollback()
		return nil, fmt.Errorf("store: txlog: %w", err)
	}
	return &sqlSink{
		s: s, tx: tx, id: id,
		facts:    newBatch(tx, s.d, "INSERT INTO "+s.table("fact")+" (e, a, vt, vn, vs, tx_from) VALUES ", "", 6),
		entities: newBatch(tx, s.d, "INSERT INTO "+s.table("entity")+" (id, ident) VALUES ", "", 2),
	}, nil
}

func (k *sqlSink) entity(e int64, ident string) bool {
	k.entities.add(e, ident)
	return k.entities.full()
}

func (k *sqlSink) fact(e int64, a int, v Value) bool {
	k.facts.add(e, int64(a+1), int64(v.Kind), v.Num, string(v.Str), k.id)
	return k.facts.full()
}

func (k *sqlSink) flushEntities(ctx context.Context) error { return k.entities.flush(ctx) }

func (k *sqlSink) flushFacts(ctx context.Context) error { return k.facts.flush(ctx) }

func (k *sqlSink) retract(ctx context.Context, a int, es []int64, fn func(Value)) error {
	s := k.s
	q := s.d.rebind("UPDATE " + s.table("fact") + " SET tx_to = ? WHERE a = ? AND tx_to = " + open +
		" AND e IN (" + inList(len(es)) + ") RETURNING vt, vn, vs")
	args := make([]any, 0, len(es)+2)
	args = append(args, k.id, int64(a+1))
	for _, e := range es {
		args = append(args, e)
	}
	rows, err := k.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("store: retract: %w", err)
	}
	defer rows.Close()
	var r indexedRow
	for rows.Next() {
		if err := rows.Scan(&r.vt, &r.vn, &r.vs); err != nil {
			return fmt.Errorf("store: retract: %w", err)
		}
		fn(r.value())
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: retract: %w", err)
	}
	return nil
}

func (k *sqlSink) commit(ctx context.Context, deltas map[avKey]int64) error {
	if err := k.flushCounts(ctx, deltas); err != nil {
		_ = k.rollback()
		return err
	}
	k.close()
	if err := k.tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

func (k *sqlSink) flushCounts(ctx context.Context, deltas map[avKey]int64) error {
	s := k.s
	b := newBatch(k.tx, s.d, "INSERT INTO "+s.table("av_count")+" (a, vt, vn, vs, n) VALUES ",
		" ON CONFLICT (a, vt, vn, vs) DO UPDATE SET n = "+s.table("av_count")+".n + excluded.n", 5)
	defer b.close()
	negative := false
	for key, d := range deltas {
		if d == 0 {
			continue
		}
		negative = negative || d < 0
		b.add(int64(key.a+1), int64(key.kind), key.num, key.str, d)
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
		if _, err := k.tx.ExecContext(ctx, "DELETE FROM "+s.table("av_count")+" WHERE n <= 0"); err != nil {
			return fmt.Errorf("store: counts: %w", err)
		}
	}
	return nil
}

func (k *sqlSink) close() {
	k.facts.close()
	k.entities.close()
}

func (k *sqlSink) rollback() error {
	k.close()
	return k.tx.Rollback()
}

// sqlWriteTx is a database/sql write transaction with the batches to close when it ends (the
// triplex layout's writer).
type sqlWriteTx struct {
	tx      *sql.Tx
	batches []*batch
}

func (t *sqlWriteTx) commit() error {
	for _, b := range t.batches {
		b.close()
	}
	if err := t.tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

func (t *sqlWriteTx) rollback() error {
	for _, b := range t.batches {
		b.close()
	}
	return t.tx.Rollback()
}

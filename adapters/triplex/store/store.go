// Package store is a temporal triple store on SQL: facts are entity/attribute/value triples with the
// transaction that asserted them and the one that retracted them, so both current and as-of
// (historical) reads work. It runs on SQLite (modernc.org/sqlite) and PostgreSQL (pgx: reads through
// database/sql, the indexed layout's writes natively with COPY) in one of two layouts:
//
//   - LayoutTriplex reconstructs the published layout and query shapes of Triplex (bjacobso/triplex):
//     one wide table with text ids, its thirteen secondary indexes, snapshot-pinned predicates,
//     SELECT DISTINCT over computed value columns in a CTE and an outer ORDER BY on computed sort
//     keys. It is a reconstruction from Triplex's source and docs, not Triplex itself.
//   - LayoutIndexed is the flat design: interned integer ids, covering partial indexes for current
//     facts plus one history index, keyset pagination on raw index columns and maintained
//     (attribute, value) counts.
//
// Both layouts return the same answers in the same order for every read, so their results can be
// compared row for row. Reads stream rows to a callback and never materialise a result.
//
// A Store has one writer at a time (Begin serialises them); reads are safe for concurrent use.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Layout names.
const (
	LayoutTriplex = "triplex"
	LayoutIndexed = "indexed"
)

// Dialect names.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// Kind is a value's type. Kinds sort number < boolean < string, Triplex's canonical value order.
type Kind int8

// Value kinds.
const (
	Number Kind = 0
	Bool   Kind = 1
	String Kind = 2
)

func (k Kind) String() string {
	switch k {
	case Number:
		return "number"
	case Bool:
		return "boolean"
	case String:
		return "string"
	}
	return fmt.Sprintf("kind(%d)", int8(k))
}

// Value is one fact value. Str aliases driver memory when it comes from a read callback and is valid
// only during that callback.
type Value struct {
	Kind Kind
	Num  float64 // number; 0 or 1 for a boolean
	Str  []byte  // string
}

// NumberValue returns a number value.
func NumberValue(f float64) Value { return Value{Kind: Number, Num: f} }

// StringValue returns a string value.
func StringValue(s string) Value { return Value{Kind: String, Str: []byte(s)} }

// Compare orders values the way both layouts do: kind, then number, then bytes.
func (v Value) Compare(o Value) int {
	switch {
	case v.Kind != o.Kind:
		return int(v.Kind) - int(o.Kind)
	case v.Num < o.Num:
		return -1
	case v.Num > o.Num:
		return 1
	}
	return strings.Compare(string(v.Str), string(o.Str))
}

// Clone returns a copy that does not alias driver memory.
func (v Value) Clone() Value { v.Str = slices.Clone(v.Str); return v }

// Attr declares an attribute of a store's schema.
type Attr struct {
	Ident string // e.g. ":bench/name"
	Kind  Kind
	// Counted attributes keep a maintained (attribute, value) -> entity count in the indexed
	// layout, for flat group counts (the triplex layout always computes them).
	Counted bool
}

// Fact is one fact as a read returns it. A is the attribute's index in Schema.Attrs.
type Fact struct {
	E int64
	A int
	V Value
}

// Group is one row of a group count: a value and how many current facts of the attribute hold it.
type Group struct {
	V Value
	N int64
}

// JoinRow is one row of the two-attribute join: an entity, its value of the ordering attribute and
// its value of the joined attribute.
type JoinRow struct {
	E     int64
	Order Value
	With  Value
}

// Schema describes a store: its attributes and how entity numbers map to external idents.
type Schema struct {
	// Attrs are the attributes; a store sorts them by Ident so that integer attribute ids order like
	// the idents (both layouts then page in the same order).
	Attrs []Attr
	// EntityPrefix starts every entity's external ident: ident = prefix + the entity number as
	// seven zero-padded digits (Triplex's fixture pads to 7), so idents sort like numbers up to
	// MaxEntity.
	EntityPrefix string
}

// Config opens or creates a store.
type Config struct {
	DB      *sql.DB
	Dialect string // SQLite or Postgres
	Layout  string // LayoutTriplex or LayoutIndexed
	// Prefix starts every table name, so several stores can share one database or schema.
	Prefix string
	Schema Schema
	// PGX, on PostgreSQL, runs the indexed layout's write transactions natively through pgx (COPY,
	// array parameters, pipelined statements); reads and the triplex layout's writes go through DB.
	// Required for the indexed layout on PostgreSQL.
	PGX TxBeginner
}

// Store is one fact store.
type Store struct {
	cfg    Config
	d      dialect
	attrs  []Attr
	byName map[string]int
	eng    engine

	writeMu sync.Mutex // one writer at a time
	lastTx  int64      // guarded by writeMu; read by LastTx under the mutex
	tables  []string   // every table the store created, for Drop
}

// engine is what a layout implements.
type engine interface {
	create(ctx context.Context, bulk bool) error
	finishBulk(ctx context.Context) error
	// reads
	scanCurrent(ctx context.Context, limit int, fn func(Fact) error) error
	pageAll(ctx context.Context, at int64, after *Fact, limit int, fn func(Fact) error) error
	pageAttr(ctx context.Context, at int64, a int, after *Fact, limit int, fn func(Fact) error) error
	pageJoin(ctx context.Context, at int64, q Join, after *JoinRow, limit int, fn func(JoinRow) error) error
	groups(ctx context.Context, at int64, a int, computed bool, after *Value, limit int, fn func(Group) error) error
	entity(ctx context.Context, at int64, ident string, fn func(Fact) error) error
	entityByValue(ctx context.Context, a int, v Value, fn func(Fact) error) error
	// writes: newWriter begins transaction txID (bulk: a load into a table without its secondary
	// indexes and counts, which finishBulk builds afterwards)
	newWriter(ctx context.Context, txID int64, bulk bool) (writerEngine, error)
	// plans: the SQL and arguments of a read, for EXPLAIN
	sqlFor(q PlanQuery) (string, []any, error)
}

// writerEngine buffers one transaction's writes.
type writerEngine interface {
	newEntity(ctx context.Context, e int64, ident string) error
	assert(ctx context.Context, e int64, a int, v Value) error
	replace(ctx context.Context, e int64, a int, v Value) error
	// flush sends everything still buffered; Writer.Commit calls it, then commit (or rollback when it
	// fails).
	flush(ctx context.Context) error
	commit(ctx context.Context) error
	rollback() error
}

// Create makes the store's tables. With bulk set it creates only what a bulk load needs (the
// clustered table); Load then builds the secondary indexes and counts after the data is in.
func Create(ctx context.Context, cfg Config) (*Store, error) {
	s, err := newStore(cfg)
	if err != nil {
		return nil, err
	}
	if err := s.eng.create(ctx, false); err != nil {
		dropFailed(ctx, s)
		return nil, err
	}
	return s, nil
}

func newStore(cfg Config) (*Store, error) {
	d, ok := dialects[cfg.Dialect]
	if !ok {
		return nil, fmt.Errorf("store: unknown dialect %q", cfg.Dialect)
	}
	if cfg.DB == nil {
		return nil, fmt.Errorf("store: no database")
	}
	if cfg.Dialect == Postgres && cfg.Layout == LayoutIndexed && cfg.PGX == nil {
		return nil, fmt.Errorf("store: the indexed layout on postgres writes through pgx: Config.PGX is missing")
	}
	attrs := slices.Clone(cfg.Schema.Attrs)
	slices.SortFunc(attrs, func(a, b Attr) int { return strings.Compare(a.Ident, b.Ident) })
	s := &Store{cfg: cfg, d: d, attrs: attrs, byName: map[string]int{}}
	for i, a := range attrs {
		if _, dup := s.byName[a.Ident]; dup {
			return nil, fmt.Errorf("store: attribute %q declared twice", a.Ident)
		}
		s.byName[a.Ident] = i
	}
	switch cfg.Layout {
	case LayoutIndexed:
		s.eng = &indexed{s: s}
	case LayoutTriplex:
		s.eng = &triplex{s: s}
	default:
		return nil, fmt.Errorf("store: unknown layout %q", cfg.Layout)
	}
	return s, nil
}

// Layout returns the store's layout name.
func (s *Store) Layout() string { return s.cfg.Layout }

// Dialect returns the store's dialect name.
func (s *Store) Dialect() string { return s.cfg.Dialect }

// Attrs returns the attributes in id order (sorted by ident).
func (s *Store) Attrs() []Attr { return slices.Clone(s.attrs) }

// AttrIndex returns the index of the attribute with the given ident.
func (s *Store) AttrIndex(ident string) (int, bool) { i, ok := s.byName[ident]; return i, ok }

// MaxEntity is the largest entity number whose ident keeps numeric order (seven digits).
const MaxEntity = 9_999_999

// Ident returns entity e's external ident.
func (s *Store) Ident(e int64) string { return fmt.Sprintf("%s%07d", s.cfg.Schema.EntityPrefix, e) }

// entityOf parses an ident made by Ident back into the entity number.
func (s *Store) entityOf(ident []byte) (int64, error) {
	p := s.cfg.Schema.EntityPrefix
	if len(ident) <= len(p) || string(ident[:len(p)]) != p {
		return 0, fmt.Errorf("store: entity ident %q lacks prefix %q", ident, p)
	}
	var n int64
	for _, c := range ident[len(p):] {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("store: bad entity ident %q", ident)
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}

// LastTx returns the latest committed transaction.
func (s *Store) LastTx() int64 {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return s.lastTx
}

// table returns the prefixed name of a table and remembers it for Drop.
func (s *Store) table(name string) string { return s.cfg.Prefix + name }

// Drop removes every table the store created (and nothing else).
func (s *Store) Drop(ctx context.Context) error {
	for _, t := range slices.Backward(s.tables) {
		if _, err := s.cfg.DB.ExecContext(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return fmt.Errorf("store: drop %s: %w", t, err)
		}
	}
	s.tables = nil
	return nil
}

// exec runs DDL or other statements without results, remembering created tables.
func (s *Store) exec(ctx context.Context, stmts ...string) error {
	for _, q := range stmts {
		if _, err := s.cfg.DB.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("store: %s: %w", firstLine(q), err)
		}
		if t, ok := createdTable(q); ok {
			s.tables = append(s.tables, t)
		}
	}
	return nil
}

func createdTable(q string) (string, bool) {
	const p = "CREATE TABLE "
	if !strings.HasPrefix(q, p) {
		return "", false
	}
	rest := q[len(p):]
	if i := strings.IndexAny(rest, " ("); i > 0 {
		return rest[:i], true
	}
	return "", false
}

func firstLine(q string) string {
	q = strings.TrimSpace(q)
	if i := strings.IndexByte(q, '\n'); i > 0 {
		q = q[:i]
	}
	if len(q) > 80 {
		q = q[:80] + "..."
	}
	return q
}

// query runs a read and calls fn for each row with the driver's rows.
func (s *Store) query(ctx context.Context, q string, args []any, fn func(*sql.Rows) error) error {
	rows, err := s.cfg.DB.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return rows.Close()
}

func (s *Store) checkAttr(a int) error {
	if a < 0 || a >= len(s.attrs) {
		return fmt.Errorf("store: no attribute %d", a)
	}
	return nil
}

// current resolves a read's pinned transaction: 0 means the latest.
func (s *Store) current(at int64) (int64, bool) {
	last := s.LastTx()
	if at == 0 || at >= last {
		return last, true
	}
	return at, false
}

// ScanCurrent streams the first limit current facts in entity order (the store's plain, non-Datalog
// read of whole entities).
func (s *Store) ScanCurrent(ctx context.Context, limit int, fn func(Fact) error) error {
	return s.eng.scanCurrent(ctx, limit, fn)
}

// PageAll streams one page of the query [?e ?a ?v] in (e, a, v) order as of transaction at (0: the
// latest), starting after the cursor (nil: from the start).
func (s *Store) PageAll(ctx context.Context, at int64, after *Fact, limit int, fn func(Fact) error) error {
	return s.eng.pageAll(ctx, at, after, limit, fn)
}

// PageAttr streams one page of [?e attr ?v] in (e, v) order as of transaction at.
func (s *Store) PageAttr(ctx context.Context, at int64, a int, after *Fact, limit int, fn func(Fact) error) error {
	if err := s.checkAttr(a); err != nil {
		return err
	}
	return s.eng.pageAttr(ctx, at, a, after, limit, fn)
}

// Join is Triplex's join shape: [?e Order ?o] [?e With ?w] [(>= ?o Min)], ordered by ?o descending
// then ?e descending. Order must be a number attribute; both attributes of cardinality one.
type Join struct {
	Order, With int
	Min         float64
}

// PageJoin streams one page of the join as of transaction at.
func (s *Store) PageJoin(ctx context.Context, at int64, q Join, after *JoinRow, limit int, fn func(JoinRow) error) error {
	if err := s.checkAttr(q.Order); err != nil {
		return err
	}
	if err := s.checkAttr(q.With); err != nil {
		return err
	}
	if s.attrs[q.Order].Kind != Number {
		return fmt.Errorf("store: join order attribute %s is not a number", s.attrs[q.Order].Ident)
	}
	return s.eng.pageJoin(ctx, at, q, after, limit, fn)
}

// Groups streams one page of ?v (count ?e) for [?e attr ?v] in value order. The indexed layout reads
// maintained counts unless computed is set (or the attribute is not Counted); the triplex layout
// always computes.
func (s *Store) Groups(ctx context.Context, at int64, a int, computed bool, after *Value, limit int, fn func(Group) error) error {
	if err := s.checkAttr(a); err != nil {
		return err
	}
	return s.eng.groups(ctx, at, a, computed, after, limit, fn)
}

// Entity streams the facts of the entity with the given external ident as of transaction at, in
// (a, v) order.
func (s *Store) Entity(ctx context.Context, at int64, ident string, fn func(Fact) error) error {
	return s.eng.entity(ctx, at, ident, fn)
}

// EntityByValue streams the current facts of the entities whose attribute a currently holds v.
func (s *Store) EntityByValue(ctx context.Context, a int, v Value, fn func(Fact) error) error {
	if err := s.checkAttr(a); err != nil {
		return err
	}
	return s.eng.entityByValue(ctx, a, v, fn)
}

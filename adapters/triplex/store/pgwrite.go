package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// TxBeginner starts native pgx transactions; a *pgxpool.Pool is one.
type TxBeginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// copyBatch is how many rows one COPY carries at most: large enough that round trips do not
// matter, small enough that a bulk load's buffer stays a few MiB.
const copyBatch = 10000

// pgxSink sends the indexed layout's rows natively through pgx: new facts and entities with COPY
// (binary, no statement to parse per batch), retractions with one UPDATE ... RETURNING over an
// array of entities, and at commit the txlog row and the count upserts (unnest over arrays) in
// one pipelined batch. database/sql has no COPY, and a multi-row INSERT costs the server a parse
// and an executor pass that COPY does not.
type pgxSink struct {
	s        *Store
	tx       pgx.Tx
	id       int64
	facts    factRows
	entities entityRows
	retractQ string
}

func newPgxSink(ctx context.Context, s *Store, id int64) (*pgxSink, error) {
	if s.cfg.PGX == nil {
		return nil, fmt.Errorf("store: postgres: no pgx connection for writes (Config.PGX)")
	}
	tx, err := s.cfg.PGX.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: begin: %w", err)
	}
	return &pgxSink{s: s, tx: tx, id: id,
		retractQ: "UPDATE " + s.table("fact") + " SET tx_to = $1 WHERE a = $2 AND tx_to = " + open +
			" AND e = ANY($3::bigint[]) RETURNING vt, vn, vs",
	}, nil
}

func (k *pgxSink) entity(e int64, ident string) bool {
	k.entities.id = append(k.entities.id, e)
	k.entities.ident = append(k.entities.ident, ident)
	return len(k.entities.id) >= copyBatch
}

func (k *pgxSink) fact(e int64, a int, v Value) bool {
	f := &k.facts
	f.e = append(f.e, e)
	f.a = append(f.a, int32(a+1))
	f.vt = append(f.vt, int16(v.Kind))
	f.vn = append(f.vn, v.Num)
	f.vs = append(f.vs, string(v.Str))
	return len(f.e) >= copyBatch
}

func (k *pgxSink) flushEntities(ctx context.Context) error {
	if len(k.entities.id) == 0 {
		return nil
	}
	k.entities.pos = 0
	if _, err := k.tx.CopyFrom(ctx, pgx.Identifier{k.s.table("entity")}, []string{"id", "ident"}, &k.entities); err != nil {
		return fmt.Errorf("store: copy entities: %w", err)
	}
	k.entities.reset()
	return nil
}

func (k *pgxSink) flushFacts(ctx context.Context) error {
	if len(k.facts.e) == 0 {
		return nil
	}
	k.facts.pos, k.facts.tx = 0, k.id
	if _, err := k.tx.CopyFrom(ctx, pgx.Identifier{k.s.table("fact")}, []string{"e", "a", "vt", "vn", "vs", "tx_from"}, &k.facts); err != nil {
		return fmt.Errorf("store: copy facts: %w", err)
	}
	k.facts.reset()
	return nil
}

func (k *pgxSink) retract(ctx context.Context, a int, es []int64, fn func(Value)) error {
	rows, err := k.tx.Query(ctx, k.retractQ, k.id, int32(a+1), es)
	if err != nil {
		return fmt.Errorf("store: retract: %w", err)
	}
	defer rows.Close()
	var vt int16
	var vn float64
	var vs []byte
	for rows.Next() {
		if err := rows.Scan(&vt, &vn, &vs); err != nil {
			return fmt.Errorf("store: retract: %w", err)
		}
		fn(Value{Kind: Kind(vt), Num: vn, Str: vs})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: retract: %w", err)
	}
	return nil
}

func (k *pgxSink) commit(ctx context.Context, deltas map[avKey]int64) error {
	s := k.s
	var b pgx.Batch
	b.Queue("INSERT INTO "+s.table("txlog")+" (id, recorded_at) VALUES ($1, $2)", k.id, time.Now().UnixMilli())
	var c struct {
		a        []int32
		vt       []int16
		vn       []float64
		vs       []string
		n        []int64
		negative bool
	}
	for key, d := range deltas {
		if d == 0 {
			continue
		}
		c.negative = c.negative || d < 0
		c.a = append(c.a, int32(key.a+1))
		c.vt = append(c.vt, int16(key.kind))
		c.vn = append(c.vn, key.num)
		c.vs = append(c.vs, key.str)
		c.n = append(c.n, d)
	}
	if len(c.a) > 0 {
		counts := s.table("av_count")
		b.Queue("INSERT INTO "+counts+" (a, vt, vn, vs, n) SELECT * FROM unnest($1::integer[], $2::smallint[], $3::float8[], $4::text[], $5::bigint[])"+
			" ON CONFLICT (a, vt, vn, vs) DO UPDATE SET n = "+counts+".n + excluded.n", c.a, c.vt, c.vn, c.vs, c.n)
		if c.negative {
			b.Queue("DELETE FROM " + counts + " WHERE n <= 0")
		}
	}
	if err := k.tx.SendBatch(ctx, &b).Close(); err != nil {
		_ = k.rollback()
		return fmt.Errorf("store: txlog and counts: %w", err)
	}
	if err := k.tx.Commit(ctx); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

func (k *pgxSink) rollback() error {
	// A writer is abandoned after a failure or a cancelled context: roll back on a fresh one.
	return k.tx.Rollback(context.Background())
}

// factRows is a COPY source over fact rows held column by column.
type factRows struct {
	e      []int64
	a      []int32
	vt     []int16
	vn     []float64
	vs     []string
	tx     int64
	pos    int
	values [6]any
}

func (r *factRows) Next() bool { r.pos++; return r.pos <= len(r.e) }

// Values reuses one slice: pgx encodes a row before asking for the next.
func (r *factRows) Values() ([]any, error) {
	i := r.pos - 1
	r.values = [6]any{r.e[i], r.a[i], r.vt[i], r.vn[i], r.vs[i], r.tx}
	return r.values[:], nil
}

func (r *factRows) Err() error { return nil }

func (r *factRows) reset() {
	r.e, r.a, r.vt, r.vn, r.vs = r.e[:0], r.a[:0], r.vt[:0], r.vn[:0], r.vs[:0]
	clear(r.vs[:cap(r.vs)]) // drop the strings' memory
}

// entityRows is a COPY source over (id, ident) rows.
type entityRows struct {
	id     []int64
	ident  []string
	pos    int
	values [2]any
}

func (r *entityRows) Next() bool { r.pos++; return r.pos <= len(r.id) }

func (r *entityRows) Values() ([]any, error) {
	i := r.pos - 1
	r.values = [2]any{r.id[i], r.ident[i]}
	return r.values[:], nil
}

func (r *entityRows) Err() error { return nil }

func (r *entityRows) reset() {
	r.id, r.ident = r.id[:0], r.ident[:0]
	clear(r.ident[:cap(r.ident)])
}

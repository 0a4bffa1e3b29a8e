package store

import (
	"context"
	"fmt"
	"time"
)

// LoadStats describes a bulk load.
type LoadStats struct {
	Entities int64
	Facts    int64
	// Mode is how the load ran: "bulk, then index" (indexed layout: the clustered table alone, then
	// the secondary indexes and counts) or "indexes live" (triplex layout, as Triplex seeds).
	Mode    string
	Insert  time.Duration // inserting the rows
	Index   time.Duration // building secondary indexes and counts afterwards
	Analyze time.Duration // statistics (ANALYZE; VACUUM (ANALYZE) on PostgreSQL)
}

// FactsPerSecond is the load throughput over the whole load, statistics included.
func (l LoadStats) FactsPerSecond() float64 {
	d := l.Insert + l.Index + l.Analyze
	if d <= 0 {
		return 0
	}
	return float64(l.Facts) / d.Seconds()
}

// Load creates a store and bulk-loads n entities in one transaction (transaction 1). gen fills
// vals (one value per attribute, in Attrs order) for entity i and returns its entity number.
func Load(ctx context.Context, cfg Config, n int, gen func(i int, vals []Value) int64) (*Store, LoadStats, error) {
	s, err := newStore(cfg)
	if err != nil {
		return nil, LoadStats{}, err
	}
	st := LoadStats{Mode: "indexes live"}
	bulk := cfg.Layout == LayoutIndexed
	if bulk {
		st.Mode = "bulk, then index"
	}
	if err := s.eng.create(ctx, bulk); err != nil {
		dropFailed(ctx, s)
		return nil, st, err
	}
	fail := func(err error) (*Store, LoadStats, error) {
		dropFailed(ctx, s)
		return nil, st, err
	}
	start := time.Now()
	w, err := s.begin(ctx, bulk)
	if err != nil {
		return fail(err)
	}
	vals := make([]Value, len(s.attrs))
	for i := 0; i < n; i++ {
		if i%4096 == 0 && ctx.Err() != nil {
			_ = w.Rollback()
			return fail(ctx.Err())
		}
		e := gen(i, vals)
		if err := w.NewEntity(ctx, e); err != nil {
			_ = w.Rollback()
			return fail(err)
		}
		for a, v := range vals {
			if err := w.Assert(ctx, e, a, v); err != nil {
				_ = w.Rollback()
				return fail(err)
			}
		}
	}
	if err := w.Commit(ctx); err != nil {
		return fail(err)
	}
	st.Insert = time.Since(start)
	st.Entities, st.Facts = int64(n), int64(n)*int64(len(s.attrs))
	start = time.Now()
	if err := s.eng.finishBulk(ctx); err != nil {
		return fail(err)
	}
	st.Index = time.Since(start)
	start = time.Now()
	if err := s.Analyze(ctx); err != nil {
		return fail(err)
	}
	st.Analyze = time.Since(start)
	return s, st, nil
}

// Analyze refreshes planner statistics (and on PostgreSQL the visibility map, so index-only scans
// need no heap fetches). Run it after bulk writes, outside timed work.
func (s *Store) Analyze(ctx context.Context) error {
	if s.d.name == SQLite {
		// A bounded sample: modernc's full ANALYZE takes many seconds at millions of rows.
		stmts := []string{"PRAGMA analysis_limit = 1000"}
		for _, t := range s.tables {
			stmts = append(stmts, "ANALYZE "+t)
		}
		return s.exec(ctx, stmts...)
	}
	// VACUUM every table first, then ANALYZE them: ANALYZE commits (asynchronously, on the
	// throwaway server) and would hold back the hinting described at waitWALFlushed.
	if err := s.waitWALFlushed(ctx); err != nil {
		return err
	}
	for _, t := range s.tables {
		if err := s.exec(ctx, "VACUUM "+t); err != nil {
			return err
		}
	}
	for _, t := range s.tables {
		if err := s.exec(ctx, "ANALYZE "+t); err != nil {
			return err
		}
	}
	return nil
}

// waitWALFlushed waits (a bounded time) until the WAL written so far is flushed. VACUUM marks a
// page all-visible only when its rows' inserting transactions can be hinted committed, and with
// asynchronous commit (synchronous_commit=off, as on the throwaway server) a commit cannot be
// hinted before its WAL is flushed. Without the wait, the pages written just before VACUUM keep
// costing every index-only scan a heap fetch per row.
func (s *Store) waitWALFlushed(ctx context.Context) error {
	var target string
	if err := s.cfg.DB.QueryRowContext(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&target); err != nil {
		return fmt.Errorf("store: wal position: %w", err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		var flushed bool
		if err := s.cfg.DB.QueryRowContext(ctx, "SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn", target).Scan(&flushed); err != nil {
			return fmt.Errorf("store: wal position: %w", err)
		}
		if flushed {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil // VACUUM still runs; index-only scans may then fetch some heap pages
}

// Size returns the bytes the store's tables and indexes take (on SQLite, the whole database file
// when the dbstat table is not available).
func (s *Store) Size(ctx context.Context) (int64, error) {
	var n int64
	if s.d.name == Postgres {
		for _, t := range s.tables {
			var sz int64
			if err := s.cfg.DB.QueryRowContext(ctx, "SELECT pg_total_relation_size($1)", t).Scan(&sz); err != nil {
				return 0, fmt.Errorf("store: size: %w", err)
			}
			n += sz
		}
		return n, nil
	}
	var pages, size int64
	if err := s.cfg.DB.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return 0, fmt.Errorf("store: size: %w", err)
	}
	if err := s.cfg.DB.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size); err != nil {
		return 0, fmt.Errorf("store: size: %w", err)
	}
	return pages * size, nil
}

// Count returns the number of current facts and of stored versions (current plus retracted).
func (s *Store) Count(ctx context.Context) (current, versions int64, err error) {
	table, cur := s.table("fact"), "tx_to = "+open
	if s.cfg.Layout == LayoutTriplex {
		table, cur = s.table("triples"), "retracted_at IS NULL"
	}
	q := "SELECT count(*), coalesce(sum(CASE WHEN " + cur + " THEN 1 ELSE 0 END), 0) FROM " + table
	if err := s.cfg.DB.QueryRowContext(ctx, q).Scan(&versions, &current); err != nil {
		return 0, 0, fmt.Errorf("store: count: %w", err)
	}
	return current, versions, nil
}

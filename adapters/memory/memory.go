// Package memory is an in-process, in-memory person store: a sorted slice behind a read/write lock.
// It does the least work any store can do for each workload, so its figures are the floor under every
// real adapter (the engine's own overhead plus a map lookup or a slice walk), and it lets the engine be
// exercised end to end anywhere, in milliseconds. It holds YCSB records too (records.go), for the
// load model's mixes.
package memory

import (
	"bytes"
	"context"
	"slices"
	"sync"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/workloads"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// Name is the adapter name.
const Name = "memory"

type adapter struct{}

// New returns the memory adapter.
func New() adapters.Adapter { return adapter{} }

func (adapter) Info() adapters.Info {
	return adapters.Info{
		Name:    Name,
		Summary: "in-process sorted slice behind a RWMutex: the floor under every real adapter",
		Builtin: workloads.Builtins,
		Records: ycsb.Ops(),
	}
}

func (adapter) Open(_ context.Context, _ adapters.Options, _ adapters.Env) (adapters.Target, error) {
	return &target{}, nil
}

// row is one stored person; the value is kept as the LMDB adapter keeps it, [age][name].
type row struct {
	email []byte
	value []byte
}

// store is a snapshot-consistent sorted slice: readers hold the read lock for a whole transaction.
type store struct {
	mu    sync.RWMutex
	rows  []row // sorted by email
	index map[string]int
}

func (s *store) load(rows []row) {
	slices.SortFunc(rows, func(a, b row) int { return bytes.Compare(a.email, b.email) })
	s.rows = rows
	s.index = make(map[string]int, len(rows))
	for i, r := range rows {
		s.index[string(r.email)] = i
	}
}

func encode(p dataset.Person) row {
	v := make([]byte, 1+len(p.Name))
	v[0] = byte(p.Age)
	copy(v[1:], p.Name)
	return row{email: append([]byte(nil), p.Email...), value: v}
}

// checkEvery is how many rows a scan reads between looks at its context: a scan is the one call
// long enough to be worth interrupting (lookups and inserts never block; the engine checks the
// context between them).
const checkEvery = 1024

// scan decodes the first n rows in email order.
func (s *store) scan(ctx context.Context, n int) (adapters.Tally, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var t adapters.Tally
	var p dataset.Person
	for i, r := range s.rows[:min(n, len(s.rows))] {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return t, ctx.Err()
		}
		p.Email, p.Age, p.Name = r.email, int(r.value[0]), r.value[1:]
		t.Rows++
		t.Sum += dataset.RowSum(p.Email, p.Name, p.Age)
	}
	return t, nil
}

type target struct {
	s store
	r records
}

// The capabilities a memory target offers (docs/adapters.md): removing a method fails the build.
var (
	_ adapters.OrderedScanner = (*target)(nil)
	_ adapters.PointReader    = (*target)(nil)
	_ adapters.Inserter       = (*target)(nil)
)

func (t *target) Load(_ context.Context, ds *dataset.Persons) error {
	rows := make([]row, ds.Len())
	for i := range rows {
		rows[i] = encode(ds.Person(i))
	}
	t.s.load(rows)
	return nil
}

func (t *target) Info() map[string]any {
	info := map[string]any{"rows": len(t.s.rows), "read_strategy": "RWMutex read lock per transaction"}
	t.r.mu.RLock()
	defer t.r.mu.RUnlock()
	if t.r.byKey != nil {
		info["records"] = len(t.r.byKey)
	}
	return info
}

func (t *target) Close() error { return nil }

func (t *target) Scan(ctx context.Context, n int) (adapters.Tally, error) { return t.s.scan(ctx, n) }

func (t *target) ScansInKeyOrder() bool { return true }

func (t *target) Lookup(_ context.Context, email []byte) (adapters.Tally, error) {
	t.s.mu.RLock()
	defer t.s.mu.RUnlock()
	i, ok := t.s.index[string(email)]
	if !ok {
		return adapters.Tally{}, nil
	}
	r := t.s.rows[i]
	return adapters.Tally{Rows: 1, Sum: dataset.RowSum(r.email, r.value[1:], int(r.value[0]))}, nil
}

func (t *target) NewInsertSession(context.Context) (adapters.InsertSession, error) {
	return &session{}, nil
}

// session is a fresh store filled by one write transaction.
type session struct {
	s       store
	pending []row
}

func (s *session) Begin(context.Context) error { s.s.mu.Lock(); return nil }

func (s *session) Insert(_ context.Context, p *dataset.Person) error {
	s.pending = append(s.pending, encode(*p))
	return nil
}

func (s *session) Commit(context.Context) error {
	s.s.load(s.pending)
	s.pending = nil
	s.s.mu.Unlock()
	return nil
}

func (s *session) Verify(ctx context.Context) (adapters.Tally, error) {
	return s.s.scan(ctx, len(s.s.rows))
}

func (s *session) Close() error { return nil }

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
	"sync/atomic"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/phase"
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

// sampleEvery is how often a profiled lookup's phases are timed (docs/profile.md): a map read costs
// about what reading the clock does, so one lookup in sampleEvery is timed and stands for the others,
// which read no clock.
const sampleEvery = 16

// scan decodes the first n rows in email order. Profiled (rec not nil), each block of checkEvery
// rows is timed as copy: stepping to a row of the slice and decoding it cost a few ns together, less
// than a clock read, and cannot be told apart; a block is timed whole (docs/profile.md).
func (s *store) scan(ctx context.Context, n int, rec *phase.Recorder) (adapters.Tally, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var t adapters.Tally
	var p dataset.Person
	m := rec.Start()
	for i, r := range s.rows[:min(n, len(s.rows))] {
		if i%checkEvery == 0 {
			if i > 0 {
				m = rec.Lap(m, phase.Copy)
			}
			if ctx.Err() != nil {
				return t, ctx.Err()
			}
		}
		p.Email, p.Age, p.Name = r.email, int(r.value[0]), r.value[1:]
		t.Rows++
		t.Sum += dataset.RowSum(p.Email, p.Name, p.Age)
	}
	rec.Lap(m, phase.Copy)
	return t, nil
}

type target struct {
	s store
	r records
	// rec is the phase recorder of a profiled repeat (nil: not profiled), and looked the lookups
	// made under it, for sampling.
	rec    atomic.Pointer[phase.Recorder]
	looked atomic.Int64
}

// The capabilities a memory target offers (docs/adapters.md): removing a method fails the build.
var (
	_ adapters.OrderedScanner = (*target)(nil)
	_ adapters.PointReader    = (*target)(nil)
	_ adapters.Inserter       = (*target)(nil)
	_ adapters.Profiler       = (*target)(nil)
)

// Profile takes the recorder of a profiled repeat (nil after it).
func (t *target) Profile(r *phase.Recorder) {
	t.rec.Store(r)
	t.looked.Store(0)
}

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

func (t *target) Scan(ctx context.Context, n int) (adapters.Tally, error) {
	return t.s.scan(ctx, n, t.rec.Load())
}

func (t *target) ScansInKeyOrder() bool { return true }

// Lookup reads one person under the read lock. Profiled, one lookup in sampleEvery has its map read
// (lock included) timed as get and its decoding as copy.
func (t *target) Lookup(_ context.Context, email []byte) (adapters.Tally, error) {
	if rec := t.rec.Load(); rec != nil && phase.Sample(int(t.looked.Add(1)-1), sampleEvery) {
		return t.lookupSampled(rec, email), nil
	}
	t.s.mu.RLock()
	defer t.s.mu.RUnlock()
	i, ok := t.s.index[string(email)]
	if !ok {
		return adapters.Tally{}, nil
	}
	r := t.s.rows[i]
	return adapters.Tally{Rows: 1, Sum: dataset.RowSum(r.email, r.value[1:], int(r.value[0]))}, nil
}

// lookupSampled is Lookup with its phases timed.
func (t *target) lookupSampled(rec *phase.Recorder, email []byte) adapters.Tally {
	m := rec.Start()
	t.s.mu.RLock()
	defer t.s.mu.RUnlock()
	i, ok := t.s.index[string(email)]
	m = rec.LapSampled(m, phase.Get, sampleEvery)
	if !ok {
		return adapters.Tally{}
	}
	r := t.s.rows[i]
	sum := dataset.RowSum(r.email, r.value[1:], int(r.value[0]))
	rec.LapSampled(m, phase.Copy, sampleEvery)
	return adapters.Tally{Rows: 1, Sum: sum}
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
	return s.s.scan(ctx, len(s.s.rows), nil)
}

func (s *session) Close() error { return nil }

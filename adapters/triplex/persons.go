package triplex

import (
	"context"
	"fmt"
	"strconv"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/triplex/store"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/workloads"
)

// personDecoder turns a stream of facts in (entity, attribute) order into persons: three facts per
// entity, age, email and name (the attributes sorted by ident).
type personDecoder struct {
	e     int64
	seen  int
	email []byte
	name  []byte
	age   int
	tally adapters.Tally
	limit int64 // stop after this many persons (0: no limit)
}

func (d *personDecoder) fact(f store.Fact) error {
	if f.E != d.e {
		if err := d.finish(); err != nil {
			return err
		}
		d.e, d.seen = f.E, 0
	}
	if f.A != d.seen {
		return fmt.Errorf("triplex: person entity %d: attribute %d where %d was expected", f.E, f.A, d.seen)
	}
	d.seen++
	switch f.A {
	case personAge:
		if f.V.Kind != store.Number {
			return fmt.Errorf("triplex: person entity %d: age is a %s", f.E, f.V.Kind)
		}
		d.age = int(f.V.Num)
	case personEmail:
		d.email = append(d.email[:0], f.V.Str...)
	case personName:
		d.name = append(d.name[:0], f.V.Str...)
	}
	return nil
}

// finish emits the entity being decoded, if any.
func (d *personDecoder) finish() error {
	if d.e == 0 {
		return nil
	}
	if d.seen != factsPerEntity {
		return fmt.Errorf("triplex: person entity %d has %d facts, want %d", d.e, d.seen, factsPerEntity)
	}
	p := dataset.Person{Email: d.email, Name: d.name, Age: d.age}
	d.tally.Rows++
	d.tally.Sum += dataset.RowSum(p.Email, p.Name, p.Age)
	d.e = 0
	return nil
}

// Scan reads the first n persons (in email order, which is entity order) in one statement.
func (t *target) Scan(ctx context.Context, n int) (adapters.Tally, error) {
	if t.persons == nil {
		return adapters.Tally{}, errNoPersons(workloads.Scan)
	}
	var d personDecoder
	if err := t.persons.ScanCurrent(ctx, n*factsPerEntity, d.fact); err != nil {
		return d.tally, err
	}
	if err := d.finish(); err != nil {
		return d.tally, err
	}
	return d.tally, nil
}

// ScansInKeyOrder: entities are numbered in email order.
func (t *target) ScansInKeyOrder() bool { return true }

// Lookup reads one person by email: the entity whose :person/email holds it, and its facts.
func (t *target) Lookup(ctx context.Context, email []byte) (adapters.Tally, error) {
	if t.persons == nil {
		return adapters.Tally{}, errNoPersons(workloads.Lookup)
	}
	var d personDecoder
	v := store.Value{Kind: store.String, Str: email}
	if err := t.persons.EntityByValue(ctx, personEmail, v, d.fact); err != nil {
		return adapters.Tally{}, err
	}
	if err := d.finish(); err != nil {
		return adapters.Tally{}, err
	}
	if d.tally.Rows > 1 {
		return d.tally, fmt.Errorf("triplex: %d persons with email %q", d.tally.Rows, email)
	}
	return d.tally, nil
}

// NewInsertSession creates an empty person store (same backend and layout, all indexes live).
func (t *target) NewInsertSession(ctx context.Context) (adapters.InsertSession, error) {
	t.mu.Lock()
	t.sessions++
	name := "ins" + strconv.Itoa(t.sessions)
	t.mu.Unlock()
	cfg, release, err := t.newStore(ctx, name)
	if err != nil {
		return nil, err
	}
	cfg.Schema = personSchema
	s, err := store.Create(ctx, cfg)
	if err != nil {
		_ = release()
		return nil, t.storeErr("insert session", err)
	}
	return &insertSession{s: s, release: release, vals: make([]store.Value, len(personSchema.Attrs))}, nil
}

type insertSession struct {
	s       *store.Store
	release func() error
	w       *store.Writer
	next    int64
	vals    []store.Value
}

func (s *insertSession) Begin(ctx context.Context) error {
	w, err := s.s.Begin(ctx)
	s.w = w
	return err
}

func (s *insertSession) Insert(ctx context.Context, p *dataset.Person) error {
	s.next++
	if err := s.w.NewEntity(ctx, s.next); err != nil {
		return err
	}
	personValues(*p, s.vals)
	for a, v := range s.vals {
		if err := s.w.Assert(ctx, s.next, a, v); err != nil {
			return err
		}
	}
	return nil
}

func (s *insertSession) Commit(ctx context.Context) error { return s.w.Commit(ctx) }

func (s *insertSession) Verify(ctx context.Context) (adapters.Tally, error) {
	var d personDecoder
	if err := s.s.ScanCurrent(ctx, int(s.next)*factsPerEntity+1, d.fact); err != nil {
		return d.tally, err
	}
	err := d.finish()
	return d.tally, err
}

func (s *insertSession) Close() error {
	if s.w != nil {
		_ = s.w.Rollback()
	}
	err := s.s.Drop(context.Background())
	if rerr := s.release(); err == nil {
		err = rerr
	}
	return err
}

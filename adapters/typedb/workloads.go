package typedb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/adapters/typedb/client"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/randhex"
)

// Schema is the person schema every TypeDB target defines.
const Schema = `define attribute email, value string; attribute name, value string; attribute age, value integer; ` +
	`entity person, owns email @key, owns name, owns age;`

// scanQuery matches every person with its three attributes; a limit clause is appended.
const scanQuery = `match $p isa person, has email $e, has name $n, has age $a;`

// loadQueriesPerTx is how many loader insert queries share a write transaction.
const loadQueriesPerTx = 100

// readOptions are the query options of a read of rows persons: no types, no query structure, and
// an answer limit that lets every row through (unless answer_limit says otherwise).
func (t *target) readOptions(rows int) client.QueryOptions {
	limit := rows
	if t.set.answerLimit > 0 {
		limit = t.set.answerLimit
	}
	return client.QueryOptions{AnswerCountLimit: max(limit, 1)}
}

func (t *target) txOptions() client.TransactionOptions {
	return client.TransactionOptions{Timeout: t.set.txTimeout}
}

// personRows decodes rows binding e, n and a into a dataset.Person and tallies them.
type personRows struct {
	tally adapters.Tally
}

func (pr *personRows) handle(r *client.Row) error {
	e, n, a := r.Get("e"), r.Get("n"), r.Get("a")
	if e == nil || n == nil || a == nil {
		return fmt.Errorf("typedb: an answer row lacks email, name or age")
	}
	age, err := a.Int()
	if err != nil {
		return fmt.Errorf("typedb: age: %w", err)
	}
	p := dataset.Person{Email: e.Bytes(), Name: n.Bytes(), Age: int(age)}
	pr.tally.Rows++
	pr.tally.Sum += dataset.RowSum(p.Email, p.Name, p.Age)
	return nil
}

// errTruncated marks an answer the server cut at the answer limit.
var errTruncated = errors.New("answer cut by the limit")

// checkComplete fails an answer the server cut at the answer limit.
func (t *target) checkComplete(a client.Answer, want int) error {
	if !a.Truncated() {
		return nil
	}
	what := fmt.Sprintf("the server returned %d rows with HTTP %d (%q)", a.Rows, a.Status, a.Warning)
	if t.set.answerLimit > 0 && t.set.answerLimit < want {
		return exitcode.Usagef("typedb: %w: %s; answer_limit %d is below the %d rows asked for: raise it or set 0", errTruncated, what, t.set.answerLimit, want)
	}
	return exitcode.Infraf("typedb: %w: %s although answerCountLimit was %d", errTruncated, what, t.readOptions(want).AnswerCountLimit)
}

// closeTx closes a transaction even when ctx is cancelled.
func closeTx(ctx context.Context, tx *client.Transaction) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	return tx.Close(ctx)
}

// scanIn reads n persons in one read transaction of database db.
func (t *target) scanIn(ctx context.Context, db string, n int, limitClause bool) (adapters.Tally, error) {
	tx, err := t.c.OpenTransaction(ctx, db, client.Read, t.txOptions())
	if err != nil {
		return adapters.Tally{}, exitcode.AsInfra(err)
	}
	tl, err := t.queryRows(ctx, tx, n, limitClause)
	if cerr := closeTx(ctx, tx); err == nil && cerr != nil {
		err = exitcode.AsInfra(cerr)
	}
	return tl, err
}

func scanText(n int, limitClause bool) string {
	if !limitClause {
		return scanQuery
	}
	return scanQuery + " limit " + strconv.Itoa(n) + ";"
}

// queryRows runs the scan query for n rows in tx and checks the answer is whole.
func (t *target) queryRows(ctx context.Context, tx *client.Transaction, n int, limitClause bool) (adapters.Tally, error) {
	var pr personRows
	a, err := tx.Query(ctx, scanText(n, limitClause), t.readOptions(n), pr.handle)
	if err != nil {
		return pr.tally, exitcode.AsInfra(err)
	}
	return pr.tally, t.checkComplete(a, n)
}

// Load defines the schema and inserts the dataset, personsPerLoadQuery persons per query. A reused
// database must be empty or already hold exactly this dataset.
func (t *target) Load(ctx context.Context, ds *dataset.Persons) error {
	if err := t.c.Define(ctx, t.db, Schema); err != nil {
		return exitcode.AsInfra(err)
	}
	if !t.createdDB {
		tl, err := t.scanIn(ctx, t.db, ds.Len()+1, false)
		if errors.Is(err, errTruncated) && exitcode.Of(err) == exitcode.Infra {
			// Not the user's answer_limit: the database answers with more than this dataset holds.
			return exitcode.Usagef("typedb: the reused database %q holds data that is not this dataset of %d persons (its answer exceeds the limit): use an empty database or another name", t.db, ds.Len())
		}
		if err != nil {
			return err
		}
		switch {
		case tl.Rows == int64(ds.Len()) && tl.Sum == ds.SumFirst(ds.Len()):
			t.logf("database %s already holds this dataset (%d persons): not loading", t.db, ds.Len())
			t.rows = ds.Len()
			return nil
		case tl.Rows != 0:
			return exitcode.Usagef("typedb: the reused database %q holds %d persons that are not this dataset of %d: use an empty database or another name", t.db, tl.Rows, ds.Len())
		}
	}
	t0 := time.Now()
	var q strings.Builder
	var tx *client.Transaction
	queries := 0
	for start := 0; start < ds.Len(); start += personsPerLoadQuery {
		if tx == nil {
			var err error
			if tx, err = t.c.OpenTransaction(ctx, t.db, client.Write, t.txOptions()); err != nil {
				return exitcode.AsInfra(err)
			}
		}
		q.Reset()
		q.WriteString("insert")
		for i := start; i < min(ds.Len(), start+personsPerLoadQuery); i++ {
			// Each person needs its own variable: reusing one in an insert is an error.
			appendInsert(&q, "p"+strconv.Itoa(i-start), ds.Email(i), ds.Name(i), ds.Age(i))
		}
		if _, err := tx.Query(ctx, q.String(), client.QueryOptions{}, nil); err != nil {
			_ = closeTx(ctx, tx)
			return exitcode.AsInfra(fmt.Errorf("loading persons %d..: %w", start, err))
		}
		if queries++; queries == loadQueriesPerTx || start+personsPerLoadQuery >= ds.Len() {
			if err := tx.Commit(ctx); err != nil {
				return exitcode.AsInfra(fmt.Errorf("loading persons: commit: %w", err))
			}
			tx, queries = nil, 0
		}
	}
	t.rows = ds.Len()
	t.logf("loaded %d persons into %s in %v", ds.Len(), t.db, time.Since(t0).Round(time.Millisecond))
	return nil
}

// appendInsert adds one `$v isa person, has …;` statement.
func appendInsert(b *strings.Builder, v string, email, name []byte, age int) {
	b.WriteString(" $")
	b.WriteString(v)
	b.WriteString(" isa person, has email ")
	quote(b, email)
	b.WriteString(", has name ")
	quote(b, name)
	b.WriteString(", has age ")
	b.WriteString(strconv.Itoa(age))
	b.WriteByte(';')
}

// quote writes a TypeQL string literal: double quotes, with '"' and '\' escaped.
func quote(b *strings.Builder, s []byte) {
	b.WriteByte('"')
	for _, c := range s {
		if c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
}

// Scan reads n persons in one read transaction.
func (t *target) Scan(ctx context.Context, n int) (adapters.Tally, error) {
	return t.scanIn(client.WithPhases(ctx, t.prof), t.db, n, true)
}

func lookupText(email []byte) string {
	var b strings.Builder
	b.WriteString(`match $p isa person, has email `)
	quote(&b, email)
	b.WriteString(`, has name $n, has age $a;`)
	return b.String()
}

// Lookup finds one person by email in a read transaction of its own. The query binds name and age;
// the email is the key that matched.
func (t *target) Lookup(ctx context.Context, email []byte) (adapters.Tally, error) {
	ctx = client.WithPhases(ctx, t.prof)
	q := lookupText(email)
	opts := client.QueryOptions{AnswerCountLimit: 2}
	var tl adapters.Tally
	h := func(r *client.Row) error {
		n, a := r.Get("n"), r.Get("a")
		if n == nil || a == nil {
			return fmt.Errorf("typedb: a lookup row lacks name or age")
		}
		age, err := a.Int()
		if err != nil {
			return fmt.Errorf("typedb: age: %w", err)
		}
		tl.Rows++
		tl.Sum += dataset.RowSum(email, n.Bytes(), int(age))
		return nil
	}
	var a client.Answer
	var err error
	if t.set.lookupMode == LookupTransaction {
		var tx *client.Transaction
		if tx, err = t.c.OpenTransaction(ctx, t.db, client.Read, t.txOptions()); err != nil {
			return tl, exitcode.AsInfra(err)
		}
		a, err = tx.Query(ctx, q, opts, h)
		if cerr := closeTx(ctx, tx); err == nil {
			err = cerr
		}
	} else {
		a, err = t.c.Query(ctx, client.OneShot{Database: t.db, Type: client.Read, TransactionOptions: t.txOptions(), Query: q, QueryOptions: opts}, h)
	}
	if err != nil {
		return tl, exitcode.AsInfra(err)
	}
	if tl.Rows > 1 || a.Truncated() {
		return tl, exitcode.Infraf("typedb: %d persons have the email %q, which is a key", a.Rows, email)
	}
	return tl, nil
}

// NewInsertSession creates a fresh database with the schema (untimed).
func (t *target) NewInsertSession(ctx context.Context) (adapters.InsertSession, error) {
	var db string
	for {
		db = t.db + "_ins_" + randhex.String(3)
		exists, err := t.c.DatabaseExists(ctx, db)
		if err != nil {
			return nil, exitcode.AsInfra(err)
		}
		if !exists {
			break
		}
	}
	if err := t.c.CreateDatabase(ctx, db); err != nil {
		return nil, exitcode.AsInfra(err)
	}
	t.mu.Lock()
	t.insertDB = append(t.insertDB, db)
	t.mu.Unlock()
	s := &insertSession{t: t, db: db}
	if err := t.c.Define(ctx, db, Schema); err != nil {
		_ = s.Close()
		return nil, exitcode.AsInfra(err)
	}
	return s, nil
}

type insertSession struct {
	t        *target
	db       string
	tx       *client.Transaction
	inserted int
	q        strings.Builder
	closed   bool
}

func (s *insertSession) Begin(ctx context.Context) error {
	tx, err := s.t.c.OpenTransaction(client.WithPhases(ctx, s.t.prof), s.db, client.Write, s.t.txOptions())
	if err != nil {
		return exitcode.AsInfra(err)
	}
	s.tx = tx
	return nil
}

// Insert sends one insert query for p and checks the answer is one write row.
func (s *insertSession) Insert(ctx context.Context, p *dataset.Person) error {
	s.q.Reset()
	s.q.WriteString("insert")
	appendInsert(&s.q, "p", p.Email, p.Name, p.Age)
	a, err := s.tx.Query(client.WithPhases(ctx, s.t.prof), s.q.String(), client.QueryOptions{}, nil)
	if err != nil {
		return exitcode.AsInfra(err)
	}
	if a.QueryType != "write" || a.Rows != 1 {
		return exitcode.Infraf("typedb: insert answered %s with %d rows, want one write row", a.QueryType, a.Rows)
	}
	s.inserted++
	return nil
}

func (s *insertSession) Commit(ctx context.Context) error {
	err := s.tx.Commit(client.WithPhases(ctx, s.t.prof))
	s.tx = nil
	return exitcode.AsInfra(err)
}

func (s *insertSession) Verify(ctx context.Context) (adapters.Tally, error) {
	return s.t.scanIn(ctx, s.db, s.inserted+1, false)
}

// Close drops the session's database, once: the engine may call it twice.
func (s *insertSession) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	ctx, cancel := s.t.cleanupContext()
	defer cancel()
	if s.tx != nil {
		_ = s.tx.Close(ctx)
		s.tx = nil
	}
	err := s.t.dropDatabase(ctx, s.db)
	s.t.mu.Lock()
	for i, db := range s.t.insertDB {
		if db == s.db {
			s.t.insertDB = append(s.t.insertDB[:i], s.t.insertDB[i+1:]...)
			break
		}
	}
	s.t.mu.Unlock()
	return exitcode.AsInfra(err)
}

// ScanConcurrently runs readers concurrent read transactions of rows persons each. With
// open-first, every transaction is opened before a barrier releases the readers: TypeDB's HTTP
// service opens a transaction under an exclusive lock on its transaction table, which waits for
// every running query, so opening behind running scans would measure that lock.
func (t *target) ScanConcurrently(ctx context.Context, readers, rows int, lat []time.Duration) ([]adapters.Tally, time.Duration, error) {
	tallies := make([]adapters.Tally, readers)
	txs := make([]*client.Transaction, readers)
	defer func() {
		for _, tx := range txs {
			if tx != nil {
				_ = closeTx(ctx, tx)
			}
		}
	}()
	if t.set.concurrentMode == ConcurrentOpenFirst {
		errs := make([]error, readers)
		var wg sync.WaitGroup
		for i := range readers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				txs[i], errs[i] = t.c.OpenTransaction(ctx, t.db, client.Read, t.txOptions())
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return nil, 0, exitcode.AsInfra(err)
			}
		}
	}
	errs := make([]error, readers)
	release := make(chan struct{})
	rctx := client.WithPhases(ctx, t.prof) // the readers' timed regions, not the opens before them
	var wg sync.WaitGroup
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-release
			t0 := time.Now()
			var pr personRows
			if tx := txs[i]; tx != nil {
				pr.tally, errs[i] = t.queryRows(rctx, tx, rows, true)
				if err := closeTx(rctx, tx); errs[i] == nil && err != nil {
					errs[i] = exitcode.AsInfra(err)
				}
			} else {
				a, err := t.c.Query(rctx, client.OneShot{Database: t.db, Type: client.Read, TransactionOptions: t.txOptions(),
					Query: scanText(rows, true), QueryOptions: t.readOptions(rows)}, pr.handle)
				if err == nil {
					err = t.checkComplete(a, rows)
				}
				errs[i] = exitcode.AsInfra(err)
			}
			lat[i] = time.Since(t0)
			tallies[i] = pr.tally
		}()
	}
	start := time.Now()
	close(release)
	wg.Wait()
	wall := time.Since(start)
	clear(txs) // closed by the readers
	for _, err := range errs {
		if err != nil {
			return tallies, wall, err
		}
	}
	return tallies, wall, nil
}

// The capabilities a typedb target offers (docs/adapters.md): removing a method fails the build. Its
// scans are not in key order (no OrderedScanner): a partial scan's checksum is compared across
// repeats and targets.
var (
	_ adapters.Scanner           = (*target)(nil)
	_ adapters.PointReader       = (*target)(nil)
	_ adapters.Inserter          = (*target)(nil)
	_ adapters.ConcurrentScanner = (*target)(nil)
	_ adapters.Profiler          = (*target)(nil)
)

// Profile marks the phases of the timed requests that follow on r (nil: none); see
// client.WithPhases for what each phase covers.
func (t *target) Profile(r *phase.Recorder) { t.prof = r }

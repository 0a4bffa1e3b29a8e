package sqladapter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// target is one person table. Reads may run on many goroutines at once: each takes a connection of
// the pool (the concurrent workload is the engine's default, one Scan per reader).
type target struct {
	s      *store
	scan   string
	lookup *sql.Stmt
	closed bool
	// rec is the loaded usertable's statements (nil before LoadRecords); recordTable says that this
	// target created a usertable, which it then drops.
	rec         *records
	recordTable bool
	// prof is the phase recorder of a profiled repeat (nil: not profiled).
	prof atomic.Pointer[phase.Recorder]
	// noPersons: the target made no person table (it runs no workload on the persons), so it drops
	// none of that name either (a table of the user's, or of a sql workload's setup).
	noPersons bool
}

// The capabilities a sql target offers (docs/adapters.md): removing a method fails the build.
var (
	_ adapters.OrderedScanner = (*target)(nil)
	_ adapters.PointReader    = (*target)(nil)
	_ adapters.Inserter       = (*target)(nil)
	_ adapters.Profiler       = (*target)(nil)
)

// Profile takes the recorder of a profiled repeat (nil after it): scans mark txn (begin, and close
// with commit), execute (the query until its first row), fetch (stepping to the next row) and scan
// (Scan into values); lookups execute, scan and fetch (the end of the result); inserts txn and
// execute (docs/profile.md).
func (t *target) Profile(r *phase.Recorder) { t.prof.Store(r) }

// newTarget creates the empty persons table (refusing one that exists: it is not ours) and prepares
// the lookup statement once, when the target runs a workload on the persons (persons): a target
// that runs only YCSB and sql workloads makes no table it does not use (a sql workload's own setup
// may make one of that name).
func newTarget(ctx context.Context, s *store, persons bool) (*target, error) {
	if s.use == adapters.StoreAttach {
		return attachTarget(ctx, s)
	}
	if !persons {
		return &target{s: s, scan: s.bind(scanSQL), noPersons: true}, nil
	}
	if err := s.reclaimKept(ctx, personsTable); err != nil {
		return nil, err
	}
	if _, err := s.db.ExecContext(ctx, fmt.Sprintf(s.createSQL, personsTable)); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P07" { // duplicate_table
			return nil, exitcode.Usagef("sql: table %s exists already in the schema; dbbench never touches a table it did not create", personsTable)
		}
		return nil, exitcode.Infraf("sql: create table %s: %v", personsTable, exitcode.OneLine(err.Error()))
	}
	if err := s.markKept(ctx, personsTable); err != nil {
		return nil, err
	}
	t := &target{s: s, scan: s.bind(scanSQL)}
	var err error
	if t.lookup, err = s.db.PrepareContext(ctx, s.bind(lookupSQL)); err != nil {
		return nil, errors.Join(exitcode.Infraf("sql: prepare the lookup: %v", err), t.dropTables())
	}
	return t, nil
}

// Load stores the dataset with the driver's bulk path; attached to a loaded store, it checks that
// the table holds the dataset's count instead.
func (t *target) Load(ctx context.Context, ds *dataset.Persons) error {
	if t.s.use == adapters.StoreAttach {
		return t.checkCount(ctx, personsTable, int64(ds.Len()), false)
	}
	return t.s.load(ctx, ds)
}

// attachTarget is a target on the tables a load-only run left (adapters.StoreAttach): it makes
// nothing, and prepares the lookup only when the persons table is there (a YCSB-only load has none).
func attachTarget(ctx context.Context, s *store) (*target, error) {
	t := &target{s: s, scan: s.bind(scanSQL)}
	var reg sql.NullString
	if err := s.db.QueryRowContext(ctx, "SELECT to_regclass($1)::text", personsTable).Scan(&reg); err != nil {
		return nil, exitcode.Infraf("sql: look up table %s: %v", personsTable, exitcode.OneLine(err.Error()))
	}
	if reg.Valid {
		var err error
		if t.lookup, err = s.db.PrepareContext(ctx, s.bind(lookupSQL)); err != nil {
			return nil, exitcode.Infraf("sql: prepare the lookup: %v", exitcode.OneLine(err.Error()))
		}
	}
	return t, nil
}

// checkCount refuses a table of a loaded store that is missing or does not hold n rows (at least
// n when atLeast: other shards may have inserted already).
func (t *target) checkCount(ctx context.Context, table string, n int64, atLeast bool) error {
	var got int64
	err := t.s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&got)
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "42P01": // undefined_table
		return exitcode.Usagef("sql: the shared store has no table %s: load it with dbbench run --load-only first", table)
	case err != nil:
		return exitcode.Infraf("sql: count %s: %v", table, exitcode.OneLine(err.Error()))
	case got < n || !atLeast && got != n:
		return exitcode.Usagef("sql: the shared store's table %s holds %d rows, the load this run expects %d: load it again with dbbench run --load-only", table, got, n)
	}
	return nil
}

// ScansInKeyOrder is true: ORDER BY email is byte order (SQLite's BINARY, PostgreSQL's "C" collation).
func (t *target) ScansInKeyOrder() bool { return true }

// Scan reads the first n persons in email order in one read transaction.
func (t *target) Scan(ctx context.Context, n int) (adapters.Tally, error) {
	rec := t.prof.Load()
	m := rec.Start()
	tx, err := t.s.db.BeginTx(ctx, t.s.readTx)
	if err != nil {
		return adapters.Tally{}, readErr(err)
	}
	defer tx.Rollback()
	m = rec.Lap(m, phase.Txn)
	rows, err := tx.QueryContext(ctx, t.scan, n)
	if err != nil {
		return adapters.Tally{}, readErr(err)
	}
	tally, err := readRows(rows, rec, m)
	if err != nil {
		return tally, readErr(err)
	}
	m = rec.Start()
	err = tx.Commit()
	rec.Lap(m, phase.Txn)
	return tally, readErr(err)
}

// readRows decodes every row into a person and folds it into the tally, then closes rows.
// Profiled (rec not nil, m the mark of the query's start), the query until its first row is execute,
// each row's Scan and fold scan, and each step to the next row fetch: every row is timed, a row
// costing several clock reads on either driver (docs/profile.md).
func readRows(rows *sql.Rows, rec *phase.Recorder, m phase.Mark) (adapters.Tally, error) {
	defer rows.Close()
	var (
		tally       adapters.Tally
		email, name sql.RawBytes // valid until Next: no copy per row
		age         int
	)
	more := rows.Next()
	m = rec.Lap(m, phase.Execute)
	for more {
		if err := rows.Scan(&email, &name, &age); err != nil {
			return tally, err
		}
		p := dataset.Person{Email: email, Name: name, Age: age}
		tally.Rows++
		tally.Sum += dataset.RowSum(p.Email, p.Name, p.Age)
		m = rec.Lap(m, phase.Scan)
		more = rows.Next()
		m = rec.Lap(m, phase.Fetch)
	}
	return tally, rows.Err()
}

func readErr(err error) error {
	if err == nil {
		return nil
	}
	return exitcode.AsInfra(fmt.Errorf("sql read: %w", err))
}

// Lookup runs the prepared lookup, in its own (autocommit) transaction.
func (t *target) Lookup(ctx context.Context, email []byte) (adapters.Tally, error) {
	if rec := t.prof.Load(); rec != nil {
		return t.lookupProfiled(ctx, email, rec)
	}
	var p struct {
		email, name string
		age         int
	}
	err := t.lookup.QueryRowContext(ctx, string(email)).Scan(&p.email, &p.name, &p.age)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return adapters.Tally{}, nil
	case err != nil:
		return adapters.Tally{}, readErr(err)
	}
	return adapters.Tally{Rows: 1, Sum: dataset.RowSum(p.email, p.name, p.age)}, nil
}

// lookupProfiled is Lookup with its phases timed, each lookup (one is tens of µs): what QueryRow and
// Scan do, in their steps: the query until its row is ready (execute), Scan and fold (scan), the end
// of the result and its close (fetch).
func (t *target) lookupProfiled(ctx context.Context, email []byte, rec *phase.Recorder) (adapters.Tally, error) {
	var p struct {
		email, name string
		age         int
	}
	m := rec.Start()
	rows, err := t.lookup.QueryContext(ctx, string(email))
	if err != nil {
		return adapters.Tally{}, readErr(err)
	}
	defer rows.Close()
	found := rows.Next()
	m = rec.Lap(m, phase.Execute)
	var tally adapters.Tally
	if found {
		if err := rows.Scan(&p.email, &p.name, &p.age); err != nil {
			return adapters.Tally{}, readErr(err)
		}
		tally = adapters.Tally{Rows: 1, Sum: dataset.RowSum(p.email, p.name, p.age)}
		m = rec.Lap(m, phase.Scan)
	}
	err = rows.Close()
	if err == nil {
		err = rows.Err()
	}
	rec.Lap(m, phase.Fetch)
	return tally, readErr(err)
}

// Info describes the driver, the server and its settings.
func (t *target) Info() map[string]any {
	m := t.s.info(context.Background())
	m["scan"] = t.scan + " (one read transaction)"
	m["lookup"] = "one prepared statement, each call its own autocommit transaction"
	m["concurrent"] = "the engine's default: one Scan per reader, each on a connection of the pool"
	if t.rec != nil {
		m["records"] = fmt.Sprintf("table %s (%s primary key in byte order, %d fields); read, insert, scan and one update per field prepared at load, each operation its own autocommit transaction",
			recordTable, keyColumn, t.rec.fields)
	}
	return m
}

// Close drops what the target created and closes the database.
func (t *target) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	var err error
	if t.lookup != nil {
		err = t.lookup.Close()
	}
	if t.s.use != adapters.StoreOwn { // loaded for the shards, or theirs: the tables stay
		if t.rec != nil {
			err = errors.Join(err, t.rec.close())
		}
		return errors.Join(err, t.s.close())
	}
	return errors.Join(err, t.dropTables(), t.s.close())
}

// dropTables drops the tables this target created, for a store whose schema outlives it (given by
// the options); a schema or file of our own goes as a whole in s.close.
func (t *target) dropTables() error {
	ctx, cancel := t.s.cleanupContext()
	defer cancel()
	err := t.dropRecords(ctx)
	tables := []string{insertTable, personsTable}
	if t.noPersons {
		tables = nil
	}
	for _, table := range tables {
		if _, dropErr := t.s.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+table); dropErr != nil {
			return errors.Join(err, exitcode.Infraf("sql: drop table %s: %v", table, exitcode.OneLine(dropErr.Error())))
		}
	}
	return err
}

// NewInsertSession creates the fresh, empty table persons_insert beside the loaded one and prepares
// the insert on a connection of its own (untimed): the timed region (Begin, Insert N times, Commit)
// then holds the transaction and the statement's executions only, as a client that prepares its
// statement once and reuses it would.
func (t *target) NewInsertSession(ctx context.Context) (adapters.InsertSession, error) {
	if _, err := t.s.db.ExecContext(ctx, fmt.Sprintf(t.s.createSQL, insertTable)); err != nil {
		return nil, exitcode.Infraf("sql: create table %s: %v", insertTable, exitcode.OneLine(err.Error()))
	}
	s := &insertSession{t: t}
	var err error
	if s.conn, err = t.s.db.Conn(ctx); err != nil {
		err = exitcode.Infraf("sql insert: connect: %v", err)
	} else if s.stmt, err = s.conn.PrepareContext(ctx, t.s.bind(fmt.Sprintf(insertSQL, insertTable))); err != nil {
		err = exitcode.Infraf("sql insert: prepare: %v", exitcode.OneLine(err.Error()))
	}
	if err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return s, nil
}

// insertSession is one fresh table: begin, the prepared insert once per person, commit. The
// statement is prepared on conn, the connection the transaction runs on: executed there while the
// transaction is open, it runs inside it (tx.Stmt would prepare it again, in the timed region).
type insertSession struct {
	t    *target
	conn *sql.Conn
	stmt *sql.Stmt
	tx   *sql.Tx
}

func (s *insertSession) Begin(ctx context.Context) error {
	if s.tx != nil {
		return errors.New("sql insert: Begin called twice")
	}
	m := s.t.prof.Load().Start()
	tx, err := s.conn.BeginTx(ctx, nil)
	if err != nil {
		return exitcode.Infraf("sql insert: begin: %v", err)
	}
	s.t.prof.Load().Lap(m, phase.Txn)
	s.tx = tx
	return nil
}

func (s *insertSession) Insert(ctx context.Context, p *dataset.Person) error {
	if s.tx == nil {
		return errors.New("sql insert: Insert outside Begin/Commit")
	}
	rec := s.t.prof.Load()
	m := rec.Start()
	if _, err := s.stmt.ExecContext(ctx, string(p.Email), string(p.Name), p.Age); err != nil {
		return exitcode.Infraf("sql insert %q: %v", p.Email, exitcode.OneLine(err.Error()))
	}
	rec.Lap(m, phase.Execute)
	return nil
}

func (s *insertSession) Commit(ctx context.Context) error {
	if s.tx == nil {
		return errors.New("sql insert: Commit without Begin")
	}
	rec := s.t.prof.Load()
	m := rec.Start()
	err := s.tx.Commit()
	rec.Lap(m, phase.Txn)
	s.tx = nil
	if err != nil {
		return exitcode.Infraf("sql insert: commit: %v", err)
	}
	return nil
}

// Verify reads the fresh table back.
func (s *insertSession) Verify(ctx context.Context) (adapters.Tally, error) {
	rows, err := s.t.s.db.QueryContext(ctx, fmt.Sprintf(readSQL, insertTable))
	if err != nil {
		return adapters.Tally{}, readErr(err)
	}
	t, err := readRows(rows, nil, phase.Mark{})
	return t, readErr(err)
}

// Close rolls back an unfinished transaction, lets the connection go and drops the fresh table.
func (s *insertSession) Close() error {
	var err error
	if s.tx != nil {
		err = s.tx.Rollback()
		s.tx = nil
	}
	if s.stmt != nil {
		err = errors.Join(err, s.stmt.Close())
		s.stmt = nil
	}
	if s.conn != nil {
		err = errors.Join(err, s.conn.Close())
		s.conn = nil
	}
	ctx, cancel := s.t.s.cleanupContext()
	defer cancel()
	if _, dropErr := s.t.s.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+insertTable); dropErr != nil {
		err = errors.Join(err, exitcode.Infraf("sql insert: drop table %s: %v", insertTable, dropErr))
	}
	return err
}

package adapters

import "context"

// The sql workload's capability (docs/sql.md): a target that runs SQL of the config's own, its
// setup and teardown once, then its transactions' statements prepared on connections of their own,
// one per worker of the load model. The engine times each execution and checks each result (rows,
// and a checksum of the values it kept) outside its clock; the target only runs what it is given.

// The SQL dialects a target may speak (SQLRunner.SQLDialect): what pgbench's init writes for it
// and how a statement's arguments are bound.
const (
	DialectPostgres = "postgres" // arguments bound as text, as pgbench -M prepared sends them
	DialectSQLite   = "sqlite"   // arguments typed: int64, float64, bool, string
)

// SQLRunner runs the config's SQL. Its methods must be safe for concurrent use.
type SQLRunner interface {
	// SQLDialect is DialectPostgres or DialectSQLite.
	SQLDialect() string
	// ExecSQL runs one statement without parameters, outside any transaction (a setup or teardown
	// statement; VACUUM may be one). A query's rows are read and dropped.
	ExecSQL(ctx context.Context, stmt string) error
	// OpenSQLConn opens a connection of its own (for one worker) and prepares stmts on it, each
	// with numbered parameters ($1, $2, ...); a statement that cannot be prepared is an error that
	// names its index (*SQLPrepareError).
	OpenSQLConn(ctx context.Context, stmts []string) (SQLConn, error)
}

// SQLThreadBound is a SQLRunner whose connections, when it says so, wait for the server in a
// blocking system call on their goroutine's thread, as a C client's thread waits (the sql adapter
// on PostgreSQL): a connection holds its goroutine's P (runtime.GOMAXPROCS) while it waits, so the
// engine runs such a workload with a P per worker besides the ones it has, as pgbench -j gives
// each client a thread of its own.
type SQLThreadBound interface {
	SQLThreadBound() bool
}

// SQLPrepareError is a statement OpenSQLConn could not prepare.
type SQLPrepareError struct {
	Index int // into the statements OpenSQLConn was given
	Err   error
}

func (e *SQLPrepareError) Error() string { return e.Err.Error() }
func (e *SQLPrepareError) Unwrap() error { return e.Err }

// SQLConn is one worker's connection. One goroutine uses it at a time.
type SQLConn interface {
	// Exec runs prepared statement i with args (each an int64, float64, bool, string or nil) and
	// reads its rows to the end. It sets res.Rows to the rows the statement returned when it
	// returns rows (a query, a RETURNING clause), else to the rows it affected, and, when res.Keep
	// is set, res.Values to every value of every row returned, appended from res.Values[:0] with
	// AppendSQLValue (the engine checksums them after its clock stopped). A statement that fails
	// leaves a transaction it was part of for Rollback.
	Exec(ctx context.Context, i int, args []any, res *SQLResult) error
	// Rollback ends the transaction a failed statement left open, if any; nothing otherwise. A
	// connection a failed statement ended (its context ended mid-call, the server closed it) is
	// opened again instead, with its statements prepared, unless ctx was cancelled (the run is
	// stopping): one lost connection is one error, not every later operation of its worker.
	Rollback(ctx context.Context) error
	Close() error
}

// SQLReopens is a SQLConn that counts how many times Rollback opened it again.
type SQLReopens interface {
	Reopens() int64
}

// SQLResult is what one execution returned.
type SQLResult struct {
	Rows   int64
	Keep   bool   // in: keep the values returned
	Values []byte // out: the values, each as AppendSQLValue writes it
}

// AppendSQLValue appends one value of a row to b: its length plus one as a uvarint (0: NULL), then
// its bytes, so that no two different rows of values append the same bytes.
func AppendSQLValue(b []byte, v []byte, null bool) []byte {
	n := uint64(0)
	if !null {
		n = uint64(len(v)) + 1
	}
	for n >= 0x80 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	b = append(b, byte(n))
	return append(b, v...)
}

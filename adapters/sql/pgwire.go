package sqladapter

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/internal/blockingconn"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// A sql workload's worker connection to PostgreSQL runs the extended query protocol itself, as
// pgbench -M prepared does through libpq, so that the client's share of each round trip is what a
// C client's is (docs/sql.md, "How dbbench drives PostgreSQL"): pgx connects (authentication, TLS,
// the target's search path) over a blocking socket (internal/blockingconn: the worker's thread
// sleeps in the kernel until the reply lands) and prepares the statements, then the connection is
// taken from pgx (pgconn.Hijack), and each execution is one write of Bind, Execute and Sync and the
// replies read to ReadyForQuery. pgx's own path for a prepared statement (its context watcher,
// slow-write timer and result reader around each round trip) cost about 10% more CPU a
// transaction, which on a machine the server shares is about 10% of pgbench's throughput.

// yieldEvery is how often a worker passes through Go's scheduler. A goroutine that waits in
// blocking system calls never does otherwise, and one not rescheduled for 10 ms is forced off its P
// by the runtime's monitor thread, which then polls every 20 µs for a while: about 7,000 wake-ups a
// second beside 4 connections of tpcb-like, and a tenth of pgbench's throughput on 2 cores
// (docs/measurements.md). runtime.Gosched every 5 ms keeps the monitor at its 10 ms sleep.
const yieldEvery = 5 * time.Millisecond

var _ adapters.SQLReopens = (*pgConn)(nil)

// pgConn is one worker's connection to PostgreSQL, its statements prepared as dbbench_s0, ...
type pgConn struct {
	t       *target
	stmts   []string
	reopens int64 // connections opened again after one was cut off

	conn    net.Conn
	fe      *pgproto3.Frontend
	names   []string
	query   []bool // the statement returns rows
	buf     []byte // the arguments' text, one after the other
	params  [][]byte
	tx      byte // the transaction status of the last ReadyForQuery: 'I' idle, 'T' in one, 'E' failed
	broken  error
	yielded time.Time // when Exec last passed through the scheduler

	// The context whose end shuts the socket down (a deadline in the past wakes a thread blocked
	// in a read): registered once for the calls that pass it (an operation's statements), and
	// acted on only while a call is under way, for the engine ends every operation's context when
	// the operation ends.
	mu      sync.Mutex
	busy    bool
	watched context.Context
	unwatch func() bool
}

func (t *target) openPGConn(ctx context.Context, stmts []string) (adapters.SQLConn, error) {
	pc := &pgConn{t: t, stmts: stmts}
	if err := pc.open(ctx); err != nil {
		return nil, err
	}
	return pc, nil
}

// open connects, prepares the statements and takes the connection from pgx.
func (pc *pgConn) open(ctx context.Context) error {
	t, stmts := pc.t, pc.stmts
	cfg := t.s.pgConfig.Copy()
	cfg.DialFunc = blockingconn.Dial
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return exitcode.Infraf("sql: postgres: connect: %v", exitcode.OneLine(err.Error()))
	}
	var names []string
	var query []bool
	for i, q := range stmts {
		name := fmt.Sprintf("dbbench_s%d", i)
		sd, err := c.Prepare(ctx, name, q)
		if err != nil {
			return errors.Join(&adapters.SQLPrepareError{Index: i, Err: errors.New(exitcode.OneLine(err.Error()))}, closePgx(c))
		}
		names, query = append(names, name), append(query, len(sd.Fields) > 0)
	}
	if err := c.PgConn().SyncConn(ctx); err != nil {
		return errors.Join(exitcode.Infraf("sql: postgres: %v", exitcode.OneLine(err.Error())), closePgx(c))
	}
	hc, err := c.PgConn().Hijack()
	if err != nil {
		return errors.Join(exitcode.Infraf("sql: postgres: %v", exitcode.OneLine(err.Error())), closePgx(c))
	}
	pc.names, pc.query, pc.conn, pc.tx, pc.broken = names, query, hc.Conn, hc.TxStatus, nil
	pc.fe = pgproto3.NewFrontend(hc.Conn, hc.Conn)
	return nil
}

func closePgx(c *pgx.Conn) error {
	ctx, cancel := context.WithTimeout(context.Background(), sqlCloseTimeout)
	defer cancel()
	return c.Close(ctx)
}

// begin marks a call under way with ctx, whose end (an operation's timeout, the run stopped) then
// wakes and ends it; it returns ctx's error when ctx has ended already. end marks it done.
func (p *pgConn) begin(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.busy = true
	if ctx != p.watched {
		p.stopWatching()
		p.watched = ctx
		if ctx.Done() != nil {
			conn := p.conn
			p.unwatch = context.AfterFunc(ctx, func() {
				p.mu.Lock()
				defer p.mu.Unlock()
				if p.busy && p.watched == ctx {
					conn.SetDeadline(time.Unix(1, 0))
				}
			})
		}
	}
	return ctx.Err()
}

func (p *pgConn) end() {
	p.mu.Lock()
	p.busy = false
	p.mu.Unlock()
}

// stopWatching forgets the context watched; p.mu is held.
func (p *pgConn) stopWatching() {
	if p.unwatch != nil {
		p.unwatch()
	}
	p.watched, p.unwatch = nil, nil
}

// fail keeps the first error of the connection itself: it is not used again after one.
func (p *pgConn) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	p.broken = fmt.Errorf("sql: postgres: connection lost: %w", err)
	return p.broken
}

// Exec runs prepared statement i: the rows returned counted (and their values kept, as the server
// wrote them, text), or the rows the command tag says it affected.
func (p *pgConn) Exec(ctx context.Context, i int, args []any, res *adapters.SQLResult) error {
	if p.broken != nil {
		return p.broken
	}
	defer p.end()
	if err := p.begin(ctx); err != nil {
		return err
	}
	if now := time.Now(); now.Sub(p.yielded) > yieldEvery {
		p.yielded = now
		runtime.Gosched()
	}
	p.buf, p.params = p.buf[:0], p.params[:0]
	var ends [8]int
	end := ends[:0]
	for _, a := range args {
		var null bool
		p.buf, null = appendText(p.buf, a)
		if null {
			end = append(end, -1)
		} else {
			end = append(end, len(p.buf))
		}
	}
	from := 0
	for _, e := range end {
		if e < 0 {
			p.params = append(p.params, nil)
			continue
		}
		p.params = append(p.params, p.buf[from:e:e])
		from = e
	}
	p.fe.SendBind(&pgproto3.Bind{PreparedStatement: p.names[i], Parameters: p.params})
	p.fe.SendExecute(&pgproto3.Execute{})
	p.fe.SendSync(&pgproto3.Sync{})
	tagRows, err := p.exchange(ctx, res)
	if err == nil && !p.query[i] {
		res.Rows = tagRows
	}
	return err
}

// exchange flushes what was sent and reads the replies up to ReadyForQuery: the rows returned
// counted into res (their values kept when res.Keep), and the rows the command tag counts. A
// statement's error (ErrorResponse) is returned once the server is ready again; a failure of the
// connection itself ends it.
func (p *pgConn) exchange(ctx context.Context, res *adapters.SQLResult) (tagRows int64, err error) {
	if err := p.fe.Flush(); err != nil {
		return 0, p.fail(ctx, err)
	}
	res.Rows, res.Values = 0, res.Values[:0]
	var stmtErr error
	for {
		msg, err := p.fe.Receive()
		if err != nil {
			return 0, p.fail(ctx, err)
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			res.Rows++
			if res.Keep {
				for _, v := range m.Values {
					res.Values = adapters.AppendSQLValue(res.Values, v, v == nil)
				}
			}
		case *pgproto3.CommandComplete:
			tagRows = tagRowCount(m.CommandTag)
		case *pgproto3.ErrorResponse:
			stmtErr = pgconn.ErrorResponseToPgError(m)
		case *pgproto3.ReadyForQuery:
			p.tx = m.TxStatus
			return tagRows, stmtErr
		case *pgproto3.BindComplete, *pgproto3.EmptyQueryResponse, *pgproto3.NoticeResponse,
			*pgproto3.ParameterStatus, *pgproto3.NotificationResponse:
		default:
			return 0, p.fail(ctx, fmt.Errorf("unexpected message %T", msg))
		}
	}
}

// tagRowCount is the rows a command tag counts: its last word ("UPDATE 1", "INSERT 0 1"), 0 for
// a tag without one ("BEGIN").
func tagRowCount(tag []byte) int64 {
	i := len(tag)
	for i > 0 && tag[i-1] >= '0' && tag[i-1] <= '9' {
		i--
	}
	if i == len(tag) || i == 0 || tag[i-1] != ' ' {
		return 0
	}
	n, _ := strconv.ParseInt(string(tag[i:]), 10, 64)
	return n
}

// appendText appends an argument's text (an int64, float64, bool, string or nil: NULL), as
// libpq's PQexecPrepared sends arguments for pgbench -M prepared.
func appendText(b []byte, a any) ([]byte, bool) {
	switch v := a.(type) {
	case nil:
		return b, true
	case string:
		return append(b, v...), false
	case int64:
		return strconv.AppendInt(b, v, 10), false
	case float64:
		return strconv.AppendFloat(b, v, 'g', -1, 64), false
	case bool:
		return strconv.AppendBool(b, v), false
	}
	return fmt.Append(b, a), false
}

// reopenTimeout bounds opening a worker's connection again.
const reopenTimeout = 10 * time.Second

// Rollback ends a transaction left open (or failed) on the connection. A connection a statement's
// end cut off (its operation's timeout) is opened again instead, its statements prepared (untimed:
// the engine calls Rollback outside the operation's time), so that one timeout is one error and
// not every later operation of the worker; not when the run is being stopped.
func (p *pgConn) Rollback(ctx context.Context) error {
	if p.broken != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			return p.broken
		}
		p.mu.Lock()
		p.stopWatching()
		p.mu.Unlock()
		p.conn.Close()
		octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reopenTimeout)
		defer cancel()
		if err := p.open(octx); err != nil {
			return fmt.Errorf("opening the connection again: %w", err)
		}
		p.reopens++
		return nil
	}
	if p.tx == 'I' {
		return nil
	}
	if ctx.Err() != nil {
		// The operation ended: its transaction is rolled back all the same, within a bound.
		p.conn.SetDeadline(time.Now().Add(sqlCloseTimeout))
		defer p.conn.SetDeadline(time.Time{})
	} else {
		defer p.end()
		p.begin(ctx)
	}
	p.fe.Send(&pgproto3.Query{String: "ROLLBACK"})
	var res adapters.SQLResult
	_, err := p.exchange(ctx, &res)
	return err
}

// Reopens says how many times the connection was opened again after one was cut off.
func (p *pgConn) Reopens() int64 { return p.reopens }

// Close says goodbye (Terminate) and closes the socket; a server gone away does not hold it.
func (p *pgConn) Close() error {
	p.mu.Lock()
	p.stopWatching()
	p.mu.Unlock()
	if p.broken == nil {
		p.conn.SetDeadline(time.Now().Add(sqlCloseTimeout))
		p.fe.Send(&pgproto3.Terminate{})
		p.fe.Flush() // the server may have gone: closing is what matters
	}
	if err := p.conn.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

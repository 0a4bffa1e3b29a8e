package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/engine/load"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/workloads"
	"github.com/dbbench/dbbench/workloads/pgbench"
	"github.com/dbbench/dbbench/workloads/sqlmix"
)

// A sql workload (docs/sql.md) on each target that runs it: its setup (pgbench's init, then the
// config's statements; untimed), a connection per worker with every statement prepared, then the
// repeats, each a run phase of the load model (load.Run at the config's rate, else load.RunClosed):
// one transaction is one operation, drawn from its place in the run's sequence (sqlmix.Mix.Draw:
// the shards draw what one process would). Its time is its statements' executions alone (and a
// BEGIN and COMMIT the engine adds around a list of statements), handed to the load model as the
// operation's own duration, so that neither \sleep's think time, nor rolling back a failed
// transaction, nor the checks count. After a transaction that succeeded, outside its time, each
// statement's result is checked: its expect (rows returned or affected), and for check: same its
// rows and checksum against the first execution with the same arguments; a failed check fails the
// result as a failed verification. The teardown runs after the last repeat.

// sqlRun is one sql workload at one size on every target that runs it.
type sqlRun struct {
	r     *Runner
	w     config.WorkloadPlan
	def   *sqlmix.Definition
	cfg   load.Config
	open  bool
	seed  int64
	stmts []sqlStmt // every statement of every transaction, in order: its place here is its id
	first []int     // per transaction: the id of its first statement
	// begin and commit are the ids of the BEGIN and COMMIT prepared after the statements, for a
	// transaction the engine wraps.
	begin, commit int
}

// sqlStmt is one statement of one transaction.
type sqlStmt struct {
	tx   int
	name string // the transaction's
	st   sqlmix.Statement
}

// sqlTarget is one target's part of a sql workload.
type sqlTarget struct {
	s      *targetState
	acc    *resultAcc
	runner adapters.SQLRunner
	mix    *sqlmix.Mix
	conns  []adapters.SQLConn // one per worker
	work   []*sqlWorker       // one per worker
	checks *sqlChecks
	setup  bool  // its setup ran (so its teardown runs)
	procs  int   // the Ps (runtime.GOMAXPROCS) its run phases need at least: its connections are thread-bound
	base   int64 // the next run phase's first place in the whole sequence
	done   atomic.Int64
}

// sqlWorker is what one worker keeps: its statements' execution times and failures in the current
// run phase, and the results of the transaction it runs, for the checks after it.
type sqlWorker struct {
	lat     []*hdrhistogram.Histogram // per statement id
	errs    []int64
	res     []adapters.SQLResult // per statement of the transaction running (its place in it)
	ran     []ranStmt            // the statements it ran, in order
	scratch adapters.SQLResult
}

// ranStmt is a statement a transaction ran: its place in the transaction and its arguments.
type ranStmt struct {
	i    int
	args []any
}

// sqlOp is a drawn operation, or the error drawing it (which fails the operation).
type sqlOp struct {
	op  sqlmix.Op
	err error
}

// newSQLRun resolves a sql workload's load and its statements.
func (r *Runner) newSQLRun(w config.WorkloadPlan) (*sqlRun, error) {
	p := r.Plan
	sr := &sqlRun{r: r, w: w, def: w.SQL.Def, open: p.Load.Open(), seed: workloads.Seed(p.Seed, w.Name)}
	for i, t := range sr.def.Transactions {
		sr.cfg.OpTypes = append(sr.cfg.OpTypes, t.Name)
		sr.first = append(sr.first, len(sr.stmts))
		for _, st := range t.Statements {
			sr.stmts = append(sr.stmts, sqlStmt{tx: i, name: t.Name, st: st})
		}
	}
	sr.begin, sr.commit = len(sr.stmts), len(sr.stmts)+1
	sr.cfg = loadConfig(p.Load, sr.cfg.OpTypes, sr.seed)
	s := &sr.cfg.Schedule
	if w.Ops > 0 {
		s.Ops = int64(w.Ops) // the workload's own count before load:'s
	}
	if s.Duration == 0 && s.Ops == 0 {
		s.Ops = config.DefaultSQLOps
	}
	if sr.open {
		if err := s.Validate(); err != nil {
			return nil, exitcode.Usagef("load: %v", err)
		}
	}
	r.sqlShare(sr)
	return sr, nil
}

// sqlShare narrows a sql workload to this shard's share: operations I, I+N, ... of the sequence,
// and its workers.
func (r *Runner) sqlShare(sr *sqlRun) {
	if !r.stripeLoad(sr.w.Name, &sr.cfg, sr.open) {
		return
	}
	r.note(fmt.Sprintf("%s: each shard runs the setup on its own store, and check: same compares the results of its own operations", sr.w.Name))
}

// runSQL runs a sql workload on every target that has it: the setup on each, the repeats (warm-ups
// first) interleaved across targets, then the teardown on each.
func (r *Runner) runSQL(ctx context.Context, w config.WorkloadPlan, size int, states []*targetState, results *[]*resultAcc, prog *tracker) error {
	sr, err := r.newSQLRun(w)
	if err != nil {
		return err
	}
	var act []*sqlTarget
	defer func() {
		for _, t := range act {
			sr.teardown(t, prog)
		}
	}()
	for _, s := range states {
		if s.inst == nil || s.stalled != nil || !s.plan.Runs(w.Name) {
			continue
		}
		acc := newResultAcc(resultKey{s.plan.Name, w.Name, size}, "op", sr.params())
		acc.verification = workloads.Expectation{Rows: -1, Method: sqlMethod}
		*results = append(*results, acc)
		t := &sqlTarget{s: s, acc: acc, checks: newSQLChecks()}
		if use := r.storeUse(s.plan); use != adapters.StoreOwn {
			return exitcode.Usagef("target %s: sql workload %s runs its setup on the target's own store: it does not run on a store shards share (dbbench run --load-only, --loaded)", s.plan.Name, w.Name)
		}
		act = append(act, t)
		if err := sr.prepare(ctx, t, prog); err != nil {
			return err
		}
	}
	if err := repeatLoad(ctx, r, w.Name, size, prog, act, func(t *sqlTarget) *targetState { return t.s },
		func(t *sqlTarget) *resultAcc { return t.acc }, sr.runPhase); err != nil {
		return err
	}
	var accs []*resultAcc
	for _, t := range act {
		if w := t.checks.warning(); w != "" {
			t.acc.warnings = append(t.acc.warnings, w)
		}
		if n := reopens(t.conns); n > 0 {
			t.acc.warnings = append(t.acc.warnings, fmt.Sprintf("a statement cut off (its operation's timeout) or a connection the server closed ended a worker's connection %d times: each is one error, and the connection was opened again, untimed", n))
		}
		accs = append(accs, t.acc)
	}
	prog.done(w.Name, size, accs)
	return nil
}

// reopens is how many times the connections were opened again after one was lost.
func reopens(conns []adapters.SQLConn) int64 {
	var n int64
	for _, c := range conns {
		if r, ok := c.(adapters.SQLReopens); ok {
			n += r.Reopens()
		}
	}
	return n
}

// sqlMethod says what a sql workload's results are checked against.
const sqlMethod = "after each transaction that succeeded, outside its time: each statement's expect (rows returned, or affected), " +
	"and for check: same its rows and checksum against its first execution with the same arguments (load.checks counts both); " +
	"a transaction that failed is an error (rolled back), not a verification"

// params are what each result of the workload reports of its definition and load.
func (sr *sqlRun) params() map[string]any {
	var txs []string
	for _, t := range sr.def.Transactions {
		txs = append(txs, fmt.Sprintf("%s@%g", t.Name, t.Weight))
	}
	m := map[string]any{"transactions": strings.Join(txs, " "), "workers": sr.cfg.Workers}
	if w := sr.w.SQL; w.Init == config.SQLInitPgbench || hasScript(sr.def) {
		m["scale"] = w.Scale
	}
	s := sr.cfg.Schedule
	if s.Ops > 0 {
		m["ops"] = s.Ops
	}
	if s.Duration > 0 {
		m["duration"] = s.Duration.String()
	}
	if sr.open {
		m["target_rate"] = s.MeanRate()
	}
	return m
}

func hasScript(d *sqlmix.Definition) bool {
	for _, t := range d.Transactions {
		if t.Script != nil {
			return true
		}
	}
	return false
}

// prepare readies one target: its capability, its mix (arguments bound for its dialect), the
// setup, and a connection per worker with every statement prepared. What the target gets wrong (a
// setup statement, one that cannot be prepared) fails its result with the statement and its line.
func (sr *sqlRun) prepare(ctx context.Context, t *sqlTarget, prog *tracker) error {
	runner, ok := t.s.inst.(adapters.SQLRunner)
	if !ok {
		t.acc.fail(fmt.Errorf("target %s (%s) runs no SQL: it cannot run sql workload %s", t.s.plan.Name, t.s.plan.Adapter.Info().Name, sr.w.Name))
		return nil
	}
	t.runner = runner
	dialect := runner.SQLDialect()
	var err error
	if t.mix, err = sqlmix.New(sr.def, sr.seed, dialect == adapters.DialectPostgres); err != nil {
		return exitcode.Usagef("workload %s: %v", sr.w.Name, err)
	}
	start := time.Now()
	n, err := sr.setup(t, dialect, prog)
	t.setup = true
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		t.acc.fail(err)
		return nil
	}
	took := time.Since(start)
	texts := make([]string, 0, len(sr.stmts)+2)
	for _, st := range sr.stmts {
		texts = append(texts, st.st.SQL)
	}
	texts = append(texts, "BEGIN", "COMMIT")
	for range sr.cfg.Workers {
		c, err := runner.OpenSQLConn(t.s.ctx, texts)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var pe *adapters.SQLPrepareError
			if errors.As(err, &pe) && pe.Index < len(sr.stmts) {
				st := sr.stmts[pe.Index]
				err = fmt.Errorf("transaction %s, statement %d (line %d): prepare: %w", st.name, st.st.Index+1, st.st.Line, pe.Err)
			}
			t.acc.fail(err)
			return nil
		}
		t.conns = append(t.conns, c)
		wk := &sqlWorker{lat: make([]*hdrhistogram.Histogram, len(sr.stmts)), errs: make([]int64, len(sr.stmts))}
		for i := range wk.lat {
			wk.lat[i] = report.NewHistogram()
		}
		most := 0
		for _, tx := range sr.def.Transactions {
			most = max(most, len(tx.Statements))
		}
		wk.res = make([]adapters.SQLResult, most)
		t.work = append(t.work, wk)
	}
	if tb, ok := runner.(adapters.SQLThreadBound); ok && tb.SQLThreadBound() {
		t.procs = sr.cfg.Workers + runtime.GOMAXPROCS(0)
	}
	binding := "typed (int64, float64, bool, string)"
	if dialect == adapters.DialectPostgres {
		binding = "text, each argument read by the type the server infers (as pgbench -M prepared sends them)"
	}
	conns := fmt.Sprintf("%d, one per worker, every statement prepared on each", sr.cfg.Workers)
	if t.procs > 0 {
		conns += fmt.Sprintf("; each waits for the server in a blocking read on a thread of its own, as a C client does (GOMAXPROCS %d while they run)", t.procs)
	}
	t.acc.describe(map[string]any{
		"setup":       fmt.Sprintf("%d statements in %s, untimed", n, took.Round(time.Microsecond)),
		"connections": conns,
		"binding":     binding,
	})
	return nil
}

// setup runs pgbench's init (init: pgbench) and the setup statements for this target, one by one
// outside any transaction; it returns how many ran.
func (sr *sqlRun) setup(t *sqlTarget, dialect string, prog *tracker) (int, error) {
	w := sr.w.SQL
	var stmts []config.SQLText
	if w.Init == config.SQLInitPgbench {
		init, err := pgbench.InitSQL(pgbench.Dialect(dialect), w.Scale)
		if err != nil {
			return 0, err
		}
		for _, q := range init {
			stmts = append(stmts, config.SQLText{Text: q})
		}
		prog.printf("%s: pgbench's tables at scale %d on %s (as pgbench -i -s %d)", sr.w.Name, w.Scale, t.s.plan.Name, w.Scale)
	}
	stmts = append(stmts, forTarget(w.Setup, t.s.plan.Name)...)
	for i, st := range stmts {
		if err := t.runner.ExecSQL(t.s.ctx, st.Text); err != nil {
			if st.Line == 0 {
				return i, fmt.Errorf("setup: pgbench init: %s: %w", st.Text, err)
			}
			return i, fmt.Errorf("setup statement (line %d): %w", st.Line, err)
		}
	}
	return len(stmts), nil
}

// forTarget are the statements a target runs of a setup or teardown list.
func forTarget(list []config.SQLText, target string) []config.SQLText {
	var out []config.SQLText
	for _, st := range list {
		if st.Targets == nil || slices.Contains(st.Targets, target) {
			out = append(out, st)
		}
	}
	return out
}

// teardown closes a target's connections and runs its teardown statements (after pgbench's init,
// its four tables dropped), once its setup ran; a failure fails the result.
func (sr *sqlRun) teardown(t *sqlTarget, prog *tracker) {
	for _, c := range t.conns {
		if err := c.Close(); err != nil {
			prog.printf("%s: closing a connection of %s: %v", sr.w.Name, t.s.plan.Name, err)
		}
	}
	t.conns = nil
	if !t.setup || t.runner == nil {
		return
	}
	t.setup = false
	ctx := t.s.ctx
	if ctx == nil || ctx.Err() != nil {
		return // the run was stopped: the target's store goes with it (its schema or file)
	}
	stmts := forTarget(sr.w.SQL.Teardown, t.s.plan.Name)
	if sr.w.SQL.Init == config.SQLInitPgbench {
		for _, tb := range []string{"pgbench_history", "pgbench_tellers", "pgbench_accounts", "pgbench_branches"} {
			stmts = append(stmts, config.SQLText{Text: "drop table if exists " + tb})
		}
	}
	for _, st := range stmts {
		if err := t.runner.ExecSQL(ctx, st.Text); err != nil {
			where := "pgbench's tables"
			if st.Line > 0 {
				where = fmt.Sprintf("line %d", st.Line)
			}
			t.acc.fail(fmt.Errorf("teardown statement (%s): %w", where, err))
			return
		}
	}
}

// runPhase runs one repeat's run phase on one target, then fails the result on a failed check or
// an error rate past the budget.
func (sr *sqlRun) runPhase(ctx context.Context, t *sqlTarget, rep int) error {
	r := sr.r
	if had := runtime.GOMAXPROCS(0); had < t.procs {
		// A thread-bound connection holds its P while it waits: without a P per worker the others
		// wait for the runtime to take one back (a fifth of pgbench's throughput, measured).
		runtime.GOMAXPROCS(t.procs)
		defer runtime.GOMAXPROCS(had)
	}
	for _, wk := range t.work {
		for i := range wk.lat {
			wk.lat[i].Reset()
			wk.errs[i] = 0
		}
	}
	res, started, err := runLoadPhase(ctx, r, t.s, t.acc, sr.w.Name, rep, sr.cfg, sr.open, &t.done, sr.next(t), sr.do(t),
		func(res *load.Result) { t.base += res.Sequence })
	if err != nil || res == nil {
		return err
	}
	if verr := t.checks.failed(); verr != nil {
		t.acc.fail(verr)
		return nil
	}
	r.keepLoadPhase(t.acc, t.s.plan.Name, sr.w.Name, rep, res, sr.cfg, sr.open, started)
	if rep >= r.Plan.Warmup {
		stmts := sr.statements(t)
		last := &t.acc.repeats[len(t.acc.repeats)-1]
		report.StatementFigures(last.Figures, stmts)
		if r.Plan.Shard != nil {
			last.Statements = stmts
		}
		t.acc.last.Statements = stmts
	}
	t.checks.report(&t.acc.loadAcc)
	return nil
}

// statements are the run phase's statements, the workers' times and failures added up.
func (sr *sqlRun) statements(t *sqlTarget) []report.LoadStatement {
	out := make([]report.LoadStatement, 0, len(sr.stmts))
	for id, st := range sr.stmts {
		h := report.NewHistogram()
		var errs int64
		for _, wk := range t.work {
			h.Merge(wk.lat[id])
			errs += wk.errs[id]
		}
		out = append(out, report.NewLoadStatement(st.name, st.st.Index+1, st.st.Line, st.st.Text, h, errs))
	}
	return out
}

// next draws operation seq of this run phase: place base+seq of the whole sequence.
func (sr *sqlRun) next(t *sqlTarget) func(int64) (int, sqlOp) {
	base := t.base
	return func(seq int64) (int, sqlOp) {
		op, err := t.mix.Draw(uint64(base + seq))
		return op.Tx, sqlOp{op: op, err: err}
	}
}

// do runs one transaction on the worker's connection: its statements timed one by one (their sum
// is the operation's time), a failure rolled back, then the checks of what it returned.
func (sr *sqlRun) do(t *sqlTarget) func(context.Context, load.Op[sqlOp]) error {
	return func(ctx context.Context, op load.Op[sqlOp]) error {
		defer t.done.Add(1)
		o := op.Arg
		if o.err != nil {
			return o.err
		}
		c, wk := t.conns[op.Worker], t.work[op.Worker]
		tx := &sr.def.Transactions[o.op.Tx]
		var spent time.Duration
		if op.Self != nil {
			defer func() { *op.Self = spent }()
		}
		// fail rolls back (untimed) what a failed statement left open.
		fail := func(err error, what string) error {
			if rerr := c.Rollback(ctx); rerr != nil {
				err = errors.Join(err, fmt.Errorf("rollback: %w", rerr))
			}
			return fmt.Errorf("transaction %s, %s: %w", tx.Name, what, err)
		}
		exec := func(id int, args []any, res *adapters.SQLResult) error {
			t0 := time.Now()
			err := c.Exec(ctx, id, args, res)
			d := time.Since(t0)
			spent += d
			if err == nil && id < len(sr.stmts) {
				report.Record(wk.lat[id], d)
			}
			return err
		}
		if tx.Wrap {
			if err := exec(sr.begin, nil, &wk.scratch); err != nil {
				return fail(err, "BEGIN")
			}
		}
		wk.ran = wk.ran[:0]
		for _, step := range o.op.Steps {
			if step.Stmt == nil {
				if err := load.SleepCtx(ctx, step.Sleep); err != nil {
					return fail(err, `\sleep`)
				}
				continue
			}
			i := step.Stmt.Index
			id := sr.first[o.op.Tx] + i
			res := &wk.res[i]
			res.Keep = sr.stmts[id].st.Same
			if err := exec(id, step.Args, res); err != nil {
				wk.errs[id]++
				return fail(err, fmt.Sprintf("statement %d (line %d)", i+1, sr.stmts[id].st.Line))
			}
			wk.ran = append(wk.ran, ranStmt{i: i, args: step.Args})
		}
		if tx.Wrap {
			if err := exec(sr.commit, nil, &wk.scratch); err != nil {
				return fail(err, "COMMIT")
			}
		}
		for _, r := range wk.ran {
			id := sr.first[o.op.Tx] + r.i
			t.checks.check(&sr.stmts[id], id, r.args, &wk.res[r.i])
		}
		return nil
	}
}

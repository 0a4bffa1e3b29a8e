package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/engine/load"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/workloads"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// A YCSB workload on a target (docs/load.md): the records are loaded (untimed, reported as the
// load phase), then each repeat is a run phase: load.Run with the workload's generator drawing
// every operation, one at a time and in order (an open loop at the config's rate), or, with no
// rate, a closed loop of workers each starting its next operation as soon as the last one ends.
// Reads are checked after each run phase against the versions the records could hold, scans
// against the key order, and after the last repeat every record written is read back.

// recordOps are the record capabilities of an open target.
type recordOps struct {
	// selfTimed: the target times its own operations (a client in another process): each call
	// gets a context that asks for that time. Decided once, so that other targets' timed calls
	// carry no such context (its allocation would be timed with them).
	selfTimed bool
	loader    adapters.RecordLoader
	reader    adapters.RecordReader
	updater   adapters.RecordUpdater
	inserter  adapters.RecordInserter
	scanner   adapters.RecordScanner
}

func recordOpsOf(t adapters.Target) recordOps {
	var o recordOps
	o.loader, _ = t.(adapters.RecordLoader)
	o.reader, _ = t.(adapters.RecordReader)
	o.updater, _ = t.(adapters.RecordUpdater)
	o.inserter, _ = t.(adapters.RecordInserter)
	o.scanner, _ = t.(adapters.RecordScanner)
	if rt, ok := t.(adapters.RecordTimer); ok {
		o.selfTimed = rt.TimesRecords()
	}
	return o
}

// checkRecordOps refuses, as a usage error (exit 2) before anything is loaded, a target whose
// store lacks an operation one of its YCSB workloads' mixes needs although its adapter declares it
// (config refuses what the declaration, adapters.Info.Records, lacks).
func (r *Runner) checkRecordOps(s *targetState) error {
	for _, w := range r.Plan.Workloads {
		if !w.YCSB || !s.plan.Runs(w.Name) {
			continue
		}
		def, err := r.Plan.YCSB.Definition(w.Name)
		if err != nil {
			return exitcode.Usagef("workload %s: %v", w.Name, err)
		}
		if err := adapters.MissingRecordOps(s.inst, config.NeededOps(def.Mix)); err != nil {
			why := ""
			if def.Mix[ycsb.Read] == 0 {
				why = " (reads verify every write)"
			}
			return exitcode.Usagef("target %s (%s) cannot run workload %s (%s): it %v%s",
				s.plan.Name, s.plan.Adapter.Info().Name, w.Name, def.Mix, err, why)
		}
	}
	return nil
}

// ycsbTarget is one target's part of a YCSB workload: its records' log, the generator (one per
// target, the same seed for all, so every target gets the same operations), and its result.
type ycsbTarget struct {
	s   *targetState
	acc *resultAcc
	ops recordOps
	log *recordLog
	gen *ycsb.Generator
	// stripe draws a shard's share of gen's sequence (shard.go); nil: the whole sequence.
	stripe *ycsbStripe
	done   atomic.Int64 // operations finished, for the stall watchdog
}

// ycsbRun is one YCSB workload at one size on every target that runs it.
type ycsbRun struct {
	r       *Runner
	w       config.WorkloadPlan
	def     ycsb.Workload
	y       dataset.YCSB
	size    int
	cfg     load.Config // the schedule (open loop) or the workers and limits (closed)
	open    bool
	opIndex [5]int // ycsb.Op -> index into cfg.OpTypes (-1: not in the mix)
	perRun  int64  // operations a run phase intends (for the generator's key space)
	// spare holds read buffers (*[][]byte) the check did not keep (past maxKeptReadBytes), for the
	// next reads to fill (adapters.RecordReader reuses dst's arrays): a fresh buffer costs
	// FieldCount+1 allocations per read on the workers' cores.
	spare sync.Pool
}

// newYCSBRun resolves a YCSB workload's definition, records and load.
func (r *Runner) newYCSBRun(w config.WorkloadPlan, size int) (*ycsbRun, error) {
	p := r.Plan
	def, err := p.YCSB.Definition(w.Name)
	if err != nil {
		return nil, exitcode.Usagef("workload %s: %v", w.Name, err)
	}
	y, err := dataset.NewYCSB(workloads.Seed(p.Seed, w.Name), def.FieldCount, def.FieldLength, def.Ordered)
	if err != nil {
		return nil, exitcode.Usagef("workload %s: %v", w.Name, err)
	}
	yr := &ycsbRun{r: r, w: w, def: def, y: y, size: size, open: p.Load.Open()}
	for i := range yr.opIndex {
		yr.opIndex[i] = -1
	}
	for _, o := range ycsb.Ops() {
		if def.Mix[o] > 0 {
			yr.opIndex[o] = len(yr.cfg.OpTypes)
			yr.cfg.OpTypes = append(yr.cfg.OpTypes, o.String())
		}
	}
	yr.cfg = loadConfig(p.Load, yr.cfg.OpTypes, y.Seed)
	s := &yr.cfg.Schedule
	if s.Duration == 0 && s.Ops == 0 {
		s.Ops = p.YCSB.OperationCount // neither given: the run phase is YCSB's operationcount
	}
	yr.perRun = s.Ops
	if s.Duration > 0 && yr.open {
		yr.perRun = max(s.Ops, int64(s.Intended(s.Duration)))
	}
	if yr.perRun == 0 { // a closed loop for a duration: YCSB's operationcount sizes the key space
		yr.perRun = p.YCSB.OperationCount
	}
	if yr.open {
		if err := s.Validate(); err != nil {
			return nil, exitcode.Usagef("load: %v", err)
		}
	}
	r.ycsbShare(yr)
	return yr, nil
}

// runYCSB runs a YCSB workload on every target that has it: the load phase on each, then the
// repeats (warm-ups first) interleaved across targets, then the final read-back of every target.
func (r *Runner) runYCSB(ctx context.Context, w config.WorkloadPlan, size int, states []*targetState, results *[]*resultAcc, prog *tracker) error {
	yr, err := r.newYCSBRun(w, size)
	if err != nil {
		return err
	}
	var act []*ycsbTarget
	for _, s := range states {
		if s.inst == nil || s.stalled != nil || !s.plan.Runs(w.Name) {
			continue
		}
		acc := newResultAcc(resultKey{s.plan.Name, w.Name, size}, "op", yr.params())
		acc.verification = workloads.Expectation{Rows: -1, Method: yr.method()}
		*results = append(*results, acc)
		t := &ycsbTarget{s: s, acc: acc, ops: recordOpsOf(s.inst)}
		if err := yr.loadPhase(ctx, t, prog); err != nil {
			return err
		}
		act = append(act, t)
	}
	if err := repeatLoad(ctx, r, w.Name, size, prog, act, func(t *ycsbTarget) *targetState { return t.s },
		func(t *ycsbTarget) *resultAcc { return t.acc }, yr.runPhase); err != nil {
		return err
	}
	var accs []*resultAcc
	for _, t := range act {
		yr.finalCheck(t)
		accs = append(accs, t.acc)
	}
	prog.done(w.Name, size, accs)
	return nil
}

// repeatLoad runs a load-model workload's repeats, warm-ups first, after the shard's common start:
// in each, every target's run phase in turn (A B A B ...), bar a target whose result failed.
func repeatLoad[T any](ctx context.Context, r *Runner, name string, size int, prog *tracker, act []T,
	state func(T) *targetState, acc func(T) *resultAcc, phase func(context.Context, T, int) error) error {
	p := r.Plan
	if err := r.awaitStart(ctx); err != nil {
		return err
	}
	for rep := 0; rep < p.Warmup+p.Repeats; rep++ {
		prog.step(name, size, rep, p.Warmup, p.Repeats)
		for _, t := range act {
			if acc(t).failed() {
				continue
			}
			prog.target(state(t).plan.Name)
			if err := r.step("%s %d %d", name, size, rep); err != nil {
				return err
			}
			if err := phase(ctx, t, rep); err != nil {
				return err
			}
		}
	}
	return nil
}

// params are what each result of the workload reports of its definition and load.
func (yr *ycsbRun) params() map[string]any {
	m := map[string]any{
		"mix": yr.def.Mix.String(), "requestdistribution": yr.def.RequestDistribution,
		"recordcount": yr.r.Plan.YCSB.RecordCount, "fieldcount": yr.def.FieldCount, "fieldlength": yr.def.FieldLength,
		"insertorder": map[bool]string{true: "ordered", false: "hashed"}[yr.def.Ordered], "workers": yr.cfg.Workers,
	}
	if yr.def.Mix[ycsb.Scan] > 0 {
		m["maxscanlength"] = yr.def.MaxScanLength
	}
	s := yr.cfg.Schedule
	if s.Ops > 0 {
		m["ops"] = s.Ops
	}
	if s.Duration > 0 {
		m["duration"] = s.Duration.String()
	}
	switch {
	case yr.open:
		m["target_rate"] = s.MeanRate() // a ramp's mean; the whole schedule's (a shard's share is in load)
	}
	return m
}

func (yr *ycsbRun) method() string {
	reads := "every read's fields"
	if yr.r.Plan.YCSB.CheckSample {
		reads = "each read's fields up to 64 MiB of reads a run phase (ycsb.check_sample: the reads past it are counted in load.checks.reads_unchecked, not checked)"
	}
	return reads + " against the versions its record could hold (dataset.YCSB), scans against the records " +
		"in key order from their start key (rows, and the checksum where no write overlapped), every record written " +
		"read back after the last run phase"
}

// loadPhase loads the records into one target (a fresh table) and makes its generator.
func (yr *ycsbRun) loadPhase(ctx context.Context, t *ycsbTarget, prog *tracker) error {
	n := yr.r.Plan.YCSB.RecordCount
	prog.printf("loading %d YCSB records into %s", n, t.s.plan.Name)
	start := time.Now()
	stop := watchLoad(yr.r.stallLimit(), &t.s.loaded, t.s.cancel)
	err := t.ops.loader.LoadRecords(t.s.ctx, yr.y, n)
	stop()
	d := time.Since(start)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		if yr.r.stalled(t.s, t.acc) {
			return nil
		}
		t.acc.fail(fmt.Errorf("load %d records: %w", n, err))
		return nil
	}
	t.acc.loadPhase = &loadPhase{records: n, took: d}
	t.log = newRecordLog(yr.y, n, yr.r.Plan.YCSB.CheckSample)
	reps := int64(yr.r.Plan.Warmup + yr.r.Plan.Repeats)
	t.gen, err = ycsb.NewGenerator(yr.def, n, yr.perRun*reps, yr.y.Seed)
	if err != nil {
		return exitcode.Usagef("workload %s: %v", yr.w.Name, err)
	}
	if st := yr.cfg.Schedule.Stripe; st.Total > 1 {
		t.stripe = &ycsbStripe{gen: t.gen, log: t.log}
	}
	return nil
}

// finalCheck reads back every record the run phases wrote (untimed).
func (yr *ycsbRun) finalCheck(t *ycsbTarget) {
	if t.acc.failed() || t.log == nil {
		return
	}
	n, err := t.log.verifyFinal(t.s.ctx, t.ops.reader)
	if err != nil {
		t.acc.fail(err)
		return
	}
	t.acc.readBack = n
	t.acc.checked = t.log.checked
	t.acc.unchecked = t.log.unchecked
	t.acc.scansChecked, t.acc.scansInexact = t.log.scansChecked, t.log.scansInexact
}

// runPhase runs one repeat of the run phase on one target, then checks its reads and scans.
func (yr *ycsbRun) runPhase(ctx context.Context, t *ycsbTarget, rep int) error {
	res, started, err := runLoadPhase(ctx, yr.r, t.s, t.acc, yr.w.Name, rep, yr.cfg, yr.open, &t.done, yr.next(t), yr.do(t), func(res *load.Result) {
		if t.stripe != nil {
			t.stripe.base += res.Sequence // the next run phase goes on from the whole sequence's end
		}
	})
	if err != nil || res == nil {
		return err
	}
	if verr := t.log.checkPhase(); verr != nil {
		t.acc.fail(verr)
		return nil
	}
	yr.r.keepLoadPhase(t.acc, t.s.plan.Name, yr.w.Name, rep, res, yr.cfg, yr.open, started)
	return nil
}

// loadConfig is a load-model workload's load as the config's load: section gives it (nil: a
// closed loop of one worker), with its operation types and its schedule's seed.
func loadConfig(l *config.LoadPlan, types []string, seed int64) load.Config {
	cfg := load.Config{Workers: config.DefaultClosedWorkers, OpTypes: types}
	if l == nil {
		return cfg
	}
	cfg.Workers, cfg.Policy, cfg.Timeout = l.Workers, load.Policy(l.Policy), l.Timeout
	cfg.Interval, cfg.LateAfter, cfg.Precise = l.Interval, l.LateAfter, l.Precise
	cfg.Schedule = load.Schedule{Rate: l.Rate, Arrival: load.Arrival(l.Arrivals), Duration: l.Duration, Ops: l.Ops, Seed: seed}
	for _, st := range l.Stages {
		cfg.Schedule.Stages = append(cfg.Schedule.Stages, load.Stage{At: st.At, Rate: st.Rate})
	}
	return cfg
}

// runLoadPhase runs one repeat's run phase of a load-model workload on one target (load.Run in an
// open loop, else load.RunClosed) under the stall watchdog, notes what a measured one read from
// storage, hands the sequence's advance on (advance, whatever ended the phase), and sorts out how
// it ended: a result with nil error to go on with; nil and nil when the target's result failed (it
// stalled, or an operation's context ended the phase); an error when the run must stop.
func runLoadPhase[T any](ctx context.Context, r *Runner, s *targetState, acc *resultAcc, name string, rep int, cfg load.Config, open bool,
	done *atomic.Int64, next func(int64) (int, T), do func(context.Context, load.Op[T]) error, advance func(*load.Result)) (*load.Result, time.Time, error) {
	readSince := watchStorage(s.inst, s.servers())
	stop := watchStall(r.stallLimit(), done, s.cancel)
	started := time.Now()
	var res *load.Result
	var err error
	if open {
		res, err = load.Run(s.ctx, cfg, next, do)
	} else {
		res, err = load.RunClosed(s.ctx, cfg, next, do)
	}
	stop()
	if rep >= r.Plan.Warmup {
		acc.noteStorage(rep-r.Plan.Warmup, readSince())
	}
	if res != nil {
		advance(res)
	}
	if ctx.Err() != nil {
		return nil, started, ctx.Err()
	}
	if r.stalled(s, acc) {
		return nil, started, nil
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			acc.fail(err)
			return nil, started, nil
		}
		return nil, started, exitcode.Usagef("workload %s: %v", name, err)
	}
	return res, started, nil
}

// keepLoadPhase keeps a run phase that went through: a measured one's figures as a repeat and its
// series in the interval log; and errors past the error budget fail the result.
func (r *Runner) keepLoadPhase(acc *resultAcc, target, name string, rep int, res *load.Result, cfg load.Config, open bool, started time.Time) {
	if rep >= r.Plan.Warmup {
		acc.addLoad(rep-r.Plan.Warmup, res, cfg, open, r.Plan.Shard != nil)
		if err := r.writeHlog(target, name, started, res, cfg); err != nil {
			acc.warnings = append(acc.warnings, err.Error())
		} else if r.HlogPath != "" {
			acc.hlog = r.hlogName()
		}
	}
	// Errors are a rate of their own: a few (a timeout under overload) are a measurement, more than
	// the error budget (load.max_error_rate) fail the result, a warm-up's too.
	if budget := r.Plan.Load.ErrorBudget(); res.ErrorRate() > budget {
		acc.fail(errorBudgetSpent(res, budget, rep < r.Plan.Warmup))
	}
}

// errorBudgetSpent says that a run phase's errors passed the error budget: how many, of what, and
// the first error.
func errorBudgetSpent(res *load.Result, budget float64, warmup bool) error {
	what := "a measured run phase"
	if warmup {
		what = "a warm-up run phase"
	}
	var kinds []string
	for _, t := range res.Types {
		if t.Errors > 0 {
			kinds = append(kinds, fmt.Sprintf("%d of %d %ss", t.Errors, t.Errors+t.Count, t.Name))
		}
	}
	return fmt.Errorf("%s failed %.1f%% of its operations (%s), more than load.max_error_rate %s allows; the first: %w",
		what, 100*res.ErrorRate(), strings.Join(kinds, ", "), strconv.FormatFloat(100*budget, 'f', -1, 64)+"%", res.Err)
}

// maxRedraws bounds the draws of a record not yet acknowledged (an insert still in flight) before
// the operation falls back to the newest acknowledged record.
const maxRedraws = 64

// next draws operation seq, one call at a time (load.Run's claim, or the closed loop's
// dispatcher). A read, update or scan only addresses
// records whose insert has completed (YCSB's acknowledged counter): its record is drawn again
// otherwise (Generator.Rekey, from that operation's own stream), which never changes the operations
// that follow, so the sequence of types and inserts is the one a shard stripes. A shard draws its
// stripe of the sequence instead (ycsbStripe), which never draws again.
func (yr *ycsbRun) next(t *ycsbTarget) func(int64) (int, ycsb.Operation) {
	if st := t.stripe; st != nil {
		return func(seq int64) (int, ycsb.Operation) {
			op := st.at(st.base + seq)
			return yr.opIndex[op.Type], op
		}
	}
	return func(int64) (int, ycsb.Operation) {
		op := t.gen.Next()
		for k := 0; op.Type != ycsb.Insert && op.Record >= t.log.acked.Load(); k++ {
			if k == maxRedraws {
				op.Record = t.log.acked.Load() - 1
				break
			}
			t.gen.Rekey(&op)
		}
		return yr.opIndex[op.Type], op
	}
}

// errNotFound is a read of a record that exists (it was loaded, or its insert was acknowledged)
// finding nothing: a verification failure.
var errNotFound = errors.New("record not found")

// do performs one operation on a worker; what it read is kept for checking after the run phase.
func (yr *ycsbRun) do(t *ycsbTarget) func(context.Context, load.Op[ycsb.Operation]) error {
	return func(ctx context.Context, op load.Op[ycsb.Operation]) error {
		defer t.done.Add(1)
		o := op.Arg
		key := yr.y.Key(o.Record)
		// The operation's service time is its store calls' alone (spent, on the clock the checks'
		// spans use), not the key and value building, clock reads and bookkeeping around them; a
		// target that times itself (a client in another process) says how long the calls took it.
		// A read-modify-write's two calls add up (a self-timed one counts only if both said).
		var spent, d1, d2 time.Duration
		selfTimed := op.Self != nil && t.ops.selfTimed
		if op.Self != nil {
			defer func() {
				*op.Self = spent
				if selfTimed && d1 > 0 && (o.Type != ycsb.ReadModifyWrite || d2 > 0) {
					*op.Self = d1 + d2
				}
			}()
		}
		if selfTimed {
			ctx = adapters.WithRecordTime(ctx, &d1)
		}
		switch o.Type {
		case ycsb.Read:
			return yr.read(ctx, t, o.Record, key, &spent)
		case ycsb.Update:
			return yr.update(ctx, t, o.Record, key, &spent)
		case ycsb.ReadModifyWrite: // YCSB's: a read then an update of the same record, timed together
			if err := yr.read(ctx, t, o.Record, key, &spent); err != nil {
				return err
			}
			if selfTimed {
				ctx = adapters.WithRecordTime(ctx, &d2)
			}
			return yr.update(ctx, t, o.Record, key, &spent)
		case ycsb.Insert:
			fields := yr.y.Fields(o.Record)
			s := span{start: t.log.now()}
			err := t.ops.inserter.InsertRecord(ctx, key, fields)
			s.end = t.log.now()
			spent += s.took()
			t.log.insertedRecord(o.Record, s, err)
			return err
		case ycsb.Scan:
			s := span{start: t.log.now()}
			tally, err := t.ops.scanner.ScanRecords(ctx, key, int(o.ScanLen))
			s.end = t.log.now()
			spent += s.took()
			if err == nil {
				t.log.keepScan(o.Record, int(o.ScanLen), tally, s)
			}
			return err
		}
		return fmt.Errorf("operation type %v is not in the mix", o.Type)
	}
}

func (yr *ycsbRun) read(ctx context.Context, t *ycsbTarget, i int64, key []byte, spent *time.Duration) error {
	var dst [][]byte // kept for the check, or back to spare
	if buf, ok := yr.spare.Get().(*[][]byte); ok {
		dst = *buf
	} else {
		dst = make([][]byte, yr.def.FieldCount)
	}
	s := span{start: t.log.now()}
	fields, found, err := t.ops.reader.ReadRecord(ctx, key, dst)
	s.end = t.log.now()
	*spent += s.took()
	if err != nil {
		return err
	}
	if !found {
		t.log.missingRead(i)
		return fmt.Errorf("read %s: %w", key, errNotFound)
	}
	if !t.log.keepRead(i, fields, s) {
		yr.spare.Put(&fields)
	}
	return nil
}

func (yr *ycsbRun) update(ctx context.Context, t *ycsbTarget, i int64, key []byte, spent *time.Duration) error {
	v := t.log.nextVersion(i)
	field, value := yr.y.Update(i, v)
	s := span{start: t.log.now()}
	err := t.ops.updater.UpdateRecord(ctx, key, field, value)
	s.end = t.log.now()
	*spent += s.took()
	t.log.updated(i, v, field, s, err)
	return err
}

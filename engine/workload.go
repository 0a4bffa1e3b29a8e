package engine

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/workloads"
)

// workloadRun is one workload at one dataset size, run on every target that has it.
type workloadRun struct {
	r    *Runner
	ctx  context.Context // the run's: cancelled on Ctrl-C
	w    config.WorkloadPlan
	size int
	run  workloads.Run // its parameters and expected results at this size
	// params are the parameters every result of the workload reports.
	params map[string]any
	prog   *tracker
	// act are the targets taking part, in config order; a target whose result failed sits out the
	// repeats that remain.
	act []*active
	ops []adapters.Op // the operations prepared for an adapter's own workload, closed at the end
}

// active is one target taking part in a workload.
type active struct {
	s    *targetState
	exec *execution
	acc  *resultAcc
}

// runWorkload runs one workload on every target that has it: preparation, warm-up, then the repeats
// interleaved across targets, then the cross-target checks.
func (r *Runner) runWorkload(ctx context.Context, w config.WorkloadPlan, size int, ds *dataset.Persons, states []*targetState, results *[]*resultAcc, prog *tracker) error {
	rows, ops, readers := w.Params(size)
	run := workloads.Resolve(w.Name, rows, ops, readers, ds, r.Plan.Seed)
	wr := &workloadRun{r: r, ctx: ctx, w: w, size: size, prog: prog, run: run, params: run.ReportParams()}
	r.stripeRun(w, &wr.run) // after the params: a shard's result reports the one-process workload
	defer wr.closeOps()
	for _, s := range states {
		if s.inst == nil || s.stalled != nil || !s.plan.Runs(w.Name) {
			continue
		}
		if err := wr.enter(s, results); err != nil {
			return err
		}
	}
	if len(wr.act) == 0 {
		return nil
	}
	if err := r.awaitStart(ctx); err != nil {
		return err
	}
	for rep := 0; rep < r.Plan.Warmup+r.Plan.Repeats; rep++ {
		if err := wr.repeat(rep); err != nil {
			return err
		}
	}
	wr.finish()
	return nil
}

// enter gives target s its result of the workload (appended to results) and its execution, with
// the operation it prepares for an adapter's own workload. A target that cannot run the workload has
// its result failed and stays out; the error returned stops the run (cancelled, or a usage error).
func (wr *workloadRun) enter(s *targetState, results *[]*resultAcc) error {
	w := wr.w
	acc := newResultAcc(resultKey{s.plan.Name, w.Name, wr.size}, workloads.Unit(w.Name, w.Custom), wr.params)
	*results = append(*results, acc)
	acc.verification = wr.run.Expect(scansInKeyOrder(s.inst), w.CrossCheck)
	ex := &execution{w: wr.run, target: s.inst, slowdown: s.slow, servers: s.servers()}
	if tc, ok := s.inst.(adapters.TimedCustomRunner); ok && w.Custom {
		ex.timed, ex.params = tc, s.plan.Params[w.Name].Values()
	} else if w.Custom {
		cr, ok := s.inst.(adapters.CustomRunner)
		if !ok {
			acc.fail(fmt.Errorf("adapter has no runner for workload %s", w.Name))
			return nil
		}
		op, err := wr.prepareOp(s, cr, ex, acc)
		if err != nil || op == nil {
			return err
		}
		ex.op = op
	}
	wr.act = append(wr.act, &active{s, ex, acc})
	return nil
}

// prepareOp has the target prepare its operation for an adapter's own workload, watched for a
// stall. nil and no error: the preparation failed (the result says why) and the target stays out.
func (wr *workloadRun) prepareOp(s *targetState, cr adapters.CustomRunner, ex *execution, acc *resultAcc) (adapters.Op, error) {
	stop := watchStall(wr.r.stallLimit(), &ex.done, s.cancel)
	op, err := cr.PrepareWorkload(s.ctx, wr.w.Name, s.plan.Params[wr.w.Name])
	stop()
	if err == nil {
		wr.ops = append(wr.ops, op)
		return op, nil
	}
	if wr.ctx.Err() != nil {
		return nil, wr.ctx.Err()
	}
	if wr.r.stalled(s, acc) {
		return nil, nil
	}
	if exitcode.Of(err) == exitcode.Usage {
		return nil, fmt.Errorf("target %s, workload %s: %w", s.plan.Name, wr.w.Name, err)
	}
	acc.fail(fmt.Errorf("prepare: %w", err))
	return nil, nil
}

// closeOps closes the prepared operations, the last prepared first.
func (wr *workloadRun) closeOps() {
	for _, op := range slices.Backward(wr.ops) {
		if c, ok := op.(io.Closer); ok {
			c.Close()
		}
	}
}

// repeat runs repeat rep (a warm-up while rep < warmup) on every target still in: each alone in
// config order, or, with interleave: ops, those the engine times per operation jointly, where the
// first of them would have run.
func (wr *workloadRun) repeat(rep int) error {
	p := wr.r.Plan
	warm := rep < p.Warmup
	wr.prog.step(wr.w.Name, wr.size, rep, p.Warmup, p.Repeats)
	group := wr.jointGroup()
	for _, a := range wr.act {
		if a.acc.failed() {
			continue
		}
		if slices.Contains(group, a) {
			if a == group[0] {
				if err := wr.jointly(group, rep, warm); err != nil {
					return err
				}
			}
			continue
		}
		if err := wr.alone(a, rep, warm); err != nil {
			return err
		}
	}
	return nil
}

// jointGroup is the targets whose operations alternate in this repeat (interleave: ops): those still
// in that the engine times per operation. None without interleave: ops.
func (wr *workloadRun) jointGroup() []*active {
	if wr.r.Plan.Interleave != config.InterleaveOps {
		return nil
	}
	var group []*active
	for _, a := range wr.act {
		if !a.acc.failed() && a.exec.stepper(a.s.ctx, &a.exec.done) != nil {
			group = append(group, a)
		}
	}
	return group
}

// announce starts a target's turn in repeat rep: progress, and in a worker the parent's go-ahead.
func (wr *workloadRun) announce(a *active, rep int) error {
	wr.prog.target(a.s.plan.Name)
	return wr.r.step("%s %d %d", wr.w.Name, wr.size, rep)
}

// alone runs one target's whole repeat, re-warmed first when timed repeats are, watched for a stall
// throughout.
func (wr *workloadRun) alone(a *active, rep int, warm bool) error {
	if err := wr.announce(a, rep); err != nil {
		return err
	}
	stop := watchStall(wr.r.stallLimit(), &a.exec.done, a.s.cancel)
	restore := func() {}
	if wr.r.rewarming() && !warm {
		restore = wr.r.pace.apply(a.s)
		if err := wr.r.rewarm(a.s.ctx, a.exec, a.acc, wr.run); err != nil {
			restore()
			stop()
			return wr.rewarmFailed(a, rep, err)
		}
	}
	m, err := wr.r.measure(a.s.ctx, a.exec, !warm, fmt.Sprintf("%s/%s/%d/%d", a.s.plan.Name, wr.w.Name, wr.size, rep))
	restore()
	stop()
	if wr.ctx.Err() != nil {
		return wr.ctx.Err()
	}
	wr.conclude(a, rep, warm, m, err)
	return nil
}

// jointly runs one repeat of several targets that the engine times per operation, alternating
// their operations (interleave: ops): each target's turn is started (and re-warmed) first, then
// their operations alternate, then each target's outcome is taken as alone would take it.
func (wr *workloadRun) jointly(group []*active, rep int, warm bool) error {
	var live []*active
	for _, a := range group {
		ok, err := wr.startTurn(a, rep, warm)
		if err != nil {
			return err
		}
		if ok {
			live = append(live, a)
		}
	}
	if len(live) == 0 {
		return nil
	}
	// Each target has a recorder of its own (profile: true), so its phases are its own although its
	// operations alternate with the others'.
	profs := make([]*profiling, len(live))
	if !warm {
		for k, a := range live {
			profs[k] = wr.r.startProfile(a.exec)
		}
	}
	steppers := wr.alternate(live, rep)
	if wr.ctx.Err() != nil {
		for _, p := range profs {
			p.stop(nil, 0)
		}
		return wr.ctx.Err()
	}
	for k, a := range live {
		a.exec.done.Add(1)
		m, err := steppers[k].finish()
		profs[k].stop(m, wr.r.clockNs)
		wr.conclude(a, rep, warm, m, err)
	}
	return nil
}

// startTurn starts a target's turn in a joint repeat and, when timed repeats are re-warmed,
// re-warms it; false: the target is out of this workload (its result failed).
func (wr *workloadRun) startTurn(a *active, rep int, warm bool) (bool, error) {
	if err := wr.announce(a, rep); err != nil {
		return false, err
	}
	if !wr.r.rewarming() || warm {
		return true, nil
	}
	stop := watchStall(wr.r.stallLimit(), &a.exec.done, a.s.cancel)
	restore := wr.r.pace.apply(a.s)
	err := wr.r.rewarm(a.s.ctx, a.exec, a.acc, wr.run)
	restore()
	stop()
	if err != nil {
		return false, wr.rewarmFailed(a, rep, err)
	}
	return true, nil
}

// alternate steps the live targets' operations in turn: op 0 of each, then op 1, ..., the targets in
// a seeded shuffled order for each operation (a fixed order let the first target pay for the
// previous one's work). Each is timed exactly as alone; a target whose loop ends early stops
// stepping, the others go on. The stall watchdog watches the operations of all of them and, when
// none finishes in time, cancels the target whose operation is running. It returns each target's
// stepper, to finish.
func (wr *workloadRun) alternate(live []*active, rep int) []*opStepper {
	var (
		done atomic.Int64
		cur  atomic.Int32
	)
	steppers := make([]*opStepper, len(live))
	n := 0
	for k, a := range live {
		steppers[k] = a.exec.stepper(a.s.ctx, &done)
		n = max(n, steppers[k].n)
	}
	stop := watchStall(wr.r.stallLimit(), &done, func(cause error) { live[cur.Load()].s.cancel(cause) })
	defer stop()
	going := slices.Repeat([]bool{true}, len(live))
	// The targets take their turns in a fresh shuffled order for each operation (seeded: the
	// same in every run): in config order, the first target of each round ran right after the
	// last one's (another backend's work) and paid for it, while the next found the
	// CPU warm from the same query on its neighbour (depth 20 at 0.36-0.97 of depth 1).
	rng := rand.New(rand.NewPCG(uint64(workloads.Seed(wr.r.Plan.Seed, wr.w.Name)), uint64(rep)))
	order := make([]int, len(live))
	for i := 0; i < n; i++ {
		for k := range order {
			order[k] = k
		}
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, k := range order {
			st := steppers[k]
			if !going[k] || i >= st.n {
				continue
			}
			cur.Store(int32(k))
			going[k] = st.step(i)
		}
	}
	return steppers
}

// conclude takes one target's outcome of one repeat (timed or warm-up) into its result.
func (wr *workloadRun) conclude(a *active, rep int, warm bool, m *measurement, err error) {
	if wr.r.stalled(a.s, a.acc) {
		return
	}
	timed := rep - wr.r.Plan.Warmup
	if err != nil {
		if m != nil && !warm {
			a.acc.add(timed, m)
		}
		a.acc.fail(err)
		return
	}
	if verr := a.acc.verify(m, wr.run); verr != nil {
		a.acc.fail(verr)
		return
	}
	if !warm {
		a.acc.add(timed, m)
	}
}

// rewarmFailed fails a target's result after its re-warm before repeat rep failed; it returns
// the run's error when the run was cancelled.
func (wr *workloadRun) rewarmFailed(a *active, rep int, err error) error {
	if wr.ctx.Err() != nil {
		return wr.ctx.Err()
	}
	if !wr.r.stalled(a.s, a.acc) {
		a.acc.fail(fmt.Errorf("re-warm before repeat %d: %w", rep-wr.r.Plan.Warmup+1, err))
	}
	return nil
}

// finish ends the workload: each result takes what its operation describes (a query plan, warnings),
// the targets' checksums are checked against each other, and progress hears it is done.
func (wr *workloadRun) finish() {
	var accs []*resultAcc
	for _, a := range wr.act {
		if d, ok := a.exec.op.(adapters.Describer); ok && a.exec.op != nil {
			a.acc.describe(d.Info())
		}
		accs = append(accs, a.acc)
	}
	if wr.w.CrossCheck {
		crossCheck(accs)
	}
	wr.prog.done(wr.w.Name, wr.size, accs)
}

package engine

import (
	"math"
	"slices"
	"time"

	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/workloads"
)

// The ETA is the work a run has left, priced at what the same work cost so far. The work is the
// plan's: at each dataset size, preparing the size (generating the dataset), loading each target
// (opening it included), then for each workload and repeat (warm-ups and timed repeats, a timed
// repeat with its re-warm runs) each target's turn, then closing the targets. A turn's work is its
// operations times its runs: rows for scan, readers x rows for concurrent, operations for the
// others; a load's and a preparation's work is the dataset size, closing's one per size.
//
// The price of a unit of work is measured per (workload, target), per target for loads: at a size
// already measured, what it cost there; at a size not yet run, scaled from the nearest measured size
// by the growth with size measured between the two nearest ones (a lookup gets slower as the tree
// deepens), and kept as it is when only one size has been seen (the time then grows in proportion to
// the work). Before a workload has run at all, its price is the one measured for the same workload
// on the other targets, else for the workloads of its kind (reading rows: scan and concurrent;
// operations: the others) on the target, then on any target, else the other kind's price converted
// at opRows rows an operation.
// Time between units (preparing a workload, checking results) counts with the unit that follows.

// stage is where in a dataset size the run is.
type stage int

const (
	stageStart  stage = iota // nothing of this size has started
	stagePrep                // generating the dataset
	stageLoad                // opening and loading target ti
	stageRepeat              // target ti's turn in repeat rep of workload wi
	stageDone                // workload wi finished, the next not yet started
	stageClose               // closing the size's targets
)

// costs are the time (ns) and the work measured for one kind of unit, by dataset size index.
type costs struct {
	ns, work map[int]float64
}

func (c *costs) add(si int, ns, work float64) {
	if c.ns == nil {
		c.ns, c.work = map[int]float64{}, map[int]float64{}
	}
	c.ns[si] += ns
	c.work[si] += work
}

func (c *costs) merge(o *costs) {
	for si, w := range o.work {
		c.add(si, o.ns[si], w)
	}
}

// opRows is what one operation (a lookup, an insert) costs in rows read, for pricing the first
// workload of one kind from the other kind's: 18-42 in `run -c lmdb --ci` and `-c clients-postgres
// --ci` on a 2-core VM (a lookup's, or an inserted row's with its fresh store, time over a scanned
// row's).
const opRows = 30

// maxGrowth bounds the exponent of the growth with size: two sizes measured on a busy machine may
// suggest any slope, and no workload here costs more per unit than the square of the size.
const maxGrowth = 2

// price is the cost of one unit of work at size index si (sizes gives the sizes), or false when
// nothing has been measured.
func (c *costs) price(si int, sizes []int) (float64, bool) {
	if c.work[si] > 0 {
		return c.ns[si] / c.work[si], true
	}
	var seen []int
	for s, w := range c.work {
		if w > 0 {
			seen = append(seen, s)
		}
	}
	if len(seen) == 0 {
		return 0, false
	}
	dist := func(s int) float64 { return math.Abs(math.Log(float64(sizes[s]) / float64(sizes[si]))) }
	slices.SortFunc(seen, func(a, b int) int {
		if d := dist(a) - dist(b); d != 0 {
			return int(math.Copysign(1, d))
		}
		return a - b
	})
	near := seen[0]
	p := c.ns[near] / c.work[near]
	if len(seen) == 1 {
		return p, true
	}
	other := seen[1]
	po := c.ns[other] / c.work[other]
	if p <= 0 || po <= 0 || sizes[near] == sizes[other] {
		return p, true
	}
	g := math.Log(p/po) / math.Log(float64(sizes[near])/float64(sizes[other]))
	g = max(-maxGrowth, min(g, maxGrowth))
	return p * math.Pow(float64(sizes[si])/float64(sizes[near]), g), true
}

// estimator keeps the plan's work, the position in it and what the work done cost.
type estimator struct {
	sizes     []int
	workloads []string
	rowsKind  []bool      // rowsKind[wi]: its work is rows read (scan, concurrent), else operations
	runs      [][]bool    // runs[wi][ti]: target ti runs workload wi
	work      [][]float64 // work[wi][si]: the work of one run of workload wi at size si
	warmup    int
	repeats   int
	rewarm    int // untimed runs before each timed repeat

	prep  costs
	close costs
	load  []costs   // by target
	reps  [][]costs // [wi][ti]
	gone  []bool    // targets skipped or stalled: nothing more is planned for them

	// the position: size si, stage, workload wi, repeat rep, target ti
	si, wi, rep, ti int
	stage           stage
	mark            time.Time // when the current unit began: when the unit before it ended
	measured        bool      // a target's turn has been measured

	prices map[[3]int]float64 // turnPrice by (wi, ti, si), for one estimate
}

func newEstimator(p *config.Plan, now time.Time) *estimator {
	e := &estimator{
		sizes: p.Sizes, warmup: p.Warmup, repeats: p.Repeats, rewarm: p.RewarmRuns(),
		load: make([]costs, len(p.Targets)), gone: make([]bool, len(p.Targets)), mark: now,
	}
	for _, w := range p.Workloads {
		e.workloads = append(e.workloads, w.Name)
		e.rowsKind = append(e.rowsKind, !w.Custom && (w.Name == workloads.Scan || w.Name == workloads.Concurrent))
		runs := make([]bool, len(p.Targets))
		for ti := range p.Targets {
			runs[ti] = p.Targets[ti].Runs(w.Name)
		}
		e.runs = append(e.runs, runs)
		work := make([]float64, len(p.Sizes))
		for si, size := range p.Sizes {
			work[si] = workOf(w, size)
		}
		e.work = append(e.work, work)
		e.reps = append(e.reps, make([]costs, len(p.Targets)))
	}
	return e
}

// workOf is the work of one run of a workload at a size: the rows it reads or the operations it does.
func workOf(w config.WorkloadPlan, size int) float64 {
	rows, ops, readers := w.Params(size)
	switch w.Name {
	case workloads.Scan:
		return float64(max(rows, 1))
	case workloads.Concurrent:
		return float64(max(readers*rows, 1))
	}
	return float64(max(ops, 1))
}

// runsOf is how many times a target runs the workload in repeat rep: once in a warm-up, once plus
// its re-warm runs in a timed repeat.
func (e *estimator) runsOf(rep int) float64 {
	if rep < e.warmup {
		return 1
	}
	return float64(1 + e.rewarm)
}

// end closes the current unit at now, adding its time to what its kind of work costs.
func (e *estimator) end(now time.Time) {
	ns := float64(now.Sub(e.mark))
	if ns < 0 {
		ns = 0
	}
	switch e.stage {
	case stagePrep:
		e.prep.add(e.si, ns, float64(e.sizes[e.si]))
	case stageClose:
		e.close.add(e.si, ns, 1)
	case stageLoad:
		e.load[e.ti].add(e.si, ns, float64(e.sizes[e.si]))
	case stageRepeat:
		e.reps[e.wi][e.ti].add(e.si, ns, e.runsOf(e.rep)*e.work[e.wi][e.si])
		e.measured = true
	default:
		return // a gap: it counts with the unit that follows
	}
	e.mark = now
}

func (e *estimator) begin(now time.Time, st stage, si, wi, rep, ti int) {
	e.end(now)
	e.stage, e.si, e.wi, e.rep, e.ti = st, si, wi, rep, ti
}

func (e *estimator) sizeStart(now time.Time, size int) {
	if si := slices.Index(e.sizes, size); si >= 0 {
		e.begin(now, stagePrep, si, 0, 0, 0)
	}
}

func (e *estimator) loading(now time.Time, target int) {
	if target >= 0 {
		e.gone[target] = false
		e.begin(now, stageLoad, e.si, 0, 0, target)
	}
}

// skipped drops a target from the plan from now on (skipped as unavailable, or stalled); its
// unfinished load does not count as a load.
func (e *estimator) skipped(target int) {
	if target < 0 {
		return
	}
	e.gone[target] = true
	if e.stage == stageLoad && e.ti == target {
		e.stage = stageStart // a gap: the time goes to the next unit
	}
}

func (e *estimator) turn(now time.Time, workload string, rep, target int) {
	if wi := slices.Index(e.workloads, workload); wi >= 0 && target >= 0 {
		e.begin(now, stageRepeat, e.si, wi, rep, target)
	}
}

func (e *estimator) closing(now time.Time) { e.begin(now, stageClose, e.si, 0, 0, 0) }

// finish ends the last unit.
func (e *estimator) finish(now time.Time) { e.begin(now, stageStart, e.si, 0, 0, 0) }

func (e *estimator) done(now time.Time, workload string) {
	if wi := slices.Index(e.workloads, workload); wi >= 0 {
		e.begin(now, stageDone, e.si, wi, 0, 0)
	}
}

// left is the estimated time until the run's end, or false before any target's turn was measured.
func (e *estimator) left(now time.Time) (time.Duration, bool) {
	if !e.measured {
		return 0, false
	}
	e.prices = map[[3]int]float64{}
	ns := 0.0
	// the current unit's rest
	var cur float64
	switch e.stage {
	case stagePrep:
		cur = e.prepCost(e.si)
	case stageLoad:
		cur = e.loadCost(e.ti, e.si)
	case stageRepeat:
		cur = e.turnCost(e.wi, e.ti, e.si, e.rep)
	case stageClose:
		cur = e.closeCost(e.si)
	}
	ns += max(cur-float64(now.Sub(e.mark)), 0)
	// the rest of the current size
	si := e.si
	switch e.stage {
	case stageStart:
		ns += e.prepCost(si) + e.loadsFrom(si, 0) + e.workloadsFrom(si, 0)
	case stagePrep:
		ns += e.loadsFrom(si, 0) + e.workloadsFrom(si, 0)
	case stageLoad:
		ns += e.loadsFrom(si, e.ti+1) + e.workloadsFrom(si, 0)
	case stageRepeat:
		for ti := e.ti + 1; ti < len(e.gone); ti++ {
			if e.runs[e.wi][ti] && !e.gone[ti] {
				ns += e.turnCost(e.wi, ti, si, e.rep)
			}
		}
		for rep := e.rep + 1; rep < e.warmup+e.repeats; rep++ {
			ns += e.repeatCost(e.wi, si, rep)
		}
		ns += e.workloadsFrom(si, e.wi+1)
	case stageDone:
		ns += e.workloadsFrom(si, e.wi+1)
	}
	if e.stage != stageClose {
		ns += e.closeCost(si)
	}
	for s := si + 1; s < len(e.sizes); s++ {
		ns += e.prepCost(s) + e.loadsFrom(s, 0) + e.workloadsFrom(s, 0) + e.closeCost(s)
	}
	return time.Duration(ns), true
}

func (e *estimator) prepCost(si int) float64 {
	p, _ := e.prep.price(si, e.sizes)
	return p * float64(e.sizes[si])
}

func (e *estimator) closeCost(si int) float64 {
	p, _ := e.close.price(si, e.sizes)
	return p
}

func (e *estimator) loadCost(ti, si int) float64 {
	p, ok := e.load[ti].price(si, e.sizes)
	if !ok {
		var all costs
		for i := range e.load {
			all.merge(&e.load[i])
		}
		p, _ = all.price(si, e.sizes)
	}
	return p * float64(e.sizes[si])
}

func (e *estimator) loadsFrom(si, from int) float64 {
	ns := 0.0
	for ti := from; ti < len(e.gone); ti++ {
		if !e.gone[ti] {
			ns += e.loadCost(ti, si)
		}
	}
	return ns
}

// turnCost is the estimated time of target ti's turn in repeat rep of workload wi at size si.
func (e *estimator) turnCost(wi, ti, si, rep int) float64 {
	return e.runsOf(rep) * e.work[wi][si] * e.turnPrice(wi, ti, si)
}

// turnPrice is the price of a unit of workload wi's work on target ti at size si: measured for the
// pair, else for the workload on any target, else for its kind of workload on the target, then on
// any target, else converted from the other kind's (opRows).
func (e *estimator) turnPrice(wi, ti, si int) float64 {
	key := [3]int{wi, ti, si}
	if p, ok := e.prices[key]; ok {
		return p
	}
	p := e.measuredPrice(wi, ti, si)
	if e.prices != nil {
		e.prices[key] = p
	}
	return p
}

func (e *estimator) measuredPrice(wi, ti, si int) float64 {
	if p, ok := e.reps[wi][ti].price(si, e.sizes); ok {
		return p
	}
	var workload, kindOnTarget, kind, other costs
	for w := range e.reps {
		for t := range e.reps[w] {
			c := &e.reps[w][t]
			switch {
			case e.rowsKind[w] != e.rowsKind[wi]:
				other.merge(c)
				continue
			case w == wi:
				workload.merge(c)
			}
			kind.merge(c)
			if t == ti {
				kindOnTarget.merge(c)
			}
		}
	}
	for _, c := range []*costs{&workload, &kindOnTarget, &kind} {
		if p, ok := c.price(si, e.sizes); ok {
			return p
		}
	}
	p, _ := other.price(si, e.sizes)
	if e.rowsKind[wi] {
		return p / opRows
	}
	return p * opRows
}

func (e *estimator) repeatCost(wi, si, rep int) float64 {
	ns := 0.0
	for ti := range e.gone {
		if e.runs[wi][ti] && !e.gone[ti] {
			ns += e.turnCost(wi, ti, si, rep)
		}
	}
	return ns
}

func (e *estimator) workloadsFrom(si, from int) float64 {
	ns := 0.0
	for wi := from; wi < len(e.workloads); wi++ {
		for rep := 0; rep < e.warmup+e.repeats; rep++ {
			ns += e.repeatCost(wi, si, rep)
		}
	}
	return ns
}

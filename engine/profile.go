package engine

import (
	"fmt"
	"slices"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/report"
)

// clockCost is what one phase boundary (a lap: a clock read and an atomic add) costs, measured at
// the start of a profiled run: the least of many short measurements (1,000 laps each, a few
// milliseconds in all), so that the scheduler taking the CPU away during some does not inflate it.
func clockCost() float64 {
	best := phase.ClockCost(1000)
	for range 49 {
		best = min(best, phase.ClockCost(1000))
	}
	return best
}

// profiling is a timed repeat's phase recorder, lent to the execution's profilers for the repeat.
type profiling struct {
	rec *phase.Recorder
	to  []adapters.Profiler
}

// profilers are what in an execution can split its operations into phases: its target and the op of
// an adapter's own workload, those that implement adapters.Profiler.
func (e *execution) profilers() []adapters.Profiler {
	var ps []adapters.Profiler
	if p, ok := e.target.(adapters.Profiler); ok {
		ps = append(ps, p)
	}
	if p, ok := e.op.(adapters.Profiler); ok {
		ps = append(ps, p)
	}
	return ps
}

// startProfile lends a fresh recorder to ex's profilers before a timed repeat, when the run profiles
// (docs/profile.md); nil when it does not or nothing in ex can: then no target hears of profiling.
func (r *Runner) startProfile(ex *execution) *profiling {
	if !r.Plan.Profile {
		return nil
	}
	ps := ex.profilers()
	if len(ps) == 0 {
		return nil
	}
	p := &profiling{rec: phase.New(), to: ps}
	for _, x := range ps {
		x.Profile(p.rec)
	}
	return p
}

// stop takes the recorder back after the repeat (outside its timed operations) and gives m the
// repeat's profile. Safe on nil.
func (p *profiling) stop(m *measurement, clockNs float64) {
	if p == nil {
		return
	}
	for _, x := range p.to {
		x.Profile(nil)
	}
	if m != nil {
		m.profile = repeatProfileOf(p.rec.Totals(), m.ops, m.latencySum(), clockNs)
	}
}

// repeatProfile is one timed repeat's profile: its figures, and how they were read.
type repeatProfile struct {
	figures   map[string]float64
	phases    []phase.Phase
	lapsPerOp float64
	clockNs   float64
	// overrun is the phases' sum over the operations' time when it is above 1 (sampled phases are
	// estimates that can overshoot), 0 otherwise: phase_other_ns is then clamped at 0, and the
	// result says so rather than hiding it.
	overrun float64
}

// repeatProfileOf computes a repeat's profile figures from what its operations spent in their phases
// (t), its operations and the sum of their latencies (busy), and the measured cost of one clock read
// (clockNs). nil when the repeat recorded nothing (a target that saw no phase) or had no operation:
// a result without phases shows no phase figures, rather than one "other" phase of 100%.
//
//	phase_NAME_ns       = phase ns / ops (at least 0)
//	phase_NAME_share    = phase ns / busy
//	phase_other_ns      = (busy − Σ phase ns) / ops, at least 0 (sampled phases are estimates)
//	round_trip_ns       = round trips' ns / round trips, when a client reported its own phases
//	profile_overhead_ns = laps / ops × clockNs
func repeatProfileOf(t phase.Totals, ops int64, busy time.Duration, clockNs float64) *repeatProfile {
	if ops <= 0 || len(t.Phases) == 0 && t.RoundTrips == 0 {
		return nil
	}
	n := float64(ops)
	figs := map[string]float64{}
	var sum int64
	for _, ph := range t.Phases {
		ns := max(0, ph.Ns) // a sampled phase's samples have the lap's cost taken off: noise can sum below 0
		figs[report.PhaseFigure(ph.Name)] = float64(ns) / n
		if busy > 0 {
			figs[report.PhaseShareFigure(ph.Name)] = float64(ns) / float64(busy)
		}
		sum += ns
	}
	figs[report.PhaseOther] = max(0, float64(int64(busy)-sum)/n)
	overrun := 0.0
	if busy > 0 && sum > int64(busy) {
		overrun = float64(sum) / float64(busy)
	}
	if t.RoundTrips > 0 {
		figs[report.RoundTrip] = float64(t.RoundTripNs) / float64(t.RoundTrips)
	}
	laps := float64(t.Laps) / n
	if t.Laps > 0 || t.RoundTrips == 0 {
		// A client's own clock reads are its business: dbbench cannot see what they cost, so a
		// profile of a client's phases alone states no overhead rather than 0.
		figs[report.ProfileOverhead] = laps * clockNs
	}
	return &repeatProfile{figures: figs, phases: t.Phases, lapsPerOp: laps, clockNs: clockNs, overrun: overrun}
}

// profileAcc gathers a result's profile over its repeats.
type profileAcc struct {
	phases    []report.ProfilePhase
	lapsPerOp []float64
	clockNs   float64
	overruns  int     // repeats whose phases summed above their operations' time
	overrun   float64 // the largest such sum, as a share of that time
}

// add takes one repeat's profile: its phases joined to those seen before (a phase a repeat did not
// see, an error path's, keeps its place), and its clock reads per operation.
func (a *profileAcc) add(p *repeatProfile) {
	for _, ph := range p.phases {
		pp := report.ProfilePhase{Name: ph.Name, Method: ph.Method, Every: ph.Every}
		if !slices.ContainsFunc(a.phases, func(x report.ProfilePhase) bool { return x.Name == ph.Name }) {
			a.phases = append(a.phases, pp)
		}
	}
	a.lapsPerOp = append(a.lapsPerOp, p.lapsPerOp)
	a.clockNs = p.clockNs
	if p.overrun > 0 {
		a.overruns++
		a.overrun = max(a.overrun, p.overrun)
	}
}

// warning says when a repeat's phases summed above its operations' time, or "".
func (a *profileAcc) warning() string {
	if a.overruns == 0 {
		return ""
	}
	return fmt.Sprintf("profile: the phases of %d of %d profiled repeats sum to more than their operations' time (up to %.0f%%): "+
		"sampled phases are estimates, so phase_other_ns is 0 there and the phase figures overstate",
		a.overruns, len(a.lapsPerOp), 100*a.overrun)
}

// profile is the result's Profile: nil when no repeat was profiled.
func (a *profileAcc) profile() *report.Profile {
	if len(a.lapsPerOp) == 0 {
		return nil
	}
	return &report.Profile{Phases: a.phases, ClockNs: a.clockNs, LapsPerOp: report.Median(a.lapsPerOp)}
}

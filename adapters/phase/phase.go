// Package phase splits a target's timed operations into named phases, for dbbench run --profile
// (docs/profile.md). The engine hands a target a Recorder for each timed repeat it profiles
// (adapters.Profiler) and nil otherwise; a target marks the boundaries between its phases with
// Start and Lap. On a nil Recorder every method returns at once, so that an unprofiled operation
// pays one predictable branch per boundary and reads no clock.
//
// Names are shared across adapters so that one phase means one thing whatever the target: compare
// "decode" of TypeDB with "decode" of a client in another language.
package phase

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbbench/dbbench/report"
)

// ID is a phase every adapter names alike.
type ID int

// The shared phases. A target uses those its client library lets it see, in the order they happen.
const (
	Send    ID = iota // writing the request (an HTTP request, a protocol line)
	Wait              // from the request sent to the first byte of the answer
	Drain             // reading the rest of the answer's bytes
	Decode            // turning the answer's bytes into values
	Txn               // opening and closing a transaction (LMDB, SQL)
	Execute           // running a statement until its first row is ready (SQL)
	Fetch             // stepping from row to row of a result (SQL)
	Scan              // copying a row's columns into Go values (SQL)
	Get               // an LMDB get or cursor step, inside LMDB
	Copy              // copying LMDB's bytes into Go memory and decoding them
	Query             // Triplex: the store's query
	Page              // Triplex: assembling the page from the query's rows
	numIDs
)

var names = [numIDs]string{"send", "wait", "drain", "decode", "txn", "execute", "fetch", "scan", "get", "copy", "query", "page"}

// Name is the phase's name in figures (phase_NAME_ns).
func (id ID) Name() string { return names[id] }

// Names are the shared phase names, in the order of the IDs.
func Names() []string { return slices.Clone(names[:]) }

// ValidName reports whether a name may name a phase (report.ValidPhase: it becomes a figure name).
func ValidName(name string) bool { return report.ValidPhase(name) }

// Methods say how a phase's time was read.
const (
	Timed   = report.PhaseTimed   // a clock read at both ends of every occurrence
	Sampled = report.PhaseSampled // one occurrence in Every timed, the sum scaled up (a phase cheaper than the clock)
	Client  = report.PhaseClient  // the client in another process timed it and said so in its reply
)

// Recorder sums the time a repeat's operations spent in each phase. It is safe for concurrent use
// (the concurrent workload's readers share one).
type Recorder struct {
	ns    [numIDs]atomic.Int64
	used  [numIDs]atomic.Bool
	laps  atomic.Int64 // clock reads taken for the profile, for its cost
	every [numIDs]atomic.Int64

	mu    sync.Mutex
	named map[string]int64 // a client's own phases (Client)
	order []string
	trips int64 // round trips dbbench timed beside a client's own time
	tripN int64
}

// New returns an empty Recorder.
func New() *Recorder { return &Recorder{} }

// Mark is the time a phase began, from Start or Lap.
type Mark struct{ t time.Time }

// Start reads the clock at the start of an operation's first phase.
func (r *Recorder) Start() Mark {
	if r == nil {
		return Mark{}
	}
	r.laps.Add(1)
	return Mark{time.Now()}
}

// Lap ends phase id, begun at m, and returns the start of the next phase.
func (r *Recorder) Lap(m Mark, id ID) Mark {
	if r == nil {
		return Mark{}
	}
	now := time.Now()
	r.add(id, now.Sub(m.t), 1)
	r.laps.Add(1)
	return Mark{now}
}

// LapSampled is Lap for a phase timed in one occurrence of every (Sample): the time since m, less
// what a lap itself costs (lapCost), counts as every occurrences' (AddSampled), and the clock read
// counts toward the profile's cost as Lap's does. The lap's own cost is taken off because the
// unsampled occurrences do not pay it: scaled up by every, it would make a phase cheaper than the
// clock (an LMDB cursor step) look several times its cost. One sample may so come out negative; the
// sum over a repeat's samples is what estimates the phase.
func (r *Recorder) LapSampled(m Mark, id ID, every int) Mark {
	if r == nil {
		return Mark{}
	}
	now := time.Now()
	r.AddSampled(id, now.Sub(m.t)-lapCost(), every)
	r.laps.Add(1)
	return Mark{now}
}

// lapCost is what one lap costs in this process, measured once: the least of many short
// measurements (200 laps, some µs each), so that the scheduler taking the CPU away during some of
// them does not inflate it.
var lapCost = sync.OnceValue(func() time.Duration {
	best := ClockCost(200)
	for range 19 {
		best = min(best, ClockCost(200))
	}
	return time.Duration(best)
})

// Add adds d to phase id, for a target that reads the clock itself (one already read for the
// operation's own time).
func (r *Recorder) Add(id ID, d time.Duration) {
	if r == nil {
		return
	}
	r.add(id, d, 1)
}

// AddSampled adds d, the time of one occurrence of phase id in every, as every occurrences: for a
// phase cheaper than reading the clock (an LMDB cursor step), timed once in every occurrences.
func (r *Recorder) AddSampled(id ID, d time.Duration, every int) {
	if r == nil {
		return
	}
	r.add(id, d*time.Duration(every), every)
}

func (r *Recorder) add(id ID, d time.Duration, every int) {
	r.ns[id].Add(int64(d))
	if !r.used[id].Load() {
		r.used[id].Store(true)
	}
	if every > 1 && r.every[id].Load() != int64(every) {
		r.every[id].Store(int64(every))
	}
}

// Sample reports whether occurrence i of a phase sampled one in every is the one to time.
func Sample(i, every int) bool { return i%every == 0 }

// AddClient adds a phase a client in another process timed and named in its reply (phases_ns).
// A name that is not ValidName is an error: the reply is malformed.
func (r *Recorder) AddClient(name string, d time.Duration) error {
	if !ValidName(name) {
		return fmt.Errorf("phase name %q: want lower-case letters, digits and '_', starting with a letter, at most 32 bytes", name)
	}
	if d < 0 {
		return fmt.Errorf("phase %q: negative time %d ns", name, d)
	}
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.named == nil {
		r.named = map[string]int64{}
	}
	if _, ok := r.named[name]; !ok {
		r.order = append(r.order, name)
	}
	r.named[name] += int64(d)
	return nil
}

// AddRoundTrip adds the round trip dbbench timed for a request whose own time a client reported: it
// is shown beside the client's phases, not as one of them.
func (r *Recorder) AddRoundTrip(d time.Duration) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.trips += int64(d)
	r.tripN++
	r.mu.Unlock()
}

// Phase is one phase's total over a repeat.
type Phase struct {
	Name   string
	Ns     int64  // total over the repeat's operations
	Method string // Timed, Sampled or Client
	Every  int    // for Sampled: one occurrence in Every timed
}

// Totals is what a repeat's operations spent in their phases.
type Totals struct {
	Phases []Phase // in the order of the shared IDs, then a client's in the order first seen
	// Laps is the number of clock reads the profile took (the engine multiplies it by the clock's
	// measured cost to state what profiling cost).
	Laps int64
	// RoundTripNs and RoundTrips are dbbench's own timing of a client's requests, when it had any.
	RoundTripNs int64
	RoundTrips  int64
}

// Totals returns the phases seen so far.
func (r *Recorder) Totals() Totals {
	var t Totals
	for id := range numIDs {
		if !r.used[id].Load() {
			continue
		}
		p := Phase{Name: id.Name(), Ns: r.ns[id].Load(), Method: Timed}
		if e := r.every[id].Load(); e > 1 {
			p.Method, p.Every = Sampled, int(e)
		}
		t.Phases = append(t.Phases, p)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.order {
		t.Phases = append(t.Phases, Phase{Name: n, Ns: r.named[n], Method: Client})
	}
	t.Laps = r.laps.Load()
	t.RoundTripNs, t.RoundTrips = r.trips, r.tripN
	return t
}

// ClockCost measures what one Lap costs on this machine (a clock read and an atomic add), in ns, over
// n laps: the price of profiling, stated in the report beside the phases.
func ClockCost(n int) float64 {
	r := New()
	start := time.Now()
	m := r.Start()
	for range n {
		m = r.Lap(m, Get)
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

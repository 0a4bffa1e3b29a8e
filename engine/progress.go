package engine

import (
	"fmt"
	"slices"
	"time"

	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/report"
)

// The engine prints nothing: it reports what it is doing as typed events to Runner.Events, and the
// command prints them (commands/progress.go). The events say where the run is (workload run k of n,
// target, repeat) and carry the estimate of the time left, which the engine makes (eta.go).

// Event is one piece of a run's progress: Started, Message, Loaded, Turn, WorkloadDone or Finished.
type Event interface{ event() }

// Started: the run of a plan begins.
type Started struct{ Plan *config.Plan }

// Message is a line for the user: a note of the engine's, or, with Source set, a line that a
// target's adapter or the run's shared PostgreSQL server ("postgres") logged. Adapters may log from
// their own goroutines.
type Message struct {
	Source string
	Text   string
}

// Loaded: a target loaded the dataset of one size.
type Loaded struct {
	Target string
	Size   int
	Took   time.Duration
}

// Position is where a run is: workload run Run of Runs (a workload at one dataset size).
type Position struct {
	Run, Runs int
	Workload  string
	Size      int
}

// Turn: a target's turn in a repeat of a workload begins; Repeat counts the warm-ups first.
type Turn struct {
	Position
	Target                  string
	Repeat, Warmup, Repeats int
	ETA                     ETA
}

// WorkloadDone: a workload finished at one size on every target that runs it.
type WorkloadDone struct {
	Position
	Results []TargetTime // in the order the targets ran
	ETA     ETA
}

// TargetTime is one target's outcome of a workload: failed, or the median time of its repeats.
type TargetTime struct {
	Target   string
	Failed   bool
	MedianNs float64
}

// Finished: the run ended (not after an error); Took is its whole time.
type Finished struct{ Took time.Duration }

// ETA is the estimated time left and the time spent measuring so far (since the first repeat
// began); OK is false before there is anything to go on.
type ETA struct {
	Elapsed, Left time.Duration
	OK            bool
}

func (Started) event()      {}
func (Message) event()      {}
func (Loaded) event()       {}
func (Turn) event()         {}
func (WorkloadDone) event() {}
func (Finished) event()     {}

// tracker follows a run's position (workload k of n, target, repeat) and what its work cost, and
// sends the events. Without a receiver (emit nil) it sends nothing and estimates nothing.
type tracker struct {
	emit    func(Event)
	now     func() time.Time // the clock (a fake one in tests)
	started time.Time

	// position: workload runs (workload x size) and target-repeats, done and planned
	runs, run       int
	units, ticks    int
	measuring       time.Time // when the first repeat started
	cur             string    // the current workload run, "lookup@100000"
	wl              string
	size            int
	rep, warm, reps int

	targets []string   // the plan's, in order
	est     *estimator // nil before start
	// observe, in tests, sees every estimate of the time left as it is made.
	observe func(p *tracker, left time.Duration, ok bool)
}

func newTracker(emit func(Event), now func() time.Time) *tracker {
	if now == nil {
		now = time.Now
	}
	return &tracker{emit: emit, now: now, started: now()}
}

// printf sends a note of the engine's.
func (p *tracker) printf(format string, args ...any) {
	if p.emit != nil {
		p.emit(Message{Text: fmt.Sprintf(format, args...)})
	}
}

// logf is the log function of source (a target, or "postgres"), for adapters.Env.Logf.
func (p *tracker) logf(source string) func(string, ...any) {
	return func(format string, args ...any) {
		if p.emit != nil {
			p.emit(Message{Source: source, Text: fmt.Sprintf(format, args...)})
		}
	}
}

func (p *tracker) start(pl *config.Plan) {
	if p.emit == nil {
		return
	}
	p.est = newEstimator(pl, p.now())
	for _, t := range pl.Targets {
		p.targets = append(p.targets, t.Name)
	}
	p.runs = len(pl.Sizes) * len(pl.Workloads)
	for _, w := range pl.Workloads {
		n := 0
		for i := range pl.Targets {
			if pl.Targets[i].Runs(w.Name) {
				n++
			}
		}
		p.units += len(pl.Sizes) * n * (pl.Warmup + pl.Repeats)
	}
	p.emit(Started{Plan: pl})
}

// sizeStart starts a dataset size: its dataset is generated, then its targets opened and loaded.
func (p *tracker) sizeStart(size int) {
	if p.est != nil {
		p.est.sizeStart(p.now(), size)
	}
}

// loading starts opening and loading a target.
func (p *tracker) loading(target string) {
	if p.est != nil {
		p.est.loading(p.now(), slices.Index(p.targets, target))
	}
}

// loaded says a target loaded a size's dataset in took.
func (p *tracker) loaded(target string, size int, took time.Duration) {
	if p.emit != nil {
		p.emit(Loaded{Target: target, Size: size, Took: took})
	}
}

// skipped says a target runs nothing more (unavailable, or stalled).
func (p *tracker) skipped(target string) {
	if p.est != nil {
		p.est.skipped(slices.Index(p.targets, target))
	}
}

// closing starts closing the targets of a dataset size.
func (p *tracker) closing() {
	if p.est != nil {
		p.est.closing(p.now())
	}
}

// step starts repeat rep (warm-ups first) of a workload.
func (p *tracker) step(workload string, size, rep, warmup, repeats int) {
	if key := fmt.Sprintf("%s@%d", workload, size); key != p.cur {
		p.cur = key
		p.run++
	}
	if p.measuring.IsZero() {
		p.measuring = p.now()
	}
	p.wl, p.size, p.rep, p.warm, p.reps = workload, size, rep, warmup, repeats
}

// target starts one target's turn in the current repeat.
func (p *tracker) target(name string) {
	p.ticks++
	if p.est != nil {
		p.est.turn(p.now(), p.wl, p.rep, slices.Index(p.targets, name))
	}
	if p.emit == nil {
		if p.observe != nil {
			p.estimate()
		}
		return
	}
	p.emit(Turn{
		Position: Position{Run: p.run, Runs: p.runs, Workload: p.wl, Size: p.size},
		Target:   name, Repeat: p.rep, Warmup: p.warm, Repeats: p.reps, ETA: p.eta(),
	})
}

// eta is the estimated time left with the time spent measuring so far.
func (p *tracker) eta() ETA {
	left, ok := p.estimate()
	if !ok || p.measuring.IsZero() {
		return ETA{}
	}
	return ETA{Elapsed: p.now().Sub(p.measuring), Left: left, OK: true}
}

func (p *tracker) estimate() (time.Duration, bool) {
	if p.est == nil {
		return 0, false
	}
	d, ok := p.est.left(p.now())
	if p.observe != nil {
		p.observe(p, d, ok)
	}
	return d, ok
}

func (p *tracker) done(workload string, size int, accs []*resultAcc) {
	if p.emit == nil {
		return
	}
	if p.est != nil {
		p.est.done(p.now(), workload)
	}
	var results []TargetTime
	for _, a := range accs {
		if a.failed() {
			results = append(results, TargetTime{Target: a.key.target, Failed: true})
			continue
		}
		var el []float64
		for _, r := range a.repeats {
			el = append(el, float64(r.ElapsedNs))
		}
		results = append(results, TargetTime{Target: a.key.target, MedianNs: report.Median(el)})
	}
	p.emit(WorkloadDone{
		Position: Position{Run: p.run, Runs: p.runs, Workload: workload, Size: size},
		Results:  results, ETA: p.eta(),
	})
}

func (p *tracker) finish() {
	if p.emit == nil {
		return
	}
	if p.est != nil {
		p.est.finish(p.now())
	}
	p.emit(Finished{Took: p.now().Sub(p.started)})
}

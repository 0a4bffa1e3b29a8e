package engine

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// gcPace makes the Go GC pace a target's re-warmed and timed repeats as it would in a process of its
// own. Go sets each cycle's heap goal from the heap left live by the previous cycle (plus stacks and
// globals) times GOGC percent, so a target that allocates (lmdb-go-copy copies every key and value)
// collects less often beside its neighbours' live data than alone: its scan measured 0.82-0.84x its
// figure alone with four targets in one process, and 0.98-1.08x with GOGC=off on both sides. Scaling
// GOGC by (the heap it would have alone) / (the heap of the whole process) gives it the headroom it
// would have alone, so it pays for its own garbage as often as alone, whatever its neighbours hold.
type gcPace struct {
	base uint64                  // heap live with no target loaded: the dataset and the engine
	own  map[*targetState]uint64 // what opening and loading each target added to it
	last uint64                  // heap live before the target being opened
}

// newGCPace measures the heap before any target of a dataset size is opened.
func newGCPace() *gcPace {
	live := heapScan().live
	return &gcPace{base: live, own: map[*targetState]uint64{}, last: live}
}

// opened records what target s added to the live heap (nothing if the heap shrank meanwhile).
func (g *gcPace) opened(s *targetState) {
	if g == nil {
		return
	}
	live := heapScan().live
	if live > g.last {
		g.own[s] = live - g.last
	}
	g.last = live
}

// apply sets GOGC for target s's next repeat; restore puts the process's own setting back. With the
// GC off (GOGC=off) there is nothing to pace.
func (g *gcPace) apply(s *targetState) (restore func()) {
	if g == nil {
		return func() {}
	}
	h := heapScan()
	prev := debug.SetGCPercent(-1)
	if prev < 0 {
		return func() {}
	}
	alone := float64(g.base+g.own[s]) + h.roots
	now := float64(h.live) + h.roots
	debug.SetGCPercent(gcPercent(prev, alone, now))
	return func() { debug.SetGCPercent(prev) }
}

// gcPercent is the GOGC that gives a process whose GC roots and live heap sum to now the heap headroom
// that percent of alone would give (at least 1: 0 would collect continuously).
func gcPercent(percent int, alone, now float64) int {
	if now <= 0 || alone <= 0 {
		return percent
	}
	return max(1, int(math.Round(float64(percent)*alone/now)))
}

type heapState struct {
	live  uint64  // bytes live after a full collection
	roots float64 // stacks and globals, which the heap goal counts beside the live heap
}

// heapScan collects the garbage and reads what the GC's pacer reads.
func heapScan() heapState {
	runtime.GC()
	s := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/stack:bytes"},
		{Name: "/gc/scan/globals:bytes"},
	}
	metrics.Read(s)
	u := func(i int) uint64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return s[i].Value.Uint64()
	}
	return heapState{live: u(0), roots: float64(u(1) + u(2))}
}

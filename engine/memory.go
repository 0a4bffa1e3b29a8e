package engine

import (
	"os"
	"runtime"
	"runtime/metrics"
	"slices"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/internal/procmem"
)

// memSample is the memory of a target's processes at one point between timed operations.
type memSample struct {
	inProcess bool
	// This process, after a forced GC: Go bytes allocated so far and live now, the C allocator's
	// bytes in use (cHeapOK: readable), the resident set and its peak.
	allocs, live int64
	cHeap        int64
	cHeapOK      bool
	self         procmem.Resident
	// The target's own processes (trees), by role; absent: none, or unreadable.
	procs map[string]procmem.Resident
}

var memMetrics = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/live:bytes"}}

// sampleMemory collects the garbage and reads the memory of this process and of the target's
// processes (its own, and those of a server the run started for it). It runs only between repeats,
// never inside a timed operation.
func sampleMemory(t adapters.Target, servers []adapters.Process) memSample {
	runtime.GC()
	s := memSample{procs: map[string]procmem.Resident{}}
	ms := append([]metrics.Sample(nil), memMetrics...)
	metrics.Read(ms)
	s.allocs, s.live = int64(ms[0].Value.Uint64()), int64(ms[1].Value.Uint64())
	s.cHeap, s.cHeapOK = procmem.CHeap()
	s.self, _ = procmem.ReadResident(os.Getpid())
	procs := targetProcesses(t, servers)
	s.inProcess = !slices.ContainsFunc(procs, func(p adapters.Process) bool { return p.Role == adapters.RoleClient })
	for _, p := range procs {
		r, err := procmem.ReadTree(p.PID)
		if err != nil {
			continue
		}
		sum := s.procs[p.Role]
		sum.RSS += r.RSS
		sum.Peak += r.Peak
		s.procs[p.Role] = sum
	}
	return s
}

// targetProcesses are the processes outside dbbench that do a target's work: its own (a client, a
// server it started for itself) and a server the run started for it.
func targetProcesses(t adapters.Target, servers []adapters.Process) []adapters.Process {
	if po, ok := t.(adapters.ProcessOwner); ok {
		return append(po.Processes(), servers...)
	}
	return servers
}

// memoryFigures are a repeat's memory figures from the samples before and after its ops operations
// (docs/memory.md). In-process: bytes_allocated_per_op and go_heap_retained_per_op from the Go
// heap, c_heap_retained_per_op from malloc, bytes_retained_per_op their sum, rss_growth_per_op and
// peak_rss_bytes this process's. A target with a client process: bytes_retained_per_op is the
// client's resident set growth (its rss_growth_per_op), peak_rss_bytes the client's peak. Either
// kind adds server_rss_growth_per_op and server_peak_rss_bytes for a server the run started for it.
func memoryFigures(before, after memSample, ops int64) map[string]float64 {
	if ops <= 0 {
		return nil
	}
	n := float64(ops)
	per := func(d int64) float64 { return float64(d) / n }
	figs := map[string]float64{}
	if before.inProcess {
		figs["bytes_allocated_per_op"] = per(after.allocs - before.allocs)
		figs["go_heap_retained_per_op"] = per(after.live - before.live)
		retained := after.live - before.live
		if before.cHeapOK && after.cHeapOK {
			figs["c_heap_retained_per_op"] = per(after.cHeap - before.cHeap)
			retained += after.cHeap - before.cHeap
		}
		figs["bytes_retained_per_op"] = per(retained)
		if before.self.RSS > 0 && after.self.RSS > 0 {
			figs["rss_growth_per_op"] = per(after.self.RSS - before.self.RSS)
			figs["peak_rss_bytes"] = float64(after.self.Peak)
		}
	}
	for role, prefix := range map[string]string{adapters.RoleClient: "", adapters.RoleServer: "server_"} {
		b, okb := before.procs[role]
		a, oka := after.procs[role]
		if !okb || !oka {
			continue
		}
		figs[prefix+"rss_growth_per_op"] = per(a.RSS - b.RSS)
		figs[prefix+"peak_rss_bytes"] = float64(a.Peak)
		if role == adapters.RoleClient {
			figs["bytes_retained_per_op"] = per(a.RSS - b.RSS)
		}
	}
	return figs
}

package engine

import (
	"testing"

	"github.com/dbbench/dbbench/internal/procmem"
)

// TestMemoryFiguresInProcess runs lookups on the memory adapter with memory: true: every memory
// figure is there, and a store that keeps nothing per lookup retains about nothing per lookup.
func TestMemoryFiguresInProcess(t *testing.T) {
	p := plan(t, &callLog{}, `name: t
dataset: {persons: 500}
memory: true
warmup: 1
repeats: 3
workloads:
  - {name: lookup, ops: 4000}
targets:
  - {name: a, adapter: memory}
`)
	rep, err := run(t, p)
	if err != nil {
		t.Fatal(err)
	}
	x := rep.Find("a", "lookup", 0)
	t.Logf("figures %v", x.Figures)
	for _, name := range []string{"bytes_allocated_per_op", "bytes_retained_per_op", "go_heap_retained_per_op", "rss_growth_per_op", "peak_rss_bytes"} {
		if _, ok := x.Figures[name]; !ok {
			t.Errorf("figure %s missing: %v", name, x.Figures)
		}
	}
	if _, ok := procmem.CHeap(); ok {
		if _, ok := x.Figures["c_heap_retained_per_op"]; !ok {
			t.Errorf("c_heap_retained_per_op missing where malloc can be read")
		}
	}
	if v := x.Figures["bytes_retained_per_op"]; v > 8 || v < -8 {
		t.Errorf("bytes_retained_per_op %g for a store that keeps nothing per lookup", v)
	}
	if v := x.Figures["bytes_allocated_per_op"]; v > 64 {
		t.Errorf("bytes_allocated_per_op %g for lookups in a map: the engine's own allocations leak into it", v)
	}
}

// TestMemoryFiguresFromSamples: what each kind of target's samples give, per operation.
func TestMemoryFiguresFromSamples(t *testing.T) {
	res := func(rss, peak int64) procmem.Resident { return procmem.Resident{RSS: rss, Peak: peak} }
	for _, tt := range []struct {
		name          string
		before, after memSample
		ops           int64
		want          map[string]float64
	}{
		{"in process, C readable", memSample{inProcess: true, allocs: 1000, live: 5000, cHeap: 100, cHeapOK: true, self: res(8192, 9000)},
			memSample{inProcess: true, allocs: 3000, live: 5400, cHeap: 700, cHeapOK: true, self: res(12288, 16000)}, 2,
			map[string]float64{"bytes_allocated_per_op": 1000, "go_heap_retained_per_op": 200, "c_heap_retained_per_op": 300,
				"bytes_retained_per_op": 500, "rss_growth_per_op": 2048, "peak_rss_bytes": 16000}},
		{"in process, no C, heap shrank", memSample{inProcess: true, live: 5000, self: res(8192, 9000)},
			memSample{inProcess: true, live: 4000, self: res(4096, 9000)}, 10,
			map[string]float64{"bytes_allocated_per_op": 0, "go_heap_retained_per_op": -100, "bytes_retained_per_op": -100,
				"rss_growth_per_op": -409.6, "peak_rss_bytes": 9000}},
		{"client and server", memSample{procs: map[string]procmem.Resident{"client": res(1<<20, 2<<20), "server": res(4<<20, 5<<20)}},
			memSample{procs: map[string]procmem.Resident{"client": res(1<<20+600*1024, 3<<20), "server": res(4<<20, 6<<20)}}, 1024,
			map[string]float64{"rss_growth_per_op": 600, "bytes_retained_per_op": 600, "peak_rss_bytes": 3 << 20,
				"server_rss_growth_per_op": 0, "server_peak_rss_bytes": 6 << 20}},
		{"in process, on the run's server", memSample{inProcess: true, self: res(8192, 9000), procs: map[string]procmem.Resident{"server": res(40<<20, 41<<20)}},
			memSample{inProcess: true, self: res(8192, 9000), procs: map[string]procmem.Resident{"server": res(40<<20+4096, 42<<20)}}, 4,
			map[string]float64{"bytes_allocated_per_op": 0, "go_heap_retained_per_op": 0, "bytes_retained_per_op": 0,
				"rss_growth_per_op": 0, "peak_rss_bytes": 9000, "server_rss_growth_per_op": 1024, "server_peak_rss_bytes": 42 << 20}},
		{"client unreadable", memSample{procs: map[string]procmem.Resident{}}, memSample{procs: map[string]procmem.Resident{}}, 5,
			map[string]float64{}},
		{"no operations", memSample{inProcess: true}, memSample{inProcess: true}, 0, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := memoryFigures(tt.before, tt.after, tt.ops)
			if len(got) != len(tt.want) {
				t.Fatalf("figures %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if g, ok := got[k]; !ok || g != v {
					t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
				}
			}
		})
	}
}

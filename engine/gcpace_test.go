package engine

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

func TestGCPercent(t *testing.T) {
	for _, c := range []struct {
		name        string
		percent     int
		alone, now  float64
		wantPercent int
	}{
		{"alone in the process", 100, 50, 50, 100},
		{"neighbours hold three quarters", 100, 25, 100, 25},
		{"user's GOGC scaled too", 400, 10, 40, 100},
		{"never 0, which would collect all the time", 100, 1, 1e6, 1},
		{"nothing measured", 100, 0, 0, 100},
		{"heap shrank below the estimate alone", 100, 60, 50, 120},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := gcPercent(c.percent, c.alone, c.now); got != c.wantPercent {
				t.Errorf("gcPercent(%d, %v, %v) = %d, want %d", c.percent, c.alone, c.now, got, c.wantPercent)
			}
		})
	}
}

// A target that allocates must get the heap headroom beside a neighbour holding a large live heap that
// it gets alone: the neighbour's heap is what made lmdb-go-copy's scan faster in a four-target run
// than alone. The headroom (heap goal minus live heap) decides how much garbage it makes per GC cycle;
// counting cycles instead would measure the concurrent collector's timing on a busy machine.
func TestGCPaceGivesTheHeadroomOfATargetAlone(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	target := &targetState{}
	headroom := func(neighbourMiB int, paced bool) float64 {
		pace := newGCPace()
		var held [][]byte
		for i := 0; i < neighbourMiB; i++ {
			held = append(held, make([]byte, 1<<20))
		}
		pace.opened(&targetState{}) // the neighbour
		own := make([]byte, 8<<20)
		pace.opened(target)
		restore := func() {}
		if paced {
			restore = pace.apply(target)
		}
		h := heapMetric("/gc/heap/goal:bytes") - heapMetric("/gc/heap/live:bytes")
		restore()
		runtime.KeepAlive(held)
		runtime.KeepAlive(own)
		return h
	}
	alone := headroom(0, true)
	beside := headroom(64, false)
	paced := headroom(64, true)
	t.Logf("heap headroom: alone %.1f MiB, beside 64 MiB unpaced %.1f MiB, paced %.1f MiB", alone/(1<<20), beside/(1<<20), paced/(1<<20))
	if beside < 4*alone {
		t.Fatalf("the test's premise failed: a neighbour's heap should give more headroom (alone %.0f, beside %.0f)", alone, beside)
	}
	if paced < 0.9*alone || paced > 1.1*alone {
		t.Errorf("paced beside a neighbour: headroom %.0f bytes, alone %.0f: want within 10%%", paced, alone)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC after restore = %d, want the process's own 100", got)
	}
}

func heapMetric(name string) float64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return float64(s[0].Value.Uint64())
}

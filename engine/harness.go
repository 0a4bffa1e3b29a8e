package engine

import (
	"context"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/report"
)

// nopOp does nothing; timing it measures the engine's own cost per operation.
type nopOp struct{}

func (nopOp) Do(context.Context, int) (adapters.Tally, error) { return adapters.Tally{}, nil }

// calibrationOps is enough operations for a stable median and costs a few ms.
const calibrationOps = 100_000

// calibrate measures the harness overhead: the latency the per-operation loop records around an
// operation that does nothing (the floor under every per-op latency) and the loop's cost per iteration.
func calibrate() report.Harness {
	var op adapters.Op = nopOp{}
	ctx := context.Background()
	h := report.NewHistogram()
	start := time.Now()
	for i := 0; i < calibrationOps; i++ {
		t0 := time.Now()
		op.Do(ctx, i)
		report.Record(h, time.Since(t0))
	}
	loop := time.Since(start)
	return report.Harness{
		TimerNs: float64(h.ValueAtQuantile(50)),
		LoopNs:  float64(loop.Nanoseconds()) / calibrationOps,
	}
}

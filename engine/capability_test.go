package engine

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/memory"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/workloads"
)

// TestMissingCapabilityFailsTheWorkload: a target without the capability its workload needs (its
// adapter declares a workload it does not implement) fails that workload with one line naming the
// capability, exit 3 through the workload's error, instead of panicking in a type assertion; with
// interleave: ops it has no per-operation stepper and runs (and fails) on its own.
func TestMissingCapabilityFailsTheWorkload(t *testing.T) {
	ctx := context.Background()
	ds, err := dataset.Generate(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	inner, err := memory.New().Open(ctx, adapters.Options{}, adapters.Env{})
	if err != nil {
		t.Fatal(err)
	}
	hollow := struct{ adapters.Target }{inner} // only the Target methods: no Scanner, PointReader or Inserter
	want := map[string]string{
		workloads.Scan:       "implements no Scanner or TimedScanner, which workload scan needs",
		workloads.Lookup:     "implements no PointReader or TimedPointReader, which workload lookup needs",
		workloads.Insert:     "implements no Inserter or TimedInserter, which workload insert needs",
		workloads.Concurrent: "implements no Scanner, ConcurrentScanner or TimedConcurrentScanner, which workload concurrent needs",
	}
	for _, w := range workloads.Builtins {
		rows, ops, readers := workloads.Params(w, 0, 10, 2, ds.Len())
		e := &execution{w: workloads.Resolve(w, rows, ops, readers, ds, 1), target: hollow}
		if s := e.stepper(ctx, new(atomic.Int64)); s != nil {
			t.Errorf("%s: a stepper for a target that cannot run it", w)
		}
		m, err := e.run(ctx)
		if m != nil || err == nil || !strings.Contains(err.Error(), want[w]) || exitcode.Of(err) != exitcode.Infra {
			t.Errorf("%s: %v, %v (exit %d); want exit 3 and %q", w, m, err, exitcode.Of(err), want[w])
		}
	}
}

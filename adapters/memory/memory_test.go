package memory_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/adapters/memory"
	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/workloads"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// TestConforms runs the conformance kit on the memory adapter (go test -race runs its readers at
// once under the race detector).
func TestConforms(t *testing.T) {
	adaptertest.Run(t, adaptertest.Target{
		Open:      adaptertest.Opener(memory.New(), nil),
		Workloads: memory.New().Info().Builtin,
		RecordOps: ycsb.Ops(),
		Uninterruptible: map[string]string{
			workloads.Lookup: "one map read under a read lock: it never blocks, and the engine checks the context between lookups",
			workloads.Insert: "appends to a slice: it never blocks, and the engine checks the context between inserts",
		},
	})
}

// TestPhases: profiled, a scan times its rows in blocks (copy), lookups sample their map reads
// (get) and decoding (copy), one in sampleEvery; they sum to no more than the operations' time.
func TestPhases(t *testing.T) {
	ctx := context.Background()
	ds, err := dataset.Generate(3000, 5)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := memory.New().Open(ctx, adapters.Options{}, adapters.Env{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if err := tg.Load(ctx, ds); err != nil {
		t.Fatal(err)
	}
	scan := adaptertest.CheckPhases(t, tg, 5, func(int) error {
		_, err := tg.(adapters.Scanner).Scan(ctx, ds.Len())
		return err
	}, "copy")
	if p := scan.Phases[0]; p.Method != phase.Timed || scan.Laps != 5*(3+1) {
		t.Errorf("scan of 3000 rows: phase %+v, %d laps, want timed in blocks of 1024 (4 laps a scan)", p, scan.Laps)
	}
	lookup := adaptertest.CheckPhases(t, tg, 2000, func(i int) error {
		tl, err := tg.(adapters.PointReader).Lookup(ctx, ds.Email(i))
		if err == nil && tl.Rows != 1 {
			err = fmt.Errorf("lookup of %s found nothing", ds.Email(i))
		}
		return err
	}, "get", "copy")
	for _, p := range lookup.Phases {
		if p.Method != phase.Sampled || p.Every != 16 {
			t.Errorf("phase %+v, want sampled one in 16", p)
		}
	}
}

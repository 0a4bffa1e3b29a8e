package memory_test

import (
	"testing"

	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/adapters/memory"
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

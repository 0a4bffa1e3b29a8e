// Package lmdbc is dbbench's C baseline for LMDB (adapter "lmdb-c"): the four common workloads
// written in C and timed inside C with clock_gettime(CLOCK_MONOTONIC), on an environment opened
// through lmdb-go, so they run on lmdb-go's own vendored LMDB (the binary holds one LMDB) and on the
// same file layout as the Go adapter. They read the dataset's packed buffers directly.
//
// The C code reaches lmdb-go's MDB_env through adapters/lmdb/native, whose Bind self-checks the
// handles; it compiles against the LMDB declarations of adapters/lmdb/native/mdbdecl.h.
package lmdbc

import (
	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/lmdb/store"
	"github.com/dbbench/dbbench/workloads"
)

// Name is the adapter's name in configs.
const Name = "lmdb-c"

// Adapter opens C-baseline targets.
type Adapter struct{}

// New returns the lmdb-c adapter.
func New() adapters.Adapter { return Adapter{} }

// Info describes the adapter; its options are the environment options the Go adapter shares.
func (Adapter) Info() adapters.Info {
	return adapters.Info{
		Name: Name,
		Summary: "C baseline for LMDB: the common workloads in C (timed in C) on lmdb-go's vendored " +
			"LMDB 0.9.33 and environment",
		Options: store.Specs(),
		Builtin: workloads.Builtins,
	}
}

var _ adapters.Checker = Adapter{}

// Check reports the option mistakes Open would, and a map too small for the dataset, which Load
// would refuse (see adapters.Checker).
func (Adapter) Check(o adapters.Options, ds adapters.DatasetSpec, _ map[string]adapters.Options) error {
	cfg, err := store.ParseConfig(o)
	if err != nil {
		return err
	}
	return store.CheckSize(cfg, ds.Size, ds.Seed)
}

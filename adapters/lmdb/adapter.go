// Package lmdb is the dbbench adapter for LMDB through github.com/PowerDNS/lmdb-go (v1.9.3, which
// compiles LMDB 0.9.33 into the binary). A person is stored under its email's raw bytes with the
// value [age uint8][name bytes].
//
// Two Go paths are measured. The plain path is what a Go user of lmdb-go writes: one cgo call per
// cursor step, Get or Put. The batched path (option batch > 0) moves many cursor steps or puts per
// cgo call through the small C helpers of package native, and fuses a lookup's renew, get, copy and
// reset into one call. The C baseline for both is baselines/lmdbc.
package lmdb

import (
	"fmt"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/lmdb/native"
	"github.com/dbbench/dbbench/adapters/lmdb/store"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/workloads"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// Name is the adapter's name in configs.
const Name = "lmdb"

// Options specific to the Go adapter.
const (
	optRawRead = "raw_read"
	optBatch   = "batch"
	// optLeak is a test aid (docs/memory.md): the target leaks this many bytes of C memory per
	// read transaction, as a C library that keeps memory per transaction would.
	optLeak = "leak_c_bytes_per_txn"
)

// Adapter opens LMDB targets driven from Go.
type Adapter struct{}

// New returns the lmdb adapter.
func New() adapters.Adapter { return Adapter{} }

// Info describes the adapter and its options.
func (Adapter) Info() adapters.Info {
	opts := store.Specs()
	opts = append(opts,
		adapters.OptionSpec{Name: optRawRead, Kind: adapters.Bool, Default: "true",
			Help: "true: zero-copy reads (lmdb-go Txn.RawRead, slices point into the map); false: every key " +
				"and value is copied into Go memory"},
		adapters.OptionSpec{Name: optBatch, Kind: adapters.Int, Default: "0", Min: 0, HasMin: true,
			Help: fmt.Sprintf("0: the plain lmdb-go path, one cgo call per cursor step, Get or Put; N (1..%d): "+
				"the batched variant, N cursor steps or puts per cgo call through a small C helper, and a "+
				"lookup's renew+get+copy+reset in one cgo call", native.MaxBatch)},
		adapters.OptionSpec{Name: optLeak, Kind: adapters.Int, Default: "0", Min: 0, HasMin: true,
			Help: "TEST AID, never for a measurement: malloc this many bytes in C per read transaction and " +
				"never free them, so that the leak check (docs/memory.md) has a leak to catch"},
	)
	return adapters.Info{
		Name: Name,
		Summary: "LMDB 0.9.33 through github.com/PowerDNS/lmdb-go v1.9.3 (cgo): plain lmdb-go calls, or " +
			"batched C helpers with batch > 0",
		Options: opts,
		Builtin: workloads.Builtins,
		Records: ycsb.Ops(),
	}
}

var _ adapters.Checker = Adapter{}

// settings are the validated options of one target.
type settings struct {
	store   store.Config
	rawRead bool
	batch   int
	leak    int
}

// Check reports the option mistakes Open would, and a map too small for the dataset, which Load
// would refuse (see adapters.Checker).
func (Adapter) Check(o adapters.Options, ds adapters.DatasetSpec, _ map[string]adapters.Options) error {
	s, err := parseSettings(o)
	if err != nil {
		return err
	}
	return store.CheckSize(s.store, ds.Size, ds.Seed)
}

func parseSettings(o adapters.Options) (settings, error) {
	sc, err := store.ParseConfig(o)
	if err != nil {
		return settings{}, err
	}
	s := settings{store: sc, rawRead: true, batch: int(o.Int(optBatch)), leak: int(o.Int(optLeak))}
	if o.Has(optRawRead) {
		s.rawRead = o.Bool(optRawRead)
	}
	if b := o.Int(optBatch); b < 0 || b > native.MaxBatch {
		return s, exitcode.Usagef("lmdb option batch: want 0 (plain lmdb-go) or 1 to %d pairs per cgo call, got %d", native.MaxBatch, b)
	}
	if s.leak < 0 || s.leak > 1<<20 {
		return s, exitcode.Usagef("lmdb option %s: want 0 to %d bytes per read transaction, got %d", optLeak, 1<<20, s.leak)
	}
	return s, nil
}

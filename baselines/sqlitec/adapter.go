// Package sqlitec is dbbench's C baseline for SQLite (adapter "sqlite-c"): the four common workloads
// with the reference statements of docs/protocol.md, written in C against SQLite's C API and timed
// inside C with clock_gettime(CLOCK_MONOTONIC), as baselines/lmdbc does for LMDB. Beside the sql
// adapter on modernc.org/sqlite (SQLite translated to Go) it makes "pure-Go SQLite against C SQLite"
// one config.
//
// The SQLite it calls is the amalgamation github.com/mattn/go-sqlite3 compiles into the binary
// (cgo, no system library needed): the C code declares the few functions it calls (sqlitedecl.h)
// and the import of that package links them. A build without cgo reports the target unavailable.
package sqlitec

import (
	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/workloads"
)

// Name is the adapter's name in configs.
const Name = "sqlite-c"

// Adapter opens C-baseline targets.
type Adapter struct{}

// New returns the sqlite-c adapter.
func New() adapters.Adapter { return Adapter{} }

// Info describes the adapter.
func (Adapter) Info() adapters.Info {
	return adapters.Info{
		Name: Name,
		Summary: "C baseline for SQLite: the common workloads in C (timed in C) with the reference statements, " +
			"on the SQLite amalgamation github.com/mattn/go-sqlite3 compiles in; the sql adapter's file settings",
		Options: []adapters.OptionSpec{
			{Name: "path", Kind: adapters.String,
				Help: "the database file to create; it must not exist (default: a file in the target's temp dir)"},
		},
		Builtin: workloads.Builtins,
	}
}

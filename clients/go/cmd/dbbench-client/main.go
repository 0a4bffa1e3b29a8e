// Command dbbench-client is the Go reference client of dbbench's protocol (docs/protocol.md):
//
//	dbbench-client LIBRARY
//
// with LIBRARY lmdb (lmdb-go), sqlite (modernc.org/sqlite) or postgres (pgx). It serves dbbench's
// own adapters, the in-process lmdb and sql adapters, through package protocol, so that a config can
// put the two side by side and show what the process boundary costs.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/adapters/lmdb"
	sqladapter "github.com/dbbench/dbbench/adapters/sql"
)

// libraries maps each LIBRARY argument to its backend. A backend's phases says that its adapter's
// targets split their operations into phases (adapters.Profiler), so that the client offers
// capability phases: TestPhasesOffered keeps it true to the adapter.
var libraries = map[string]func() *adapterBackend{
	"lmdb": func() *adapterBackend {
		return &adapterBackend{adapter: lmdb.New(), library: "github.com/PowerDNS/lmdb-go", phases: true}
	},
	"sqlite": func() *adapterBackend {
		return &adapterBackend{adapter: sqladapter.New(), library: "modernc.org/sqlite",
			fixed: map[string]any{"driver": sqladapter.DriverSQLite}, hide: []string{"dsn", "schema"}, phases: true}
	},
	"postgres": func() *adapterBackend {
		return &adapterBackend{adapter: sqladapter.New(), library: "github.com/jackc/pgx/v5",
			fixed: map[string]any{"driver": sqladapter.DriverPostgres}, hide: []string{"storage", "path", "dsn", "schema"},
			postgres: true, phases: true}
	},
}

func main() {
	if len(os.Args) != 2 || libraries[os.Args[1]] == nil {
		fmt.Fprintf(os.Stderr, "usage: dbbench-client LIBRARY (one of %s); it speaks dbbench's protocol on stdin and stdout\n", knownLibraries())
		os.Exit(2)
	}
	if err := protocol.Serve(context.Background(), os.Stdin, os.Stdout, libraries[os.Args[1]]()); err != nil {
		fmt.Fprintf(os.Stderr, "dbbench-client: %v\n", err)
		os.Exit(1)
	}
}

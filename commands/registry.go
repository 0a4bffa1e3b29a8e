package commands

import (
	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/exec"
	"github.com/dbbench/dbbench/adapters/lmdb"
	"github.com/dbbench/dbbench/adapters/memory"
	sqladapter "github.com/dbbench/dbbench/adapters/sql"
	"github.com/dbbench/dbbench/adapters/triplex"
	"github.com/dbbench/dbbench/adapters/typedb"
	"github.com/dbbench/dbbench/baselines/lmdbc"
	"github.com/dbbench/dbbench/baselines/sqlitec"
)

// builtinAdapters lists every adapter compiled into dbbench. Add one line per adapter.
func builtinAdapters() []adapters.Adapter {
	return []adapters.Adapter{
		memory.New(),
		lmdb.New(),
		lmdbc.New(),
		triplex.New(),
		typedb.New(),
		sqladapter.New(),
		sqlitec.New(),
		exec.New(),
	}
}

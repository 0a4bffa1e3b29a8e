package cli

import (
	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/memory"
)

// builtinAdapters lists every adapter compiled into dbbench. Add one line per adapter.
func builtinAdapters() []adapters.Adapter {
	return []adapters.Adapter{
		memory.New(),
	}
}

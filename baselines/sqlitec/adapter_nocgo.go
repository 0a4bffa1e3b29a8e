//go:build !cgo

package sqlitec

import (
	"context"

	"github.com/dbbench/dbbench/adapters"
)

// Open reports that the baseline needs cgo: its SQLite is C compiled into the binary.
func (Adapter) Open(ctx context.Context, opts adapters.Options, env adapters.Env) (adapters.Target, error) {
	return nil, adapters.Unavailable("the sqlite-c baseline needs cgo, and this dbbench was built without it (CGO_ENABLED=0)")
}

//go:build !cgo

package lmdb

import (
	"context"

	"github.com/dbbench/dbbench/adapters"
)

// Open reports that LMDB needs cgo: lmdb-go compiles LMDB's C sources into the binary.
func (Adapter) Open(ctx context.Context, opts adapters.Options, env adapters.Env) (adapters.Target, error) {
	if _, err := parseSettings(opts); err != nil {
		return nil, err
	}
	return nil, adapters.Unavailable("the lmdb adapter needs cgo, and this dbbench was built without it (CGO_ENABLED=0)")
}

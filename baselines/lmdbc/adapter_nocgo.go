//go:build !cgo

package lmdbc

import (
	"context"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/lmdb/store"
)

// Open reports that the C baseline needs cgo.
func (Adapter) Open(ctx context.Context, opts adapters.Options, env adapters.Env) (adapters.Target, error) {
	if _, err := store.ParseConfig(opts); err != nil {
		return nil, err
	}
	return nil, adapters.Unavailable("the lmdb-c baseline needs cgo, and this dbbench was built without it (CGO_ENABLED=0)")
}

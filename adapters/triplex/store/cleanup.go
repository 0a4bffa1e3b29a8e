package store

import (
	"context"
	"time"
)

// dropFailed removes the tables of a create or load that failed: with no deadline of its own while ctx is live
// (a statement failed, the server still answers), within 500 ms once ctx is done (Ctrl-C, or the
// engine gave up on a stalled server), so that a server that stopped answering cannot hold the failure.
func dropFailed(ctx context.Context, s *Store) {
	dctx, cancel := context.WithoutCancel(ctx), context.CancelFunc(func() {})
	if ctx.Err() != nil {
		dctx, cancel = context.WithTimeout(dctx, 500*time.Millisecond)
	}
	defer cancel()
	_ = s.Drop(dctx)
}

package config

import (
	"fmt"
	"time"

	"github.com/dbbench/dbbench/adapters"
)

// ShardPlan is a sharded run's share of the one-process run (docs/shards.md): this process does
// operations Index, Index+Total, Index+2*Total ... of the sequence one process would do.
type ShardPlan struct {
	Index, Total int
	// StartAt is when the first timed operation is meant to start (zero: as soon as loaded); a
	// shard later than LateBound records it.
	StartAt   time.Time
	LateBound time.Duration
	// BuildHash identifies the binary (internal/buildinfo.Hash), for merge to refuse mixed builds.
	BuildHash string
}

// DefaultLateBound is how late after --start-at a shard may begin before its report says late.
const DefaultLateBound = 100 * time.Millisecond

// Count is how many of the one-process items 0..n-1 are this shard's: those i with i mod Total ==
// Index.
func (s *ShardPlan) Count(n int64) int64 {
	if s == nil {
		return n
	}
	if n <= int64(s.Index) {
		return 0
	}
	return (n-int64(s.Index)-1)/int64(s.Total) + 1
}

// Readers is this shard's share of n concurrent readers: n/Total, one more for the first n mod
// Total shards, and at least one (a shard with no reader would measure nothing; Notes says so).
func (s *ShardPlan) Readers(n int) int {
	if s == nil {
		return n
	}
	return max(1, int(s.Count(int64(n))))
}

// String is the share as --shard writes it.
func (s *ShardPlan) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Total) }

// SharedServer names the option that points target t at a server the user gives (a dsn, TypeDB's
// address), "" when its store is its own: embedded, or a throwaway server the target starts for
// this process. Shards of a shared server would each load it (docs/shards.md).
func (t TargetPlan) SharedServer() string {
	for _, spec := range t.Adapter.Info().Options {
		if (spec.Kind == adapters.DSN || spec.Name == "address") && t.Options.String(spec.Name) != "" {
			return spec.Name
		}
	}
	return ""
}

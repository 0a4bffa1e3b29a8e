package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A sharded run (docs/shards.md) is N processes, each doing a striped share of the one-process
// workload (`dbbench run --shard I/N`); `dbbench merge` makes one report of their N reports.

// Shard is what a shard's report records of itself: which share it ran, when it was meant to
// start and did, where, on which clock and which binary.
type Shard struct {
	// Index is 0-based (as Kubernetes' JOB_COMPLETION_INDEX is); Total is N.
	Index int `json:"index"`
	Total int `json:"total"`
	// StartAt is the intended start (--start-at), nil when none was given; StartedAt is when the
	// shard began its first timed operation (after loading, and waiting for StartAt).
	StartAt   *time.Time `json:"start_at,omitempty"`
	StartedAt time.Time  `json:"started_at"`
	// LateNs is how much later than StartAt it started (0 when on time or with no StartAt); Late
	// says it exceeded LateBoundNs, the bound it was held to.
	LateNs      int64  `json:"late_ns,omitempty"`
	LateBoundNs int64  `json:"late_bound_ns,omitempty"`
	Late        bool   `json:"late,omitempty"`
	Host        string `json:"host"`
	Clock       Clock  `json:"clock"`
	// BuildHash is the SHA-256 of the dbbench binary that ran the shard (hex): merge refuses shards
	// of different binaries, which a `go run` build's missing commit could not tell apart.
	BuildHash string `json:"build_hash"`
	// Notes say where this shard's share differs from a plain stripe of the one-process run (a
	// history-dependent distribution following its own inserts, readers rounded up to one).
	Notes []string `json:"notes,omitempty"`
}

// Clock is the shard's clock as the machine itself measured it against its time source, never
// invented: Known is false when the kernel says the clock is not synchronized (or the platform
// cannot say), and then OffsetNs and MaxErrorNs mean nothing.
type Clock struct {
	Source     string `json:"source"` // how it was read, e.g. "adjtimex"
	Known      bool   `json:"known"`
	OffsetNs   int64  `json:"offset_ns,omitempty"`    // the time daemon's last measured offset
	MaxErrorNs int64  `json:"max_error_ns,omitempty"` // the kernel's bound on the clock's error
}

// String says the clock's offset in a few words.
func (c Clock) String() string {
	if !c.Known {
		return "offset unknown (" + c.Source + ")"
	}
	return fmt.Sprintf("offset %v, error at most %v (%s)", time.Duration(c.OffsetNs), time.Duration(c.MaxErrorNs), c.Source)
}

// ShardName is a shard as the command line names it: "shard 3 of 4" (0-based index, as given to
// --shard).
func ShardName(index, total int) string { return fmt.Sprintf("shard %d of %d", index, total) }

// ParseShard reads --shard's I/N: 0 <= I < N.
func ParseShard(s string) (index, total int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("%q: write I/N, such as 0/4 (I from 0 to N-1)", s)
	}
	if n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("%q: want 0 <= I < N and N >= 1 (I is 0-based, as JOB_COMPLETION_INDEX)", s)
	}
	return i, n, nil
}

// Merge is what a merged report records of the shards it was made from.
type Merge struct {
	Total int `json:"total"`
	// Shards are the shard records merged, in index order.
	Shards []Shard `json:"shards"`
	// Missing are the indexes of shards absent or partial (merged with --allow-missing only); the
	// report is then Partial: its figures are those of the shares present.
	Missing []int `json:"missing,omitempty"`
	// MissingShares are the results of the shards' plan a complete shard lacks (a target it
	// skipped): merged with --allow-missing only, and the report is then Partial too.
	MissingShares []MissingShare `json:"missing_shares,omitempty"`
	Partial       bool           `json:"partial,omitempty"`
	// SkewNs is the spread of the shards' actual starts (latest minus earliest).
	SkewNs int64 `json:"skew_ns"`
	// Late are the shards that started later than their bound.
	Late []int `json:"late,omitempty"`
}

package exec

import (
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters/exec/protocol"
)

// A reply whose work does not stand out from the protocol's cost is let through unjudged, and
// counted so: a check that judged nothing must not read as one that found every time plausible.
func TestJudgedCountsOnlyVisibleWork(t *testing.T) {
	const cost = 200 * time.Microsecond // ping p99: work must reach max(1 ms, 4 x cost) to be judged
	tests := []struct {
		name     string
		reported time.Duration
		rtt      time.Duration
		judged   int
	}{
		{"work hidden by the protocol's cost", time.Nanosecond, 900 * time.Microsecond, 0},
		{"work under four costs", time.Nanosecond, cost + 4*cost - time.Microsecond, 0},
		{"plausible, visible", 2 * time.Millisecond, 5 * time.Millisecond, 1},
		{"plausible, just visible", 300 * time.Microsecond, cost + time.Millisecond, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Client{pingP99: cost, short: map[string]*shortCount{}}
			if err := c.plausible(protocol.OpScan, "elapsed_ns", tt.reported, tt.rtt); err != nil {
				t.Fatal(err)
			}
			if j, n := c.Judged(); j != tt.judged || n != 1 {
				t.Errorf("judged %d of %d replies, want %d of 1", j, n, tt.judged)
			}
		})
	}
}

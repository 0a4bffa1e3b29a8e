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

// A repeat of a short-looking read decides by its own round trip: one whose work is too small to
// judge shows that the first round trip's excess was the machine's (the reply goes unjudged); one
// whose work is visible judges the time as the first reply was judged.
func TestJudgeRepeat(t *testing.T) {
	const cost = 150 * time.Microsecond // visible from 1 ms of work
	tests := []struct {
		name     string
		reported time.Duration
		rtt      time.Duration
		want     repeatSeen
	}{
		// the Rust client's C scan beside a busy core: 3.2 ms first, its repeats 0.46 ms
		{"honest, small work", 330 * time.Microsecond, 460 * time.Microsecond, repeatHidden},
		{"one ns, small work", time.Nanosecond, 460 * time.Microsecond, repeatHidden},
		{"honest, visible work", 2 * time.Millisecond, 3 * time.Millisecond, repeatPlausible},
		{"one ns, visible work", time.Nanosecond, 3 * time.Millisecond, repeatShort},
		{"a tenth of visible work", 300 * time.Microsecond, cost + 3*time.Millisecond, repeatShort},
		{"a quarter of visible work", 750 * time.Microsecond, cost + 3*time.Millisecond, repeatPlausible},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := judgeRepeat(tt.reported, tt.rtt, cost, shareWhole); got != tt.want {
				t.Errorf("judgeRepeat(%s, %s) = %d, want %d", tt.reported, tt.rtt, got, tt.want)
			}
		})
	}
}

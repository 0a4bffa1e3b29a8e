package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/report"
)

// TestShardsDurations: a merged report's spread of starts and a late shard's lateness are rounded
// as the rest of the output rounds durations (three significant digits), never "33.314515ms".
func TestShardsDurations(t *testing.T) {
	late := report.Shard{Index: 1, Total: 2, Host: "h", Late: true, LateNs: int64(1234567 * time.Nanosecond), LateBoundNs: int64(250 * time.Millisecond)}
	r := &report.Report{Run: report.Run{Merge: &report.Merge{Total: 2, SkewNs: 33314515, Shards: []report.Shard{{Index: 0, Total: 2, Host: "h"}, late}}}}
	var b bytes.Buffer
	Shards(&b, r, Style{})
	for _, want := range []string{"merged 2 of 2 shards; their starts spread over 33.3ms\n", "shard 1 of 2 on h: LATE by 1.23ms (bound 250ms);"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("printed\n%s\nwant it to hold %q", b.String(), want)
		}
	}
	r.Run.Merge = &report.Merge{Total: 1, SkewNs: 0, Shards: []report.Shard{{Index: 0, Total: 1, Host: "h"}}}
	b.Reset()
	Shards(&b, r, Style{})
	if !strings.HasPrefix(b.String(), "merged 1 of 1 shard; ") {
		t.Errorf("printed %q", b.String())
	}
}

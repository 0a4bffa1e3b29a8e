package load

import (
	"bytes"
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbbench/dbbench/report/hlog"
)

// TestWriteLog: a run's series written as an interval log and decoded by hdrhistogram-go's reader
// gives back, per tag, the run's counts: each clock's intervals add up to its type's total, and each
// interval's count is the run's.
func TestWriteLog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := Config{Schedule: Schedule{Rate: 500, Duration: 3 * time.Second}, Workers: 2, Spin: -1, OpTypes: []string{"read", "update"}}
		next := func(seq int64) (int, struct{}) { return int(seq % 3 / 2), struct{}{} } // 2 reads, 1 update
		res, err := Run(t.Context(), cfg, next, func(context.Context, Op[struct{}]) error { time.Sleep(time.Millisecond); return nil })
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		w, err := hlog.NewWriter(&buf, time.Now(), "test")
		if err != nil {
			t.Fatal(err)
		}
		if err := res.WriteLog(w, "memory", 0, time.Second); err != nil {
			t.Fatal(err)
		}
		r := hdrhistogram.NewHistogramLogReader(&buf)
		totals := map[string]int64{}
		lines := 0
		for {
			h, err := r.NextIntervalHistogram()
			if err != nil {
				t.Fatal(err)
			}
			if h == nil {
				break
			}
			lines++
			totals[h.Tag()] += h.TotalCount()
		}
		if lines != 3*2*3 {
			t.Errorf("%d intervals logged, want 3 seconds x 2 types x 3 clocks", lines)
		}
		for _, ty := range res.Types {
			for _, clock := range []string{hlog.Response, hlog.Service, hlog.StartLag} {
				if got := totals[hlog.Tag("memory", ty.Name, clock)]; got != ty.Count || got == 0 {
					t.Errorf("%s %s: %d in the log, %d in the run", ty.Name, clock, got, ty.Count)
				}
			}
		}
	})
}

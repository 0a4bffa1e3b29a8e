package hlog

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbbench/dbbench/report"
)

// TestRoundTrip writes dense and packed interval histograms of two series and reads them back with
// hdrhistogram-go's log reader: every interval's tag, start, length, count and max come back.
func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	start := time.Date(2026, 12, 2, 10, 0, 0, 250e6, time.UTC)
	w, err := NewWriter(&buf, start, "dbbench load run, target memory\nsecond line")
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		tag        string
		from       time.Duration
		count, max int64
	}
	var want []entry
	for i := range 3 {
		from := time.Duration(i) * time.Second
		dense := report.NewHistogram()
		packed := hdrhistogram.NewPacked(report.HistMin, report.HistMax, report.HistSigFigs)
		for k := range 100 * (i + 1) {
			report.Record(dense, time.Duration(1000+k)*time.Microsecond)
			_ = packed.RecordValue(int64(50 + k*(i+1)))
		}
		for _, e := range []struct {
			tag string
			h   Histogram
		}{{Tag("memory", "read", Response), dense}, {Tag("my target,1", "read", StartLag), packed}} {
			if err := w.Write(e.tag, from, from+time.Second, e.h); err != nil {
				t.Fatal(err)
			}
		}
		want = append(want, entry{"memory/read/response", from, dense.TotalCount(), dense.Max()},
			entry{"my_target_1/read/start_lag", from, packed.TotalCount(), packed.Max()})
	}
	text := buf.String()
	if !strings.HasPrefix(text, "#[Histogram log format version 1.3]\n") || !strings.Contains(text, "#[StartTime: 1796205600.250 ") ||
		!strings.Contains(text, "Tag=memory/read/response,0.000000,1.000000,") || strings.Count(text, "\n") != 5+6 {
		t.Fatalf("log:\n%s", text)
	}

	r := hdrhistogram.NewHistogramLogReader(strings.NewReader(text))
	for i, e := range want {
		h, err := r.NextIntervalHistogram()
		if err != nil || h == nil {
			t.Fatalf("interval %d: %v, %v", i, h, err)
		}
		gotFrom := time.Duration(h.StartTimeMs())*time.Millisecond - time.Duration(start.UnixMilli())*time.Millisecond
		if h.Tag() != e.tag || h.TotalCount() != e.count || h.Max() != e.max || gotFrom != e.from ||
			h.EndTimeMs()-h.StartTimeMs() != 1000 {
			t.Errorf("interval %d: tag %s count %d max %d from %v len %dms; want %s %d %d %v 1000ms",
				i, h.Tag(), h.TotalCount(), h.Max(), gotFrom, h.EndTimeMs()-h.StartTimeMs(), e.tag, e.count, e.max, e.from)
		}
	}
	if h, err := r.NextIntervalHistogram(); h != nil || err != nil {
		t.Errorf("an extra interval: %v %v", h, err)
	}
}

func TestTag(t *testing.T) {
	if got := Tag("pg 16,fast", "read\nx", "service"); got != "pg_16_fast/read_x/service" {
		t.Errorf("Tag = %q", got)
	}
}

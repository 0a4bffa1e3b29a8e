package hlog

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbbench/dbbench/report"
)

// TestMergeByTime writes three shards' logs as the engine does (two series, 1 s intervals): shard 1
// started 7 ms after shard 0 and has no line for one interval, shard 2 started 2.3 s late. Their
// merge, read back with hdrhistogram-go's log reader, holds per series and second exactly the
// values all the shards recorded in it (built value by value, not with Merge), shard 2's intervals
// two seconds on. Lies it catches: keeping one shard's histogram, placing intervals by their index
// (the late shard's would land in the wrong seconds), dropping a series, or losing values.
func TestMergeByTime(t *testing.T) {
	base := time.Date(2026, 12, 2, 14, 0, 0, 120e6, time.UTC)
	shards := []struct {
		start time.Time
		skip  int // an interval with no line (-1: none)
	}{{base, -1}, {base.Add(7 * time.Millisecond), 1}, {base.Add(2300 * time.Millisecond), -1}}
	tags := []string{Tag("memory:ycsb-a", "read", Response), Tag("memory:ycsb-a", "update", Service)}
	type slot struct {
		tag string
		at  int // seconds from base
	}
	want := map[slot][]int64{}
	var logs []*Log
	var texts []string
	for i, s := range shards {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, s.start, fmt.Sprintf("shard %d", i))
		if err != nil {
			t.Fatal(err)
		}
		late := int(s.start.Sub(base).Round(time.Second) / time.Second)
		for k := range 3 {
			if k == s.skip {
				continue
			}
			for j, tag := range tags {
				h := report.NewHistogram()
				for v := range 50 + 10*i + k {
					value := int64(1000*(i+1) + 37*v + 100000*j + 5000*k)
					_ = h.RecordValue(value)
					want[slot{tag, k + late}] = append(want[slot{tag, k + late}], value)
				}
				from := time.Duration(k) * time.Second
				if err := w.Write(tag, from, from+time.Second, h); err != nil {
					t.Fatal(err)
				}
			}
		}
		texts = append(texts, buf.String())
		l, err := Read(strings.NewReader(buf.String()))
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, l)
	}
	var out bytes.Buffer
	if err := Merge(logs...).WriteTo(&out, "dbbench merge"); err != nil {
		t.Fatal(err)
	}

	r := hdrhistogram.NewHistogramLogReader(strings.NewReader(out.String()))
	seen := map[slot]bool{}
	lastStart := int64(0)
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		offMs := h.StartTimeMs() - base.UnixMilli()
		at := int((offMs + 500) / 1000)
		s := slot{h.Tag(), at}
		if offMs < int64(at)*1000-1 || offMs > int64(at)*1000+1 || seen[s] || h.StartTimeMs() < lastStart {
			t.Fatalf("interval %s at %d ms: not on the 1 s grid of the earliest start, repeated, or out of time order", h.Tag(), offMs)
		}
		seen[s], lastStart = true, h.StartTimeMs()
		exp := report.NewHistogram()
		for _, v := range want[s] {
			_ = exp.RecordValue(v)
		}
		if len(want[s]) == 0 || h.TotalCount() != exp.TotalCount() || !slices.Equal(h.Distribution(), exp.Distribution()) {
			t.Errorf("%s at %ds: %d values, want exactly the shards' %d", s.tag, s.at, h.TotalCount(), len(want[s]))
		}
	}
	if len(seen) != len(want) || len(want) != 2*5 {
		t.Errorf("the merged log has %d series-seconds, the shards %d (want 10: 2 series over seconds 0-4)", len(seen), len(want))
	}
	if !strings.Contains(out.String(), "#[StartTime: 1796220000.120 ") {
		t.Errorf("the merged log does not start at the earliest shard's start:\n%.300s", out.String())
	}
}

// TestReadRefuses: a log without a start time, and a broken line, are errors (one line), not a
// panic or an empty log.
func TestReadRefuses(t *testing.T) {
	for name, text := range map[string]string{
		"no start time":  "#[Histogram log format version 1.3]\nTag=a,0.000,1.000,1.0,HISTFAAAA\n",
		"not a log":      "{\"schema_version\": 2}\n",
		"short line":     "#[StartTime: 1796220000.120 (seconds since epoch)]\nTag=a,0.000,1.000\n",
		"bad histogram":  "#[StartTime: 1796220000.120 (seconds since epoch)]\nTag=a,0.000,1.000,1.0,HISTFAAAA\n",
		"bad start time": "#[StartTime: 1.2.3 (seconds since epoch)]\n",
	} {
		if l, err := Read(strings.NewReader(text)); err == nil {
			t.Errorf("%s: read %d intervals, want an error", name, len(l.Intervals))
		}
	}
}

package engine

import (
	"math"
	"strings"
	"testing"
)

// TestHlogParts: a worker's interval log as mergeHlogs reads it: malformed lines are errors, never
// a panic (a "Tag=" line with no comma used to index past its fields).
func TestHlogParts(t *testing.T) {
	const head = "#[Histogram log format version 1.3]\n#[StartTime: 1700000000.000 (seconds since epoch)]\n"
	for _, tt := range []struct {
		name, log string
		lines     int
		err       string // of readHlogPart, then of shiftHlogLine
	}{
		{"a log", head + "Tag=a/read/response,0.000,1.000,0.5,HISTFAAAA\n", 1, ""},
		{"no start time", "#[Histogram log format version 1.3]\nTag=a,0,1,2,X\n", 0, "no start time"},
		{"a start time without a number", "#[StartTime: ]\n", 0, "no start time"},
		{"a tag line without fields", head + "Tag=\n", 0, "a line without a start time"},
		{"a tag line with one comma", head + "Tag=a,1\n", 0, "a line without a start time"},
		{"a start that is no number", head + "Tag=a,soon,1,2,X\n", 0, "a line without a start time"},
		{"a start that is NaN", head + "Tag=a,NaN,1,2,X\n", 0, "a line without a start time"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start, _, body, err := readHlogPart([]byte(tt.log))
			if err == nil {
				for _, l := range body {
					if _, err = shiftHlogLine(l, 1); err != nil {
						break
					}
				}
			}
			if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			if err == nil && (start != 1700000000 || len(body) != tt.lines) {
				t.Errorf("start %v, %d lines", start, len(body))
			}
		})
	}
}

// FuzzHlogPart: whatever a worker's log holds, reading it and moving its lines never panics, and a
// line moved by 0 reads back at the same start (to the log's millisecond).
func FuzzHlogPart(f *testing.F) {
	f.Add([]byte("#[StartTime: 1700000000.000 (seconds since epoch)]\nTag=a/read/response,0.000,1.000,0.5,HISTFAAAA\n"))
	f.Add([]byte("#[StartTime: 1]\nTag=,\nTag=a,1e308,2,3\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, body, err := readHlogPart(b)
		if err != nil {
			return
		}
		for _, l := range body {
			sh, err := shiftHlogLine(l, 0)
			if err != nil {
				continue
			}
			again, err := shiftHlogLine(sh.text, 0)
			if err != nil || math.Abs(again.at-sh.at) > 0.0005 && !math.IsInf(sh.at, 0) {
				t.Fatalf("%q moved to %q, which reads back at %v (%v), not %v", l, sh.text, again.at, err, sh.at)
			}
		}
	})
}

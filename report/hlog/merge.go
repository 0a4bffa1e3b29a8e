package hlog

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Interval is one line of an interval log: a series' histogram over [StartMs, EndMs), in absolute
// Unix milliseconds.
type Interval struct {
	Tag            string
	StartMs, EndMs int64
	Hist           *hdrhistogram.Histogram
}

// Log is an interval log as read: its start time and its intervals in the order written.
type Log struct {
	Start     time.Time
	Intervals []Interval
}

var (
	startTime = regexp.MustCompile(`^#\[StartTime: ([0-9.]+)`)
	baseTime  = regexp.MustCompile(`^#\[BaseTime: ([0-9.]+)`)
)

// Read reads an interval log (format v1.x, as hdrhistogram-go's log reader reads it). Times are
// kept in whole milliseconds, rounded rather than truncated as the library's reader does, so that
// an interval's length comes back as written. The log must say its start time (dbbench's always
// do): merging places intervals by it.
func Read(r io.Reader) (*Log, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	ms := func(sec string) (int64, error) {
		f, err := strconv.ParseFloat(sec, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("a time that is no number of seconds: %q", sec)
		}
		return int64(math.Round(f * 1000)), nil
	}
	l := &Log{}
	var startMs, baseMs int64
	var haveStart, haveBase bool
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		if m := startTime.FindStringSubmatch(line); m != nil {
			if startMs, err = ms(m[1]); err != nil {
				return nil, fmt.Errorf("line %d: %w", n+1, err)
			}
			haveStart = true
			continue
		}
		if m := baseTime.FindStringSubmatch(line); m != nil {
			if baseMs, err = ms(m[1]); err != nil {
				return nil, fmt.Errorf("line %d: %w", n+1, err)
			}
			haveBase = true
			continue
		}
		if line == "" || line[0] == '#' || line[0] == '"' {
			continue
		}
		tag := ""
		if rest, ok := strings.CutPrefix(line, "Tag="); ok {
			tag, line, ok = strings.Cut(rest, ",")
			if !ok {
				return nil, fmt.Errorf("line %d: a tag without an interval", n+1)
			}
		}
		f := strings.Split(line, ",")
		if len(f) != 4 {
			return nil, fmt.Errorf("line %d: not an interval (start,length,max,histogram)", n+1)
		}
		if !haveStart {
			return nil, errors.New("not an interval log with a start time (no #[StartTime: ...] line before its intervals)")
		}
		if !haveBase { // as the format says: relative times when they are far below the start time
			haveBase = true
			if at, err := ms(f[0]); err == nil && at < startMs-365*24*3600*1000 {
				baseMs = startMs
			}
		}
		from, err1 := ms(f[0])
		length, err2 := ms(f[1])
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		h, err := hdrhistogram.Decode([]byte(f[3]))
		if err != nil {
			return nil, fmt.Errorf("line %d: histogram: %w", n+1, err)
		}
		l.Intervals = append(l.Intervals, Interval{Tag: tag, StartMs: baseMs + from, EndMs: baseMs + from + length, Hist: h})
	}
	if !haveStart {
		return nil, errors.New("not an interval log with a start time (no #[StartTime: ...] line)")
	}
	l.Start = time.UnixMilli(startMs)
	return l, nil
}

// Merge merges logs by time. The time base is the earliest log's start; every interval is placed
// on that base's grid of its own length, in the slot nearest its start (so the logs of shards that
// started together, whose interval k covers the same seconds, line up slot by slot, and a log that
// started s seconds late lands s seconds on, to the nearest interval). The intervals of one series
// (tag) and length that share a slot are added exactly, every recorded value counting.
func Merge(logs ...*Log) *Log {
	if len(logs) == 0 {
		return &Log{}
	}
	base := logs[0].Start.UnixMilli()
	for _, l := range logs[1:] {
		base = min(base, l.Start.UnixMilli())
	}
	type key struct {
		tag        string
		slot, size int64
	}
	merged := map[key]*Interval{}
	var order []key
	for _, l := range logs {
		for _, iv := range l.Intervals {
			k := key{tag: iv.Tag, size: iv.EndMs - iv.StartMs}
			if k.size > 0 {
				k.slot = int64(math.Round(float64(iv.StartMs-base) / float64(k.size)))
			} else { // no grid to place it on: kept at its own time
				k.slot = iv.StartMs - base
			}
			m, ok := merged[k]
			if !ok {
				from := base + k.slot*k.size
				if k.size <= 0 {
					from = base + k.slot
				}
				h := hdrhistogram.New(iv.Hist.LowestTrackableValue(), iv.Hist.HighestTrackableValue(), int(iv.Hist.SignificantFigures()))
				m = &Interval{Tag: iv.Tag, StartMs: from, EndMs: from + max(k.size, 0), Hist: h}
				merged[k] = m
				order = append(order, k)
			}
			m.Hist.Merge(iv.Hist)
		}
	}
	out := &Log{Start: time.UnixMilli(base)}
	for _, k := range order {
		out.Intervals = append(out.Intervals, *merged[k])
	}
	// time order; a slot's series in the order they first appeared
	slices.SortStableFunc(out.Intervals, func(a, b Interval) int { return cmp.Compare(a.StartMs, b.StartMs) })
	return out
}

// WriteTo writes the log with its start time and a comment (Writer's header), its intervals in order.
func (l *Log) WriteTo(w io.Writer, comment string) error {
	lw, err := NewWriter(w, l.Start, comment)
	if err != nil {
		return err
	}
	start := l.Start.UnixMilli()
	for _, iv := range l.Intervals {
		from := time.Duration(iv.StartMs-start) * time.Millisecond
		to := time.Duration(iv.EndMs-start) * time.Millisecond
		if err := lw.Write(iv.Tag, from, to, iv.Hist); err != nil {
			return err
		}
	}
	return nil
}

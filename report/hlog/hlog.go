// Package hlog writes HdrHistogram interval logs (.hlog, log format v1.3): one line per interval
// histogram, each tagged with its series (target, operation type and clock), which HdrHistogram's
// readers in Java, C, Go, Python and JavaScript, its HistogramLogAnalyzer and its plotter read. It
// writes through hdrhistogram-go's log writer; it knows nothing of the run that made the histograms.
package hlog

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The clocks a load run records, as tags name them.
const (
	Response = "response"  // from the intended start
	Service  = "service"   // from the actual start
	StartLag = "start_lag" // actual minus intended start
)

// Tag names a series: target/op/clock. A tag may hold no comma, space or line break (the format
// separates fields with commas), so those become '_'.
func Tag(target, op, clock string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == ',' || r == ' ' || r == '\t' || r == '\r' || r == '\n' || r == '=' {
				return '_'
			}
			return r
		}, s)
	}
	return clean(target) + "/" + clean(op) + "/" + clean(clock)
}

// Writer writes one interval log. Interval times are offsets from the log's start time, written
// relative to it (the format's BaseTime), values in ns with the interval's max in ms (the format's
// default unit ratio).
type Writer struct {
	lw      *hdrhistogram.HistogramLogWriter
	startMs int64
}

// NewWriter writes the log's header: the format version, a comment (one line; may be empty), the
// start and base time, and the legend.
func NewWriter(w io.Writer, start time.Time, comment string) (*Writer, error) {
	lw := hdrhistogram.NewHistogramLogWriter(w)
	startMs := start.UnixMilli()
	lw.SetBaseTime(startMs)
	sec := float64(startMs) / 1000
	steps := []func() error{
		lw.OutputLogFormatVersion,
		func() error {
			if comment == "" {
				return nil
			}
			return lw.OutputComment(strings.NewReplacer("\r", " ", "\n", " ").Replace(comment))
		},
		// Written here rather than with OutputStartTime/OutputBaseTime, which keep whole seconds only.
		func() error {
			return lw.OutputComment(fmt.Sprintf("[StartTime: %.3f (seconds since epoch), %s]", sec, start.UTC().Format(time.RFC3339Nano)))
		},
		func() error { return lw.OutputComment(fmt.Sprintf("[BaseTime: %.3f (seconds since epoch)]", sec)) },
		lw.OutputLegend,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, fmt.Errorf("write interval log header: %w", err)
		}
	}
	return &Writer{lw: lw, startMs: startMs}, nil
}

// Histogram is a dense or a packed (sparse) HdrHistogram: *hdrhistogram.Histogram or
// *hdrhistogram.PackedHistogram.
type Histogram interface {
	TotalCount() int64
	SetTag(string)
	SetStartTimeMs(int64)
	SetEndTimeMs(int64)
}

// Write appends the interval [from, to) of the series tag. It stamps h with the tag and the times.
func (w *Writer) Write(tag string, from, to time.Duration, h Histogram) error {
	h.SetTag(tag)
	h.SetStartTimeMs(w.startMs + from.Milliseconds())
	h.SetEndTimeMs(w.startMs + to.Milliseconds())
	var err error
	switch h := h.(type) {
	case *hdrhistogram.Histogram:
		err = w.lw.OutputIntervalHistogram(h)
	case *hdrhistogram.PackedHistogram:
		err = w.lw.OutputIntervalPackedHistogram(h)
	default:
		err = fmt.Errorf("unsupported histogram type %T", h)
	}
	if err != nil {
		return fmt.Errorf("write interval %s %v: %w", tag, from, err)
	}
	return nil
}

package report

import (
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range: 1 ns to 1 hour at 3 significant digits. Values outside are clamped into the range,
// never dropped, so the count of a histogram always equals the operations done.
const (
	HistMin     = 1
	HistMax     = int64(time.Hour)
	HistSigFigs = 3
)

// NewHistogram returns an empty latency histogram (ns).
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistMin, HistMax, HistSigFigs)
}

// NewPacked returns an empty latency histogram (ns) in packed form, for the many a long run keeps
// (one a worker and interval) whose counts are mostly zero.
func NewPacked() *hdrhistogram.PackedHistogram {
	return hdrhistogram.NewPacked(HistMin, HistMax, HistSigFigs)
}

// Record adds one latency, clamped into the histogram's range.
func Record(h *hdrhistogram.Histogram, d time.Duration) {
	v := int64(d)
	if v < HistMin {
		v = HistMin
	}
	if v > HistMax {
		v = HistMax
	}
	_ = h.RecordValue(v) // cannot fail: v is in range
}

// EncodeHistogram returns the HdrHistogram V2 compressed, base64 form ("HISTFAA...") used by every
// HdrHistogram implementation's log format.
func EncodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return string(b), nil
}

// DecodeHistogram is the inverse of EncodeHistogram; "" decodes to an empty histogram.
func DecodeHistogram(s string) (*hdrhistogram.Histogram, error) {
	if s == "" {
		return NewHistogram(), nil
	}
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return h, nil
}

// Percentiles returns p50, p90, p99, p999, max, min and mean of h (ns), keyed by figure name.
func Percentiles(h *hdrhistogram.Histogram) map[string]float64 {
	m := map[string]float64{}
	if h.TotalCount() == 0 {
		return m
	}
	m["p50"] = float64(h.ValueAtQuantile(50))
	m["p90"] = float64(h.ValueAtQuantile(90))
	m["p99"] = float64(h.ValueAtQuantile(99))
	m["p999"] = float64(h.ValueAtQuantile(99.9))
	m["max"] = float64(h.Max())
	m["min"] = float64(h.Min())
	m["mean"] = h.Mean()
	return m
}

// MergeHistograms decodes and merges encoded histograms (for example a result's per-repeat ones).
func MergeHistograms(encoded ...string) (*hdrhistogram.Histogram, error) {
	out := NewHistogram()
	for _, e := range encoded {
		h, err := DecodeHistogram(e)
		if err != nil {
			return nil, err
		}
		out.Merge(h)
	}
	return out, nil
}

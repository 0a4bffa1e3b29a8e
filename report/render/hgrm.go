package render

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbbench/dbbench/report"
)

// HGRMTicksPerHalfDistance is how many percentile lines each halving of the distance to 100% gets, the
// value HdrHistogram's own tools use by default.
const HGRMTicksPerHalfDistance = 5

// HGRMUnits are the units .hgrm values can be written in, with their size in nanoseconds.
var HGRMUnits = map[string]float64{"ns": 1, "us": 1e3, "ms": 1e6}

// PercentileDistribution writes h in the text format of HdrHistogram's outputPercentileDistribution
// (the ".hgrm" files the HdrHistogram plotter and other tools read): a header, one line per percentile
// step (value, percentile as a fraction, count up to it, 1/(1-percentile)), and the mean, standard
// deviation, max, count and bucket footer. Values are divided by scale (1e3 writes nanosecond
// histograms in microseconds) and printed with as many decimals as h has significant digits.
func PercentileDistribution(w io.Writer, h *hdrhistogram.Histogram, scale float64) error {
	ew := NewErrWriter(w)
	digits := int(h.SignificantFigures())
	valueFmt := fmt.Sprintf("%%12.%df", digits)
	fmt.Fprintf(ew, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)")
	if h.TotalCount() > 0 {
		for _, b := range h.CumulativeDistributionWithTicks(HGRMTicksPerHalfDistance) {
			q := b.Quantile / 100
			fmt.Fprintf(ew, valueFmt+" %2.12f %10d", float64(b.ValueAt)/scale, q, b.Count)
			if q < 1 {
				fmt.Fprintf(ew, " %14.2f", 1/(1-q))
			}
			fmt.Fprintln(ew)
		}
	}
	mean, sd := 0.0, 0.0
	if h.TotalCount() > 0 {
		mean, sd = h.Mean()/scale, h.StdDev()/scale
	}
	fmt.Fprintf(ew, "#[Mean    = "+valueFmt+", StdDeviation   = "+valueFmt+"]\n", mean, sd)
	fmt.Fprintf(ew, "#[Max     = "+valueFmt+", Total count    = %12d]\n", float64(h.Max())/scale, h.TotalCount())
	buckets, subBuckets := bucketLayout(h)
	fmt.Fprintf(ew, "#[Buckets = %12d, SubBuckets     = %12d]\n", buckets, subBuckets)
	return ew.Err()
}

// bucketLayout derives the bucket and sub-bucket counts of an HdrHistogram from its range and
// precision (the Go implementation keeps them private): sub-buckets are the power of two that holds
// 2 x 10^digits values, and buckets double the covered range until it reaches the highest trackable
// value.
func bucketLayout(h *hdrhistogram.Histogram) (buckets, subBuckets int64) {
	largest := 2 * math.Pow(10, float64(h.SignificantFigures()))
	subBuckets = int64(1) << int(math.Ceil(math.Log2(largest)))
	unitMagnitude := int64(math.Floor(math.Log2(float64(h.LowestTrackableValue()))))
	untrackable := subBuckets << uint(unitMagnitude)
	buckets = 1
	for untrackable <= h.HighestTrackableValue() {
		if untrackable > math.MaxInt64/2 {
			return buckets + 1, subBuckets
		}
		untrackable <<= 1
		buckets++
	}
	return buckets, subBuckets
}

// HGRMFileName names the .hgrm file of a result: "lmdb-go_scan.hgrm", with "_SIZE" in a size sweep.
func HGRMFileName(x report.Result, sweep bool) string {
	name := fileSafe(x.Target) + "_" + fileSafe(x.Workload)
	if sweep {
		name += fmt.Sprintf("_%d", x.Size)
	}
	return name + ".hgrm"
}

func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

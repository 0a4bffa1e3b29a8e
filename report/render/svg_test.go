package render

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestTicks: the ticks bracket the data (the lowest at or below the smallest value, the highest at
// or above the largest) and go no further out than one tick, on every scale: within a decade,
// across several, one value, values below 1.
func TestTicks(t *testing.T) {
	tests := []struct {
		name   string
		scale  Scale
		lo, hi float64
		want   []float64
	}{
		{"linear from zero", Linear, 0, 7.3, []float64{0, 2, 4, 6, 8}},
		{"linear across zero", Linear, -16.6, 25, []float64{-20, -10, 0, 10, 20, 30}},
		{"linear away from zero", Linear, 101, 149, []float64{100, 110, 120, 130, 140, 150}},
		{"linear below 1", Linear, 0.013, 0.047, []float64{0.01, 0.02, 0.03, 0.04, 0.05}},
		{"linear on a tick", Linear, 0.3, 0.6, []float64{0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6}},
		{"linear one value", Linear, 5, 5, []float64{2, 3, 4, 5, 6, 7, 8}},
		{"linear zero alone", Linear, 0, 0, []float64{-0.6, -0.4, -0.2, 0, 0.2, 0.4, 0.6}},
		// the scan percentile chart of the issue: 2-9 ms on a log axis
		{"log within a decade", Log10, 2.1e6, 9e6, []float64{2e6, 5e6, 1e7}},
		{"log within a factor 2", Log10, 1.1e6, 1.9e6, []float64{1e6, 1.2e6, 1.4e6, 1.6e6, 1.8e6, 2e6}},
		{"log within a factor 1.25", Log10, 9.6, 12, []float64{9.5, 10, 10.5, 11, 11.5, 12}},
		{"log within a factor 3", Log10, 4, 11, []float64{4, 6, 8, 10, 12}},
		{"log across two decades", Log10, 1.4e6, 9e7, []float64{1e6, 2e6, 5e6, 1e7, 2e7, 5e7, 1e8}},
		{"log on powers of ten", Log10, 1000, 1e5, []float64{1000, 2000, 5000, 1e4, 2e4, 5e4, 1e5}},
		{"log over five decades", Log10, 95, 8e6, []float64{10, 100, 1000, 1e4, 1e5, 1e6, 1e7}},
		{"log over many decades", Log10, 80, 3e9, []float64{1, 100, 1e4, 1e6, 1e8, 1e10}},
		{"log below 1", Log10, 0.003, 0.02, []float64{0.002, 0.005, 0.01, 0.02}},
		{"log one value", Log10, 5000, 5000, []float64{2000, 3000, 4000, 5000, 6000, 7000, 8000}},
		{"log one value off the sequence", Log10, 3.3e-7, 3.3e-7, []float64{1e-7, 2e-7, 3e-7, 4e-7, 5e-7}},
		{"percentiles from the min", InvTail, 0, 97.5, []float64{0, 50, 90, 99}},
		{"percentiles to 99.9", InvTail, 0, 99.9, []float64{0, 50, 90, 99, 99.9}},
		{"percentiles past 99.9", InvTail, 0, 99.95, []float64{0, 50, 90, 99, 99.9, 99.99}},
		{"percentiles of the tail", InvTail, 95, 99.5, []float64{90, 99, 99.9}},
		{"percentiles one value", InvTail, 0, 0, []float64{0, 50}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Ticks(tt.scale, tt.lo, tt.hi)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Ticks(%v, %v) = %v, want %v", tt.lo, tt.hi, got, tt.want)
			}
			checkBracket(t, tt.scale, tt.lo, tt.hi, got)
		})
	}
}

// checkBracket holds for any data: increasing ticks, two at least (ten at most), the first at or below lo, the
// last at or above hi, and (for a range) the second above lo and the one before last below hi.
func checkBracket(t *testing.T, s Scale, lo, hi float64, ts []float64) {
	t.Helper()
	most := 10
	if s == InvTail {
		most = 17 // one per decade of 1/(1-p), as far as a float64 reaches
	}
	if len(ts) < 2 || len(ts) > most {
		t.Fatalf("%d ticks for %v..%v: %v", len(ts), lo, hi, ts)
	}
	for i := 1; i < len(ts); i++ {
		if !(ts[i] > ts[i-1]) {
			t.Errorf("ticks not increasing: %v", ts)
		}
	}
	if ts[0] > lo || ts[len(ts)-1] < hi {
		t.Errorf("ticks %v do not bracket %v..%v", ts, lo, hi)
	}
	if lo < hi && (ts[1] <= lo || ts[len(ts)-2] >= hi) {
		t.Errorf("ticks %v reach further than one tick beyond %v..%v", ts, lo, hi)
	}
	for _, v := range ts {
		if tv := transform(s, v); math.IsNaN(tv) || math.IsInf(tv, 0) {
			t.Errorf("tick %v is off the %v scale", v, s)
		}
	}
}

// TestTicksBracketAnyRange sweeps ranges over many magnitudes and widths on each scale.
func TestTicksBracketAnyRange(t *testing.T) {
	for _, s := range []Scale{Linear, Log10} {
		for e := -9; e <= 12; e++ {
			for _, m := range []float64{1, 1.07, 2, 3.3, 5, 7.9, 9.99} {
				lo := m * math.Pow(10, float64(e))
				for _, f := range []float64{1, 1.001, 1.3, 2.5, 3, 10, 47, 1e3, 1e6} {
					hi := lo * f
					checkBracket(t, s, lo, hi, Ticks(s, lo, hi))
					if s == Linear {
						checkBracket(t, s, -hi, lo, Ticks(s, -hi, lo))
					}
				}
			}
		}
	}
	for _, lo := range []float64{0, 10, 50, 89, 90, 99.5} {
		for _, hi := range []float64{lo, 90, 99, 99.9, 99.91, 99.999, 99.9999999} {
			if hi >= lo {
				checkBracket(t, InvTail, lo, hi, Ticks(InvTail, lo, hi))
			}
		}
	}
}

// TestAxisTicksLabels: labels in the axis unit, tidied, and never one label twice (a step finer
// than the format shows takes a coarser step).
func TestAxisTicksLabels(t *testing.T) {
	whole := func(v float64) string { return fmt.Sprintf("%.0f", v) }
	change := func(v float64) string { return fmt.Sprintf("%+.1f%%", v) }
	tests := []struct {
		name   string
		scale  Scale
		lo, hi float64
		format func(float64) string
		want   string
	}{
		{"durations", Log10, 1.4e6, 9e7, Ns, "1ms 2ms 5ms 10ms 20ms 50ms 100ms"},
		{"durations linear", Linear, 0, 1250, Ns, "0ns 500ns 1µs 1.5µs"},
		{"counts", Log10, 200, 400, Count, "200 250 300 350 400"},
		{"rates", Log10, 2e4, 9e5, Rate, "20k/s 50k/s 100k/s 200k/s 500k/s 1M/s"},
		{"percentiles", InvTail, 0, 99.95, PercentLabel, "0% 50% 90% 99% 99.9% 99.99%"},
		{"changes", Linear, -16.6, 25, change, "-20% -10% 0% +10% +20% +30%"},
		{"whole runs", Linear, 1, 4, whole, "1 2 3 4"},
		{"durations finer than shown", Log10, 100.2, 100.8, Ns, "100ns 101ns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, labels := axisTicks(tt.scale, tt.lo, tt.hi, tt.format)
			if got := strings.Join(labels, " "); got != tt.want {
				t.Errorf("labels %q, want %q (ticks %v)", got, tt.want, ts)
			}
			checkBracket(t, tt.scale, tt.lo, tt.hi, ts)
		})
	}
}

func TestTickLabel(t *testing.T) {
	for in, want := range map[string]string{
		"1.00µs": "1µs", "1.50µs": "1.5µs", "+0.0%": "0%", "-0.0%": "0%", "+20.0%": "+20%", "-0.5%": "-0.5%",
		"250": "250", "1.00k/s": "1k/s", "0": "0", "-0": "0", "10.0ms": "10ms", "99.9%": "99.9%", "+0.05%": "+0.05%",
	} {
		if got := tickLabel(in); got != want {
			t.Errorf("tickLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

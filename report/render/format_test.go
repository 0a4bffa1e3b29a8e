package render

import (
	"math"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
)

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 512: "512 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB", 64 << 10: "64 KiB",
		1 << 30: "1 GiB", 1 << 40: "1 TiB", 1 << 60: "1 EiB", 5296128: "5.05 MiB", 25276059648: "23.5 GiB",
		1_000_000_000: "1 GB", 25_000_000_000: "25 GB", 1_500_000: "1.5 MB", -(1 << 20): "-1 MiB",
		math.MaxInt64: "8 EiB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestGrouped(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 100000: "100,000", -1234567: "-1,234,567", 1073741824: "1,073,741,824"} {
		if got := Grouped(n); got != want {
			t.Errorf("Grouped(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSig3AndNs(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 812: "812", 99.96: "100", 42.13: "42.1", 9.996: "10.0", 1.054: "1.05", 0.5: "0.500", 0.0176: "0.0176", 0.09996: "0.100", 1.23e-5: "0.0000123", -0.25: "-0.250"} {
		if got := Sig3(v); got != want {
			t.Errorf("Sig3(%v) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[float64]string{0: "0ns", 0.475: "0.475ns", 812: "812ns", 4210: "4.21µs", 1.3e7: "13.0ms", math.NaN(): "-"} {
		if got := Ns(v); got != want {
			t.Errorf("Ns(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestOptionValue: values as a report holds them after JSON (float64, []any, map[string]any) and as
// parsed in process, in human units, never a Go value dump nor an exponent.
func TestOptionValue(t *testing.T) {
	tests := []struct {
		kind adapters.Kind
		v    any
		want string
	}{
		{adapters.Bytes, float64(1 << 30), "1 GiB"},
		{adapters.Bytes, int64(64 << 20), "64 MiB"},
		{adapters.Int, float64(1 << 30), "1,073,741,824"},
		{"", float64(1e9), "1,000,000,000"},
		{adapters.Float, 0.25, "0.25"},
		{adapters.Float, 1e-7, "0.0000001"},
		{adapters.Bool, true, "true"},
		{adapters.Duration, "30s", "30s"},
		{adapters.Duration, 1500 * time.Millisecond, "1.5s"},
		{adapters.List, []any{"a", float64(2e6)}, "[a, 2,000,000]"},
		{adapters.List, []string{"a", "b"}, "[a, b]"},
		{adapters.Map, map[string]any{"b": float64(1e6), "a": "x"}, "{a=x, b=1,000,000}"},
		{"", nil, "-"},
	}
	for _, tt := range tests {
		if got := OptionValue(tt.kind, tt.v); got != tt.want {
			t.Errorf("OptionValue(%s, %#v) = %q, want %q", tt.kind, tt.v, got, tt.want)
		}
	}
	kinds := func(adapter, option string) adapters.Kind {
		if adapter == "lmdb" && option == "map_size" {
			return adapters.Bytes
		}
		return ""
	}
	o := map[string]any{"map_size": float64(1 << 30), "txn_size": float64(0), "batch": float64(256)}
	if got, want := OptionsText("lmdb", o, kinds), "batch=256 map_size=1 GiB txn_size=0"; got != want {
		t.Errorf("OptionsText = %q, want %q", got, want)
	}
	if got, want := OptionsText("other", o, kinds), "batch=256 map_size=1,073,741,824 txn_size=0"; got != want {
		t.Errorf("OptionsText for another adapter = %q, want %q", got, want)
	}
}

package render

import (
	"fmt"
	"math"
	"time"
)

// Ns formats a duration given in nanoseconds with three significant digits: "812ns", "4.21µs",
// "13.0ms", "2.50s".
func Ns(ns float64) string {
	switch a := math.Abs(ns); {
	case math.IsNaN(ns):
		return "-"
	case a < 1e3:
		return fmt.Sprintf("%.0fns", ns)
	case a < 1e6:
		return sig3(ns/1e3) + "µs"
	case a < 1e9:
		return sig3(ns/1e6) + "ms"
	default:
		return sig3(ns/1e9) + "s"
	}
}

// Duration formats a time.Duration like Ns.
func Duration(d time.Duration) string { return Ns(float64(d.Nanoseconds())) }

// Rate formats a per-second rate: "812/s", "4.21k/s", "13.0M/s".
func Rate(r float64) string { return Count(r) + "/s" }

// Count formats a quantity with k/M/G suffixes and three significant digits.
func Count(c float64) string {
	switch a := math.Abs(c); {
	case math.IsNaN(c):
		return "-"
	case a < 1e3:
		if c == math.Trunc(c) {
			return fmt.Sprintf("%.0f", c)
		}
		return sig3(c)
	case a < 1e6:
		return sig3(c/1e3) + "k"
	case a < 1e9:
		return sig3(c/1e6) + "M"
	default:
		return sig3(c/1e9) + "G"
	}
}

func sig3(x float64) string {
	switch a := math.Abs(x); {
	case a >= 99.95:
		return fmt.Sprintf("%.0f", x)
	case a >= 9.995:
		return fmt.Sprintf("%.1f", x)
	default:
		return fmt.Sprintf("%.2f", x)
	}
}

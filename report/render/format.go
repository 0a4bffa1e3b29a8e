package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Ns formats a duration given in nanoseconds with three significant digits: "812ns", "4.21µs",
// "13.0ms", "2.50s".
func Ns(ns float64) string {
	switch a := math.Abs(ns); {
	case math.IsNaN(ns):
		return "-"
	case a < 1 && a > 0: // a limit scaled down, an instruction-normalized cost: not "0ns"
		return sig3(ns) + "ns"
	case a < 1e3:
		return fmt.Sprintf("%.0fns", ns)
	}
	return thousands(ns, "µs", "ms", "s")
}

// Plural is a count with its noun in the right number: "1 workload", "3 workloads", "0 workloads";
// many is the plural when it is not noun+"s" (Plural(2, "repeat of", "repeats of")).
func Plural(n int, noun string, many ...string) string {
	if n == 1 {
		return "1 " + noun
	}
	if len(many) > 0 {
		return fmt.Sprintf("%d %s", n, many[0])
	}
	return fmt.Sprintf("%d %ss", n, noun)
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
	}
	return thousands(c, "k", "M", "G")
}

// thousands writes x (at least 1000 in size) with three significant digits in the largest of units,
// which stand for 1e3, 1e6, ..., not above it; the last unit takes anything larger.
func thousands(x float64, units ...string) string {
	u, i := 1e3, 0
	for math.Abs(x) >= u*1e3 && i < len(units)-1 {
		u *= 1e3
		i++
	}
	return sig3(x/u) + units[i]
}

// Sig3 formats a plain number with three significant digits and no exponent in the usual range:
// "812", "42.1", "1.05", "0.0176".
func Sig3(x float64) string { return sig3(x) }

func sig3(x float64) string {
	// the bounds are where rounding would carry into a fourth digit (99.96 -> "100", not "100.0")
	switch a := math.Abs(x); {
	case a == 0:
		return "0"
	case a >= 99.95:
		return fmt.Sprintf("%.0f", x)
	case a >= 9.995:
		return fmt.Sprintf("%.1f", x)
	case a >= 0.9995:
		return fmt.Sprintf("%.2f", x)
	case a >= 1e-9:
		return strconv.FormatFloat(x, 'f', 2-int(math.Floor(math.Log10(a*1.0005))), 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// trimZeros drops the trailing zeros of the first decimal fraction in s, and the point if nothing
// is left after it: "1.50µs" -> "1.5µs", "+20.0%" -> "+20%", "1.00 GiB" -> "1 GiB".
func trimZeros(s string) string {
	dot := strings.IndexByte(s, '.')
	if dot < 0 {
		return s
	}
	end := dot + 1
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	frac := strings.TrimRight(s[dot+1:end], "0")
	if frac == "" {
		return s[:dot] + s[end:]
	}
	return s[:dot+1] + frac + s[end:]
}

// Bytes formats a byte count in binary units with three significant digits: "1 GiB", "23.5 GiB",
// "512 B". A count that binary units cannot show exactly but decimal ones can (a size written as
// 1GB or 1.5MB) is shown in those: "1 GB".
func Bytes(n int64) string {
	if n > -1024 && n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	bin, exact := scaled(n, 1024, "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")
	if !exact {
		if dec, ok := scaled(n, 1000, "kB", "MB", "GB", "TB", "PB", "EB"); ok {
			return dec
		}
	}
	return bin
}

// scaled writes n in the largest unit (a power of base) not above it, with three significant
// digits, and says whether that is n exactly.
func scaled(n, base int64, units ...string) (string, bool) {
	a := n
	if a < 0 {
		a = -a
	}
	u, i := base, 0
	for a/u >= base && u <= math.MaxInt64/base {
		u *= base
		i++
	}
	m := trimZeros(sig3(float64(n) / float64(u)))
	v, _ := strconv.ParseFloat(m, 64)
	return m + " " + units[i], v*float64(u) == float64(n)
}

// Grouped writes a whole number exactly, with thousands separators: "100,000". Counts a user wrote
// (dataset sizes, option values) are shown exactly; measured counts go through Count.
func Grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

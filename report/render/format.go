package render

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbbench/dbbench/adapters"
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

// OptionKinds says what kind of value an adapter's option holds. A report keeps option values as
// plain numbers; only the adapter's option specs know that map_size is a size in bytes and
// txn_size a count. Nil knows nothing: numbers are then shown as numbers.
type OptionKinds func(adapter, option string) adapters.Kind

// OptionKindsOf collects the option kinds of every adapter in reg.
func OptionKindsOf(reg *adapters.Registry) OptionKinds {
	kinds := map[string]map[string]adapters.Kind{}
	for _, name := range reg.Names() {
		a, _ := reg.Lookup(name)
		m := map[string]adapters.Kind{}
		for _, o := range a.Info().Options {
			m[o.Name] = o.Kind
		}
		kinds[name] = m
	}
	return func(adapter, option string) adapters.Kind { return kinds[adapter][option] }
}

// OptionsText writes a target's options in key order, each value in its unit: "batch=256
// map_size=1 GiB raw_read=true".
func OptionsText(adapter string, o map[string]any, kinds OptionKinds) string {
	keys := slices.Sorted(maps.Keys(o))
	parts := make([]string, len(keys))
	for i, k := range keys {
		var kind adapters.Kind
		if kinds != nil {
			kind = kinds(adapter, k)
		}
		parts[i] = k + "=" + OptionValue(kind, o[k])
	}
	return strings.Join(parts, " ")
}

// OptionValue writes one option or parameter value as a user would read it: a size in bytes as
// "1 GiB", a whole number exactly with separators, a list as [a, b], a mapping as {k=v}; never in
// exponent notation nor as a Go value dump.
func OptionValue(kind adapters.Kind, v any) string {
	switch v := v.(type) {
	case nil:
		return "-"
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int:
		return OptionValue(kind, int64(v))
	case int64:
		if kind == adapters.Bytes {
			return Bytes(v)
		}
		return Grouped(v)
	case uint64:
		if v <= math.MaxInt64 {
			return OptionValue(kind, int64(v))
		}
		return strconv.FormatUint(v, 10)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return OptionValue(kind, int64(v))
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	case time.Duration:
		return v.String()
	case []string:
		return "[" + strings.Join(v, ", ") + "]"
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = OptionValue("", x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + OptionValue("", v[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

package render

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbbench/dbbench/adapters"
)

// Two value writers: Value for facts decoded from JSON (a target's or a client's info), OptionValue
// for option and parameter values, which a user wrote and reads back in their unit (k=v, sizes in
// bytes).

// Value formats a value decoded from JSON (a target's or a client's info) for people: whole numbers
// as integers (1073741824, not 1.073741824e+09), other numbers without an exponent, lists joined by
// ", " (in brackets inside an object), objects as "{key: value, ...}" in key order; never a Go value
// dump.
func Value(v any) string { return value(v, false) }

func value(v any, nested bool) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e18 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	case float32:
		return value(float64(x), nested)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = value(e, true)
		}
		if nested {
			return "[" + strings.Join(parts, ", ") + "]"
		}
		return strings.Join(parts, ", ")
	case []string:
		return value(anys(x), nested)
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + value(x[k], true)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	return fmt.Sprintf("%v", v)
}

func anys(s []string) []any {
	out := make([]any, len(s))
	for i, e := range s {
		out[i] = e
	}
	return out
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

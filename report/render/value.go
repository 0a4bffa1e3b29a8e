package render

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

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

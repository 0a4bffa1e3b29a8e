package adapters

import (
	"fmt"
	"maps"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbbench/dbbench/internal/redact"
)

// Kind is the type of an option value.
type Kind string

// Option kinds. A Bytes value accepts a plain number or a unit (KiB, MiB, GiB, KB, MB, GB);
// a Duration value accepts Go duration syntax ("30s", "5m"); an Enum value one of OptionSpec.Choices.
// A List is a sequence of scalars, kept as strings; a Map is a mapping of scalars, kept as they were
// written (string, int, float or bool). ${ENV} is expanded in every string, list items included.
const (
	String   Kind = "string"
	Int      Kind = "int"
	Float    Kind = "float"
	Bool     Kind = "bool"
	Bytes    Kind = "bytes"
	Duration Kind = "duration"
	Enum     Kind = "enum"
	// DSN is a connection string; its password is redacted in reports and logs.
	DSN  Kind = "dsn"
	List Kind = "list"
	Map  Kind = "map"
)

// OptionSpec documents one option of an adapter or adapter-specific workload.
type OptionSpec struct {
	Name    string
	Kind    Kind
	Default string // as the user would write it; "" means no default (unset)
	Help    string
	Choices []string // for Enum
	// Secret options are never written to a report or log (shown as "***").
	Secret bool
	// Min bounds Int, Float and Bytes values from below (inclusive) when HasMin is set.
	Min    float64
	HasMin bool
}

// Options holds validated option values, normalised by kind: string (String, Enum, DSN), int64 (Int,
// Bytes), float64, bool, time.Duration, []string (List), map[string]any (Map). Unset options without a default are absent.
type Options struct {
	values map[string]any
	specs  map[string]OptionSpec
}

// ParseOptions validates raw values (as decoded from YAML) against specs and applies defaults.
// String values may reference the environment as ${NAME} or ${NAME:-default}. Errors name the option.
func ParseOptions(specs []OptionSpec, raw map[string]any) (Options, error) {
	o := Options{values: map[string]any{}, specs: map[string]OptionSpec{}}
	for _, s := range specs {
		o.specs[s.Name] = s
	}
	keys := slices.Sorted(maps.Keys(raw))
	for _, k := range keys {
		s, ok := o.specs[k]
		if !ok {
			return o, fmt.Errorf("unknown option %q (known: %s)", k, strings.Join(specNames(specs), ", "))
		}
		v, err := convert(s, raw[k])
		if err != nil {
			return o, fmt.Errorf("option %q: %w", k, err)
		}
		o.values[k] = v
	}
	for _, s := range specs {
		if _, set := o.values[s.Name]; set || s.Default == "" {
			continue
		}
		v, err := convert(s, s.Default)
		if err != nil {
			return o, fmt.Errorf("option %q: bad default: %w", s.Name, err)
		}
		o.values[s.Name] = v
	}
	return o, nil
}

// FreeOptions holds the params of a workload that a client in another process declares itself, which
// dbbench has no spec for: plain values kept as written, ${ENV} expanded in strings.
func FreeOptions(raw map[string]any) (Options, error) {
	o := Options{values: map[string]any{}, specs: map[string]OptionSpec{}}
	if len(raw) == 0 {
		return o, nil
	}
	m, err := convertMap(raw)
	if err != nil {
		return o, err
	}
	o.values = m
	return o, nil
}

func specNames(specs []OptionSpec) []string {
	n := make([]string, len(specs))
	for i, s := range specs {
		n[i] = s.Name
	}
	if len(n) == 0 {
		return []string{"none"}
	}
	return n
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// ExpandEnv replaces ${NAME} and ${NAME:-default} with environment values.
func ExpandEnv(s string) string {
	return envRef.ReplaceAllStringFunc(s, func(m string) string {
		g := envRef.FindStringSubmatch(m)
		if v, ok := os.LookupEnv(g[1]); ok && v != "" {
			return v
		}
		return g[3]
	})
}

// EnvNames lists the variables s references as ${NAME} or ${NAME:-default}, each once, in the order
// they first appear: what a run of a config reads from its environment (dbbench kube passes them on).
func EnvNames(s string) []string {
	var out []string
	for _, g := range envRef.FindAllStringSubmatch(s, -1) {
		if !slices.Contains(out, g[1]) {
			out = append(out, g[1])
		}
	}
	return out
}

// ExpandEnvStrict is ExpandEnv for config values: a ${NAME} without a default whose variable is
// unset or empty is an error, never an empty string (an empty dsn would silently mean a throwaway
// server).
func ExpandEnvStrict(s string) (string, error) {
	var missing string
	out := envRef.ReplaceAllStringFunc(s, func(m string) string {
		g := envRef.FindStringSubmatch(m)
		if v, ok := os.LookupEnv(g[1]); ok && v != "" {
			return v
		}
		if g[2] == "" && missing == "" {
			missing = g[1]
		}
		return g[3]
	})
	if missing != "" {
		return "", fmt.Errorf("${%s} is not set (set it, or write ${%s:-default})", missing, missing)
	}
	return out, nil
}

func convert(s OptionSpec, raw any) (any, error) {
	switch s.Kind {
	case List:
		return convertList(raw)
	case Map:
		return convertMap(raw)
	}
	str, isStr := raw.(string)
	if isStr {
		var err error
		if str, err = ExpandEnvStrict(str); err != nil {
			return nil, err
		}
	}
	switch s.Kind {
	case String, DSN:
		if !isStr {
			return fmt.Sprint(raw), nil
		}
		return str, nil
	case Enum:
		return convertEnum(s, raw, str, isStr)
	case Bool:
		return convertBool(raw, str)
	case Int:
		n, err := toInt(raw, str, isStr)
		if err != nil {
			return nil, err
		}
		return n, checkMin(s, float64(n))
	case Bytes:
		return convertBytes(s, raw, str, isStr)
	case Float:
		return convertFloat(s, raw, str)
	case Duration:
		return convertDuration(raw, str, isStr)
	}
	return nil, fmt.Errorf("unsupported option kind %q", s.Kind)
}

// The scalar kinds' conversions. raw is the value as the config gave it; str is raw with ${ENV}
// expanded when raw is a string (isStr).

func convertEnum(s OptionSpec, raw any, str string, isStr bool) (any, error) {
	v := fmt.Sprint(raw)
	if isStr {
		v = str
	}
	if !slices.Contains(s.Choices, v) {
		return nil, fmt.Errorf("%q is not one of %s", v, strings.Join(s.Choices, ", "))
	}
	return v, nil
}

func convertBool(raw any, str string) (any, error) {
	switch v := raw.(type) {
	case bool:
		return v, nil
	case string:
		b, err := strconv.ParseBool(str)
		if err != nil {
			return nil, fmt.Errorf("want true or false, got %q", v)
		}
		return b, nil
	}
	return nil, fmt.Errorf("want true or false, got %v", raw)
}

func convertBytes(s OptionSpec, raw any, str string, isStr bool) (any, error) {
	var n int64
	var err error
	if isStr {
		n, err = ParseBytes(str)
	} else {
		n, err = toInt(raw, "", false)
	}
	if err != nil {
		return nil, err
	}
	return n, checkMin(s, float64(n))
}

func convertFloat(s OptionSpec, raw any, str string) (any, error) {
	var f float64
	switch v := raw.(type) {
	case int:
		f = float64(v)
	case int64:
		f = float64(v)
	case float64:
		f = v
	case string:
		var err error
		if f, err = strconv.ParseFloat(str, 64); err != nil {
			return nil, fmt.Errorf("want a number, got %q", v)
		}
	default:
		return nil, fmt.Errorf("want a number, got %v", raw)
	}
	return f, checkMin(s, f)
}

func convertDuration(raw any, str string, isStr bool) (any, error) {
	if !isStr {
		return nil, fmt.Errorf("want a duration such as 30s or 5m, got %v", raw)
	}
	d, err := time.ParseDuration(str)
	if err != nil || d < 0 {
		return nil, fmt.Errorf("want a duration such as 30s or 5m, got %q", str)
	}
	return d, nil
}

func convertList(raw any) ([]string, error) {
	items, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list such as [a, b], got %v", raw)
	}
	out := make([]string, len(items))
	for i, it := range items {
		switch v := it.(type) {
		case string:
			s, err := ExpandEnvStrict(v)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i+1, err)
			}
			out[i] = s
		case int, int64, uint64, float64, bool:
			out[i] = fmt.Sprint(v)
		default:
			return nil, fmt.Errorf("item %d: want a plain value, got %v", i+1, it)
		}
	}
	return out, nil
}

func convertMap(raw any) (map[string]any, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a mapping such as {key: value}, got %v", raw)
	}
	out := make(map[string]any, len(m))
	for k, it := range m {
		switch v := it.(type) {
		case string:
			s, err := ExpandEnvStrict(v)
			if err != nil {
				return nil, fmt.Errorf("key %q: %w", k, err)
			}
			out[k] = s
		case int:
			out[k] = int64(v)
		case int64, uint64, float64, bool:
			out[k] = v
		default:
			return nil, fmt.Errorf("key %q: want a plain value, got %v", k, it)
		}
	}
	return out, nil
}

func checkMin(s OptionSpec, v float64) error {
	if s.HasMin && v < s.Min {
		return fmt.Errorf("must be at least %v, got %v", s.Min, v)
	}
	return nil
}

func toInt(raw any, str string, isStr bool) (int64, error) {
	switch v := raw.(type) {
	case int:
		return int64(v), nil
	case int64:
		return v, nil
	case uint64:
		if v > math.MaxInt64 {
			return 0, fmt.Errorf("%d is too large", v)
		}
		return int64(v), nil
	case float64:
		if v != math.Trunc(v) {
			return 0, fmt.Errorf("want a whole number, got %v", v)
		}
		return int64(v), nil
	}
	if isStr {
		n, err := strconv.ParseInt(strings.ReplaceAll(str, "_", ""), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("want a whole number, got %q", str)
		}
		return n, nil
	}
	return 0, fmt.Errorf("want a whole number, got %v", raw)
}

var byteUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1000, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1000 * 1000, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1000 * 1000 * 1000, "gib": 1 << 30,
	"t": 1 << 40, "tb": 1000 * 1000 * 1000 * 1000, "tib": 1 << 40,
}

// ParseBytes parses a size such as "4096", "64MiB" or "1 GB".
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.' || t[i] == '_') {
		i++
	}
	num, unit := strings.ReplaceAll(t[:i], "_", ""), strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := byteUnits[unit]
	f, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || f < 0 {
		return 0, fmt.Errorf("want a size such as 4096, 64MiB or 1GiB, got %q", s)
	}
	v := f * float64(mult)
	if v > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(v), nil
}

// Has reports whether the option is set (explicitly or by default).
func (o Options) Has(name string) bool { _, ok := o.values[name]; return ok }

// String returns a String, Enum or DSN option ("" if unset).
func (o Options) String(name string) string { s, _ := o.values[name].(string); return s }

// Int returns an Int or Bytes option (0 if unset).
func (o Options) Int(name string) int64 { n, _ := o.values[name].(int64); return n }

// Float returns a Float option (0 if unset).
func (o Options) Float(name string) float64 { f, _ := o.values[name].(float64); return f }

// Bool returns a Bool option (false if unset).
func (o Options) Bool(name string) bool { b, _ := o.values[name].(bool); return b }

// Duration returns a Duration option (0 if unset).
func (o Options) Duration(name string) time.Duration {
	d, _ := o.values[name].(time.Duration)
	return d
}

// Values returns every value as parsed (for passing on verbatim; Redacted is for reports).
func (o Options) Values() map[string]any {
	out := make(map[string]any, len(o.values))
	for k, v := range o.values {
		out[k] = v
	}
	return out
}

// List returns a List option (nil if unset).
func (o Options) List(name string) []string { l, _ := o.values[name].([]string); return l }

// Map returns a Map option (nil if unset). Callers must not modify it.
func (o Options) Map(name string) map[string]any { m, _ := o.values[name].(map[string]any); return m }

// Redacted returns the options as they may appear in a report or log: secrets as "***", DSN
// passwords removed, durations as strings. A Secret Map keeps its keys and hides every value; any
// other Map hides the values of keys that look secret (SecretKey).
func (o Options) Redacted() map[string]any {
	out := make(map[string]any, len(o.values))
	for k, v := range o.values {
		s := o.specs[k]
		switch {
		case s.Kind == Map:
			m, _ := v.(map[string]any) // convert made it one
			out[k] = redactMap(m, s.Secret)
		case s.Secret:
			out[k] = "***"
		case s.Kind == DSN:
			dsn, _ := v.(string)
			out[k] = RedactDSN(dsn)
		default:
			if d, ok := v.(time.Duration); ok {
				out[k] = d.String()
			} else {
				out[k] = v
			}
		}
	}
	return out
}

func redactMap(m map[string]any, all bool) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if all || SecretKey(k) {
			v = "***"
		}
		out[k] = v
	}
	return out
}

var secretWords = regexp.MustCompile(`(?i)password|passwd|secret|token|dsn|key|credential`)

// SecretKey reports whether a map key names something secret (a password, token, key or DSN), whose
// value a report must not show.
func SecretKey(k string) bool { return secretWords.MatchString(k) }

// RedactDSN removes the password from a URL or key=value connection string (see internal/redact).
func RedactDSN(dsn string) string { return redact.DSN(dsn) }

// Secrets returns what must never be shown of these options: the values of secret options and the
// passwords inside any string value (a dsn, an address with credentials).
func (o Options) Secrets() []string {
	var out []string
	add := func(str string, secret bool) {
		if secret {
			out = append(out, str)
		}
		out = append(out, redact.Passwords(str)...)
	}
	for k, v := range o.values {
		switch v := v.(type) {
		case string:
			add(v, o.specs[k].Secret)
		case map[string]any: // the values a report shows as *** (redactMap), and passwords in the rest
			for mk, mv := range v {
				if str, ok := mv.(string); ok {
					add(str, o.specs[k].Secret || SecretKey(mk))
				}
			}
		}
	}
	return out
}

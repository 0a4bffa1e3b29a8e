package config

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dbbench/dbbench/internal/suggest"
)

// lineError is an error at a line of the config; Error() omits the file name, which Parse adds.
type lineError struct {
	line int
	col  int // the column where the line holds several mistakes (0: unknown)
	msg  string
	// in and meant: an unknown key of mapping in that is a misspelling of key meant.
	in    *yaml.Node
	meant string
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

func errAt(n *yaml.Node, format string, args ...any) error { return lineAt(n, format, args...) }

// lineAt is errAt's lineError.
func lineAt(n *yaml.Node, format string, args ...any) *lineError {
	e := &lineError{msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.line, e.col = n.Line, n.Column
	}
	return e
}

// field is one key of a mapping node.
type field struct {
	key   *yaml.Node
	value *yaml.Node
}

// requiredString reads the required scalar key of mapping node n (whose fields are fields): missing
// is the message when it is absent, what names it when it is not a single value. It returns the
// value's node too, for its line.
func requiredString(n *yaml.Node, fields map[string]field, key, missing, what string) (string, *yaml.Node, error) {
	f, ok := fields[key]
	if !ok {
		return "", nil, errAt(n, "%s", missing)
	}
	v, err := scalarString(f.value, what)
	return v, f.value, err
}

// mapping returns the keys of a mapping node in order. Keys that appear twice, are not words, or
// (when allowed is given) are not in allowed are mistakes: all of them are returned (lineErrors)
// with the fields of the others, so that a caller may read those on. A node that is not a mapping,
// or a key that is not even a word (this is probably not a config: -c /etc/shadow), returns no
// fields.
func mapping(n *yaml.Node, what string, allowed ...string) (map[string]field, []string, error) {
	if n.Kind != yaml.MappingNode {
		return nil, nil, errAt(n, "%s must be a mapping (key: value lines), got %s", what, kindName(n))
	}
	out := map[string]field{}
	var order []string
	var bad lineErrors
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			bad = append(bad, lineAt(k, "%s: keys must be plain words", what))
			continue
		}
		if _, dup := out[k.Value]; dup {
			bad = append(bad, lineAt(k, "%s: %q appears twice", what, k.Value))
			continue
		}
		if len(allowed) > 0 && !contains(allowed, k.Value) {
			if !keyPattern.MatchString(k.Value) {
				// Not a word: probably not a config at all; its text is not repeated.
				return nil, nil, errAt(k, "%s: this is not a key dbbench knows, nor a word%s", what, keysHint("", allowed))
			}
			e := lineAt(k, "unknown key %q in %s%s", k.Value, what, keysHint(k.Value, allowed))
			e.in, e.meant = n, suggest.Closest(k.Value, allowed)
			bad = append(bad, e)
			continue
		}
		out[k.Value] = field{k, v}
		order = append(order, k.Value)
	}
	if len(bad) > 0 {
		return out, order, bad
	}
	return out, order, nil
}

// keysHint ends an unknown key's error: the key it was probably meant as, or the known keys when
// they fit in a short line, else where they are described.
func keysHint(key string, allowed []string) string {
	return suggest.Hint(key, allowed, "docs/config.md")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		if len(n.Value) > 40 {
			return "a long single value" // not repeated: it may not be a config at all
		}
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "something else"
}

func scalarString(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", errAt(n, "%s must be a single value, got %s", what, kindName(n))
	}
	return n.Value, nil
}

// positiveInt parses a whole number >= 1 (underscores allowed, as in 100_000).
func positiveInt(n *yaml.Node, what string) (int, error) {
	v, err := wholeNumber(n, what)
	if err != nil {
		return 0, err
	}
	if v <= 0 {
		return 0, errAt(n, "%s must be positive, got %d", what, v)
	}
	return v, nil
}

func wholeNumber(n *yaml.Node, what string) (int, error) {
	s, err := scalarString(n, what)
	if err != nil {
		return 0, err
	}
	v, perr := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
	if perr != nil {
		if f, ferr := strconv.ParseFloat(s, 64); ferr == nil && f == math.Trunc(f) && math.Abs(f) < 1e15 {
			return int(f), nil
		}
		return 0, errAt(n, "%s must be a whole number, got %q", what, s)
	}
	if v > math.MaxInt32*16 || v < -math.MaxInt32 {
		return 0, errAt(n, "%s is out of range: %d", what, v)
	}
	return int(v), nil
}

func boolValue(n *yaml.Node, what string) (bool, error) {
	s, err := scalarString(n, what)
	if err != nil {
		return false, err
	}
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return true, nil
	case "false", "no", "off":
		return false, nil
	}
	return false, errAt(n, "%s must be true or false, got %q", what, s)
}

// fraction parses "10%" or "0.1" into 0.1; it must lie in [0, max].
func fraction(n *yaml.Node, what string, max float64) (float64, error) {
	s, err := scalarString(n, what)
	if err != nil {
		return 0, err
	}
	f, ok := ParseFraction(s)
	if !ok {
		return 0, errAt(n, "%s must be a fraction such as 0.1 or 10%%, got %q", what, s)
	}
	if f < 0 || f > max {
		return 0, errAt(n, "%s must be between 0 and %g, got %g", what, max, f)
	}
	return f, nil
}

// ParseFraction parses "10%" as 0.1 and "0.1" as 0.1.
func ParseFraction(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	pct := strings.HasSuffix(s, "%")
	s = strings.TrimSpace(strings.TrimSuffix(s, "%"))
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	if pct {
		f /= 100
	}
	return f, true
}

// maxPlainNodes bounds the values one options or params mapping may expand to. YAML aliases may
// refer to aliases, so a few lines can stand for billions of values; no real config comes close.
const maxPlainNodes = 10_000

// plain converts a node to plain Go values (map[string]any, []any, string, int, float64, bool, nil)
// for adapter options, params and the config-as-run in the report. Aliases are expanded up to
// maxPlainNodes values in all.
func plain(n *yaml.Node) (any, error) {
	budget := maxPlainNodes
	return plainBudget(n, &budget, n)
}

// plainMapping is a mapping's plain values: adapter options or workload params.
func plainMapping(n *yaml.Node, what string) (map[string]any, error) {
	if n.Kind != yaml.MappingNode {
		return nil, errAt(n, "%s must be a mapping", what)
	}
	v, err := plain(n)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

func plainBudget(n *yaml.Node, budget *int, top *yaml.Node) (any, error) {
	if *budget--; *budget < 0 {
		return nil, errAt(top, "this mapping expands to more than %d values (aliases referring to aliases?)", maxPlainNodes)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return plainBudget(n.Content[0], budget, top)
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := plainBudget(n.Content[i+1], budget, top)
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		var l []any
		for _, c := range n.Content {
			v, err := plainBudget(c, budget, top)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, errAt(n, "unknown alias")
		}
		return plainBudget(n.Alias, budget, top)
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, errAt(n, "%v", err)
	}
	if u, ok := v.(uint64); ok && u <= math.MaxInt64 {
		v = int64(u)
	}
	return v, nil
}

// boundedInt parses a whole number in [min, max]; max keeps a typo from exhausting memory.
func boundedInt(n *yaml.Node, what string, min, max int) (int, error) {
	v, err := wholeNumber(n, what)
	if err != nil {
		return 0, err
	}
	if v < min {
		if min == 1 {
			return 0, errAt(n, "%s must be positive, got %d", what, v)
		}
		return 0, errAt(n, "%s must be at least %d, got %d", what, min, v)
	}
	if v > max {
		return 0, errAt(n, "%s must be at most %d, got %d", what, max, v)
	}
	return v, nil
}

// keyPattern is what a misspelt key looks like; anything else is not echoed in errors.
var keyPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,39}$`)

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError turns a yaml.v3 error into a lineError when it names a line.
func syntaxError(err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &lineError{line: line, msg: "YAML syntax error: " + m[2]}
	}
	return fmt.Errorf("YAML syntax error: %s", strings.TrimPrefix(msg, "yaml: "))
}

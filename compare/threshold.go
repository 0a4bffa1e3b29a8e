package compare

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dbbench/dbbench/internal/suggest"
	"github.com/dbbench/dbbench/report"
)

// Thresholds say how much worse a figure may get before the gate fails. A key is a figure ("p99") or a
// workload and a figure ("lookup.p99"); the more specific key wins, then the default. The zero value
// gates nothing.
type Thresholds struct {
	def    float64
	hasDef bool
	byKey  map[string]float64
}

// DefaultKey is the key of the default threshold in a thresholds file.
const DefaultKey = "default"

// Enabled reports whether any threshold is set: only then is the comparison a gate.
func (t *Thresholds) Enabled() bool { return t != nil && (t.hasDef || len(t.byKey) > 0) }

// For returns the threshold that applies to figure in workload, and whether there is one.
func (t *Thresholds) For(workload, figure string) (float64, bool) {
	if t == nil {
		return 0, false
	}
	if v, ok := t.byKey[workload+"."+figure]; ok {
		return v, true
	}
	if v, ok := t.byKey[figure]; ok {
		return v, true
	}
	return t.def, t.hasDef
}

// Keys lists the specific keys (not the default), sorted.
func (t *Thresholds) Keys() []string {
	if t == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(t.byKey))
}

// String renders the thresholds in the flag syntax, default first.
func (t *Thresholds) String() string {
	if !t.Enabled() {
		return ""
	}
	var parts []string
	if t.hasDef {
		parts = append(parts, FormatPercent(t.def))
	}
	for _, k := range t.Keys() {
		parts = append(parts, k+"="+FormatPercent(t.byKey[k]))
	}
	return strings.Join(parts, ",")
}

// Set adds one --threshold value: a comma-separated list of VALUE (the default) or KEY=VALUE, where
// VALUE is a percentage ("10%") or a fraction ("0.1") and KEY is FIGURE or WORKLOAD.FIGURE.
func (t *Thresholds) Set(spec string) error {
	if strings.TrimSpace(spec) == "" {
		return errors.New("empty threshold: want e.g. 10% or p99=20%")
	}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		key, val, hasKey := strings.Cut(part, "=")
		key = strings.TrimSpace(key)
		if !hasKey {
			key, val = "", part
		} else if key == "" {
			return fmt.Errorf("threshold %q: name a figure before '=' (e.g. p99=20%%)", part)
		}
		if err := t.add(key, strings.TrimSpace(val)); err != nil {
			return err
		}
	}
	return nil
}

func (t *Thresholds) add(key, val string) error {
	v, err := ParseFraction(val)
	if err != nil {
		if key != "" {
			return fmt.Errorf("threshold %s: %w", key, err)
		}
		return err
	}
	if key == "" || key == DefaultKey {
		t.def, t.hasDef = v, true
		return nil
	}
	if err := checkKey(key); err != nil {
		return err
	}
	if t.byKey == nil {
		t.byKey = map[string]float64{}
	}
	t.byKey[key] = v
	return nil
}

// checkKey accepts FIGURE or WORKLOAD.FIGURE with a known figure.
func checkKey(key string) error {
	workload, figure, hasWorkload := strings.Cut(key, ".")
	if !hasWorkload {
		figure, workload = key, ""
	}
	if hasWorkload && (workload == "" || strings.ContainsAny(workload, " =[]")) {
		return fmt.Errorf("threshold key %q: want FIGURE or WORKLOAD.FIGURE", key)
	}
	if _, ok := report.LookupFigure(figure); !ok {
		return fmt.Errorf("threshold key %q: unknown figure %q%s", key, figure, suggest.Hint(figure, report.FigureNames(), "dbbench list figures"))
	}
	return nil
}

// ParseFraction reads "10%" or "0.1" as 0.1. A bare number above 1 is refused as ambiguous (10 could mean
// 10% or 1000%), as are negative, infinite and non-numeric values.
func ParseFraction(s string) (float64, error) {
	in := s
	s = strings.TrimSpace(s)
	pct := strings.HasSuffix(s, "%")
	s = strings.TrimSpace(strings.TrimSuffix(s, "%"))
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("threshold %q: want a percentage like 10%% or a fraction like 0.1", in)
	}
	if pct {
		v /= 100
	} else if v > 1 {
		return 0, fmt.Errorf("threshold %q is ambiguous: write %s%% for a percentage or a fraction of at most 1", in, s)
	}
	if v < 0 {
		return 0, fmt.Errorf("threshold %q is negative: a threshold is how much worse a figure may get", in)
	}
	return v, nil
}

// FormatPercent renders a fraction as a percentage: 0.1 -> "10%", 0.125 -> "12.5%".
func FormatPercent(v float64) string {
	return strconv.FormatFloat(v*100, 'f', -1, 64) + "%"
}

// LoadThresholds reads a thresholds file: a YAML mapping of KEY: VALUE with the same syntax as
// --threshold, "default" being the default, for example
//
//	default: 10%
//	p99: 25%
//	lookup.p99: 40%
func LoadThresholds(path string, into *Thresholds) error {
	b, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot read thresholds file %s: %w", path, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("thresholds file %s: %v", path, err)
	}
	if len(doc.Content) == 0 {
		return fmt.Errorf("thresholds file %s is empty", path)
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return fmt.Errorf("thresholds file %s:%d: want a mapping like `default: 10%%` and `p99: 20%%`", path, m.Line)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return fmt.Errorf("thresholds file %s:%d: %s: want a value like 10%%", path, v.Line, k.Value)
		}
		if err := into.add(strings.TrimSpace(k.Value), strings.TrimSpace(v.Value)); err != nil {
			return fmt.Errorf("thresholds file %s:%d: %v", path, k.Line, err)
		}
	}
	return nil
}

// Package assertion parses and evaluates the assertions of a config: comparisons between figures of
// targets measured in the same run, decided on the median of paired per-repeat ratios or differences.
//
//	check  := side OP side                      OP := <= | >= | < | >
//	side   := ref | NUMBER | NUMBER * ref | ref * NUMBER | ref - ref
//	ref    := WORKLOAD.FIGURE[TARGET] | WORKLOAD.FIGURE[TARGET@SIZE]    SIZE := number | min | max
package assertion

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Form is how an assertion is decided.
type Form string

const (
	Ratio      Form = "ratio"      // left / right compared with K
	Difference Form = "difference" // left - right compared with K
	Absolute   Form = "absolute"   // left compared with K
)

// Ref names one figure of one target's result.
type Ref struct {
	Workload string
	Figure   string
	Target   string
	// Size is "" (every size of a sweep, or the only size), "min", "max" or a dataset size.
	Size string
}

func (r Ref) String() string {
	s := fmt.Sprintf("%s.%s[%s", r.Workload, r.Figure, r.Target)
	if r.Size != "" {
		s += "@" + r.Size
	}
	return s + "]"
}

// Assertion is a parsed check.
type Assertion struct {
	Name  string
	Expr  string
	Line  int
	Form  Form
	Op    string
	Left  Ref
	Right Ref // unset for Absolute
	K     float64
	// Machines keys thresholds to machine classes (report.Environment.MachineClass): where a claim
	// measured on one class of machine does not hold on another, the config says so with the
	// threshold measured there, instead of widening K for every machine.
	Machines map[string]float64
}

// ForMachine returns the assertion with the threshold for the given machine class, and whether the
// config keys one to that class.
func (a Assertion) ForMachine(class string) (Assertion, bool) {
	k, ok := a.Machines[class]
	if ok {
		a.K = k
	}
	return a, ok
}

// CheckThreshold reports whether k can stand as the assertion's threshold (a ratio's factor must be
// positive).
func (a Assertion) CheckThreshold(k float64) error {
	if math.IsNaN(k) || math.IsInf(k, 0) {
		return fmt.Errorf("the threshold %g is not a number", k)
	}
	if a.Form == Ratio && k <= 0 {
		return fmt.Errorf("the factor %g must be positive", k)
	}
	return nil
}

type token struct {
	kind string // "ref", "num", "op", "*", "-"
	text string
	ref  Ref
	num  float64
	pos  int
}

var (
	refRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*)\.([A-Za-z_][A-Za-z0-9_]*)\[\s*([^\]@\s]+)\s*(?:@\s*([^\]\s]+)\s*)?\]`)
	numRe = regexp.MustCompile(`^[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?%?|^\.[0-9]+%?`)
)

func tokenize(s string) ([]token, error) {
	var out []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '<' || c == '>':
			op := string(c)
			if i+1 < len(s) && s[i+1] == '=' {
				op += "="
			}
			out = append(out, token{kind: "op", text: op, pos: i})
			i += len(op)
		case c == '=' || c == '!':
			return nil, fmt.Errorf("unsupported operator at %q: use <=, >=, < or >", s[i:])
		case c == '*' || c == 'x' && i+1 < len(s) && s[i+1] == ' ':
			out = append(out, token{kind: "*", text: "*", pos: i})
			i++
		case c == '-':
			// A minus directly before a digit that follows an operator or starts the side is a sign.
			if i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '.') && (len(out) == 0 || out[len(out)-1].kind == "op") {
				m := numRe.FindString(s[i+1:])
				n, err := parseNumber(m)
				if err != nil {
					return nil, err
				}
				out = append(out, token{kind: "num", text: "-" + m, num: -n, pos: i})
				i += 1 + len(m)
				continue
			}
			out = append(out, token{kind: "-", text: "-", pos: i})
			i++
		case c >= '0' && c <= '9' || c == '.':
			m := numRe.FindString(s[i:])
			if m == "" {
				return nil, fmt.Errorf("cannot read a number at %q", s[i:])
			}
			n, err := parseNumber(m)
			if err != nil {
				return nil, err
			}
			out = append(out, token{kind: "num", text: m, num: n, pos: i})
			i += len(m)
		default:
			m := refRe.FindStringSubmatch(s[i:])
			if m == nil {
				return nil, fmt.Errorf("cannot read %q: expected WORKLOAD.FIGURE[TARGET], a number or an operator", clip(s[i:]))
			}
			out = append(out, token{kind: "ref", text: m[0], ref: Ref{Workload: m[1], Figure: m[2], Target: m[3], Size: m[4]}, pos: i})
			i += len(m[0])
		}
	}
	return out, nil
}

func clip(s string) string {
	if len(s) > 30 {
		return s[:30] + "..."
	}
	return s
}

// ParseThreshold reads a threshold written apart from a check (an assertion's machines:), with the
// check's own number syntax: 250, 1.05, -3, 80%.
func ParseThreshold(s string) (float64, error) {
	t := strings.TrimSpace(s)
	neg := strings.HasPrefix(t, "-")
	m := numRe.FindString(strings.TrimPrefix(t, "-"))
	if m == "" || m != strings.TrimPrefix(t, "-") {
		return 0, fmt.Errorf("bad number %q", s)
	}
	f, err := parseNumber(m)
	if neg {
		f = -f
	}
	return f, err
}

func parseNumber(s string) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	if pct {
		f /= 100
	}
	return f, nil
}

// Parse parses one check expression.
func Parse(expr string) (Assertion, error) {
	a := Assertion{Expr: strings.TrimSpace(expr)}
	toks, err := tokenize(a.Expr)
	if err != nil {
		return a, err
	}
	opAt := -1
	for i, t := range toks {
		if t.kind == "op" {
			if opAt >= 0 {
				return a, fmt.Errorf("more than one comparison in %q", a.Expr)
			}
			opAt = i
		}
	}
	if opAt < 0 {
		return a, fmt.Errorf("no comparison (<=, >=, <, >) in %q", a.Expr)
	}
	a.Op = toks[opAt].text
	lhs, rhs := toks[:opAt], toks[opAt+1:]
	for _, s := range lhs {
		if s.kind == "ref" {
			if err := checkRef(s.ref); err != nil {
				return a, err
			}
		}
	}
	for _, s := range rhs {
		if s.kind == "ref" {
			if err := checkRef(s.ref); err != nil {
				return a, err
			}
		}
	}
	switch {
	case is(lhs, "ref") && is(rhs, "num"):
		a.Form, a.Left, a.K = Absolute, lhs[0].ref, rhs[0].num
	case is(lhs, "ref") && is(rhs, "ref"):
		a.Form, a.Left, a.Right, a.K = Ratio, lhs[0].ref, rhs[0].ref, 1
	case is(lhs, "ref") && is(rhs, "num", "*", "ref"):
		a.Form, a.Left, a.Right, a.K = Ratio, lhs[0].ref, rhs[2].ref, rhs[0].num
	case is(lhs, "ref") && is(rhs, "ref", "*", "num"):
		a.Form, a.Left, a.Right, a.K = Ratio, lhs[0].ref, rhs[0].ref, rhs[2].num
	case is(lhs, "ref", "-", "ref") && is(rhs, "num"):
		a.Form, a.Left, a.Right, a.K = Difference, lhs[0].ref, lhs[2].ref, rhs[0].num
	default:
		return a, fmt.Errorf("cannot read %q: write A OP k * B, A - B OP n, or A OP n, with A and B like scan.rows_per_s[target]", a.Expr)
	}
	if a.Form == Ratio && a.K <= 0 {
		return a, fmt.Errorf("the factor in %q must be positive", a.Expr)
	}
	return a, nil
}

func checkRef(r Ref) error {
	switch r.Size {
	case "", "min", "max":
		return nil
	}
	if n, err := strconv.Atoi(strings.ReplaceAll(r.Size, "_", "")); err != nil || n <= 0 {
		return fmt.Errorf("bad size %q in %s: use a dataset size, min or max", r.Size, r)
	}
	return nil
}

func is(toks []token, kinds ...string) bool {
	if len(toks) != len(kinds) {
		return false
	}
	for i, k := range kinds {
		if toks[i].kind != k {
			return false
		}
	}
	return true
}

// Refs returns the refs the assertion reads.
func (a Assertion) Refs() []Ref {
	if a.Form == Absolute {
		return []Ref{a.Left}
	}
	return []Ref{a.Left, a.Right}
}

// Relaxed returns the threshold after relaxing by the fraction relax in the direction that makes the
// check easier to pass.
func (a Assertion) Relaxed(relax float64) float64 {
	if relax == 0 {
		return a.K
	}
	loosen := a.Op == "<=" || a.Op == "<" // the threshold is an upper bound
	if a.Form == Ratio {
		if loosen {
			return a.K * (1 + relax)
		}
		return a.K * (1 - relax)
	}
	d := abs(a.K) * relax
	if loosen {
		return a.K + d
	}
	return a.K - d
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// Holds reports whether value satisfies the comparison with threshold.
func Holds(value float64, op string, threshold float64) bool {
	switch op {
	case "<=":
		return value <= threshold
	case "<":
		return value < threshold
	case ">=":
		return value >= threshold
	case ">":
		return value > threshold
	}
	return false
}

// Package assertion parses and evaluates the assertions of a config: comparisons between figures of
// targets measured in the same run, decided on the median of paired per-repeat ratios or differences.
//
//	check  := side CMP side                     CMP := <= | >= | < | >
//	side   := ref | NUMBER | NUMBER * ref | ref * NUMBER | ref - ref
//	ref    := WORKLOAD.FIGURE[TARGET] | WORKLOAD.OPTYPE.FIGURE[TARGET]
//	          (either with @SIZE inside the brackets: [TARGET@SIZE])    SIZE := number | min | max
//	NUMBER := decimal [e exponent] [% | ns | us | µs | ms | s]
//
// A ref with an OPTYPE reads the figure "OPTYPE.FIGURE" of a repeat: an open-loop workload's clock
// for one operation type (ycsb-a.read.response_p99[sqlite]); only the three clocks' figures
// (response_*, service_*, start_lag_*) have one. A number with a duration unit is in ns (2ms is
// 2000000), for a threshold on a figure in ns; a ratio's factor is a plain number.
package assertion

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/dbbench/dbbench/report"
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
	// Op is the operation type whose figure is read ("" for the whole workload's).
	Op     string
	Figure string
	Target string
	// Size is "" (every size of a sweep, or the only size), "min", "max" or a dataset size.
	Size string
}

// Key is the name of the figure in a repeat's figures: "OP.FIGURE", or "FIGURE" without an op.
func (r Ref) Key() string {
	if r.Op != "" {
		return r.Op + "." + r.Figure
	}
	return r.Figure
}

func (r Ref) String() string {
	s := fmt.Sprintf("%s.%s[%s", r.Workload, r.Key(), r.Target)
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
	// RunValue is what each run contributes: report.RunMedian ("" too) or report.RunBest
	// (docs/verdicts.md).
	RunValue string
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
	dur  bool // a number with a duration unit, in ns
	pos  int
}

var (
	refRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*)(?:\.([A-Za-z_][A-Za-z0-9_-]*))?\.([A-Za-z_][A-Za-z0-9_]*)\[\s*([^\]@\s]+)\s*(?:@\s*([^\]\s]+)\s*)?\]`)
	numRe = regexp.MustCompile(`^(?:[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+)(?:%|ns|us|µs|ms|s)?`)
)

// durationUnits are the units a number may carry, in ns. Figures in time are in ns, so a duration
// is a number of ns written the way people read it.
var durationUnits = []struct {
	suffix string
	ns     float64
}{{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}}

// readNumber reads the number at the start of s: its text, value and whether it is a duration. A
// unit must end the word: 2ms_x is no number.
func readNumber(s string) (string, float64, bool, error) {
	m := numRe.FindString(s)
	if m == "" {
		return "", 0, false, fmt.Errorf("cannot read a number at %q", clip(s))
	}
	if rest := s[len(m):]; rest != "" && strings.HasSuffix(m, "s") && isWordByte(rest[0]) {
		return "", 0, false, fmt.Errorf("cannot read a number at %q: a unit (ns, us, ms, s) ends the number", clip(s))
	}
	n, dur, err := parseNumber(m)
	return m, n, dur, err
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

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
				m, n, dur, err := readNumber(s[i+1:])
				if err != nil {
					return nil, err
				}
				out = append(out, token{kind: "num", text: "-" + m, num: -n, dur: dur, pos: i})
				i += 1 + len(m)
				continue
			}
			out = append(out, token{kind: "-", text: "-", pos: i})
			i++
		case c >= '0' && c <= '9' || c == '.':
			m, n, dur, err := readNumber(s[i:])
			if err != nil {
				return nil, err
			}
			out = append(out, token{kind: "num", text: m, num: n, dur: dur, pos: i})
			i += len(m)
		default:
			m := refRe.FindStringSubmatch(s[i:])
			if m == nil {
				return nil, fmt.Errorf("cannot read %q: expected WORKLOAD.FIGURE[TARGET] (or WORKLOAD.OPTYPE.FIGURE[TARGET]), a number or an operator", clip(s[i:]))
			}
			out = append(out, token{kind: "ref", text: m[0], ref: Ref{Workload: m[1], Op: m[2], Figure: m[3], Target: m[4], Size: m[5]}, pos: i})
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
// check's own number syntax: 250, 1.05, -3, 80%, 2ms (in ns). Assertion.ReadThreshold also checks
// that a duration fits the assertion.
func ParseThreshold(s string) (float64, error) {
	f, _, err := parseThreshold(s)
	return f, err
}

func parseThreshold(s string) (float64, bool, error) {
	t := strings.TrimSpace(s)
	neg := strings.HasPrefix(t, "-")
	m := numRe.FindString(strings.TrimPrefix(t, "-"))
	if m == "" || m != strings.TrimPrefix(t, "-") {
		return 0, false, fmt.Errorf("bad number %q", s)
	}
	f, dur, err := parseNumber(m)
	if neg {
		f = -f
	}
	return f, dur, err
}

// ReadThreshold reads a threshold for this assertion written apart from its check (machines:): a
// number as ParseThreshold reads it, a duration only where the check could hold one.
func (a Assertion) ReadThreshold(s string) (float64, error) {
	k, dur, err := parseThreshold(s)
	if err == nil && dur {
		err = durationFits(a, strings.TrimSpace(s))
	}
	if err == nil {
		err = a.CheckThreshold(k)
	}
	return k, err
}

// parseNumber reads a number as numRe matched it: a percentage is a fraction, a duration is in ns.
func parseNumber(s string) (float64, bool, error) {
	scale, dur, digits := 1.0, false, s
	if d, ok := strings.CutSuffix(s, "%"); ok {
		scale, digits = 0.01, d
	}
	for _, u := range durationUnits {
		if d, ok := strings.CutSuffix(s, u.suffix); ok {
			scale, dur, digits = u.ns, true, d
			break
		}
	}
	f, err := strconv.ParseFloat(digits, 64)
	if err != nil || math.IsInf(f*scale, 0) {
		return 0, false, fmt.Errorf("bad number %q", s)
	}
	return f * scale, dur, nil
}

// durationFits says why a duration cannot stand as the assertion's threshold: a ratio's factor has
// no unit, and a figure not in ns (a rate, a count) is not compared with a time.
func durationFits(a Assertion, text string) error {
	if a.Form == Ratio {
		return fmt.Errorf("the factor %s has a unit: a ratio's factor is a plain number (write 2 * B, not 2ms * B)", text)
	}
	if info, ok := report.LookupFigure(a.Left.Key()); ok && info.Unit != "ns" {
		return fmt.Errorf("%s is a duration, but %s is in %s: write a plain number", text, a.Left.Key(), info.Unit)
	}
	return nil
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
	var num token
	for _, s := range toks {
		if s.kind == "ref" {
			if err := checkRef(s.ref); err != nil {
				return a, err
			}
		}
		if s.kind == "num" {
			num = s
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
	if num.dur {
		if err := durationFits(a, num.text); err != nil {
			return a, err
		}
	}
	if a.Form == Ratio && a.K <= 0 {
		return a, fmt.Errorf("the factor in %q must be positive", a.Expr)
	}
	return a, nil
}

func checkRef(r Ref) error {
	if _, known := report.LookupFigure(r.Figure); r.Op != "" && !known {
		return fmt.Errorf("%s: unknown figure %q (dbbench list shows the figures)", r, r.Figure)
	}
	if r.Op != "" && !report.PerOp(r.Figure) {
		return fmt.Errorf("%s names operation type %q, but %s is not kept per operation type (only the clocks: response_*, service_*, start_lag_*)", r, r.Op, r.Figure)
	}
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

package pgbench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The expression language of \set, \if and \elif, as PostgreSQL 15's pgbench parses it (exprscan.l,
// exprparse.y): constants NULL, TRUE, FALSE, integers, doubles; :variables; operators with SQL's
// precedence, lowest first: OR; AND; NOT; IS [NOT] NULL|TRUE|FALSE, ISNULL, NOTNULL; = <> != < <= >
// >= (not associative); | # & << >> and prefix ~; + -; * / %; prefix + and -. Functions and CASE WHEN
// ... THEN ... [ELSE ...] END. Keywords and function names are case-insensitive.

// op is what a node computes.
type op uint8

const (
	opConst op = iota
	opVar
	opAdd
	opSub
	opMul
	opDiv
	opMod
	opEq
	opNe
	opLe
	opLt
	opBitAnd
	opBitOr
	opBitXor
	opShl
	opShr
	opAnd
	opOr
	opNot
	opIs
	opCase
	opAbs
	opDebug
	opDouble
	opExp
	opGreatest
	opHashFNV1a
	opHashMurmur2
	opInt
	opLeast
	opLn
	opPermute
	opPi
	opPow
	opRandom
	opRandomExponential
	opRandomGaussian
	opRandomZipfian
	opSqrt
)

// node is one node of an expression tree: a constant, a variable, or an operator or function over
// its arguments (CASE's are when, then, ..., else).
type node struct {
	op   op
	val  Value  // opConst
	name string // opVar
	slot int    // opVar: the variable's place in a Script's variables
	args []*node
}

// function is a function's operator and how many arguments it takes (max -1: any number).
type function struct {
	op       op
	min, max int
}

// functions are pgbench 15's functions. hash's and permute's optional seed defaults to :default_seed.
var functions = map[string]function{
	"abs":                {opAbs, 1, 1},
	"debug":              {opDebug, 1, 1},
	"double":             {opDouble, 1, 1},
	"exp":                {opExp, 1, 1},
	"greatest":           {opGreatest, 1, -1},
	"hash":               {opHashMurmur2, 1, 2},
	"hash_fnv1a":         {opHashFNV1a, 1, 2},
	"hash_murmur2":       {opHashMurmur2, 1, 2},
	"int":                {opInt, 1, 1},
	"least":              {opLeast, 1, -1},
	"ln":                 {opLn, 1, 1},
	"mod":                {opMod, 2, 2},
	"permute":            {opPermute, 2, 3},
	"pi":                 {opPi, 0, 0},
	"pow":                {opPow, 2, 2},
	"power":              {opPow, 2, 2},
	"random":             {opRandom, 2, 2},
	"random_exponential": {opRandomExponential, 3, 3},
	"random_gaussian":    {opRandomGaussian, 3, 3},
	"random_zipfian":     {opRandomZipfian, 3, 3},
	"sqrt":               {opSqrt, 1, 1},
}

// maxArgs is how many arguments pgbench evaluates for a function (MAX_FARGS): least and greatest
// with more fail there when run, here when parsed.
const maxArgs = 16

// maxDepth bounds an expression's nesting, so that no input can exhaust the stack.
const maxDepth = 1000

// DefaultSeedVar is the variable hash and permute take their seed from when none is given.
const DefaultSeedVar = "default_seed"

type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tMaxIntPlusOne // 9223372036854775808, valid only after a unary minus
	tDouble
	tVar
	tIdent
	tNull
	tTrue
	tFalse
	tAnd
	tOr
	tNot
	tIs
	tIsNull
	tNotNull
	tCase
	tWhen
	tThen
	tElse
	tEnd
	tPunct // an operator or ( ) ,
)

type token struct {
	kind tokKind
	text string // as written
	col  int    // 1-based column in the expression
	i    int64
	f    float64
}

var keywords = map[string]tokKind{
	"and": tAnd, "or": tOr, "not": tNot, "is": tIs, "isnull": tIsNull, "notnull": tNotNull,
	"case": tCase, "when": tWhen, "then": tThen, "else": tElse, "end": tEnd,
	"null": tNull, "true": tTrue, "false": tFalse,
}

// isAlpha and isAlnum are exprscan.l's classes: ASCII letters, underscore and every byte >= 0x80.
func isAlpha(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' }

// exprError is an error in an expression at a column.
type exprError struct {
	col int
	msg string
}

func (e *exprError) Error() string {
	if e.col > 0 {
		return fmt.Sprintf("%s at column %d", e.msg, e.col)
	}
	return e.msg
}

// lexExpr splits an expression into tokens.
func lexExpr(s string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(s) {
		c := s[i]
		start := i
		col := i + 1
		switch {
		case isSpace(c) || c == '\n':
			i++
			continue
		case c == ':' && i+1 < len(s) && isAlnum(s[i+1]):
			i++
			for i < len(s) && isAlnum(s[i]) {
				i++
			}
			toks = append(toks, token{kind: tVar, text: s[start:i], col: col})
			continue
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			t, n, err := lexNumber(s[i:])
			if err != nil {
				return nil, &exprError{col, err.Error()}
			}
			t.col = col
			toks = append(toks, t)
			i += n
			continue
		case isAlpha(c):
			for i < len(s) && isAlnum(s[i]) {
				i++
			}
			word := s[start:i]
			if k, ok := keywords[strings.ToLower(word)]; ok {
				toks = append(toks, token{kind: k, text: word, col: col})
			} else {
				toks = append(toks, token{kind: tIdent, text: word, col: col})
			}
			continue
		}
		for _, p := range []string{"<>", "!=", "<=", ">=", "<<", ">>"} {
			if strings.HasPrefix(s[i:], p) {
				toks = append(toks, token{kind: tPunct, text: p, col: col})
				i += 2
				break
			}
		}
		if i > start {
			continue
		}
		if strings.IndexByte("+-*/%(),=<>|#&~", c) >= 0 {
			toks = append(toks, token{kind: tPunct, text: s[i : i+1], col: col})
			i++
			continue
		}
		return nil, &exprError{col, fmt.Sprintf("unexpected character (%s)", printable(s[i:i+1]))}
	}
	return append(toks, token{kind: tEOF, col: len(s) + 1}), nil
}

// lexNumber reads an integer or a double at the start of s (exprscan.l's rules, longest match).
func lexNumber(s string) (token, int, error) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intEnd := i
	double := false
	if i < len(s) && s[i] == '.' {
		double = true
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i, double = j, true
		}
	}
	text := s[:i]
	if !double {
		if text == "9223372036854775808" {
			return token{kind: tMaxIntPlusOne, text: text}, i, nil
		}
		v, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return token{}, 0, fmt.Errorf("bigint constant overflow (%s)", text)
		}
		return token{kind: tInt, text: text, i: v}, intEnd, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	// strtod reports a range error for overflow and for a result below the smallest normal double.
	if err != nil || f != 0 && math.Abs(f) < 0x1p-1022 || f == 0 && strings.ContainsAny(mantissa(text), "123456789") {
		return token{}, 0, fmt.Errorf("double constant overflow (%s)", text)
	}
	return token{kind: tDouble, text: text, f: f}, i, nil
}

func mantissa(s string) string {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		return s[:i]
	}
	return s
}

func printable(s string) string { return strings.Trim(strconv.Quote(s), `"`) }

// Operator precedence levels, lowest first (exprparse.y's %left/%right/%nonassoc lines).
const (
	levelOr = iota + 1
	levelAnd
	levelNot
	levelIs
	levelCmp
	levelBit
	levelAdd
	levelMul
	levelUnary
)

var binary = map[string]struct {
	level int
	op    op
	swap  bool // a > b is b < a, a >= b is b <= a
}{
	"=": {levelCmp, opEq, false}, "<>": {levelCmp, opNe, false}, "!=": {levelCmp, opNe, false},
	"<": {levelCmp, opLt, false}, "<=": {levelCmp, opLe, false}, ">": {levelCmp, opLt, true}, ">=": {levelCmp, opLe, true},
	"|": {levelBit, opBitOr, false}, "#": {levelBit, opBitXor, false}, "&": {levelBit, opBitAnd, false},
	"<<": {levelBit, opShl, false}, ">>": {levelBit, opShr, false},
	"+": {levelAdd, opAdd, false}, "-": {levelAdd, opSub, false},
	"*": {levelMul, opMul, false}, "/": {levelMul, opDiv, false}, "%": {levelMul, opMod, false},
}

type exprParser struct {
	toks  []token
	pos   int
	depth int
}

// parseExpr parses one expression (the rest of a \set, \if or \elif line).
func parseExpr(s string) (*node, error) {
	toks, err := lexExpr(s)
	if err != nil {
		return nil, err
	}
	p := &exprParser{toks: toks}
	n, err := p.expr(levelOr)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.unexpected(t)
	}
	return n, nil
}

func (p *exprParser) peek() token { return p.toks[p.pos] }
func (p *exprParser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *exprParser) unexpected(t token) error {
	if t.kind == tEOF {
		return &exprError{t.col, "syntax error (unexpected end of expression)"}
	}
	return &exprError{t.col, fmt.Sprintf("syntax error (unexpected %q)", t.text)}
}

func (p *exprParser) punct(s string) bool {
	if t := p.peek(); t.kind == tPunct && t.text == s {
		p.pos++
		return true
	}
	return false
}

func (p *exprParser) expect(s string) error {
	if !p.punct(s) {
		return p.unexpected(p.peek())
	}
	return nil
}

func call(o op, args ...*node) *node { return &node{op: o, args: args} }
func constant(v Value) *node         { return &node{op: opConst, val: v} }

// expr parses an expression whose binary operators bind at least as tightly as level min
// (precedence climbing, which resolves as bison resolves exprparse.y's declarations).
func (p *exprParser) expr(min int) (*node, error) {
	if p.depth++; p.depth > maxDepth {
		return nil, &exprError{p.peek().col, "expression too deeply nested"}
	}
	defer func() { p.depth-- }()
	left, err := p.prefix()
	if err != nil {
		return nil, err
	}
	last := 0 // the level of the operator that made left, for the non-associative comparisons
	for {
		t := p.peek()
		switch {
		case t.kind == tPunct && binary[t.text].level >= min && binary[t.text].level > 0:
			b := binary[t.text]
			if b.level == levelCmp && last == levelCmp {
				return nil, p.unexpected(t)
			}
			p.next()
			right, err := p.expr(b.level + 1)
			if err != nil {
				return nil, err
			}
			if b.swap {
				left, right = right, left
			}
			left, last = call(b.op, left, right), b.level
		case (t.kind == tAnd && levelAnd >= min) || (t.kind == tOr && levelOr >= min):
			p.next()
			level, o := levelAnd, opAnd
			if t.kind == tOr {
				level, o = levelOr, opOr
			}
			right, err := p.expr(level + 1)
			if err != nil {
				return nil, err
			}
			left, last = call(o, left, right), level
		case (t.kind == tIs || t.kind == tIsNull || t.kind == tNotNull) && levelIs >= min:
			p.next()
			if left, err = p.is(t, left); err != nil {
				return nil, err
			}
			last = levelIs
		default:
			return left, nil
		}
	}
}

// is parses the rest of IS [NOT] NULL|TRUE|FALSE, ISNULL and NOTNULL after left.
func (p *exprParser) is(t token, left *node) (*node, error) {
	switch t.kind {
	case tIsNull:
		return call(opIs, left, constant(Null())), nil
	case tNotNull:
		return call(opNot, call(opIs, left, constant(Null()))), nil
	}
	not := p.peek().kind == tNot
	if not {
		p.next()
	}
	var v Value
	switch u := p.next(); u.kind {
	case tNull:
		v = Null()
	case tTrue:
		v = Bool(true)
	case tFalse:
		v = Bool(false)
	default:
		return nil, p.unexpected(u)
	}
	n := call(opIs, left, constant(v))
	if not {
		n = call(opNot, n)
	}
	return n, nil
}

// prefix parses an operand: a constant, a variable, a function call, CASE, a parenthesized
// expression, or a prefix operator and its operand.
func (p *exprParser) prefix() (*node, error) {
	t := p.next()
	switch t.kind {
	case tInt:
		return constant(Int(t.i)), nil
	case tDouble:
		return constant(Double(t.f)), nil
	case tNull:
		return constant(Null()), nil
	case tTrue:
		return constant(Bool(true)), nil
	case tFalse:
		return constant(Bool(false)), nil
	case tVar:
		return &node{op: opVar, name: t.text[1:]}, nil
	case tNot:
		n, err := p.expr(levelIs)
		if err != nil {
			return nil, err
		}
		return call(opNot, n), nil
	case tCase:
		return p.caseExpr()
	case tIdent:
		return p.function(t)
	case tPunct:
		switch t.text {
		case "(":
			n, err := p.expr(levelOr)
			if err != nil {
				return nil, err
			}
			return n, p.expect(")")
		case "+":
			return p.expr(levelUnary)
		case "-":
			if p.peek().kind == tMaxIntPlusOne {
				p.next()
				return constant(Int(math.MinInt64)), nil
			}
			n, err := p.expr(levelUnary)
			if err != nil {
				return nil, err
			}
			return call(opSub, constant(Int(0)), n), nil
		case "~":
			// ~x is x # -1, and binds like the bitwise operators: ~1+2 is ~(1+2).
			n, err := p.expr(levelAdd)
			if err != nil {
				return nil, err
			}
			return call(opBitXor, constant(Int(-1)), n), nil
		}
	}
	return nil, p.unexpected(t)
}

// function parses a call: name ( [, ] expr [, expr]... ) or name ( ). As in exprparse.y's elist, a
// lone comma may lead the arguments.
func (p *exprParser) function(name token) (*node, error) {
	f, ok := functions[strings.ToLower(name.text)]
	if !ok {
		return nil, &exprError{name.col, fmt.Sprintf("unexpected function name (%s)", name.text)}
	}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var args []*node
	if !p.punct(")") {
		p.punct(",")
		for {
			a, err := p.expr(levelOr)
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if p.punct(")") {
				break
			}
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
	}
	lname := strings.ToLower(name.text)
	switch {
	case f.max < 0 && len(args) == 0:
		return nil, &exprError{name.col, fmt.Sprintf("at least one argument expected (%s)", lname)}
	case len(args) < f.min || f.max >= 0 && len(args) > f.max:
		return nil, &exprError{name.col, fmt.Sprintf("unexpected number of arguments (%s)", lname)}
	case len(args) > maxArgs:
		return nil, &exprError{name.col, fmt.Sprintf("too many function arguments, maximum is %d", maxArgs)}
	}
	if (f.op == opHashMurmur2 || f.op == opHashFNV1a || f.op == opPermute) && len(args) < f.max {
		args = append(args, &node{op: opVar, name: DefaultSeedVar})
	}
	return call(f.op, args...), nil
}

// caseExpr parses CASE WHEN c THEN v [WHEN c THEN v]... [ELSE v] END (no ELSE: NULL).
func (p *exprParser) caseExpr() (*node, error) {
	var args []*node
	for p.peek().kind == tWhen {
		p.next()
		c, err := p.expr(levelOr)
		if err != nil {
			return nil, err
		}
		if t := p.next(); t.kind != tThen {
			return nil, p.unexpected(t)
		}
		v, err := p.expr(levelOr)
		if err != nil {
			return nil, err
		}
		args = append(args, c, v)
	}
	if len(args) == 0 {
		return nil, p.unexpected(p.peek())
	}
	els := constant(Null())
	if p.peek().kind == tElse {
		p.next()
		var err error
		if els, err = p.expr(levelOr); err != nil {
			return nil, err
		}
	}
	if t := p.next(); t.kind != tEnd {
		return nil, p.unexpected(t)
	}
	return call(opCase, append(args, els)...), nil
}

// walkVars calls f for every variable node of n, in evaluation order.
func walkVars(n *node, f func(*node)) {
	if n.op == opVar {
		f(n)
	}
	for _, a := range n.args {
		walkVars(a, f)
	}
}

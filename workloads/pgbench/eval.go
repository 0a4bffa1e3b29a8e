package pgbench

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Evaluation follows pgbench 15's evalFunc: a function or operator with a NULL argument is NULL
// (but IS and debug), AND, OR and CASE evaluate lazily, integer arithmetic fails on overflow and on a
// division by zero, and an operator with a double operand computes in doubles (but %).

// evalState is what evaluating an expression reads: the variables and the operation's random stream.
type evalState struct {
	vars []Value // by slot
	r    *rand.Rand
}

func (st *evalState) eval(n *node) (Value, error) {
	switch n.op {
	case opConst:
		return n.val, nil
	case opVar:
		v := st.vars[n.slot]
		switch v.kind {
		case KindNone:
			return Value{}, fmt.Errorf("undefined variable %q", n.name)
		case KindText:
			return fromText(n.name, v.s)
		}
		return v, nil
	case opAnd, opOr:
		return st.andOr(n)
	case opCase:
		return st.caseWhen(n.args)
	}
	var buf [4]Value
	args := buf[:0]
	null := false
	for _, a := range n.args {
		v, err := st.eval(a)
		if err != nil {
			return Value{}, err
		}
		null = null || v.kind == KindNull
		args = append(args, v)
	}
	if null && n.op != opIs && n.op != opDebug {
		return Null(), nil
	}
	return st.apply(n.op, args)
}

// andOr is pgbench's lazy AND and OR: a NULL left operand makes NULL (whatever the right one is),
// a deciding left operand ends it, and otherwise the result is the right operand; both must be
// booleans or NULL.
func (st *evalState) andOr(n *node) (Value, error) {
	l, err := st.eval(n.args[0])
	if err != nil || l.kind == KindNull {
		return l, err
	}
	lb, err := toBool(l)
	if err != nil {
		return Value{}, err
	}
	if lb == (n.op == opOr) {
		return Bool(lb), nil
	}
	r, err := st.eval(n.args[1])
	if err != nil || r.kind == KindNull {
		return r, err
	}
	rb, err := toBool(r)
	if err != nil {
		return Value{}, err
	}
	return Bool(rb), nil
}

// caseWhen evaluates when/then pairs in order and the else value last.
func (st *evalState) caseWhen(args []*node) (Value, error) {
	for len(args) > 1 {
		c, err := st.eval(args[0])
		if err != nil {
			return Value{}, err
		}
		if truth(c) {
			return st.eval(args[1])
		}
		args = args[2:]
	}
	return st.eval(args[0])
}

// truth is a condition's value: non-zero numbers are true, zero and NULL false.
func truth(v Value) bool {
	switch v.kind {
	case KindBool:
		return v.b
	case KindInt:
		return v.i != 0
	case KindDouble:
		return v.f != 0
	}
	return false
}

func toBool(v Value) (bool, error) {
	if v.kind == KindBool {
		return v.b, nil
	}
	return false, fmt.Errorf("cannot coerce %s to boolean", v.kind)
}

// toInt rounds a double to the nearest integer (half to even, as rint does) and fails beyond int64.
func toInt(v Value) (int64, error) {
	switch v.kind {
	case KindInt:
		return v.i, nil
	case KindDouble:
		d := math.RoundToEven(v.f)
		if math.IsNaN(d) || d < -0x1p63 || d >= 0x1p63 {
			return 0, fmt.Errorf("double to int overflow for %f", d)
		}
		return int64(d), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to int", v.kind)
}

func toDouble(v Value) (float64, error) {
	switch v.kind {
	case KindDouble:
		return v.f, nil
	case KindInt:
		return float64(v.i), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to double", v.kind)
}

// apply computes a strict function or operator of evaluated, non-NULL arguments (IS and debug may
// have NULL ones).
func (st *evalState) apply(o op, a []Value) (Value, error) {
	switch o {
	case opAdd, opSub, opMul, opDiv, opMod, opEq, opNe, opLe, opLt:
		return arith(o, a[0], a[1])
	case opBitAnd, opBitOr, opBitXor, opShl, opShr:
		l, err := toInt(a[0])
		if err != nil {
			return Value{}, err
		}
		r, err := toInt(a[1])
		if err != nil {
			return Value{}, err
		}
		switch o {
		case opBitAnd:
			return Int(l & r), nil
		case opBitOr:
			return Int(l | r), nil
		case opBitXor:
			return Int(l ^ r), nil
		case opShl:
			return Int(l << (uint64(r) & 63)), nil // the count modulo 64, as x86-64's shift does for pgbench
		default:
			return Int(l >> (uint64(r) & 63)), nil
		}
	case opNot:
		b, err := toBool(a[0])
		if err != nil {
			return Value{}, err
		}
		return Bool(!b), nil
	case opIs:
		// pgbench compares the types, then the booleans (NULL IS NULL; TRUE IS TRUE; 1 IS TRUE is false).
		return Bool(a[0].kind == a[1].kind && (a[0].kind != KindBool || a[0].b == a[1].b)), nil
	case opPi:
		return Double(math.Pi), nil
	case opAbs:
		switch a[0].kind {
		case KindInt:
			if a[0].i < 0 {
				return Int(-a[0].i), nil // -MinInt64 stays MinInt64, as in pgbench
			}
			return a[0], nil
		case KindDouble:
			return Double(math.Abs(a[0].f)), nil
		}
		return Value{}, fmt.Errorf("cannot coerce %s to double", a[0].kind)
	case opDebug:
		return a[0], nil // pgbench prints the value to stderr; dbbench prints nothing
	case opDouble, opSqrt, opLn, opExp:
		d, err := toDouble(a[0])
		if err != nil {
			return Value{}, err
		}
		switch o {
		case opSqrt:
			d = math.Sqrt(d)
		case opLn:
			d = math.Log(d)
		case opExp:
			d = math.Exp(d)
		}
		return Double(d), nil
	case opInt:
		i, err := toInt(a[0])
		return Int(i), err
	case opLeast, opGreatest:
		return extremum(o, a)
	case opPow:
		x, err := toDouble(a[0])
		if err != nil {
			return Value{}, err
		}
		y, err := toDouble(a[1])
		if err != nil {
			return Value{}, err
		}
		return Double(math.Pow(x, y)), nil
	case opRandom, opRandomExponential, opRandomGaussian, opRandomZipfian:
		return st.random(o, a)
	case opHashMurmur2, opHashFNV1a:
		v, err := toInt(a[0])
		if err != nil {
			return Value{}, err
		}
		seed, err := toInt(a[1])
		if err != nil {
			return Value{}, err
		}
		if o == opHashMurmur2 {
			return Int(hashMurmur2(v, uint64(seed))), nil
		}
		return Int(hashFNV1a(v, uint64(seed))), nil
	case opPermute:
		var x [3]int64
		for i := range x {
			v, err := toInt(a[i])
			if err != nil {
				return Value{}, err
			}
			x[i] = v
		}
		if x[1] <= 0 {
			return Value{}, errors.New("permute size parameter must be greater than zero")
		}
		return Int(permute(x[0], x[1], x[2])), nil
	}
	return Value{}, fmt.Errorf("internal: operator %d", o)
}

// arith is the overloaded arithmetic and comparison: doubles if either operand is one (but for %,
// which rounds doubles to integers), integers with overflow checks otherwise.
func arith(o op, l, r Value) (Value, error) {
	if (l.kind == KindDouble || r.kind == KindDouble) && o != opMod {
		ld, err := toDouble(l)
		if err != nil {
			return Value{}, err
		}
		rd, err := toDouble(r)
		if err != nil {
			return Value{}, err
		}
		switch o {
		case opAdd:
			return Double(ld + rd), nil
		case opSub:
			return Double(ld - rd), nil
		case opMul:
			return Double(ld * rd), nil
		case opDiv:
			return Double(ld / rd), nil
		case opEq:
			return Bool(ld == rd), nil
		case opNe:
			return Bool(ld != rd), nil
		case opLe:
			return Bool(ld <= rd), nil
		default:
			return Bool(ld < rd), nil
		}
	}
	li, err := toInt(l)
	if err != nil {
		return Value{}, err
	}
	ri, err := toInt(r)
	if err != nil {
		return Value{}, err
	}
	switch o {
	case opAdd:
		s := li + ri
		if (s > li) != (ri > 0) {
			return Value{}, errors.New("bigint add out of range")
		}
		return Int(s), nil
	case opSub:
		s := li - ri
		if (s < li) != (ri > 0) {
			return Value{}, errors.New("bigint sub out of range")
		}
		return Int(s), nil
	case opMul:
		hi, lo := bits.Mul64(uint64(abs64(li)), uint64(abs64(ri)))
		neg := (li < 0) != (ri < 0)
		if hi != 0 || lo > math.MaxInt64 && !(neg && lo == 1<<63) {
			return Value{}, errors.New("bigint mul out of range")
		}
		if neg {
			return Int(int64(-lo)), nil
		}
		return Int(int64(lo)), nil
	case opEq:
		return Bool(li == ri), nil
	case opNe:
		return Bool(li != ri), nil
	case opLe:
		return Bool(li <= ri), nil
	case opLt:
		return Bool(li < ri), nil
	}
	// / and %
	if ri == 0 {
		return Value{}, errors.New("division by zero")
	}
	if ri == -1 {
		if o == opMod {
			return Int(0), nil
		}
		if li == math.MinInt64 {
			return Value{}, errors.New("bigint div out of range")
		}
		return Int(-li), nil
	}
	if o == opDiv {
		return Int(li / ri), nil
	}
	return Int(li % ri), nil
}

// abs64 is |x| as an unsigned magnitude (MinInt64's included).
func abs64(x int64) uint64 {
	if x < 0 {
		return uint64(-x)
	}
	return uint64(x)
}

// extremum is least or greatest: doubles if any argument is a double, integers otherwise.
func extremum(o op, a []Value) (Value, error) {
	for _, v := range a {
		if v.kind == KindDouble {
			d, err := pick(o, a, toDouble)
			return Double(d), err
		}
	}
	i, err := pick(o, a, toInt)
	return Int(i), err
}

// pick is the least or greatest of the arguments, each converted by conv.
func pick[T int64 | float64](o op, a []Value, conv func(Value) (T, error)) (T, error) {
	var best T
	for i, v := range a {
		x, err := conv(v)
		if err != nil {
			return 0, err
		}
		if i == 0 || o == opLeast && x < best || o == opGreatest && x > best {
			best = x
		}
	}
	return best, nil
}

// The parameters' limits of pgbench's random functions.
const (
	MinGaussianParam = 2.0   // random_gaussian: at least
	MinZipfianParam  = 1.001 // random_zipfian: in [MinZipfianParam, MaxZipfianParam]
	MaxZipfianParam  = 1000.0
)

// random is random, random_exponential, random_gaussian and random_zipfian over [lb, ub].
func (st *evalState) random(o op, a []Value) (Value, error) {
	lb, err := toInt(a[0])
	if err != nil {
		return Value{}, err
	}
	ub, err := toInt(a[1])
	if err != nil {
		return Value{}, err
	}
	if lb > ub {
		return Value{}, errors.New("empty range given to random")
	}
	if d := ub - lb; d < 0 || d == math.MaxInt64 { // ub - lb + 1 must fit in an int64
		return Value{}, errors.New("random range is too large")
	}
	if o == opRandom {
		return Int(uniformRand(st.r, lb, ub)), nil
	}
	p, err := toDouble(a[2])
	if err != nil {
		return Value{}, err
	}
	switch o {
	case opRandomGaussian:
		if math.IsNaN(p) || math.IsInf(p, 1) { // pgbench lets them through, to undefined results
			return Value{}, fmt.Errorf("gaussian parameter must be finite (not %f)", p)
		}
		if p < MinGaussianParam {
			return Value{}, fmt.Errorf("gaussian parameter must be at least %f (not %f)", MinGaussianParam, p)
		}
		return Int(gaussianRand(st.r, lb, ub, p)), nil
	case opRandomZipfian:
		if !(p >= MinZipfianParam && p <= MaxZipfianParam) {
			return Value{}, fmt.Errorf("zipfian parameter must be in range [%.3f, %.0f] (not %f)", MinZipfianParam, MaxZipfianParam, p)
		}
		return Int(zipfianRand(st.r, lb, ub, p)), nil
	default:
		if !(p > 0) {
			return Value{}, fmt.Errorf("exponential parameter must be greater than zero (not %f)", p)
		}
		return Int(exponentialRand(st.r, lb, ub, p)), nil
	}
}

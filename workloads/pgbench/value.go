package pgbench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is the type of a Value: pgbench's NULL, boolean, integer (int64) and double, plus text for a
// variable the config supplies as a string (pgbench's -D NAME=VALUE).
type Kind uint8

// The kinds of values.
const (
	KindNone   Kind = iota // not set: a variable no \set has assigned yet
	KindNull               // NULL
	KindBool               // boolean
	KindInt                // integer (int64)
	KindDouble             // double (float64)
	KindText               // text from the config, read as pgbench reads a -D value
)

var kindNames = [...]string{"none", "null", "boolean", "int", "double", "text"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Value is one value of pgbench's expression language.
type Value struct {
	kind Kind
	i    int64
	f    float64
	b    bool
	s    string
}

// Null is the NULL value.
func Null() Value { return Value{kind: KindNull} }

// Bool is a boolean value.
func Bool(b bool) Value { return Value{kind: KindBool, b: b} }

// Int is an integer value.
func Int(i int64) Value { return Value{kind: KindInt, i: i} }

// Double is a double value.
func Double(f float64) Value { return Value{kind: KindDouble, f: f} }

// Text is a text value, as pgbench's -D NAME=VALUE gives one: an expression that reads it converts it
// as pgbench does (null; a prefix of true, yes, false or no; on, off; an integer; a double), and a
// statement binds it as the string it is.
func Text(s string) Value { return Value{kind: KindText, s: s} }

// Kind is the value's type.
func (v Value) Kind() Kind { return v.kind }

// Any is the value as a database/sql or pgx argument: int64, float64, bool, string, or nil for
// NULL. (pgbench binds every argument as text, NULL as the four letters "NULL"; dbbench binds SQL
// NULL and typed values, which a server converts the way it converts pgbench's text.)
func (v Value) Any() any {
	switch v.kind {
	case KindBool:
		return v.b
	case KindInt:
		return v.i
	case KindDouble:
		return v.f
	case KindText:
		return v.s
	}
	return nil
}

// String is the value as pgbench writes it into a variable's text form: integers in decimal, doubles
// with 15 significant digits (%.15g; Infinity, -Infinity, NaN), true or false, NULL.
func (v Value) String() string {
	switch v.kind {
	case KindNull:
		return "NULL"
	case KindBool:
		return strconv.FormatBool(v.b)
	case KindInt:
		return strconv.FormatInt(v.i, 10)
	case KindDouble:
		return formatDouble(v.f)
	case KindText:
		return v.s
	}
	return ""
}

// formatDouble is C's printf("%.15g") as PostgreSQL's own snprintf writes it.
func formatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', 15, 64)
}

// debugString is the value as pgbench's debug() prints it (type, then value).
func (v Value) debugString() string {
	switch v.kind {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean " + v.String()
	case KindInt:
		return "int " + v.String()
	case KindDouble:
		return "double " + v.String()
	}
	return v.kind.String()
}

// fromText converts a text variable as pgbench's makeVariableValue does.
func fromText(name, s string) (Value, error) {
	n := len(s)
	prefixOf := func(word string) bool { return n <= len(word) && strings.EqualFold(s, word[:n]) }
	switch {
	case n == 0:
		return Value{}, fmt.Errorf("malformed variable %q value: %q", name, s)
	case strings.EqualFold(s, "null"):
		return Null(), nil
	case prefixOf("true") || prefixOf("yes") || strings.EqualFold(s, "on"):
		return Bool(true), nil
	case prefixOf("false") || prefixOf("no") || strings.EqualFold(s, "off") || strings.EqualFold(s, "of"):
		return Bool(false), nil
	}
	if looksInt(s) {
		i, err := strconv.ParseInt(strings.TrimLeft(s, " \t\n\v\f\r"), 10, 64)
		if err != nil {
			return Value{}, fmt.Errorf("value %q is out of range for type bigint", s)
		}
		return Int(i), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return Value{}, fmt.Errorf("malformed variable %q value: %q", name, s)
	}
	return Double(f), nil
}

// looksInt is pgbench's is_an_int: optional leading spaces, an optional sign, digits.
func looksInt(s string) bool {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

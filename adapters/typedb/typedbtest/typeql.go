package typedbtest

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The fake understands only the project's fixed query shapes:
//
//	define attribute email, value string; ... entity person, owns email @key, owns name, owns age;
//	insert $p0 isa person, has email "…", has name "…", has age 42; $p1 isa person, …;
//	match $p isa person, has email $e, has name $n, has age $a; [limit N;]
//	match $p isa person, has email "…", has name $n, has age $a; [limit N;]
//
// Everything else is a parse failure.

type tokenKind int

const (
	tIdent tokenKind = iota
	tVar
	tString
	tInt
	tPunct // , ; @
	tEnd
)

type token struct {
	kind tokenKind
	text string // identifier, variable name without '$', unescaped string, digits, punctuation
}

func lex(q string) ([]token, error) {
	var out []token
	i := 0
	for i < len(q) {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#': // comment to end of line
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == ',' || c == ';' || c == '@':
			out = append(out, token{tPunct, string(c)})
			i++
		case c == '$':
			j := i + 1
			for j < len(q) && isIdentByte(q[j]) {
				j++
			}
			if j == i+1 {
				return nil, fmt.Errorf("a variable needs a name at offset %d", i)
			}
			out = append(out, token{tVar, q[i+1 : j]})
			i = j
		case c == '"':
			s, n, err := unquote(q[i:])
			if err != nil {
				return nil, err
			}
			out = append(out, token{tString, s})
			i += n
		case c >= '0' && c <= '9' || c == '-' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			out = append(out, token{tInt, q[i:j]})
			i = j
		case isIdentByte(c):
			j := i
			for j < len(q) && isIdentByte(q[j]) {
				j++
			}
			out = append(out, token{tIdent, q[i:j]})
			i = j
		default:
			return nil, fmt.Errorf("unexpected %q at offset %d", c, i)
		}
	}
	return append(out, token{kind: tEnd}), nil
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// unquote reads a TypeQL string literal at the start of s, returning its value and length.
func unquote(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), i + 1, nil
		case c == '\\' && i+1 < len(s):
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'u':
				if i+6 > len(s) {
					return "", 0, fmt.Errorf("bad \\u escape")
				}
				r, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
				if err != nil {
					return "", 0, fmt.Errorf("bad \\u escape")
				}
				b.WriteRune(rune(r))
				i += 6
				continue
			default:
				return "", 0, fmt.Errorf("bad escape \\%c", e)
			}
			i += 2
		default:
			_, n := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+n])
			i += n
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) take() token { t := p.toks[p.i]; p.i = min(p.i+1, len(p.toks)-1); return t }

func (p *parser) ident(words ...string) (string, error) {
	t := p.take()
	if t.kind != tIdent {
		return "", fmt.Errorf("expected %s, got %q", strings.Join(words, " or "), t.text)
	}
	if len(words) > 0 {
		for _, w := range words {
			if t.text == w {
				return t.text, nil
			}
		}
		return "", fmt.Errorf("expected %s, got %q", strings.Join(words, " or "), t.text)
	}
	return t.text, nil
}

func (p *parser) punct(s string) error {
	if t := p.take(); t.kind != tPunct || t.text != s {
		return fmt.Errorf("expected %q, got %q", s, t.text)
	}
	return nil
}

func (p *parser) isPunct(s string) bool { t := p.peek(); return t.kind == tPunct && t.text == s }

// query is a parsed query of one of the fixed shapes.
type query struct {
	kind string // "define", "insert", "match"

	// define
	attrs    map[string]string // attribute label -> value type
	entities map[string][]owns

	// insert
	inserts []insertStmt

	// match
	entityVar string
	vars      matchVars // variables bound (empty when a literal is given)
	email     *string   // literal email to match
	limit     int       // -1: none
}

type owns struct {
	attr string
	key  bool
}

type insertStmt struct {
	variable string
	p        person
}

type matchVars struct{ email, name, age string }

func parseQuery(q string) (*query, error) {
	toks, err := lex(q)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	head, err := p.ident("define", "insert", "match")
	if err != nil {
		return nil, err
	}
	var out *query
	switch head {
	case "define":
		out, err = p.define()
	case "insert":
		out, err = p.insert()
	default:
		out, err = p.match()
	}
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEnd {
		return nil, fmt.Errorf("unexpected %q after the query", t.text)
	}
	return out, nil
}

func (p *parser) define() (*query, error) {
	q := &query{kind: "define", attrs: map[string]string{}, entities: map[string][]owns{}}
	for p.peek().kind != tEnd {
		kw, err := p.ident("attribute", "entity")
		if err != nil {
			return nil, err
		}
		label, err := p.ident()
		if err != nil {
			return nil, err
		}
		if kw == "attribute" {
			if err := p.punct(","); err != nil {
				return nil, err
			}
			if _, err := p.ident("value"); err != nil {
				return nil, err
			}
			vt, err := p.ident("string", "integer")
			if err != nil {
				return nil, err
			}
			q.attrs[label] = vt
		} else {
			var list []owns
			for p.isPunct(",") {
				p.take()
				if _, err := p.ident("owns"); err != nil {
					return nil, err
				}
				a, err := p.ident()
				if err != nil {
					return nil, err
				}
				o := owns{attr: a}
				if p.isPunct("@") {
					p.take()
					if _, err := p.ident("key"); err != nil {
						return nil, err
					}
					o.key = true
				}
				list = append(list, o)
			}
			q.entities[label] = append(q.entities[label], list...)
		}
		if err := p.punct(";"); err != nil {
			return nil, err
		}
	}
	if len(q.attrs) == 0 && len(q.entities) == 0 {
		return nil, fmt.Errorf("empty define")
	}
	return q, nil
}

func (p *parser) insert() (*query, error) {
	q := &query{kind: "insert"}
	for p.peek().kind == tVar {
		v := p.take().text
		if _, err := p.ident("isa"); err != nil {
			return nil, err
		}
		if _, err := p.ident("person"); err != nil {
			return nil, err
		}
		var st insertStmt
		st.variable = v
		seen := map[string]bool{}
		for p.isPunct(",") {
			attr, err := p.has(seen)
			if err != nil {
				return nil, err
			}
			t := p.take()
			switch {
			case attr == "age" && t.kind == tInt:
				n, err := strconv.ParseInt(t.text, 10, 64)
				if err != nil {
					return nil, err
				}
				st.p.age = n
			case attr != "age" && t.kind == tString:
				if attr == "email" {
					st.p.email = t.text
				} else {
					st.p.name = t.text
				}
			default:
				return nil, fmt.Errorf("bad value %q for %s", t.text, attr)
			}
		}
		if len(seen) != 3 {
			return nil, fmt.Errorf("the fake inserts persons with email, name and age only")
		}
		if err := p.punct(";"); err != nil {
			return nil, err
		}
		q.inserts = append(q.inserts, st)
	}
	if len(q.inserts) == 0 {
		return nil, fmt.Errorf("empty insert")
	}
	return q, nil
}

// has reads ", has ATTR" (the comma is next) and returns ATTR, refusing one seen already.
func (p *parser) has(seen map[string]bool) (string, error) {
	p.take()
	if _, err := p.ident("has"); err != nil {
		return "", err
	}
	attr, err := p.ident("email", "name", "age")
	if err != nil {
		return "", err
	}
	if seen[attr] {
		return "", fmt.Errorf("attribute %s given twice", attr)
	}
	seen[attr] = true
	return attr, nil
}

func (p *parser) match() (*query, error) {
	q := &query{kind: "match", limit: -1}
	t := p.take()
	if t.kind != tVar {
		return nil, fmt.Errorf("expected a variable, got %q", t.text)
	}
	q.entityVar = t.text
	if _, err := p.ident("isa"); err != nil {
		return nil, err
	}
	if _, err := p.ident("person"); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for p.isPunct(",") {
		attr, err := p.has(seen)
		if err != nil {
			return nil, err
		}
		v := p.take()
		switch {
		case v.kind == tVar:
			switch attr {
			case "email":
				q.vars.email = v.text
			case "name":
				q.vars.name = v.text
			default:
				q.vars.age = v.text
			}
		case attr == "email" && v.kind == tString:
			s := v.text
			q.email = &s
		default:
			return nil, fmt.Errorf("the fake matches variables, or a literal email, got %q", v.text)
		}
	}
	if err := p.punct(";"); err != nil {
		return nil, err
	}
	if p.peek().kind == tIdent && p.peek().text == "limit" {
		p.take()
		n := p.take()
		if n.kind != tInt {
			return nil, fmt.Errorf("limit needs a number")
		}
		v, err := strconv.Atoi(n.text)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("bad limit %q", n.text)
		}
		q.limit = v
		if err := p.punct(";"); err != nil {
			return nil, err
		}
	}
	names := map[string]bool{q.entityVar: true}
	for _, v := range []string{q.vars.email, q.vars.name, q.vars.age} {
		if v == "" {
			continue
		}
		if names[v] {
			return nil, fmt.Errorf("variable $%s bound twice", v)
		}
		names[v] = true
	}
	return q, nil
}

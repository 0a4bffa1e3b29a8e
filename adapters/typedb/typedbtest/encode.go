package typedbtest

import (
	"bufio"
	"hash/fnv"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Person is one row of the fake's person type.
type Person struct {
	Email string
	Name  string
	Age   int64
}

// KeyOrder is the order in which the keys of answer rows and concepts are written.
type KeyOrder int

const (
	// KeysSorted is the real server's order: it builds rows and concepts as serde_json values
	// without the preserve_order feature, whose maps keep keys sorted, so variables come in byte
	// order and a concept as {"iid","kind","type","value","valueType"}.
	KeysSorted KeyOrder = iota
	// KeysKindFirst writes each concept with "kind" first and the row's variables in reverse
	// query order: what a server built with preserve_order (or a future one) might send. Clients
	// must decode it too.
	KeysKindFirst
)

// AnswerOptions shape an encoded answer the way the server's query options do.
type AnswerOptions struct {
	// Keys is the key order of rows and concepts (default: the server's, sorted).
	Keys                  KeyOrder
	IncludeInstanceTypes  bool
	IncludeQueryStructure bool
	// Warning, if set, is sent in the envelope's "warning" (the server's text when the answer was cut
	// at the answer limit).
	Warning string
}

// EncodeScanAnswer writes the answer a TypeDB 3.x server sends for
// `match $p isa person, has email $e, has name $n, has age $a;` over persons: a read query whose rows
// bind p, e, n and a. The benchmarks use it to pre-encode large answers.
func EncodeScanAnswer(w io.Writer, persons []Person, opts AnswerOptions) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	rows := make([]person, len(persons))
	for i, p := range persons {
		rows[i] = person{email: p.Email, name: p.Name, age: p.Age, iid: uint64(i)}
	}
	enc := answerEncoder{opts: opts, vars: matchVars{email: "e", name: "n", age: "a"}, entityVar: "p"}
	buf := enc.start(nil, "read", "conceptRows")
	for i := range rows {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = enc.row(buf, &rows[i])
		if len(buf) > 32<<10 {
			if _, err := bw.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	buf = enc.end(buf)
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}

// answerEncoder writes query answers in the server's JSON shape.
type answerEncoder struct {
	opts      AnswerOptions
	vars      matchVars
	entityVar string
}

func (e *answerEncoder) start(b []byte, queryType, answerType string) []byte {
	b = append(b, `{"queryType":"`...)
	b = append(b, queryType...)
	b = append(b, `","answerType":"`...)
	b = append(b, answerType...)
	return append(b, `","answers":[`...)
}

func (e *answerEncoder) end(b []byte) []byte {
	b = append(b, `],"query":`...)
	if e.opts.IncludeQueryStructure {
		b = append(b, `{"blocks":[],"pipeline":[]}`...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"warning":`...)
	if e.opts.Warning == "" {
		return append(b, "null}"...)
	}
	return append(appendString(b, e.opts.Warning), '}')
}

// row encodes one match row, its variables in the configured key order.
func (e *answerEncoder) row(b []byte, p *person) []byte {
	b = append(b, `{"data":{`...)
	type cell struct {
		name string
		attr string // "" for the entity
	}
	var cells [4]cell
	n := 0
	// reverse query order (KeysKindFirst)
	for _, c := range [...]cell{{e.vars.age, "age"}, {e.vars.name, "name"}, {e.vars.email, "email"}, {e.entityVar, ""}} {
		if c.name != "" {
			cells[n] = c
			n++
		}
	}
	if e.opts.Keys == KeysSorted {
		slices.SortFunc(cells[:n], func(a, b cell) int { return strings.Compare(a.name, b.name) })
	}
	for i, c := range cells[:n] {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, c.name)
		switch c.attr {
		case "age":
			b = e.attribute(b, "age", "integer", "", p.age)
		case "name":
			b = e.attribute(b, "name", "string", p.name, 0)
		case "email":
			b = e.attribute(b, "email", "string", p.email, 0)
		default:
			b = e.entity(b, p.iid)
		}
	}
	return e.endRow(b)
}

// insertRow encodes the single row of an insert: one entity per variable.
func (e *answerEncoder) insertRow(b []byte, vars []string, iids []uint64) []byte {
	b = append(b, `{"data":{`...)
	order := make([]int, len(vars))
	for i := range order {
		order[i] = i
	}
	if e.opts.Keys == KeysSorted {
		slices.SortFunc(order, func(i, j int) int { return strings.Compare(vars[i], vars[j]) })
	}
	for k, i := range order {
		if k > 0 {
			b = append(b, ',')
		}
		b = e.entity(appendKey(b, vars[i]), iids[i])
	}
	return e.endRow(b)
}

func (e *answerEncoder) endRow(b []byte) []byte {
	if e.opts.IncludeQueryStructure {
		return append(b, `},"involvedBlocks":[0]}`...)
	}
	return append(b, `},"involvedBlocks":null}`...)
}

func appendKey(b []byte, name string) []byte {
	return append(appendString(b, name), ':')
}

// entity encodes a person: iid 0x1e, a 2-byte type id and an 8-byte object id.
func (e *answerEncoder) entity(b []byte, iid uint64) []byte {
	if e.opts.Keys == KeysSorted {
		b = e.iid(append(b, '{'), "0x1e0000", iid, 16)
		b = append(b, `,"kind":"entity","type":`...)
		return append(e.entityType(b), '}')
	}
	b = e.iid(append(b, `{"kind":"entity",`...), "0x1e0000", iid, 16)
	b = append(b, `,"type":`...)
	return append(e.entityType(b), '}')
}

func (e *answerEncoder) iid(b []byte, prefix string, v uint64, digits int) []byte {
	b = append(b, `"iid":"`...)
	b = append(b, prefix...)
	return append(appendHex(b, v, digits), '"')
}

func (e *answerEncoder) entityType(b []byte) []byte {
	if e.opts.IncludeInstanceTypes {
		return append(b, `{"kind":"entityType","label":"person"}`...)
	}
	return append(b, "null"...)
}

var attributeTypeIDs = map[string]uint64{"email": 0, "name": 1, "age": 2}

// attribute encodes an attribute. Attributes are identified by type and value, so the iid is 0x20,
// the type id and a hash of the value.
func (e *answerEncoder) attribute(b []byte, label, valueType, s string, n int64) []byte {
	h := fnv.New64a()
	if valueType == "string" {
		_, _ = io.WriteString(h, s)
	} else {
		_, _ = io.WriteString(h, strconv.FormatInt(n, 10))
	}
	prefix := appendHex([]byte("0x20"), attributeTypeIDs[label], 4)
	value := func(b []byte) []byte {
		b = append(b, `"value":`...)
		if valueType == "string" {
			return appendString(b, s)
		}
		return strconv.AppendInt(b, n, 10)
	}
	typ := func(b []byte) []byte {
		b = append(b, `"type":`...)
		if !e.opts.IncludeInstanceTypes {
			return append(b, "null"...)
		}
		b = append(b, `{"kind":"attributeType","label":"`...)
		b = append(b, label...)
		b = append(b, `","valueType":"`...)
		b = append(b, valueType...)
		return append(b, `"}`...)
	}
	if e.opts.Keys == KeysSorted {
		b = e.iid(append(b, '{'), string(prefix), h.Sum64(), 16)
		b = typ(append(b, `,"kind":"attribute",`...))
		b = value(append(b, ','))
		b = append(b, `,"valueType":"`...)
		b = append(b, valueType...)
		return append(b, `"}`...)
	}
	b = e.iid(append(b, `{"kind":"attribute",`...), string(prefix), h.Sum64(), 16)
	b = value(append(b, ','))
	b = append(b, `,"valueType":"`...)
	b = append(b, valueType...)
	b = append(b, `",`...)
	return append(typ(b), '}')
}

func appendHex(b []byte, v uint64, digits int) []byte {
	const hexdig = "0123456789abcdef"
	for i := digits - 1; i >= 0; i-- {
		b = append(b, hexdig[(v>>(4*uint(i)))&0xf])
	}
	return b
}

// appendString writes a JSON string the way serde_json does: only '"', '\\' and control characters
// are escaped; other characters are written as UTF-8.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
			i++
		case c < 0x20:
			switch c {
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, `\u00`...)
				b = appendHex(b, uint64(c), 2)
			}
			i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			_, n := utf8.DecodeRuneInString(s[i:])
			b = append(b, s[i:i+n]...)
			i += n
		}
	}
	return append(b, '"')
}

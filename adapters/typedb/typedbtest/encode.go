package typedbtest

import (
	"bufio"
	"hash/fnv"
	"io"
	"strconv"
	"unicode/utf8"
)

// Person is one row of the fake's person type.
type Person struct {
	Email string
	Name  string
	Age   int64
}

// AnswerOptions shape an encoded answer the way the server's query options do.
type AnswerOptions struct {
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

// row encodes one match row. The server builds rows from a hash map, so their keys come in no
// particular order: the fake writes them in the reverse of the query's order.
func (e *answerEncoder) row(b []byte, p *person) []byte {
	b = append(b, `{"data":{`...)
	first := true
	sep := func() {
		if !first {
			b = append(b, ',')
		}
		first = false
	}
	if e.vars.age != "" {
		sep()
		b = e.attribute(appendKey(b, e.vars.age), "age", "integer", "", p.age)
	}
	if e.vars.name != "" {
		sep()
		b = e.attribute(appendKey(b, e.vars.name), "name", "string", p.name, 0)
	}
	if e.vars.email != "" {
		sep()
		b = e.attribute(appendKey(b, e.vars.email), "email", "string", p.email, 0)
	}
	if e.entityVar != "" {
		sep()
		b = e.entity(appendKey(b, e.entityVar), p.iid)
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
	b = append(b, `{"kind":"entity","iid":"0x1e0000`...)
	b = appendHex(b, iid, 16)
	b = append(b, `","type":`...)
	if e.opts.IncludeInstanceTypes {
		b = append(b, `{"kind":"entityType","label":"person"}`...)
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
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
	b = append(b, `{"kind":"attribute","iid":"0x20`...)
	b = appendHex(b, attributeTypeIDs[label], 4)
	b = appendHex(b, h.Sum64(), 16)
	b = append(b, `","value":`...)
	if valueType == "string" {
		b = appendString(b, s)
	} else {
		b = strconv.AppendInt(b, n, 10)
	}
	b = append(b, `,"valueType":"`...)
	b = append(b, valueType...)
	b = append(b, `","type":`...)
	if e.opts.IncludeInstanceTypes {
		b = append(b, `{"kind":"attributeType","label":"`...)
		b = append(b, label...)
		b = append(b, `","valueType":"`...)
		b = append(b, valueType...)
		b = append(b, `"}`...)
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
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

package client

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// The row fast path decodes a whole answer row straight from the scanner's buffer, without the
// tokenizer's state machine, when the row has the shape the server sends for the queries a benchmark
// makes (no instance types, no query structure):
//
//	{"data":{"<var>":<concept or null>,...},"involvedBlocks":null}
//
// with each concept an entity or relation {"iid":"…","kind":"entity","type":null} or an attribute
// {"iid":"…","kind":"attribute","type":null,"value":<string or number>,"valueType":"…"}, in the
// server's sorted key order or in the kind-first order. Strings must hold no escape. It either
// decodes the whole row or consumes nothing: at the first byte that differs (an escape, another
// member, whitespace) it gives up and the general path decodes the row from its start, so the fast
// path decides nothing the general path would decide otherwise; it only does the same work faster.

// Outcomes of the fast path's steps, as negative positions.
const (
	fastMore = -1 // the row goes on past the buffered bytes
	fastNo   = -2 // not the usual shape: leave the row to the general path
)

// fastRetries bounds how often the fast path restarts a row after reading more input: a row that
// arrives in many small reads is left to the general path, which never goes back.
const fastRetries = 3

// rowFast decodes the row whose opening brace was just consumed (s.pos == s.pin) into d.row. On
// success it leaves the scanner after the row's closing brace, the row's slices pointing into the
// scanner's buffer. Otherwise it returns fastMore or fastNo, with the scanner untouched (d.row holds
// junk: reset it).
func (d *decoder) rowFast() int {
	s := d.s
	b := s.buf[:s.end]
	i := s.pos
	if len(b)-i < len(`"data":{`) {
		return fastMore
	}
	if string(b[i:i+8]) != `"data":{` {
		return fastNo
	}
	i += 8
	r := &d.row
	for {
		// A variable: "<name>":<concept or null>
		if i >= len(b) {
			return fastMore
		}
		if b[i] != '"' {
			return fastNo
		}
		name := i + 1
		if i = scanString(b, name); i < 0 {
			return i
		}
		if i+1 >= len(b) {
			return fastMore
		}
		if b[i+1] != ':' {
			return fastNo
		}
		// The row's slices point into the buffer directly: the fast path never reads in the middle
		// of a row, so the buffer stays put until the handler has returned.
		r.names = append(r.names, b[name:i:i])
		n := len(r.concepts)
		if n < cap(r.concepts) {
			r.concepts = r.concepts[:n+1]
		} else {
			r.concepts = append(r.concepts, Concept{})
		}
		c := &r.concepts[n]
		c.IID, c.ValueType, c.Label, c.value, c.valueKind = nil, nil, nil, nil, tokEOF
		i += 2
		if i >= len(b) {
			return fastMore
		}
		switch b[i] {
		case '{':
			i = conceptFast(b, i+1, c)
		case 'n':
			c.Kind = KindNone
			i = fastLit(b, i, "null")
		default:
			return fastNo
		}
		if i < 0 {
			return i
		}
		// ',' and the next variable, or the end of the data and of the row.
		if i >= len(b) {
			return fastMore
		}
		if b[i] == ',' {
			i++
			continue
		}
		if i = fastLit(b, i, `},"involvedBlocks":null}`); i < 0 {
			return i
		}
		s.pos = i
		s.stack = s.stack[:len(s.stack)-1]
		s.state = stAfterValue
		return i
	}
}

// Concept members between the variable fields, sorted and kind-first.
const (
	fsIID        = `"iid":"`                                   // sorted: after '{'
	fsEntity     = `","kind":"entity","type":null}`            // sorted: after the iid
	fsRelation   = `","kind":"relation","type":null}`          // sorted: after the iid
	fsAttribute  = `","kind":"attribute","type":null,"value":` // sorted: after the iid
	fsValueType  = `,"valueType":"`                            // both orders: after the value
	fkAttribute  = `"kind":"attribute","iid":"`                // kind-first: after '{'
	fkEntity     = `"kind":"entity","iid":"`                   // kind-first: after '{'
	fkRelation   = `"kind":"relation","iid":"`                 // kind-first: after '{'
	fkValue      = `","value":`                                // kind-first attribute: after the iid
	fkTypeEnd    = `","type":null}`                            // kind-first: after the iid or valueType
	fsObjectDone = `"}`                                        // sorted attribute: after the valueType
)

// conceptFast decodes a concept whose '{' precedes b[i], returning the position after its '}'.
func conceptFast(b []byte, i int, c *Concept) int {
	sorted := true
	switch {
	case hasLit(b, i, fsIID):
		i += len(fsIID)
	case hasLit(b, i, fkAttribute):
		i += len(fkAttribute)
		c.Kind, sorted = KindAttribute, false
	case hasLit(b, i, fkEntity):
		i += len(fkEntity)
		c.Kind, sorted = KindEntity, false
	case hasLit(b, i, fkRelation):
		i += len(fkRelation)
		c.Kind, sorted = KindRelation, false
	case len(b)-i < len(fkAttribute):
		return fastMore
	default:
		return fastNo
	}
	iid := i
	if i = scanString(b, iid); i < 0 {
		return i
	}
	c.IID = b[iid:i:i]
	if !sorted {
		if c.Kind != KindAttribute {
			return fastLit(b, i, fkTypeEnd)
		}
		if i = fastLit(b, i, fkValue); i < 0 {
			return i
		}
		if i = fastValueAndType(b, i, c); i < 0 {
			return i
		}
		return fastLit(b, i, fkTypeEnd)
	}
	switch {
	case hasLit(b, i, fsAttribute):
		i += len(fsAttribute)
		c.Kind = KindAttribute
	case hasLit(b, i, fsEntity):
		c.Kind = KindEntity
		return i + len(fsEntity)
	case hasLit(b, i, fsRelation):
		c.Kind = KindRelation
		return i + len(fsRelation)
	case len(b)-i < len(fsAttribute):
		return fastMore
	default:
		return fastNo
	}
	if i = fastValueAndType(b, i, c); i < 0 {
		return i
	}
	return fastLit(b, i, fsObjectDone)
}

// fastValueAndType decodes an attribute's value and its valueType string, which follow each other in
// both key orders, and returns the index after the type's closing quote.
func fastValueAndType(b []byte, i int, c *Concept) int {
	if i = fastValue(b, i, c); i < 0 {
		return i
	}
	if i = fastLit(b, i, fsValueType); i < 0 {
		return i
	}
	vt := i
	if i = scanString(b, vt); i < 0 {
		return i
	}
	c.ValueType = b[vt:i:i]
	return i
}

// fastValue decodes an attribute's value, a string or a number, at b[i].
func fastValue(b []byte, i int, c *Concept) int {
	if i >= len(b) {
		return fastMore
	}
	if b[i] == '"' {
		start := i + 1
		if i = scanString(b, start); i < 0 {
			return i
		}
		c.value = b[start:i:i]
		c.valueKind = tokString
		return i + 1
	}
	start := i
	for i < len(b) && numberByte[b[i]] {
		i++
	}
	if i == len(b) {
		return fastMore
	}
	if i == start || !validNumber(b[start:i]) {
		return fastNo
	}
	c.value = b[start:i:i]
	c.valueKind = tokNumber
	return i
}

// numberByte marks the bytes a JSON number can hold.
var numberByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789-+.eE") {
		t[c] = true
	}
	return t
}()

// scanString finds the closing quote of the string whose first byte is b[i] and returns its
// position. A string with an escape or a control character, or that is not valid UTF-8, is left to
// the general path (which unescapes it, or reports the error).
func scanString(b []byte, i int) int {
	start := i
	var high uint64
	for i+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[i:])
		if m := specialBytes(w); m != 0 {
			// The lowest marked byte is the first special one (only bytes above it can be
			// marked wrongly).
			k := bits.TrailingZeros64(m) >> 3
			i += k
			if b[i] != '"' {
				return fastNo
			}
			high |= w & (1<<(8*k) - 1)
			if high&0x8080808080808080 != 0 && !utf8.Valid(b[start:i]) {
				return fastNo
			}
			return i
		}
		high |= w
		i += 8
	}
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			if high&0x8080808080808080 != 0 && !utf8.Valid(b[start:i]) {
				return fastNo
			}
			return i
		case c < 0x20 || c == '\\':
			return fastNo
		case c >= 0x80:
			high |= 0x80
		}
	}
	return fastMore
}

// hasLit reports whether b continues at i with lit.
func hasLit(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// fastLit returns the position after lit if b continues at i with it.
func fastLit(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) {
		return fastMore
	}
	if string(b[i:i+len(lit)]) != lit {
		return fastNo
	}
	return i + len(lit)
}

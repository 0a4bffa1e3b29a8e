package client

import (
	"fmt"
	"net/http"
	"strconv"
)

// Answer describes a query response once its rows have been delivered.
type Answer struct {
	// Status is the HTTP status: 200, or 206 when the server cut the answer at answerCountLimit.
	Status int
	// QueryType is "read", "write" or "schema" (what the query did, not the transaction type).
	QueryType string
	// AnswerType is "ok", "conceptRows" or "conceptDocuments".
	AnswerType string
	// Rows counts the rows (or documents) in the answer.
	Rows int
	// Warning is the server's warning, e.g. that the answer limit was exceeded; "" if none.
	Warning string
}

// Truncated reports whether the server says it left answers out (HTTP 206 or a warning).
func (a *Answer) Truncated() bool { return a.Status == http.StatusPartialContent || a.Warning != "" }

// Kind is what a concept in an answer row is.
type Kind uint8

// Concept kinds, as the server names them in "kind".
const (
	KindNone          Kind = iota // the variable is unbound in this row (JSON null)
	KindEntity                    // "entity"
	KindRelation                  // "relation"
	KindAttribute                 // "attribute"
	KindValue                     // "value": a computed value
	KindEntityType                // "entityType"
	KindRelationType              // "relationType"
	KindAttributeType             // "attributeType"
	KindRoleType                  // "roleType"
	KindList                      // a list variable (its elements are not decoded)
	KindOther                     // a kind this client does not know
)

func kindOf(b []byte) Kind {
	switch string(b) {
	case "entity":
		return KindEntity
	case "relation":
		return KindRelation
	case "attribute":
		return KindAttribute
	case "value":
		return KindValue
	case "entityType":
		return KindEntityType
	case "relationType":
		return KindRelationType
	case "attributeType":
		return KindAttributeType
	case "roleType":
		return KindRoleType
	}
	return KindOther
}

// Concept is one variable's value in an answer row. Its byte slices alias the decoder's buffers and
// are valid only while the RowHandler that received the row runs: copy what you keep.
type Concept struct {
	Kind Kind
	// IID is the instance id ("0x1e…") of an entity, relation or attribute.
	IID []byte
	// ValueType is the attribute's or value's type ("string", "integer", "double", "boolean",
	// "decimal", "date", "datetime", "datetime-tz", "duration", "struct").
	ValueType []byte
	// Label is the type label: the instance's type when includeInstanceTypes is on, or the label of a
	// type concept.
	Label []byte

	value     []byte  // raw value text: string contents, or the number/literal as written
	valueKind tokKind // tokString, tokNumber, tokTrue, tokFalse, tokNull; tokEOF if absent
}

// HasValue reports whether the concept carries a value (attributes and values do).
func (c *Concept) HasValue() bool { return c.valueKind != tokEOF && c.valueKind != tokNull }

// Bytes returns a string value, or the text form the server uses for decimal, date, datetime and
// duration values. It is nil for other values.
func (c *Concept) Bytes() []byte {
	if c.valueKind != tokString {
		return nil
	}
	return c.value
}

// Int returns an integer value.
func (c *Concept) Int() (int64, error) {
	if c.valueKind != tokNumber {
		return 0, fmt.Errorf("concept has no integer value (value is %s)", c.valueKind)
	}
	return parseInt(c.value)
}

// Float returns a numeric value as float64.
func (c *Concept) Float() (float64, error) {
	if c.valueKind != tokNumber {
		return 0, fmt.Errorf("concept has no numeric value (value is %s)", c.valueKind)
	}
	return strconv.ParseFloat(string(c.value), 64)
}

// Bool returns a boolean value.
func (c *Concept) Bool() (bool, error) {
	switch c.valueKind {
	case tokTrue:
		return true, nil
	case tokFalse:
		return false, nil
	}
	return false, fmt.Errorf("concept has no boolean value (value is %s)", c.valueKind)
}

// parseInt parses a JSON integer without allocating.
func parseInt(b []byte) (int64, error) {
	neg := len(b) > 0 && b[0] == '-'
	d := b
	if neg {
		d = b[1:]
	}
	if len(d) == 0 || len(d) > 19 {
		return strconv.ParseInt(string(b), 10, 64)
	}
	var n int64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not an integer", b)
		}
		n = n*10 + int64(c-'0')
	}
	if n < 0 { // overflowed 19 digits
		return strconv.ParseInt(string(b), 10, 64)
	}
	if neg {
		n = -n
	}
	return n, nil
}

// Row is one answer row: the concepts bound to the query's named variables. It is reused for every
// row of an answer.
type Row struct {
	names    [][]byte
	concepts []Concept

	// While a row is decoded its tokens are recorded as spans: offsets from the scanner's pinned row
	// start (the scanner keeps the row's bytes in its buffer), or, for the rare token that is a copy
	// (an unescaped string), offsets into arena. Slices are made once the row is complete.
	arena []byte
	spans []cellSpans
}

type span struct {
	off, end int32
	copied   bool // in arena, not in the scanner's buffer
	set      bool
}

type cellSpans struct {
	name, iid, valueType, label, value span
}

// Len is the number of variables in the row.
func (r *Row) Len() int { return len(r.concepts) }

// Name returns the i-th variable name (without '$').
func (r *Row) Name(i int) []byte { return r.names[i] }

// At returns the i-th concept.
func (r *Row) At(i int) *Concept { return &r.concepts[i] }

// Get returns the concept bound to the variable name (without '$'), or nil if the row has no such
// variable or it is unbound.
func (r *Row) Get(name string) *Concept {
	for i, n := range r.names {
		if string(n) == name {
			if r.concepts[i].Kind == KindNone {
				return nil
			}
			return &r.concepts[i]
		}
	}
	return nil
}

func (r *Row) reset() {
	r.names, r.concepts, r.arena, r.spans = r.names[:0], r.concepts[:0], r.arena[:0], r.spans[:0]
}

// finish turns the spans into slices of buf (whose offset 0 is the row's pinned start) or arena.
func (r *Row) finish(buf []byte) {
	sl := func(sp span) []byte {
		switch {
		case !sp.set:
			return nil
		case sp.copied:
			return r.arena[sp.off:sp.end:sp.end]
		}
		return buf[sp.off:sp.end:sp.end]
	}
	r.names = r.names[:0]
	for i := range r.spans {
		sp := &r.spans[i]
		c := &r.concepts[i]
		r.names = append(r.names, sl(sp.name))
		c.IID, c.ValueType, c.Label, c.value = sl(sp.iid), sl(sp.valueType), sl(sp.label), sl(sp.value)
	}
}

// RowHandler receives each row of a conceptRows answer as soon as it is decoded. The row and
// everything it points to are reused after the handler returns. An error stops the decoding and is
// returned by the query.
type RowHandler func(*Row) error

// decoder decodes query answers. It is reused across answers of one caller.
type decoder struct {
	s   *scanner
	row Row
	// slow counts the concepts the fast path did not finish (for tests: the server's shapes must
	// all take the fast path).
	slow int
	// fastMisses counts the rows the row fast path (rowfast.go) left to the general path.
	fastMisses int
	// noRowFast turns the row fast path off (for tests comparing it with the general path).
	noRowFast bool
}

func newDecoder() *decoder { return &decoder{s: newScanner(nil)} }

// answer decodes a query answer envelope from s, calling h for each row.
func (d *decoder) answer(a *Answer, h RowHandler) error {
	s := d.s
	if err := s.open(tokBeginObject, "the answer object"); err != nil {
		return err
	}
	for {
		more, err := s.key()
		if err != nil {
			return err
		}
		if !more {
			break
		}
		switch string(s.tok) {
		case "queryType":
			if a.QueryType, err = d.optString(); err != nil {
				return err
			}
		case "answerType":
			if a.AnswerType, err = d.optString(); err != nil {
				return err
			}
		case "warning":
			if a.Warning, err = d.optString(); err != nil {
				return err
			}
		case "answers":
			if err := d.answers(a, h); err != nil {
				return err
			}
		default:
			if err := d.skipValue(); err != nil {
				return err
			}
		}
	}
	if k, err := s.next(); err != nil || k != tokEOF {
		if err == nil {
			err = s.syntax("data after the answer")
		}
		return err
	}
	return nil
}

func (d *decoder) skipValue() error {
	k, err := d.s.next()
	if err != nil {
		return err
	}
	return d.s.skip(k)
}

// optString reads a string or null. The few envelope strings are known words, so they are interned.
func (d *decoder) optString() (string, error) {
	k, err := d.s.next()
	if err != nil {
		return "", err
	}
	switch k {
	case tokNull:
		return "", nil
	case tokString:
		switch string(d.s.tok) {
		case "read":
			return "read", nil
		case "write":
			return "write", nil
		case "schema":
			return "schema", nil
		case "ok":
			return "ok", nil
		case "conceptRows":
			return "conceptRows", nil
		case "conceptDocuments":
			return "conceptDocuments", nil
		}
		return string(d.s.tok), nil
	}
	return "", d.s.syntax("expected a string or null, got %s", k)
}

func (d *decoder) answers(a *Answer, h RowHandler) error {
	s := d.s
	if opened, err := s.openOrNull(tokBeginArray, "the answers array"); !opened {
		return err
	}
	for {
		k, err := s.next()
		if err != nil {
			return err
		}
		if k == tokEndArray {
			return nil
		}
		if a.AnswerType == "conceptDocuments" || h == nil {
			// Documents (fetch) are not decoded; rows nobody asked for are skipped.
			if err := s.skip(k); err != nil {
				return err
			}
			a.Rows++
			continue
		}
		if k != tokBeginObject {
			return s.syntax("expected an answer row, got %s", k)
		}
		if err := d.rowBody(); err != nil {
			return err
		}
		a.Rows++
		if err := h(&d.row); err != nil {
			return handlerError{err}
		}
	}
}

// rowBody decodes {"data":{...},"involvedBlocks":...} after its opening brace into d.row.
func (d *decoder) rowBody() error {
	s := d.s
	d.row.reset()
	s.pin = s.pos
	defer func() { s.pin = -1 }()
	for try := 0; !d.noRowFast; try++ {
		r := d.rowFast()
		if r >= 0 {
			return nil
		}
		d.row.reset()
		if r == fastNo || try == fastRetries {
			break
		}
		// The row goes on past the buffer: read more (the row stays pinned) and start it again.
		s.mark = s.pos
		if !s.fill() {
			break
		}
	}
	d.fastMisses++
	for {
		more, err := s.key()
		if err != nil {
			return err
		}
		if !more {
			d.row.finish(s.buf[s.pin:s.end])
			return nil
		}
		if string(s.tok) != "data" {
			if err := d.skipValue(); err != nil {
				return err
			}
			continue
		}
		if err := s.open(tokBeginObject, "the row's data object"); err != nil {
			return err
		}
		if err := d.rowData(); err != nil {
			return err
		}
		if s.lit(litRowEnd) {
			s.stack = s.stack[:len(s.stack)-1]
			d.row.finish(s.buf[s.pin:s.end])
			return nil
		}
	}
}

func (d *decoder) rowData() error {
	s := d.s
	r := &d.row
	for {
		more, err := s.key()
		if err != nil || !more {
			return err
		}
		r.concepts = append(r.concepts, Concept{})
		r.spans = append(r.spans, cellSpans{name: d.keep()})
		c, sp := &r.concepts[len(r.concepts)-1], &r.spans[len(r.spans)-1]
		k, err := s.next()
		if err != nil {
			return err
		}
		switch k {
		case tokNull:
			c.Kind = KindNone
		case tokBeginArray:
			c.Kind = KindList
			if err := s.skip(k); err != nil {
				return err
			}
		case tokBeginObject:
			if err := d.concept(c, sp); err != nil {
				return err
			}
		default:
			return s.syntax("expected a concept, got %s", k)
		}
	}
}

func (d *decoder) concept(c *Concept, sp *cellSpans) error {
	s := d.s
	c.Kind = KindOther
	if done, err := d.conceptFast(c, sp); done || err != nil {
		return err
	}
	d.slow++
	for {
		more, err := s.key()
		if err != nil || !more {
			return err
		}
		var k tokKind
		switch string(s.tok) {
		case "kind":
			if k, err = s.next(); err != nil {
				return err
			}
			if k != tokString {
				return s.syntax("concept kind must be a string, got %s", k)
			}
			c.Kind = kindOf(s.tok)
		case "iid":
			if err := d.keepString(&sp.iid); err != nil {
				return err
			}
		case "valueType":
			if err := d.keepString(&sp.valueType); err != nil {
				return err
			}
		case "label":
			if err := d.keepString(&sp.label); err != nil {
				return err
			}
		case "value":
			if k, err = s.next(); err != nil {
				return err
			}
			switch k {
			case tokString, tokNumber:
				sp.value = d.keep()
			case tokBeginObject, tokBeginArray: // structs: not decoded
				if err := s.skip(k); err != nil {
					return err
				}
				k = tokEOF
			}
			c.valueKind = k
		case "type":
			if err := d.instanceType(sp); err != nil {
				return err
			}
		default:
			if err := d.skipValue(); err != nil {
				return err
			}
		}
	}
}

// Fast path: the server writes concept members in a fixed order, so the decoder first tries to
// match the expected bytes literally, and falls back to reading members one by one (in any order)
// at the first difference. Each step leaves the scanner in a consistent state for the fallback.
//
// The order TypeDB 3.x sends is sorted (serde_json maps without preserve_order):
// {"iid","kind","type","value","valueType"}. The kind-first order a server built with
// preserve_order would send has a fast path too, so a change of serde_json's features costs
// nothing either.
const (
	litIID          = `"iid":`
	litSortedAttr   = `,"kind":"attribute","type":null,"value":`
	litSortedEntity = `,"kind":"entity","type":null}`
	litAttribute    = `"kind":"attribute","iid":`
	litEntity       = `"kind":"entity","iid":`
	litValue        = `,"value":`
	litValueType    = `,"valueType":`
	litNullType     = `,"type":null}`
	litRowEnd       = `,"involvedBlocks":null}`
	litObjectEnd    = `}`
)

// conceptFast decodes the common shapes of attributes and entities without types. It reports
// whether it read the whole concept.
func (d *decoder) conceptFast(c *Concept, sp *cellSpans) (bool, error) {
	s := d.s
	if s.lit(litIID) {
		return d.conceptSorted(c, sp)
	}
	switch {
	case s.lit(litAttribute):
		c.Kind = KindAttribute
	case s.lit(litEntity):
		c.Kind = KindEntity
	default:
		return false, nil
	}
	if err := s.stringValue("iid"); err != nil {
		return false, err
	}
	sp.iid = d.keep()
	switch {
	case c.Kind == KindEntity:
		return d.fastEnd(litNullType), nil
	case !s.lit(litValue):
		return false, nil
	}
	return d.fastAttribute(c, sp, litNullType)
}

// conceptSorted is the fast path of the sorted order, after its leading "iid":.
func (d *decoder) conceptSorted(c *Concept, sp *cellSpans) (bool, error) {
	s := d.s
	if err := s.stringValue("iid"); err != nil {
		return false, err
	}
	sp.iid = d.keep()
	switch {
	case d.fastEnd(litSortedEntity):
		c.Kind = KindEntity
		return true, nil
	case !s.lit(litSortedAttr):
		return false, nil
	}
	c.Kind = KindAttribute
	return d.fastAttribute(c, sp, litObjectEnd)
}

// fastAttribute reads an attribute's value (its member name matched), its valueType, then end: the
// valueType follows the value in both orders.
func (d *decoder) fastAttribute(c *Concept, sp *cellSpans, end string) (bool, error) {
	s := d.s
	if err := d.fastValue(c, sp); err != nil {
		return false, err
	}
	if !s.lit(litValueType) {
		return false, nil
	}
	if err := s.stringValue("valueType"); err != nil {
		return false, err
	}
	sp.valueType = d.keep()
	return d.fastEnd(end), nil
}

// fastEnd matches the rest of the concept, end, and leaves its object; false leaves the fallback
// to read what differs.
func (d *decoder) fastEnd(end string) bool {
	if !d.s.lit(end) {
		return false
	}
	d.s.stack = d.s.stack[:len(d.s.stack)-1]
	return true
}

// fastValue reads an attribute's value after its member name.
func (d *decoder) fastValue(c *Concept, sp *cellSpans) error {
	s := d.s
	var k tokKind
	var err error
	if s.pos < s.end && s.buf[s.pos] == '"' {
		k, err = tokString, s.readString()
		s.state = stAfterValue
	} else {
		s.state = stValue
		k, err = s.next()
	}
	if err != nil {
		return err
	}
	switch k {
	case tokString, tokNumber:
		sp.value = d.keep()
	case tokBeginObject, tokBeginArray:
		if err := s.skip(k); err != nil {
			return err
		}
		k = tokEOF
	}
	c.valueKind = k
	return nil
}

// keepString reads a value and keeps it in dst when it is a string; any other value leaves dst unset.
func (d *decoder) keepString(dst *span) error {
	k, err := d.s.next()
	if err == nil && k == tokString {
		*dst = d.keep()
	}
	return err
}

// keep records the current token of the row being decoded.
func (d *decoder) keep() span {
	s := d.s
	if s.tokOff >= 0 {
		return span{off: int32(s.tokOff - s.pin), end: int32(s.tokOff - s.pin + len(s.tok)), set: true}
	}
	r := &d.row
	off := len(r.arena)
	r.arena = append(r.arena, s.tok...)
	return span{off: int32(off), end: int32(len(r.arena)), copied: true, set: true}
}

// instanceType reads the "type" member of an instance: null, or a type object whose label is kept.
func (d *decoder) instanceType(sp *cellSpans) error {
	s := d.s
	if opened, err := s.openOrNull(tokBeginObject, "a type object"); !opened {
		return err
	}
	for {
		more, err := s.key()
		if err != nil || !more {
			return err
		}
		if string(s.tok) != "label" {
			if err := d.skipValue(); err != nil {
				return err
			}
			continue
		}
		if err := d.keepString(&sp.label); err != nil {
			return err
		}
	}
}

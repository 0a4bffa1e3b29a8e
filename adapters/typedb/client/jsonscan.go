package client

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner is a streaming JSON tokenizer over an io.Reader. It exists because encoding/json's
// Decoder.Token allocates for every token and costs tens of microseconds per answer row, far more
// than the server-side work a benchmark wants to see. The scanner reads through one reusable buffer,
// validates the structure (commas, colons, nesting) as it goes, and hands out string tokens as slices
// that alias its buffer: a token is valid only until the next call to next. Memory use is the buffer
// plus a small stack, whatever the size of the document.
type scanner struct {
	r   io.Reader
	buf []byte
	pos int   // next unread byte
	end int   // end of buffered data
	err error // sticky read error; io.EOF once the input is exhausted

	mark int // start of the token being read: fill keeps buf[mark:end]
	// pin, when not -1, is an earlier offset fill must keep too: the decoder pins the start of a
	// row so that its tokens can be referenced in place, as offsets from pin, until the row is done.
	pin int
	// tokOff is the offset in buf of the current string or number token, or -1 when s.tok is a
	// copy (an unescaped string, or a key saved across a refill).
	tokOff int

	stack []byte // open containers: '{' or '['
	state scanState

	tok     []byte // current string, number or literal text
	scratch []byte // unescaped string when the raw one has escapes
	keyCopy []byte // a member name that had to survive a buffer refill
	read    int64  // bytes consumed before buf[0], for error offsets
	limit   int    // maximum buffer size (the longest token allowed)
}

type tokKind uint8

const (
	tokEOF tokKind = iota
	tokBeginObject
	tokEndObject
	tokBeginArray
	tokEndArray
	tokString
	tokNumber
	tokTrue
	tokFalse
	tokNull
)

func (k tokKind) String() string {
	switch k {
	case tokEOF:
		return "end of input"
	case tokBeginObject:
		return "'{'"
	case tokEndObject:
		return "'}'"
	case tokBeginArray:
		return "'['"
	case tokEndArray:
		return "']'"
	case tokString:
		return "string"
	case tokNumber:
		return "number"
	case tokTrue, tokFalse:
		return "boolean"
	case tokNull:
		return "null"
	}
	return "token"
}

type scanState uint8

const (
	stValue       scanState = iota // a value must follow
	stObjectFirst                  // just after '{': a key or '}'
	stArrayFirst                   // just after '[': a value or ']'
	stKey                          // after ',' in an object: a key
	stColon                        // after a key: ':' then a value
	stAfterValue                   // ',' or the end of the enclosing container (or of the input)
)

// The scanner's buffer is large so that each read asks for far more than the HTTP transport's own
// read buffer holds (8 KiB): bufio.Reader then reads from the socket straight into it, with
// system calls of up to 256 KiB.
const (
	scanBufSize   = 256 << 10
	maxTokenBytes = 64 << 20
)

// errSyntax is wrapped by every malformed-input error of the scanner.
var errSyntax = errors.New("malformed JSON")

func newScanner(r io.Reader) *scanner {
	return &scanner{r: r, buf: make([]byte, scanBufSize), limit: maxTokenBytes, stack: make([]byte, 0, 16), pin: -1}
}

// reset points the scanner at a new input, keeping its buffers.
func (s *scanner) reset(r io.Reader) {
	s.r, s.pos, s.end, s.err, s.mark, s.read, s.pin = r, 0, 0, nil, 0, 0, -1
	s.stack, s.state, s.tok = s.stack[:0], stValue, nil
}

func (s *scanner) syntax(format string, args ...any) error {
	return fmt.Errorf("%w at byte %d: %s", errSyntax, s.read+int64(s.pos), fmt.Sprintf(format, args...))
}

// fill reads more input, keeping buf[min(mark, pin):end]. It reports whether any byte was added.
func (s *scanner) fill() bool {
	if s.err != nil {
		return false
	}
	keep := s.mark
	if s.pin >= 0 && s.pin < keep {
		keep = s.pin
	}
	if keep > 0 {
		n := copy(s.buf, s.buf[keep:s.end])
		s.read += int64(keep)
		s.pos -= keep
		s.mark -= keep
		if s.pin >= 0 {
			s.pin -= keep
		}
		s.end = n
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= s.limit {
			s.err = fmt.Errorf("%w: a token is longer than %d bytes", errSyntax, s.limit)
			return false
		}
		nb := make([]byte, min(2*len(s.buf), s.limit))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for range 100 {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.err = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	s.err = io.ErrNoProgress
	return false
}

// readErr is the error to report when input ran out in the middle of the document.
func (s *scanner) readErr() error {
	if s.err == nil || s.err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return s.err
}

// skipSpace advances past whitespace and reports whether a byte is available.
func (s *scanner) skipSpace() bool {
	if s.pos < s.end && s.buf[s.pos] > ' ' {
		return true
	}
	for {
		for s.pos < s.end {
			switch s.buf[s.pos] {
			case ' ', '\n', '\r', '\t':
				s.pos++
			default:
				return true
			}
		}
		s.mark = s.pos
		if !s.fill() {
			return false
		}
	}
}

// next returns the next token. For tokString and tokNumber, s.tok holds its text until the next call.
//
// It is one function on purpose, although long: it is the tokenizer's hot loop, run once per token
// of every answer (each row of a person is dozens of them), and the state
// machine's punctuation states loop back here without a call. Split into a function per state it
// would pay a call, or a missed inlining, per token; each case is short and reads on its own.
func (s *scanner) next() (tokKind, error) {
	for {
		if (s.pos >= s.end || s.buf[s.pos] <= ' ') && !s.skipSpace() {
			if s.state == stAfterValue && len(s.stack) == 0 && s.err == io.EOF {
				return tokEOF, nil
			}
			return tokEOF, s.readErr()
		}
		c := s.buf[s.pos]
		switch s.state {
		case stAfterValue:
			if len(s.stack) == 0 {
				return tokEOF, s.syntax("data after the end of the document")
			}
			if c == ',' {
				s.pos++
				s.state = s.member()
				continue
			}
			if end, ok := s.close(c); ok {
				return end, nil
			}
			return tokEOF, s.syntax("unexpected %q after a value", c)
		case stColon:
			if c != ':' {
				return tokEOF, s.syntax("expected ':' after an object key, got %q", c)
			}
			s.pos++
			s.state = stValue
			continue
		case stObjectFirst, stArrayFirst:
			// an empty object or array ends here; otherwise its first member starts
			if end, ok := s.close(c); ok {
				return end, nil
			}
			s.state = s.member()
			continue
		case stKey:
			if c != '"' {
				return tokEOF, s.syntax("expected an object key, got %q", c)
			}
			if err := s.readString(); err != nil {
				return tokEOF, err
			}
			s.state = stColon
			return tokString, nil
		}
		// stValue
		s.state = stAfterValue
		switch c {
		case '{':
			s.pos++
			s.stack = append(s.stack, '{')
			s.state = stObjectFirst
			return tokBeginObject, nil
		case '[':
			s.pos++
			s.stack = append(s.stack, '[')
			s.state = stArrayFirst
			return tokBeginArray, nil
		case '"':
			return tokString, s.readString()
		case 't':
			return tokTrue, s.literal("true")
		case 'f':
			return tokFalse, s.literal("false")
		case 'n':
			return tokNull, s.literal("null")
		}
		if c == '-' || c >= '0' && c <= '9' {
			return tokNumber, s.readNumber()
		}
		return tokEOF, s.syntax("unexpected %q where a value should start", c)
	}
}

// member is the state in which the innermost object or array's next member starts: a key or a value.
func (s *scanner) member() scanState {
	if s.stack[len(s.stack)-1] == '{' {
		return stKey
	}
	return stValue
}

// close consumes c if it closes the innermost object or array, and returns that one's end token.
func (s *scanner) close(c byte) (tokKind, bool) {
	end := tokEndArray
	switch top := s.stack[len(s.stack)-1]; {
	case c == '}' && top == '{':
		end = tokEndObject
	case c != ']' || top != '[':
		return tokEOF, false
	}
	s.pos++
	s.stack = s.stack[:len(s.stack)-1]
	s.state = stAfterValue
	return end, true
}

// key reads the next member name of the object being read, and the colon after it, into s.tok.
// It returns false, having consumed the closing brace, at the end of the object. Callers reading
// objects use it instead of next for the names: one call per member instead of two.
func (s *scanner) key() (bool, error) {
	if (s.pos >= s.end || s.buf[s.pos] <= ' ') && !s.skipSpace() {
		return false, s.readErr()
	}
	c := s.buf[s.pos]
	switch {
	case s.state == stObjectFirst || s.state == stAfterValue && len(s.stack) > 0 && s.stack[len(s.stack)-1] == '{':
		if _, ok := s.close(c); ok {
			return false, nil
		}
		if s.state == stAfterValue {
			if c != ',' {
				return false, s.syntax("unexpected %q after a value", c)
			}
			s.pos++
			if (s.pos >= s.end || s.buf[s.pos] <= ' ') && !s.skipSpace() {
				return false, s.readErr()
			}
			c = s.buf[s.pos]
		}
	case s.state == stKey:
	default:
		return false, s.syntax("expected an object member")
	}
	if c != '"' {
		return false, s.syntax("expected an object key, got %q", c)
	}
	if err := s.readString(); err != nil {
		return false, err
	}
	if s.pos >= s.end || s.buf[s.pos] != ':' {
		// Whitespace or a buffer boundary before the colon: keep the name safe from compaction.
		s.keyCopy = append(s.keyCopy[:0], s.tok...)
		if !s.skipSpace() {
			return false, s.readErr()
		}
		if s.buf[s.pos] != ':' {
			return false, s.syntax("expected ':' after an object key, got %q", s.buf[s.pos])
		}
		s.tok = s.keyCopy
		s.tokOff = -1
	}
	s.pos++
	s.state = stValue
	return true, nil
}

// lit consumes lit if the input continues with exactly those bytes (no whitespace), and then
// leaves the scanner after a value (lit ends with a value or a closing brace); otherwise it consumes
// nothing. Decoders use it to match the server's usual byte sequences in one comparison.
func (s *scanner) lit(lit string) bool {
	if s.end-s.pos < len(lit) {
		s.mark = s.pos
		for s.end-s.pos < len(lit) {
			if !s.fill() {
				return false
			}
		}
	}
	if string(s.buf[s.pos:s.pos+len(lit)]) != lit {
		return false
	}
	s.pos += len(lit)
	s.state = stAfterValue
	return true
}

// stringValue reads a string value that must follow (after a member name) into s.tok.
func (s *scanner) stringValue(what string) error {
	s.state = stValue
	if s.pos < s.end && s.buf[s.pos] == '"' {
		s.state = stAfterValue
		return s.readString()
	}
	k, err := s.next()
	if err == nil && k != tokString {
		err = s.syntax("%s must be a string, got %s", what, k)
	}
	return err
}

// openOrNull reads a value that must be null or open with want ('{' or '['), reporting whether it
// opened; what names the value in the error.
func (s *scanner) openOrNull(want tokKind, what string) (bool, error) {
	k, err := s.next()
	switch {
	case err != nil || k == tokNull:
		return false, err
	case k != want:
		return false, s.syntax("expected %s, got %s", what, k)
	}
	return true, nil
}

// open reads a value that must open with want ('{' or '['); what names the value in the error.
func (s *scanner) open(want tokKind, what string) error {
	opened, err := s.openOrNull(want, what)
	if err == nil && !opened {
		err = s.syntax("expected %s, got %s", what, tokNull)
	}
	return err
}

func (s *scanner) literal(word string) error {
	s.mark = s.pos
	for s.end-s.pos < len(word) {
		if !s.fill() {
			return s.readErr()
		}
	}
	if string(s.buf[s.pos:s.pos+len(word)]) != word {
		return s.syntax("invalid literal")
	}
	s.pos += len(word)
	return nil
}

func (s *scanner) readNumber() error {
	s.mark = s.pos
	i := s.pos
	for {
		for i < s.end {
			c := s.buf[i]
			if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
				i++
				continue
			}
			s.tok = s.buf[s.pos:i]
			s.tokOff = s.pos
			s.pos = i
			return s.checkNumber()
		}
		off := i - s.mark
		if !s.fill() {
			if s.err == io.EOF && len(s.stack) == 0 {
				s.tok = s.buf[s.pos:s.end]
				s.tokOff = s.pos
				s.pos = s.end
				return s.checkNumber()
			}
			return s.readErr()
		}
		i = s.mark + off
	}
}

// checkNumber checks the number just read against JSON's grammar (see validNumber). The loop above
// only collects the characters.
func (s *scanner) checkNumber() error {
	if !validNumber(s.tok) {
		return s.syntax("invalid number %q", s.tok)
	}
	return nil
}

// validNumber reports whether b is a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func validNumber(b []byte) bool {
	i := 0
	digits := func() bool {
		n := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(b)
}

// readString reads a string starting at the opening quote at s.pos into s.tok.
func (s *scanner) readString() error {
	s.pos++ // opening quote
	s.mark = s.pos
	i := s.pos
	for {
		buf := s.buf[:s.end]
		// Eight bytes at a time while none of them is special, then byte by byte.
		for i+8 <= len(buf) && !hasSpecial(binary.LittleEndian.Uint64(buf[i:])) {
			i += 8
		}
		for i < len(buf) && plainByte[buf[i]] {
			i++
		}
		if i < len(buf) {
			if buf[i] == '"' {
				s.tok = buf[s.mark:i]
				s.tokOff = s.mark
				s.pos = i + 1
				if !utf8.Valid(s.tok) {
					return s.syntax("invalid UTF-8 in a string")
				}
				return nil
			}
			s.pos = i
			return s.readEscaped()
		}
		off := i - s.mark
		if !s.fill() {
			return s.readErr()
		}
		i = s.mark + off
	}
}

// hasSpecial reports whether any of the 8 bytes in w is a quote, a backslash or a control
// character (the classic "has zero byte" and "has byte less than n" bit tricks).
func hasSpecial(w uint64) bool { return specialBytes(w) != 0 }

// specialBytes sets the high bit of each byte of w that is a quote, a backslash or a control
// character. The lowest byte it marks is always special; bytes above a special one may be marked
// wrongly.
func specialBytes(w uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q := w ^ ('"' * lo)
	b := w ^ ('\\' * lo)
	return ((q-lo)&^q | (b-lo)&^b | (w-0x20*lo)&^w) & hi
}

// plainByte marks the bytes a string can hold as they are: not the quote, the backslash or a
// control character.
var plainByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c != '"' && c != '\\'
	}
	return t
}()

// readEscaped finishes a string that contains escapes, unescaping it into s.scratch. s.mark is the
// string's first byte and s.pos the first byte needing care.
func (s *scanner) readEscaped() error {
	s.scratch = append(s.scratch[:0], s.buf[s.mark:s.pos]...)
	s.mark = s.pos
	for {
		if s.pos >= s.end {
			if !s.fill() {
				return s.readErr()
			}
		}
		c := s.buf[s.pos]
		switch {
		case c == '"':
			s.pos++
			s.tok = s.scratch
			s.tokOff = -1
			if !utf8.Valid(s.tok) {
				return s.syntax("invalid UTF-8 in a string")
			}
			return nil
		case c < 0x20:
			return s.syntax("control character in a string")
		case c != '\\':
			s.scratch = append(s.scratch, c)
			s.pos++
			s.mark = s.pos
			continue
		}
		// An escape: make sure its longest form (\uXXXX\uXXXX) is buffered when available.
		s.mark = s.pos
		for s.end-s.pos < 12 && s.fill() {
		}
		if s.end-s.pos < 2 {
			return s.readErr()
		}
		e := s.buf[s.pos+1]
		s.pos += 2
		switch e {
		case '"', '\\', '/':
			s.scratch = append(s.scratch, e)
		case 'b':
			s.scratch = append(s.scratch, '\b')
		case 'f':
			s.scratch = append(s.scratch, '\f')
		case 'n':
			s.scratch = append(s.scratch, '\n')
		case 'r':
			s.scratch = append(s.scratch, '\r')
		case 't':
			s.scratch = append(s.scratch, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return s.syntax("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if s.end-s.pos >= 6 && s.buf[s.pos] == '\\' && s.buf[s.pos+1] == 'u' {
					s.pos += 2
					if lo, ok := s.hex4(); ok {
						r2 = utf16.DecodeRune(r, lo)
						if r2 == utf8.RuneError {
							// Not a low surrogate: keep it as its own rune.
							s.scratch = utf8.AppendRune(s.scratch, utf8.RuneError)
							r2 = lo
						}
					} else {
						return s.syntax("invalid \\u escape")
					}
				}
				r = r2
			}
			s.scratch = utf8.AppendRune(s.scratch, r)
		default:
			return s.syntax("invalid escape \\%c", e)
		}
		s.mark = s.pos
	}
}

func (s *scanner) hex4() (rune, bool) {
	if s.end-s.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s.buf[s.pos : s.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	s.pos += 4
	return r, true
}

// skip skips the rest of the value whose first token was k.
func (s *scanner) skip(k tokKind) error {
	if k != tokBeginObject && k != tokBeginArray {
		return nil
	}
	depth := 1
	for depth > 0 {
		t, err := s.next()
		if err != nil {
			return err
		}
		switch t {
		case tokBeginObject, tokBeginArray:
			depth++
		case tokEndObject, tokEndArray:
			depth--
		case tokEOF:
			return s.readErr()
		}
	}
	return nil
}

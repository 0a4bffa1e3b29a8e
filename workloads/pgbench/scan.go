package pgbench

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Splitting a script into SQL statements and meta-commands as pgbench does through psql's lexer: a
// statement ends at a semicolon outside quotes ('...', E'...', "...", $tag$...$tag$), comments (--,
// nested /* */) and parentheses, or where a meta-command starts; a meta-command runs from a
// backslash outside quotes to the end of its line, a backslash before a newline continuing it.
// Whitespace and -- comments before a statement are not part of it.

// item is one piece of a script: a statement or a meta-command line.
type item struct {
	line int
	stmt *Statement // a statement, or nil for a meta-command
	meta string     // the meta-command after its backslash, continuations joined
}

// Statement is one SQL statement of a script, ready to prepare: pgbench's :name variable references
// are numbered parameters $1, $2, ... in order of appearance (each reference its own, as pgbench -M
// prepared makes them), and Params names the variable each one takes.
type Statement struct {
	Index  int      // its place among the script's statements, from 0
	Line   int      // the line it starts on
	Text   string   // as written, :name references and all (pgbench -r's label)
	SQL    string   // with $1, $2, ... for the references
	Params []string // the variable of each parameter

	slots []int // Params' places among the script's variables
}

// maxParams is pgbench's limit on variable references in one statement (MAX_ARGS - 1).
const maxParams = 255

// scanError is an error at a line of the script.
type scanError struct {
	line int
	msg  string
}

func (e *scanError) Error() string { return e.msg }

func isVarStart(c byte) bool { return isAlpha(c) }

type splitter struct {
	src   string
	pos   int
	line  int
	items []item

	// the statement being collected
	start   int // where it starts in src, -1 before its first character
	startLn int
	content bool // it holds more than whitespace and comments
	out     strings.Builder
	params  []string
	depth   int // parentheses
}

// split cuts src into statements and meta-commands (meta false: a statement list only, where a
// backslash is an error).
func split(src string, meta bool) ([]item, error) {
	s := &splitter{src: src, line: 1, start: -1}
	for s.pos < len(src) {
		c := src[s.pos]
		switch {
		case c == '\n':
			s.line++
			s.text(1)
		case isSpace(c):
			s.text(1)
		case strings.HasPrefix(src[s.pos:], "--"):
			n := strings.IndexByte(src[s.pos:], '\n')
			if n < 0 {
				n = len(src) - s.pos
			}
			if err := s.quoted(n, "a comment"); err != nil {
				return nil, err
			}
		case strings.HasPrefix(src[s.pos:], "/*"):
			n, err := s.blockComment()
			if err != nil {
				return nil, err
			}
			s.begin()
			if err := s.quoted(n, "a comment"); err != nil {
				return nil, err
			}
		case c == '\'' || c == '"':
			what := "a quoted string"
			if c == '"' {
				what = "a quoted identifier"
			}
			if err := s.literal(s.quote(c))(what); err != nil {
				return nil, err
			}
		case c == '$' && s.dollarTag() != "":
			if err := s.literal(s.dollarQuote(s.dollarTag()))("a dollar-quoted string"); err != nil {
				return nil, err
			}
		case isAlpha(c):
			n := 1
			for s.pos+n < len(src) && (isAlnum(src[s.pos+n]) || src[s.pos+n] == '$') {
				n++
			}
			// E'...' is a string with backslash escapes: let quote see the E.
			if n == 1 && (c == 'e' || c == 'E') && s.pos+1 < len(src) && src[s.pos+1] == '\'' {
				if err := s.literal(s.quote('e'))("a quoted string"); err != nil {
					return nil, err
				}
				continue
			}
			s.begin()
			s.content = true
			s.text(n)
		case c == ':' && s.pos+1 < len(src) && src[s.pos+1] == ':':
			n := 0
			for s.pos+n < len(src) && src[s.pos+n] == ':' {
				n++
			}
			s.begin()
			s.content = true
			s.text(n)
		case c == ':' && s.pos+1 < len(src) && isVarStart(src[s.pos+1]):
			n := 2
			for s.pos+n < len(src) && isAlnum(src[s.pos+n]) {
				n++
			}
			s.begin()
			s.content = true
			s.params = append(s.params, src[s.pos+1:s.pos+n])
			if len(s.params) > maxParams {
				return nil, &scanError{s.line, fmt.Sprintf("statement has too many variable references (maximum is %d)", maxParams)}
			}
			fmt.Fprintf(&s.out, "$%d", len(s.params))
			s.pos += n
		case c == '(' || c == ')':
			if c == '(' {
				s.depth++
			} else if s.depth > 0 {
				s.depth--
			}
			s.begin()
			s.content = true
			s.text(1)
		case c == ';':
			s.begin()
			s.text(1)
			if s.depth == 0 {
				if err := s.finish(); err != nil {
					return nil, err
				}
			}
		case c == '\\':
			if !meta {
				return nil, &scanError{s.line, "a backslash outside quotes: meta-commands belong to pgbench scripts, not to a statement"}
			}
			if s.pos+1 < len(src) && (src[s.pos+1] == ';' || src[s.pos+1] == ':') {
				return nil, &scanError{s.line, fmt.Sprintf(`\%c is not supported: a statement is prepared alone, one at a time`, src[s.pos+1])}
			}
			if err := s.finish(); err != nil {
				return nil, err
			}
			s.metaCommand()
		default:
			s.begin()
			s.content = true
			s.text(1)
		}
	}
	if err := s.finish(); err != nil {
		return nil, err
	}
	return s.items, nil
}

// begin starts a statement at the current position if none is being collected.
func (s *splitter) begin() {
	if s.start < 0 {
		s.start, s.startLn = s.pos, s.line
	}
}

// text copies n bytes of the source into the statement (whitespace before it starts is dropped).
func (s *splitter) text(n int) {
	if s.start >= 0 {
		s.out.WriteString(s.src[s.pos : s.pos+n])
	}
	s.pos += n
}

// quoted copies n bytes of a string, identifier or comment, refusing variable references in it:
// pgbench replaces them there too (with $n in prepared mode, which the server then rejects).
func (s *splitter) quoted(n int, what string) error {
	body := s.src[s.pos : s.pos+n]
	for i := 0; i+1 < len(body); i++ {
		if body[i] == ':' && body[i+1] == ':' {
			for i+1 < len(body) && body[i+1] == ':' {
				i++
			}
			continue
		}
		if body[i] == ':' && isVarStart(body[i+1]) && s.start >= 0 {
			j := i + 2
			for j < len(body) && isAlnum(body[j]) {
				j++
			}
			line := s.line + strings.Count(body[:i], "\n")
			return &scanError{line, fmt.Sprintf("variable %s inside %s: pgbench would replace it there too, and the server then rejects the prepared statement; bind it outside (for example ':' || :%s)", body[i:j], what, body[i+1:j])}
		}
	}
	s.line += strings.Count(body, "\n")
	s.text(n)
	return nil
}

// literal takes a quoted token of n bytes (a string, an identifier, a dollar quote) into the
// statement, or passes on the error measuring it: s.literal(s.quote(c))("a quoted string").
func (s *splitter) literal(n int, err error) func(what string) error {
	return func(what string) error {
		if err != nil {
			return err
		}
		s.begin()
		s.content = true
		return s.quoted(n, what)
	}
}

// quote measures a '...' or "..." (or, for q 'e', an E'...') token: a doubled quote is one quote,
// and in an E string a backslash escapes the next character.
func (s *splitter) quote(q byte) (int, error) {
	i := s.pos + 1
	esc := false
	if q == 'e' {
		q, esc, i = '\'', true, s.pos+2
	}
	for i < len(s.src) {
		switch c := s.src[i]; {
		case esc && c == '\\':
			i += 2
		case c == q && i+1 < len(s.src) && s.src[i+1] == q:
			i += 2
		case c == q:
			return i + 1 - s.pos, nil
		default:
			i++
		}
	}
	if q == '"' {
		return 0, &scanError{s.line, "unterminated quoted identifier"}
	}
	return 0, &scanError{s.line, "unterminated quoted string"}
}

// blockComment measures a /* */ comment, nested ones included.
func (s *splitter) blockComment() (int, error) {
	depth := 0
	for i := s.pos; i+1 < len(s.src); i++ {
		switch s.src[i : i+2] {
		case "/*":
			depth++
			i++
		case "*/":
			depth--
			i++
			if depth == 0 {
				return i + 1 - s.pos, nil
			}
		}
	}
	return 0, &scanError{s.line, "unterminated /* comment"}
}

// dollarTag is the $tag$ (or $$) opening a dollar-quoted string at the current position, or "".
func (s *splitter) dollarTag() string {
	rest := s.src[s.pos+1:]
	i := 0
	for i < len(rest) && (isAlpha(rest[i]) || i > 0 && isDigit(rest[i])) {
		i++
	}
	if i < len(rest) && rest[i] == '$' {
		return s.src[s.pos : s.pos+i+2]
	}
	return ""
}

func (s *splitter) dollarQuote(tag string) (int, error) {
	end := strings.Index(s.src[s.pos+len(tag):], tag)
	if end < 0 {
		return 0, &scanError{s.line, "unterminated dollar-quoted string"}
	}
	return len(tag) + end + len(tag), nil
}

// finish ends the statement being collected; one of whitespace and comments only is dropped.
func (s *splitter) finish() error {
	defer func() {
		s.start, s.content, s.depth, s.params = -1, false, 0, nil
		s.out.Reset()
	}()
	if s.start < 0 || !s.content {
		return nil
	}
	text := strings.TrimRight(s.src[s.start:s.pos], " \t\r\n\f\v")
	st := &Statement{Line: s.startLn, Text: text, SQL: strings.TrimRight(s.out.String(), " \t\r\n\f\v"), Params: s.params}
	s.items = append(s.items, item{line: s.startLn, stmt: st})
	return nil
}

// metaCommand takes the meta-command from the backslash at the current position to the end of its
// line; a backslash right before the newline continues it on the next line (read as a space).
func (s *splitter) metaCommand() {
	line := s.line
	var b strings.Builder
	i := s.pos + 1
	for i < len(s.src) {
		c := s.src[i]
		if c == '\\' && strings.HasPrefix(s.src[i+1:], "\n") {
			b.WriteByte(' ')
			i += 2
			s.line++
			continue
		}
		if c == '\\' && strings.HasPrefix(s.src[i+1:], "\r\n") {
			b.WriteByte(' ')
			i += 3
			s.line++
			continue
		}
		if c == '\n' {
			break
		}
		b.WriteByte(c)
		i++
	}
	s.pos = i
	s.items = append(s.items, item{line: line, meta: b.String()})
}

// ParseStatement reads one SQL statement with :name references (a statement of a YAML sql
// workload's transaction): the same rules as a script's statements, and a meta-command, a second
// statement or an empty text is an error.
func ParseStatement(text string) (*Statement, error) {
	items, err := split(text, false)
	if err != nil {
		var se *scanError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("line %d: %s", se.line, se.msg)
		}
		return nil, err
	}
	switch len(items) {
	case 0:
		return nil, fmt.Errorf("no statement")
	case 1:
		return items[0].stmt, nil
	}
	return nil, fmt.Errorf("line %d: a second statement: give one statement per entry", items[1].line)
}

// atoiPrefix reads pgbench's \sleep number: an optional sign and digits at the start of w, and what
// follows them.
func atoiPrefix(w string) (n int64, rest string, ok bool) {
	i := 0
	if i < len(w) && (w[i] == '+' || w[i] == '-') {
		i++
	}
	j := i
	for j < len(w) && isDigit(w[j]) {
		j++
	}
	if j == i {
		return 0, w, false
	}
	n, err := strconv.ParseInt(w[:j], 10, 64)
	if err != nil {
		return 0, w, false
	}
	return n, w[j:], true
}

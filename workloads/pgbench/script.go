// Package pgbench reads pgbench's script language (PostgreSQL 15) and draws operations from a
// script: one operation is one run of the script, evaluated before it is executed (untimed) into the
// SQL statements to execute with their arguments and the think time of its \sleep commands. It also
// holds pgbench's three built-in scripts and the SQL equivalent of `pgbench -i` (docs/pgbench.md).
//
// Parse turns a script into a Script (statements with numbered parameters, meta-commands compiled);
// NewGenerator binds its variables (scale and those the config supplies) and a seed; Generator.Draw
// evaluates operation k of the run's sequence from a random stream of its own, so that shards draw
// the operations one process would. Errors are values of one line, "script:line: reason"; nothing
// here panics on any input.
package pgbench

import (
	"errors"
	"fmt"
	"strings"
)

// The variables every script may read without setting them (pgbench's automatic variables, but
// client_id): scale, the default seed of hash and permute, and the run's random seed.
const (
	ScaleVar      = "scale"
	RandomSeedVar = "random_seed"
	ClientIDVar   = "client_id"
)

// Predefined lists the variables a script may read without defining them.
var Predefined = []string{ScaleVar, DefaultSeedVar, RandomSeedVar}

// Script is a parsed pgbench script.
type Script struct {
	Name       string       // for messages: the file name, or the built-in's name
	Statements []*Statement // the SQL statements in script order (Statement.Index is the place here)

	prog   []instr
	steps  int            // the statements and \sleep commands: an operation's most steps
	params int            // the statements' parameters: an operation's most arguments
	vars   []string       // variable names by slot
	slots  map[string]int // slot by name
}

// Error is a refused script: its name, the line and the reason, in one line.
type Error struct {
	Script string
	Line   int
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.Script, e.Line, e.Msg) }

type instrKind uint8

const (
	iExec       instrKind = iota // execute stmt
	iSet                         // slot = expr
	iSleep                       // sleep n (or the variable at slot) times unit
	iJumpUnless                  // unless expr is true, go to target
	iJump                        // go to target
)

// instr is one compiled command; \if, \elif, \else and \endif become jumps.
type instr struct {
	kind   instrKind
	line   int
	cmd    string // the meta-command, for messages
	stmt   *Statement
	expr   *node  // \set's value, \if's and \elif's condition
	name   string // \set's variable, \sleep's ("": a number)
	slot   int    // name's place among the variables
	n      int64  // \sleep's number
	unit   int64  // \sleep's unit in microseconds
	target int
}

// Parse reads a pgbench script. defined names the variables the config supplies, which the script
// may read without setting them (as pgbench's -D); the predefined ones (Predefined) always may.
// A script is refused, with its first error's line, for a syntax error, an unbalanced \if, a
// variable read before anything may have set it (on some path through the \if branches), a
// meta-command dbbench does not run (\gset, \aset, \shell, \setshell, pipelines: docs/pgbench.md
// says why) and any use of :client_id.
func Parse(name string, src []byte, defined []string) (*Script, error) {
	s := &Script{Name: name, slots: map[string]int{}}
	fail := func(line int, format string, a ...any) error {
		return &Error{Script: name, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	items, err := split(string(src), true)
	if err != nil {
		var se *scanError
		if errors.As(err, &se) {
			return nil, fail(se.line, "%s", se.msg)
		}
		return nil, err
	}
	if len(items) == 0 {
		return nil, fail(1, "the script has no commands")
	}
	for _, v := range Predefined {
		s.slot(v)
	}
	known := map[string]bool{} // the variables something may have set on some path to here
	for _, v := range append(Predefined[:len(Predefined):len(Predefined)], defined...) {
		known[v] = true
	}
	// use binds a variable read at line, refusing one nothing may have set yet, and client_id.
	use := func(line int, v string) (int, error) {
		switch {
		case v == ClientIDVar:
			return 0, fail(line, ":client_id is refused: dbbench draws one schedule shared by all its workers, so an operation belongs to no client (docs/pgbench.md)")
		case !known[v]:
			return 0, fail(line, "undefined variable %q: nothing before this line sets it (\\set), and the config does not supply it", v)
		}
		return s.slot(v), nil
	}
	useExpr := func(line int, n *node) error {
		var err error
		walkVars(n, func(v *node) {
			if err == nil {
				v.slot, err = use(line, v.name)
			}
		})
		return err
	}
	type frame struct {
		line          int
		pending       int   // the jump to patch to the next branch, -1 after \else
		ends          []int // the jumps to patch to \endif
		hasElse       bool
		before, union map[string]bool // the variables known before the \if; at the end of its branches
	}
	clone := func(m map[string]bool) map[string]bool {
		c := make(map[string]bool, len(m))
		for k := range m {
			c[k] = true
		}
		return c
	}
	var stack []*frame
	for _, it := range items {
		if st := it.stmt; st != nil {
			st.Index = len(s.Statements)
			st.slots = make([]int, len(st.Params))
			for i, p := range st.Params {
				if st.slots[i], err = use(it.line, p); err != nil {
					return nil, err
				}
			}
			s.Statements = append(s.Statements, st)
			s.prog = append(s.prog, instr{kind: iExec, line: it.line, stmt: st})
			continue
		}
		in, err := parseMeta(it)
		if err != nil {
			return nil, fail(it.line, "%s", err)
		}
		if in.expr != nil && in.cmd != "elif" { // \elif's condition is read after the branch before it
			if err := useExpr(it.line, in.expr); err != nil {
				return nil, err
			}
		}
		switch in.cmd {
		case "set":
			if in.name == ClientIDVar {
				_, err := use(it.line, ClientIDVar)
				return nil, err
			}
			in.slot = s.slot(in.name)
			known[in.name] = true
			s.prog = append(s.prog, in)
		case "sleep":
			if in.name != "" {
				if in.slot, err = use(it.line, in.name); err != nil {
					return nil, err
				}
			}
			s.prog = append(s.prog, in)
		case "if":
			stack = append(stack, &frame{line: it.line, pending: len(s.prog), before: clone(known), union: map[string]bool{}})
			s.prog = append(s.prog, in)
		case "elif", "else":
			if len(stack) == 0 {
				return nil, fail(it.line, `\%s without matching \if`, in.cmd)
			}
			f := stack[len(stack)-1]
			if f.hasElse {
				return nil, fail(it.line, `\%s after \else`, in.cmd)
			}
			for k := range known {
				f.union[k] = true
			}
			known = clone(f.before)
			f.ends = append(f.ends, len(s.prog))
			s.prog = append(s.prog, instr{kind: iJump, line: it.line, cmd: in.cmd})
			s.prog[f.pending].target = len(s.prog)
			if in.cmd == "elif" {
				if err := useExpr(it.line, in.expr); err != nil {
					return nil, err
				}
				f.pending = len(s.prog)
				s.prog = append(s.prog, in)
			} else {
				f.pending, f.hasElse = -1, true
			}
		case "endif":
			if len(stack) == 0 {
				return nil, fail(it.line, `\endif without matching \if`)
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if f.pending >= 0 {
				s.prog[f.pending].target = len(s.prog)
			}
			for _, j := range f.ends {
				s.prog[j].target = len(s.prog)
			}
			for k := range known {
				f.union[k] = true
			}
			known = f.union // before is in it: every branch starts from it
		}
	}
	if len(stack) > 0 {
		return nil, fail(stack[len(stack)-1].line, `\if without matching \endif`)
	}
	for _, in := range s.prog {
		switch in.kind {
		case iExec:
			s.steps++
			s.params += len(in.stmt.Params)
		case iSleep:
			s.steps++
		}
	}
	return s, nil
}

// Sleeps lists the lines of the script's \sleep commands (think time: a sql workload refuses them
// in an open loop, whose schedule already says when each operation starts).
func (s *Script) Sleeps() []int {
	var lines []int
	for _, in := range s.prog {
		if in.kind == iSleep {
			lines = append(lines, in.line)
		}
	}
	return lines
}

// slot is a variable's place among the script's variables, given on first sight.
func (s *Script) slot(name string) int {
	if i, ok := s.slots[name]; ok {
		return i
	}
	s.slots[name] = len(s.vars)
	s.vars = append(s.vars, name)
	return len(s.vars) - 1
}

// parseMeta compiles one meta-command line (without its backslash); \endif, \else and \elif come
// back with cmd set for Parse to turn into jumps.
func parseMeta(it item) (instr, error) {
	words := strings.Fields(it.meta)
	if len(words) == 0 {
		return instr{}, errors.New(`a backslash without a meta-command`)
	}
	in := instr{line: it.line, cmd: strings.ToLower(words[0]), slot: -1}
	// rest is the text after the command word (and, for \set, after the variable's name).
	rest := func(skip int) string {
		s := it.meta
		for range skip {
			s = strings.TrimLeft(s, " \t\r\f\v")
			i := strings.IndexAny(s, " \t\r\f\v")
			if i < 0 {
				return ""
			}
			s = s[i:]
		}
		return s
	}
	expr := func(text string) (*node, error) {
		n, err := parseExpr(text)
		if err != nil {
			return nil, fmt.Errorf(`\%s: %w`, in.cmd, err)
		}
		return n, nil
	}
	var err error
	switch in.cmd {
	case "set":
		if len(words) < 3 {
			return in, errors.New(`\set: missing argument (\set NAME EXPRESSION)`)
		}
		if !validVarName(words[1]) {
			return in, fmt.Errorf(`\set: invalid variable name %q`, words[1])
		}
		in.kind, in.name = iSet, words[1]
		in.expr, err = expr(rest(2))
		return in, err
	case "if", "elif":
		if len(words) < 2 {
			return in, fmt.Errorf(`\%s: missing argument (a condition)`, in.cmd)
		}
		in.kind = iJumpUnless
		in.expr, err = expr(rest(1))
		return in, err
	case "else", "endif":
		if len(words) > 1 {
			return in, fmt.Errorf(`\%s: unexpected argument %q`, in.cmd, words[1])
		}
		return in, nil
	case "sleep":
		return parseSleep(in, words[1:])
	case "gset", "aset":
		return in, fmt.Errorf(`\%s is not supported: dbbench does not store a query's results into variables (an operation is evaluated before it runs)`, in.cmd)
	case "shell", "setshell":
		return in, fmt.Errorf(`\%s is not supported: dbbench runs no shell commands from a script`, in.cmd)
	case "startpipeline", "endpipeline", "syncpipeline":
		return in, fmt.Errorf(`\%s is not supported: dbbench sends a script's statements one at a time, without pipelines`, in.cmd)
	}
	return in, fmt.Errorf(`\%s: invalid command`, words[0])
}

// Sleep units in microseconds.
var sleepUnits = map[string]int64{"us": 1, "ms": 1000, "s": 1000000}

// parseSleep reads \sleep N [us|ms|s] (N an integer, or :variable; "10ms" is N and unit together;
// no unit is seconds).
func parseSleep(in instr, args []string) (instr, error) {
	in.kind, in.unit = iSleep, 1000000
	switch {
	case len(args) == 0:
		return in, errors.New(`\sleep: missing argument`)
	case len(args) > 2:
		return in, fmt.Errorf(`\sleep: too many arguments (%q)`, args[2])
	}
	if name, ok := strings.CutPrefix(args[0], ":"); ok {
		if !validVarName(name) {
			return in, fmt.Errorf(`\sleep: invalid variable name %q`, name)
		}
		in.name = name
	} else {
		n, unit, ok := atoiPrefix(args[0])
		if !ok || unit != "" && len(args) > 1 {
			return in, fmt.Errorf(`\sleep: invalid sleep time %q, must be an integer`, args[0])
		}
		in.n = n
		if unit != "" {
			args = append(args, unit)
		}
	}
	if len(args) > 1 {
		u, ok := sleepUnits[strings.ToLower(args[1])]
		if !ok {
			return in, fmt.Errorf(`\sleep: unrecognized time unit %q, must be us, ms or s`, args[1])
		}
		in.unit = u
	}
	return in, nil
}

// validVarName is pgbench's rule: letters (any byte >= 0x80 counts), digits and underscores, not
// starting with a digit.
func validVarName(name string) bool {
	if name == "" || !isAlpha(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !isAlnum(name[i]) {
			return false
		}
	}
	return true
}

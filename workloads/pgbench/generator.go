package pgbench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/workloads"
)

// Op is one operation drawn from a script: its steps in order, each a statement to execute with its
// arguments or a \sleep.
type Op struct {
	Steps []Step
	Think time.Duration // the sum of the steps' sleeps: think time, outside every clock
}

// Step is one step of an operation: a statement and its arguments (Stmt set), or a sleep.
type Step struct {
	Stmt  *Statement
	Args  []any         // Stmt's parameters' values, as database/sql and pgx take them (Config.Text says how)
	Sleep time.Duration // a \sleep (Stmt nil); zero or more
}

// Generator draws a script's operations. Operation k of a run evaluates the script from a random
// stream seeded from (seed, k) and the variables' values at the start, so it is a function of k
// alone: one process and every shard draw the same operation k. Variables do not carry over from
// one operation to the next (pgbench's per-client variables do). Draw only reads the Generator: it
// is safe for concurrent use.
type Generator struct {
	s    *Script
	init []Value // the variables' values when an operation starts, by slot
	seed uint64
	text bool
}

// Config is what a Generator binds a script to.
type Config struct {
	// Vars are the config's variables (pgbench's -D NAME=VALUE), scale among them.
	Vars map[string]Value
	// Seed is the workload's seed, derived from the run's.
	Seed int64
	// Text binds the arguments as pgbench -M prepared does, as text the server reads by the type it
	// infers for each parameter (Value.String: "5", "2.5", "true"; NULL as SQL NULL, where pgbench
	// sends the four letters "NULL"). For PostgreSQL this is what makes a script behave as under
	// pgbench: pgx encodes an int64 for a parameter the server types as text (SELECT :x) not at all,
	// and a double for an integer one by truncating it. Without it the arguments are typed
	// (Value.Any), as SQLite takes them best.
	Text bool
}

// NewGenerator binds a script to the config's variables and a seed. The predefined variables take
// their defaults unless Vars sets them: scale 1, random_seed the seed, default_seed (the seed of hash
// and permute without one) a value derived from the seed, so that a run with the same seed repeats
// (pgbench draws it anew for each run unless --random-seed or -D default_seed fixes it).
func NewGenerator(s *Script, c Config) (*Generator, error) {
	seed := c.Seed
	g := &Generator{s: s, init: make([]Value, len(s.vars)), seed: dataset.Mix64(uint64(seed) ^ 0x6a09e667f3bcc909), text: c.Text}
	set := func(name string, v Value) {
		if i, ok := s.slots[name]; ok {
			g.init[i] = v
		}
	}
	set(ScaleVar, Int(1))
	set(RandomSeedVar, Int(seed))
	set(DefaultSeedVar, Int(int64(dataset.Mix64(uint64(seed)^0xbb67ae8584caa73b))))
	for name, v := range c.Vars {
		switch {
		case name == ClientIDVar:
			return nil, fmt.Errorf("variable %s: refused, dbbench has no per-client number (docs/pgbench.md)", name)
		case !validVarName(name):
			return nil, fmt.Errorf("variable %q: invalid name (letters, digits and underscores, not starting with a digit)", name)
		case v.kind == KindNone:
			return nil, fmt.Errorf("variable %s: no value", name)
		}
		set(name, v)
	}
	return g, nil
}

// Script is the script the generator draws from.
func (g *Generator) Script() *Script { return g.s }

// Draw evaluates operation k of the run's sequence. An error (a division by zero, a variable only
// some branch sets, a random range that is empty...) is one line naming the script's line, as
// pgbench aborts a client on it.
func (g *Generator) Draw(k uint64) (Op, error) {
	d := &draw{src: *rand.NewPCG(workloads.OpStream(g.seed, k))}
	st := evalState{vars: append([]Value(nil), g.init...), r: rand.New(&d.src)}
	op := Op{Steps: make([]Step, 0, g.s.steps)}
	args := make([]any, 0, g.s.params) // one array for all the statements' arguments
	prog := g.s.prog
	for pc := 0; pc < len(prog); pc++ {
		in := &prog[pc]
		switch in.kind {
		case iExec:
			from := len(args)
			for i, slot := range in.stmt.slots {
				v := st.vars[slot]
				if v.kind == KindNone {
					return Op{}, g.fail(in, fmt.Errorf("parameter :%s: undefined variable %q (only some branch sets it)", in.stmt.Params[i], in.stmt.Params[i]))
				}
				if g.text && v.kind != KindNull {
					args = append(args, v.String())
				} else {
					args = append(args, v.Any())
				}
			}
			op.Steps = append(op.Steps, Step{Stmt: in.stmt, Args: args[from:len(args):len(args)]})
		case iSet:
			v, err := st.eval(in.expr)
			if err != nil {
				return Op{}, g.fail(in, err)
			}
			st.vars[in.slot] = v
		case iSleep:
			d, err := st.sleep(in)
			if err != nil {
				return Op{}, g.fail(in, err)
			}
			op.Steps = append(op.Steps, Step{Sleep: d})
			op.Think += d
		case iJumpUnless:
			v, err := st.eval(in.expr)
			if err != nil {
				return Op{}, g.fail(in, err)
			}
			if !truth(v) {
				pc = in.target - 1
			}
		case iJump:
			pc = in.target - 1
		}
	}
	return op, nil
}

// draw holds an operation's random source, so that it costs one allocation.
type draw struct{ src rand.PCG }

func (g *Generator) fail(in *instr, err error) error {
	cmd := "statement"
	switch in.kind {
	case iSet:
		cmd = `\set ` + in.name
	case iSleep:
		cmd = `\sleep`
	case iJumpUnless:
		cmd = `\` + in.cmd
	}
	return &Error{Script: g.s.Name, Line: in.line, Msg: cmd + ": " + err.Error()}
}

// sleep is a \sleep's duration: its number or its variable's integer value (a double truncated, as
// pgbench's atoi reads one) times its unit; a negative time sleeps no time.
func (st *evalState) sleep(in *instr) (time.Duration, error) {
	n := in.n
	if in.name != "" {
		v := st.vars[in.slot]
		if v.kind == KindText {
			var err error
			if v, err = fromText(in.name, v.s); err != nil {
				return 0, err
			}
		}
		switch {
		case v.kind == KindInt:
			n = v.i
		case v.kind == KindDouble && v.f > -0x1p63 && v.f < 0x1p63:
			n = int64(v.f)
		case v.kind == KindNone:
			return 0, fmt.Errorf("undefined variable %q (only some branch sets it)", in.name)
		default:
			return 0, fmt.Errorf("invalid sleep time %q for variable %q", v.String(), in.name)
		}
	}
	if n <= 0 {
		return 0, nil
	}
	if n > math.MaxInt64/1000/in.unit {
		return 0, fmt.Errorf("sleep time %d out of range", n)
	}
	return time.Duration(n*in.unit) * time.Microsecond, nil
}

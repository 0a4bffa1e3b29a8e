// Package sqlmix is what the sql workload is (docs/sql.md): named transactions mixed by weight, each
// a list of SQL statements whose :name parameters are drawn from generators (workloads/sqlgen), or
// a pgbench script (workloads/pgbench), with what each statement's result must show (expect, check:
// same). Mix.Draw evaluates operation k of a run, outside every clock: which transaction, the
// statements to execute with their arguments and the think time between them, from k's own random
// stream (workloads.OpStream), so that the shards of a sharded run draw the operations one process
// would. Nothing here touches a database.
package sqlmix

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/dbbench/dbbench/workloads"
	"github.com/dbbench/dbbench/workloads/pgbench"
	"github.com/dbbench/dbbench/workloads/sqlgen"
)

// Expect is what a statement's result must hold: exactly Rows rows, or at least Rows when Min (rows
// returned by a query, rows affected by another statement).
type Expect struct {
	Rows int64
	Min  bool
}

// Holds reports whether n rows meet the expectation.
func (e Expect) Holds(n int64) bool {
	if e.Min {
		return n >= e.Rows
	}
	return n == e.Rows
}

func (e Expect) String() string {
	if e.Min {
		return fmt.Sprintf("at least %d rows", e.Rows)
	}
	if e.Rows == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", e.Rows)
}

// Statement is one statement of a transaction, ready to prepare (Statement.SQL numbers its
// parameters $1, $2, ...; Statement.Index is its place in the transaction), with its checks.
type Statement struct {
	*pgbench.Statement
	Expect *Expect // nil: none
	// Same: its result (rows and their checksum) must equal that of its first execution with the
	// same arguments (check: same).
	Same bool
	// Line is the line of the config (or script file) it is written on, for messages.
	Line int
}

// Transaction is one named transaction of the mix: a list of statements with generated parameters
// (Script nil), or a pgbench script (its statements are Script.Statements).
type Transaction struct {
	Name   string
	Weight float64 // its share of the mix: Weight over the sum of the weights
	// Statements are the statements in order (a script's as its \if branches may run them).
	Statements []Statement
	Script     *pgbench.Script
	// Wrap: the engine runs the statements in one database transaction of its own (BEGIN ...
	// COMMIT, timed with them): a list of more than one statement. A script writes its own.
	Wrap bool
}

// Definition is a sql workload as the config gives it, whatever the target: the transactions, the
// parameters' generators, and the variables the scripts read (scale among them: pgbench's -D).
type Definition struct {
	Transactions []Transaction
	Params       map[string]sqlgen.Spec
	Vars         map[string]pgbench.Value
}

// Mix draws a definition's operations for one target.
type Mix struct {
	def     *Definition
	cum     []float64 // cumulative weights
	seed    uint64
	text    bool
	scripts []*pgbench.Generator // per transaction; nil for a list of statements
	gens    [][]*sqlgen.Generator
	// slots[t][s][i] is the place of statement s's parameter i among transaction t's parameters
	// (each drawn once per execution, in order of first appearance).
	slots [][][]int
	args  []int // per transaction: its statements' parameters in all (an operation's arguments)
}

// Op is one drawn operation: a transaction (an index into Definition.Transactions) and its steps, a
// statement with its arguments or a sleep each.
type Op struct {
	Tx    int
	Steps []pgbench.Step
	Think time.Duration // the sleeps' sum: think time, outside every clock
}

// New checks a definition and binds it to a seed (the workload's) and a binding: text binds every
// argument as text for the server to read by the type it infers, as pgbench -M prepared does
// (PostgreSQL: pgbench.Config.Text says why); typed binds int64, float64, bool and string (SQLite).
func New(def *Definition, seed int64, text bool) (*Mix, error) {
	if len(def.Transactions) == 0 {
		return nil, fmt.Errorf("no transactions")
	}
	m := &Mix{def: def, seed: uint64(seed), text: text}
	gens := map[string]*sqlgen.Generator{}
	for _, name := range slices.Sorted(maps.Keys(def.Params)) {
		g, err := sqlgen.New(def.Params[name])
		if err != nil {
			return nil, fmt.Errorf("param %s: %w", name, err)
		}
		gens[name] = g
	}
	used := map[string]bool{}
	var total float64
	for _, t := range def.Transactions {
		if !(t.Weight > 0) {
			return nil, fmt.Errorf("transaction %s: weight must be positive, got %g", t.Name, t.Weight)
		}
		total += t.Weight
		m.cum = append(m.cum, total)
		var gen *pgbench.Generator
		var tg []*sqlgen.Generator
		var ts [][]int
		n := 0
		if t.Script != nil {
			var err error
			gen, err = pgbench.NewGenerator(t.Script, pgbench.Config{Vars: def.Vars, Seed: workloads.Seed(seed, t.Name), Text: text})
			if err != nil {
				return nil, fmt.Errorf("transaction %s: %w", t.Name, err)
			}
		} else {
			seen := map[string]int{}
			for _, st := range t.Statements {
				var sl []int
				for _, p := range st.Params {
					i, ok := seen[p]
					if !ok {
						g, known := gens[p]
						if !known {
							return nil, fmt.Errorf("transaction %s: statement %d (line %d): parameter :%s is not in params", t.Name, st.Index+1, st.Line, p)
						}
						i = len(tg)
						seen[p] = i
						tg = append(tg, g)
						used[p] = true
					}
					sl = append(sl, i)
				}
				ts = append(ts, sl)
				n += len(st.Params)
			}
		}
		m.scripts, m.gens, m.slots, m.args = append(m.scripts, gen), append(m.gens, tg), append(m.slots, ts), append(m.args, n)
	}
	for _, name := range slices.Sorted(maps.Keys(def.Params)) {
		if !used[name] {
			return nil, fmt.Errorf("param %s: no statement reads :%s", name, name)
		}
	}
	return m, nil
}

// Definition is the definition the mix draws from.
func (m *Mix) Definition() *Definition { return m.def }

// Draw evaluates operation k of the run's sequence: its transaction, drawn by weight, then its
// parameters (a list of statements: each parameter once, in order of first appearance) or its
// script's run, all from k's own stream. An error (a script's: a division by zero, ...) is one line
// naming the script's line; the operation then fails. Draw only reads the mix: it is safe for
// concurrent use.
func (m *Mix) Draw(k uint64) (Op, error) {
	r := rand.New(rand.NewPCG(workloads.OpStream(m.seed, k)))
	tx := 0
	if len(m.cum) > 1 {
		u := r.Float64() * m.cum[len(m.cum)-1]
		tx, _ = slices.BinarySearch(m.cum, u)
		if tx < len(m.cum) && m.cum[tx] == u {
			tx++ // cum[i] is where transaction i's share ends: u at it is the next one's
		}
		tx = min(tx, len(m.cum)-1)
	}
	if g := m.scripts[tx]; g != nil {
		op, err := g.Draw(k)
		return Op{Tx: tx, Steps: op.Steps, Think: op.Think}, err
	}
	t := &m.def.Transactions[tx]
	vals := make([]any, len(m.gens[tx]))
	for i, g := range m.gens[tx] {
		vals[i] = m.bind(g.Draw(r, k))
	}
	args := make([]any, 0, m.args[tx])
	op := Op{Tx: tx, Steps: make([]pgbench.Step, len(t.Statements))}
	for s := range t.Statements {
		from := len(args)
		for _, i := range m.slots[tx][s] {
			args = append(args, vals[i])
		}
		op.Steps[s] = pgbench.Step{Stmt: t.Statements[s].Statement, Args: args[from:len(args):len(args)]}
	}
	return op, nil
}

// bind is a drawn value as an argument: as it is (typed), or as its text (text).
func (m *Mix) bind(v any) any {
	if !m.text {
		return v
	}
	switch x := v.(type) {
	case int64:
		return pgbench.Int(x).String()
	case float64:
		return pgbench.Double(x).String()
	case bool:
		return pgbench.Bool(x).String()
	}
	return v
}

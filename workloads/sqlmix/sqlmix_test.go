package sqlmix

import (
	"reflect"
	"testing"
	"time"

	"github.com/dbbench/dbbench/internal/stattest"
	"github.com/dbbench/dbbench/workloads/pgbench"
	"github.com/dbbench/dbbench/workloads/sqlgen"
)

func stmt(t *testing.T, i int, text string) Statement {
	t.Helper()
	st, err := pgbench.ParseStatement(text)
	if err != nil {
		t.Fatal(err)
	}
	st.Index = i
	return Statement{Statement: st, Line: 10 + i}
}

func mustNew(t *testing.T, d *Definition, text bool) *Mix {
	t.Helper()
	m, err := New(d, 7, text)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDrawSameParamOnce: a parameter two statements of one transaction read takes one value per
// execution, in both; typed and text bindings; the same k draws the same operation.
func TestDrawSameParamOnce(t *testing.T) {
	d := &Definition{
		Params: map[string]sqlgen.Spec{
			"id":  {Kind: sqlgen.Uniform, Min: 1, Max: 1_000_000},
			"tag": {Kind: sqlgen.Constant, Value: "x"},
			"d":   {Kind: sqlgen.Constant, Value: 2.5},
		},
		Transactions: []Transaction{{Name: "move", Weight: 1, Wrap: true, Statements: []Statement{
			stmt(t, 0, "UPDATE t SET v = v + :d WHERE id = :id AND tag = :tag"),
			stmt(t, 1, "SELECT v FROM t WHERE id = :id"),
		}}},
	}
	typed, text := mustNew(t, d, false), mustNew(t, d, true)
	for k := range uint64(50) {
		op, err := typed.Draw(k)
		if err != nil {
			t.Fatal(err)
		}
		a0, a1 := op.Steps[0].Args, op.Steps[1].Args
		if len(a0) != 3 || len(a1) != 1 || a0[1] != a1[0] || a0[0] != 2.5 || a0[2] != "x" {
			t.Fatalf("op %d: %v %v", k, a0, a1)
		}
		if _, ok := a0[1].(int64); !ok {
			t.Fatalf("typed id %T", a0[1])
		}
		again, _ := typed.Draw(k)
		if !reflect.DeepEqual(again, op) {
			t.Fatalf("op %d drawn twice differs: %v %v", k, op, again)
		}
		tx, _ := text.Draw(k)
		want := []any{"2.5", itoa(a0[1].(int64)), "x"}
		if !reflect.DeepEqual(tx.Steps[0].Args, want) {
			t.Fatalf("text binding %v, want %v", tx.Steps[0].Args, want)
		}
	}
	// Different operations draw different values (1 in 10^6 to collide).
	a, _ := typed.Draw(1)
	b, _ := typed.Draw(2)
	if a.Steps[1].Args[0] == b.Steps[1].Args[0] {
		t.Errorf("operations 1 and 2 drew the same id %v", a.Steps[1].Args[0])
	}
}

func itoa(v int64) string { return pgbench.Int(v).String() }

// TestMixWeights: the transactions are drawn in their weights' proportions (chi-square), and a
// mix that ignored the weights fails the same check.
func TestMixWeights(t *testing.T) {
	d := &Definition{Transactions: []Transaction{
		{Name: "a", Weight: 1, Statements: []Statement{stmt(t, 0, "SELECT 1")}},
		{Name: "b", Weight: 3, Statements: []Statement{stmt(t, 0, "SELECT 2")}},
		{Name: "c", Weight: 6, Statements: []Statement{stmt(t, 0, "SELECT 3")}},
	}}
	m := mustNew(t, d, false)
	p := []float64{0.1, 0.3, 0.6}
	counts := make([]int64, 3)
	for k := range uint64(60_000) {
		op, err := m.Draw(k)
		if err != nil {
			t.Fatal(err)
		}
		counts[op.Tx]++
		if op.Steps[0].Stmt != d.Transactions[op.Tx].Statements[0].Statement {
			t.Fatalf("op %d: transaction %d with another's statement", k, op.Tx)
		}
	}
	if stat, _, crit := stattest.ChiSquare(counts, p); stat > crit {
		t.Errorf("counts %v against %v: chi-square %.1f > %.1f", counts, p, stat, crit)
	}
	if stat, _, crit := stattest.ChiSquare([]int64{20_000, 20_000, 20_000}, p); stat <= crit {
		t.Errorf("equal counts pass the check (%.1f <= %.1f): it checks nothing", stat, crit)
	}
}

// TestScriptTransaction: a script's operation is its generator's, with the config's variables; a
// draw error is the script's line.
func TestScriptTransaction(t *testing.T) {
	s, err := pgbench.Parse("s.sql", []byte("\\set aid random(1, 10 * :scale)\n\\sleep 3 ms\nSELECT :aid;\n\\set x 1 / (:aid - :aid)\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := &Definition{Vars: map[string]pgbench.Value{pgbench.ScaleVar: pgbench.Int(2)}, Transactions: []Transaction{{Name: "s", Weight: 1, Script: s}}}
	m := mustNew(t, d, false)
	if _, err := m.Draw(0); err == nil || err.Error() != `s.sql:4: \set x: division by zero` {
		t.Errorf("draw error %v", err)
	}
	s, _ = pgbench.Parse("s.sql", []byte("\\set aid random(1, 10 * :scale)\n\\sleep 3 ms\nSELECT :aid;\n"), nil)
	d.Transactions[0].Script = s
	m = mustNew(t, d, false)
	seen := map[int64]bool{}
	for k := range uint64(2000) {
		op, err := m.Draw(k)
		if err != nil || op.Think != 3*time.Millisecond || len(op.Steps) != 2 || op.Steps[1].Stmt.SQL != "SELECT $1;" {
			t.Fatalf("%+v %v", op, err)
		}
		v := op.Steps[1].Args[0].(int64)
		if v < 1 || v > 20 {
			t.Fatalf("aid %d outside 1..20 (scale 2)", v)
		}
		seen[v] = true
	}
	if len(seen) != 20 {
		t.Errorf("%d of 20 values drawn", len(seen))
	}
}

func TestNewRefuses(t *testing.T) {
	one := func(text string) []Statement { return []Statement{stmt(t, 0, text)} }
	for _, c := range []struct {
		d    Definition
		want string
	}{
		{Definition{}, "no transactions"},
		{Definition{Transactions: []Transaction{{Name: "a", Weight: 0, Statements: one("SELECT 1")}}}, "transaction a: weight must be positive, got 0"},
		{Definition{Transactions: []Transaction{{Name: "a", Weight: 1, Statements: one("SELECT :x")}}}, "transaction a: statement 1 (line 10): parameter :x is not in params"},
		{Definition{Params: map[string]sqlgen.Spec{"y": {Kind: sqlgen.Constant, Value: 1}},
			Transactions: []Transaction{{Name: "a", Weight: 1, Statements: one("SELECT 1")}}}, "param y: no statement reads :y"},
		{Definition{Params: map[string]sqlgen.Spec{"y": {Kind: sqlgen.Uniform, Min: 2, Max: 1}},
			Transactions: []Transaction{{Name: "a", Weight: 1, Statements: one("SELECT :y")}}}, "param y: uniform: min 2 is above max 1"},
	} {
		if _, err := New(&c.d, 1, false); err == nil || err.Error() != c.want {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
}

func TestExpect(t *testing.T) {
	for _, c := range []struct {
		e    Expect
		n    int64
		want bool
	}{{Expect{Rows: 1}, 1, true}, {Expect{Rows: 1}, 2, false}, {Expect{Rows: 1}, 0, false},
		{Expect{Rows: 2, Min: true}, 2, true}, {Expect{Rows: 2, Min: true}, 9, true}, {Expect{Rows: 2, Min: true}, 1, false}} {
		if got := c.e.Holds(c.n); got != c.want {
			t.Errorf("%v holds for %d: %v", c.e, c.n, got)
		}
	}
}

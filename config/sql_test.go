package config

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/memory"
	"github.com/dbbench/dbbench/workloads/pgbench"
	"github.com/dbbench/dbbench/workloads/sqlgen"
	"github.com/dbbench/dbbench/workloads/sqlmix"
)

// sqlStandIn is an adapter that runs SQL (Info.SQL), to validate sql workloads against.
type sqlStandIn struct{}

func (sqlStandIn) Info() adapters.Info {
	return adapters.Info{Name: "sql", Builtin: []string{"scan"}, SQL: true,
		Options: []adapters.OptionSpec{{Name: "driver", Kind: adapters.String}}}
}

func (sqlStandIn) Open(context.Context, adapters.Options, adapters.Env) (adapters.Target, error) {
	return nil, nil
}

func sqlRegistry(t *testing.T) *adapters.Registry {
	t.Helper()
	reg, err := adapters.NewRegistry(memory.New(), sqlStandIn{})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

const goodSQL = `name: q
load: {workers: 2, duration: 2s}
workloads:
  - name: orders
    ops: 300
    sql:
      setup:
        - CREATE TABLE items (id integer primary key, owner integer, v text)
        - {sql: CREATE INDEX items_owner ON items (owner), targets: [indexed]}
      teardown: [DROP TABLE items]
      params:
        owner: {kind: zipfian, min: 1, max: 1000}
        id: {kind: uniform, min: 1, max: 10000}
        note: {kind: string, min_len: 1, max_len: 8, alphabet: abc}
        limit: 10
      transactions:
        - name: by-owner
          weight: 9
          statements:
            - sql: SELECT id, v FROM items WHERE owner = :owner LIMIT :limit
              expect: {rows_min: 1}
              check: same
        - name: touch
          statements:
            - UPDATE items SET v = :note WHERE id = :id
            - sql: |
                SELECT v
                  FROM items
                 WHERE id = :id
              expect: {rows: 1}
  - name: bank
    sql: {script: tpcb-like, scale: 2}
  - name: inline
    sql:
      vars: {hot: 10}
      script_text: |
        \set aid random(1, :hot)
        SELECT :aid;
targets:
  - {name: plain, adapter: sql}
  - {name: indexed, adapter: sql, workloads: [orders, inline]}
  - {name: mem, adapter: memory, workloads: []}
assertions:
  - orders.by-owner.response_p99[indexed] <= orders.by-owner.response_p99[plain]
  - orders.touch.stmt2_p50[indexed] <= 1s
`

// TestSQLWorkload: a config of sql workloads resolves into their definitions, with their lines,
// generators, checks, setup per target, pgbench's init and the targets that run them.
func TestSQLWorkload(t *testing.T) {
	c, err := Parse("q.yaml", []byte(goodSQL))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Resolve(sqlRegistry(t), false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Sizes, []int{1}) {
		t.Errorf("sizes %v: a config of sql workloads has the one size 1", p.Sizes)
	}
	orders := p.Workloads[0]
	if !orders.LoadModel() || orders.SQL == nil || orders.Ops != 300 || orders.YCSB {
		t.Fatalf("orders: %+v", orders)
	}
	d := orders.SQL.Def
	if len(d.Transactions) != 2 || d.Transactions[0].Name != "by-owner" || d.Transactions[0].Weight != 9 || d.Transactions[1].Weight != 1 {
		t.Fatalf("transactions %+v", d.Transactions)
	}
	by, touch := d.Transactions[0], d.Transactions[1]
	if by.Wrap || !touch.Wrap {
		t.Errorf("one statement runs alone, two in a transaction: %v %v", by.Wrap, touch.Wrap)
	}
	st := by.Statements[0]
	if st.SQL != "SELECT id, v FROM items WHERE owner = $1 LIMIT $2" || st.Line != 20 || !st.Same || *st.Expect != (sqlmix.Expect{Rows: 1, Min: true}) {
		t.Errorf("by-owner's statement: %q line %d same %v expect %+v", st.SQL, st.Line, st.Same, st.Expect)
	}
	if s2 := touch.Statements[1]; s2.Line != 27 || s2.Index != 1 || *s2.Expect != (sqlmix.Expect{Rows: 1}) || s2.Same {
		t.Errorf("touch's second statement: line %d index %d expect %+v", s2.Line, s2.Index, s2.Expect)
	}
	if got := d.Params["owner"]; got.Kind != sqlgen.Zipfian || got.Theta != 0.99 || got.Max != 1000 {
		t.Errorf("owner's generator %+v: zipfian takes YCSB's theta when none is given", got)
	}
	if got := d.Params["limit"]; got.Kind != sqlgen.Constant || got.Value != 10 {
		t.Errorf("a single value is a constant: %+v", got)
	}
	setup := orders.SQL.Setup
	if len(setup) != 2 || setup[1].Targets[0] != "indexed" || setup[1].Line != 9 || setup[0].Targets != nil {
		t.Errorf("setup %+v", setup)
	}
	if orders.SQL.Init != SQLInitNone {
		t.Errorf("orders' init %q", orders.SQL.Init)
	}
	bank := p.Workloads[1].SQL
	if bank.Init != SQLInitPgbench || bank.Scale != 2 || bank.Def.Transactions[0].Name != pgbench.TPCBLike || len(bank.Def.Transactions[0].Statements) != 7 {
		t.Errorf("bank: init %q scale %d %+v", bank.Init, bank.Scale, bank.Def.Transactions[0])
	}
	inline := p.Workloads[2].SQL.Def.Transactions[0]
	if inline.Name != "script" || inline.Statements[0].Line != 38 || p.Workloads[2].SQL.Def.Vars["hot"] != pgbench.Text("10") {
		t.Errorf("inline: %s line %d vars %v", inline.Name, inline.Statements[0].Line, p.Workloads[2].SQL.Def.Vars)
	}
	for i, want := range [][]string{{"orders", "bank", "inline"}, {"orders", "inline"}, nil} {
		if got := p.Targets[i].Workloads; !reflect.DeepEqual(got, want) {
			t.Errorf("target %s runs %v, want %v", p.Targets[i].Name, got, want)
		}
	}
	m, err := sqlmix.New(d, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	op, err := m.Draw(3)
	if err != nil || len(op.Steps) == 0 {
		t.Fatalf("draw: %+v %v", op, err)
	}
	ws := p.AsRun["workloads"].([]any)
	if sql := ws[0].(map[string]any)["sql"].(map[string]any); sql["teardown"] == nil {
		t.Errorf("the config as run lost the sql section: %v", ws[0])
	}
	if p.AsRun["load"] == nil {
		t.Error("the config as run lost the load section")
	}
}

// TestSQLScriptFile: a script file is read relative to the config's directory, its statements'
// lines the file's; one a built-in config names is refused.
func TestSQLScriptFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "my-bench.sql"), []byte("\\set aid random(1, 100)\n\nSELECT :aid;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := "name: f\nworkloads:\n  - name: f\n    sql: {script: my-bench.sql}\ntargets: [{adapter: sql}]\n"
	c, err := Parse(filepath.Join(dir, "f.yaml"), []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Resolve(sqlRegistry(t), false)
	if err != nil {
		t.Fatal(err)
	}
	tx := p.Workloads[0].SQL.Def.Transactions[0]
	if tx.Name != "my-bench" || tx.Script == nil || tx.Statements[0].Line != 3 || p.Workloads[0].SQL.Init != SQLInitNone {
		t.Errorf("%+v init %q", tx, p.Workloads[0].SQL.Init)
	}
	c, _ = Parse("(built-in) f", []byte(cfg))
	if _, err := c.Resolve(sqlRegistry(t), false); err == nil || !strings.Contains(err.Error(), "(built-in) f:4: workload f: script my-bench.sql: a built-in config reads no script files") {
		t.Errorf("a built-in config's script file: %v", err)
	}
	c, _ = Parse(filepath.Join(dir, "f.yaml"), []byte(strings.Replace(cfg, "my-bench.sql", "gone.sql", 1)))
	if _, err := c.Resolve(sqlRegistry(t), false); err == nil || !strings.Contains(err.Error(), "f.yaml:4: workload f: script gone.sql: no such file or directory") {
		t.Errorf("a missing script file: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shell.sql"), []byte("SELECT 1;\n\\shell ls\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ = Parse(filepath.Join(dir, "f.yaml"), []byte(strings.Replace(cfg, "my-bench.sql", "shell.sql", 1)))
	if _, err := c.Resolve(sqlRegistry(t), false); err == nil || !strings.Contains(err.Error(), `f.yaml:4: workload f.sql: transaction shell: shell.sql:2: \shell is not supported: dbbench runs no shell commands from a script`) {
		t.Errorf("a script file with \\shell: %v", err)
	}
}

// TestSQLErrors: every mistake in a sql workload is one line with the line it is on.
func TestSQLErrors(t *testing.T) {
	base := "name: q\nworkloads:\n  - name: w\n    sql:\n%s\ntargets: [{name: s, adapter: sql}, {name: m, adapter: memory, workloads: []}]\n"
	stmts := func(extra string) string {
		return "      transactions:\n        - name: t\n          statements:\n            - SELECT :a\n      params: {a: 1}\n" + extra
	}
	for _, tt := range []struct {
		name, sql, want string
	}{
		{"nothing to run", "      setup: [SELECT 1]", "q.yaml:5: workload w.sql: give one of transactions, script"},
		{"script and transactions", stmts("      script: tpcb-like"), "q.yaml:5: workload w.sql: give one of transactions"},
		{"shell in script_text", "      script_text: |\n        SELECT 1;\n        \\shell rm -rf /", `q.yaml:7: workload w.sql: transaction script: script_text line 2: \shell is not supported`},
		{"client_id in a script", "      script_text: \"SELECT :client_id\"", `q.yaml:5: workload w.sql: transaction script: script_text line 1: :client_id is refused`},
		{"unknown script", "      script: tpcc", `q.yaml:5: workload w.sql.script "tpcc": not a built-in script (select-only, simple-update, tpcb-like) nor a file`},
		{"unknown param", "      transactions:\n        - name: t\n          statements: [SELECT :b]", "q.yaml:7: workload w.sql: transaction t: statement 1 (line 7): parameter :b is not in params"},
		{"unused param alone", "      transactions:\n        - name: t\n          statements: [SELECT 1]\n      params:\n        z: 2", "q.yaml:9: workload w.sql: param z: no statement reads :z"},
		{"bad generator", "      transactions:\n        - name: t\n          statements: [SELECT :a]\n      params:\n        a: {kind: uniform, min: 5, max: 1}", "q.yaml:9: workload w.sql.params.a: uniform: min 5 is above max 1"},
		{"unknown kind", "      transactions:\n        - name: t\n          statements: [SELECT :a]\n      params:\n        a: {kind: gaussian}", `q.yaml:9: workload w.sql.params.a.kind "gaussian": want one of uniform, zipfian`},
		{"field of another kind", "      transactions:\n        - name: t\n          statements: [SELECT :a]\n      params:\n        a: {kind: uniform, min: 1, max: 2, alphabet: x}", "q.yaml:9: workload w.sql.params.a: uniform: alphabet does not apply"},
		{"variable in quotes", "      transactions:\n        - name: t\n          statements:\n            - |\n              SELECT 1,\n                ':a'", "q.yaml:10: workload w.sql.transactions.t, statement 1: variable :a inside a quoted string"},
		{"two statements in one", "      transactions:\n        - name: t\n          statements: [\"SELECT 1; SELECT 2\"]", "q.yaml:7: workload w.sql.transactions.t, statement 1: a second statement"},
		{"expect both", "      transactions:\n        - name: t\n          statements:\n            - {sql: SELECT 1, expect: {rows: 1, rows_min: 1}}", "q.yaml:8: workload w.sql.transactions.t: expect takes rows"},
		{"expect negative", "      transactions:\n        - name: t\n          statements:\n            - {sql: SELECT 1, expect: {rows: -1}}", "q.yaml:8: expect.rows must be at least 0"},
		{"check other", "      transactions:\n        - name: t\n          statements:\n            - {sql: SELECT 1, check: equal}", `q.yaml:8: workload w.sql.transactions.t: check "equal": the only check is same`},
		{"transaction name", "      transactions:\n        - name: 't x'\n          statements: [SELECT 1]", `q.yaml:6: transaction name "t x": letters, digits`},
		{"transaction twice", "      transactions:\n        - {name: t, statements: [SELECT 1]}\n        - {name: t, statements: [SELECT 2]}", `q.yaml:7: transaction "t" appears twice`},
		{"weight", "      transactions:\n        - {name: t, weight: 0, statements: [SELECT 1]}", `q.yaml:6: workload w.sql.transactions.t.weight must be a positive number, got "0"`},
		{"no statements", "      transactions:\n        - {name: t}", "q.yaml:6: workload w.sql.transactions.t: give its statements"},
		{"vars without scripts", stmts("      vars: {x: 1}"), "q.yaml:10: workload w.sql.vars: the variables of pgbench scripts"},
		{"client_id var", "      script: tpcb-like\n      vars: {client_id: 3}", "q.yaml:6: workload w.sql.vars: client_id is refused"},
		{"scale var", "      script: tpcb-like\n      vars: {scale: 3}", "q.yaml:6: workload w.sql.vars: scale is workload w.sql.scale"},
		{"scale bound", "      script: tpcb-like\n      scale: 0", "q.yaml:6: workload w.sql.scale must be positive"},
		{"init", "      script: tpcb-like\n      init: yes", `q.yaml:6: workload w.sql.init "yes": want pgbench`},
		{"setup target unknown", stmts("      setup: [{sql: SELECT 1, targets: [nobody]}]"), "q.yaml:10: workload w: a statement for target nobody, which is not in targets"},
		{"setup target not running it", stmts("      teardown: [{sql: SELECT 1, targets: [m]}]"), "q.yaml:10: workload w: a statement for target m, which does not run it"},
		{"empty setup statement", stmts("      setup: ['  ']"), "q.yaml:10: workload w.sql.setup: an empty statement"},
		{"unknown key", stmts("      warmup: 3"), `q.yaml:10: unknown key "warmup" in workload w.sql`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := strings.Replace(base, "%s", tt.sql, 1)
			c, err := Parse("q.yaml", []byte(text))
			if err == nil {
				_, err = c.Resolve(sqlRegistry(t), false)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v\nwant containing %q\nin\n%s", err, tt.want, text)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

// TestSQLWorkloadPlace: what a sql workload may be beside the rest of a config.
func TestSQLWorkloadPlace(t *testing.T) {
	sql := "    sql: {transactions: [{name: t, statements: [SELECT 1]}]}\n"
	for _, tt := range []struct {
		name, yaml, want string
	}{
		{"named as dbbench's", "name: q\nworkloads:\n  - name: scan\n" + sql + "targets: [{adapter: sql}]\n", "q.yaml:3: workload scan: a sql workload needs a name of its own"},
		{"rows", "name: q\nworkloads:\n  - name: w\n    rows: 5\n" + sql + "targets: [{adapter: sql}]\n", "q.yaml:4: workload w: a sql workload takes name, ops and sql"},
		{"a target that runs no SQL", "name: q\nworkloads:\n  - name: w\n" + sql + "targets: [{adapter: sql}, {adapter: memory, workloads: [w]}]\n", "q.yaml:3: target memory (memory) cannot run sql workload w: its adapter runs no SQL"},
		{"no target runs it", "name: q\nworkloads:\n  - name: w\n" + sql + "targets: [{adapter: memory}]\n", "q.yaml:3: no target runs sql workload w"},
		{"ci rows", "name: q\nworkloads:\n  - name: w\n" + sql + "targets: [{adapter: sql}]\nci: {workloads: {w: {rows: 3}}}\n", "ci.workloads.w: a sql workload takes ops only"},
		{"ycsb section without YCSB", "name: q\nworkloads:\n  - name: w\n" + sql + "targets: [{adapter: sql}]\nycsb: {recordcount: 10}\n", "q.yaml:6: ycsb: applies to YCSB workloads"},
		{"profile", "name: q\nprofile: true\nworkloads:\n  - name: w\n" + sql + "targets: [{adapter: sql}]\n", "q.yaml:2: profile: true does not split the operations of sql workloads (w)"},
		{"statement figure without its transaction", "name: q\nworkloads:\n  - name: w\n" + sql + "targets: [{adapter: sql}]\nassertions: ['w.stmt1_p50[sql] <= 1s']\n", "w.stmt1_p50[sql]: a statement's figure is kept per transaction: name it, as w.TRANSACTION.stmt1_p50[sql]"},
		{"dataset still needed beside scan", "name: q\nworkloads:\n  - scan\n  - name: w\n" + sql + "targets: [{adapter: sql}]\n", "missing dataset"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("q.yaml", []byte(tt.yaml))
			if err == nil {
				_, err = c.Resolve(sqlRegistry(t), strings.Contains(tt.yaml, "ci:"))
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v\nwant containing %q", err, tt.want)
			}
		})
	}
	// \sleep is think time: refused in an open loop, from the config or --rate.
	sleepy := "name: q\nworkloads:\n  - name: w\n    sql:\n      script_text: |\n        SELECT 1;\n        \\sleep 2 ms\ntargets: [{adapter: sql}]\n"
	c, err := Parse("q.yaml", []byte(sleepy+"load: {rate: 100, duration: 1s}\n"))
	if err == nil {
		_, err = c.Resolve(sqlRegistry(t), false)
	}
	if err == nil || !strings.Contains(err.Error(), "q.yaml:9: workload w: transaction script: script_text:2: \\sleep is think time") {
		t.Errorf("\\sleep in an open loop: %v", err)
	}
	c, _ = Parse("q.yaml", []byte(sleepy))
	p, err := c.Resolve(sqlRegistry(t), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.OverrideLoad(100, 0); err == nil || p.Load.Open() {
		t.Errorf("--rate with a \\sleep: %v, open %v", err, p.Load.Open())
	}
	// A ci override of ops, and --rate on a sql workload.
	c, err = Parse("q.yaml", []byte("name: q\nworkloads:\n  - name: w\n    ops: 50\n"+sql+"targets: [{adapter: sql}]\nci: {workloads: {w: {ops: 7}}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err = c.Resolve(sqlRegistry(t), true)
	if err != nil || p.Workloads[0].Ops != 7 {
		t.Fatalf("ci ops: %v %+v", err, p)
	}
	if err := p.OverrideLoad(500, 0); err != nil || !p.Load.Open() {
		t.Errorf("--rate on a sql workload: %v", err)
	}
}

// TestSQLEveryMistake: a sql section's mistakes are reported at once, each key and each
// transaction read on its own, as the rest of the config is.
func TestSQLEveryMistake(t *testing.T) {
	text := `name: q
workloads:
  - name: w
    sql:
      scale: 0
      init: yes
      warmup: 3
      transactions:
        - {name: 't x', statements: [SELECT 1]}
        - {name: u, weight: 0, statements: [SELECT 1]}
        - {name: v}
        - {name: ok, statements: [SELECT 1]}
      setup: ['  ']
targets: [{name: s, adapter: sql}]
`
	c, err := Parse("q.yaml", []byte(text))
	if err == nil {
		_, err = c.Resolve(sqlRegistry(t), false)
	}
	want := []string{
		"q.yaml:5: workload w.sql.scale must be positive",
		`q.yaml:6: workload w.sql.init "yes": want pgbench`,
		`q.yaml:7: unknown key "warmup" in workload w.sql`,
		`q.yaml:9: transaction name "t x": letters, digits`,
		`q.yaml:10: workload w.sql.transactions.u.weight must be a positive number, got "0"`,
		"q.yaml:11: workload w.sql.transactions.v: give its statements",
		"q.yaml:13: workload w.sql.setup: an empty statement",
	}
	got := strings.Split(errText(err), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d mistakes, want %d:\n%s", len(got), len(want), errText(err))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("mistake %d: %q\nwant it to start %q", i+1, got[i], want[i])
		}
	}
}

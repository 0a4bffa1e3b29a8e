package pgbench

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestStatements: how a script's text becomes statements, as pgbench (psql's lexer) splits it, and
// how :name references become numbered parameters.
func TestStatements(t *testing.T) {
	cases := []struct {
		name, src string
		sql       []string
		params    [][]string
		lines     []int
	}{
		{"one per semicolon", "SELECT 1; SELECT 2;\nSELECT 3;\n",
			[]string{"SELECT 1;", "SELECT 2;", "SELECT 3;"}, [][]string{nil, nil, nil}, []int{1, 1, 2}},
		{"multi-line, leading comments and blank lines dropped", "-- a comment\n\n  SELECT a,\n   b -- inside\n FROM t\n WHERE x = 1;",
			[]string{"SELECT a,\n   b -- inside\n FROM t\n WHERE x = 1;"}, [][]string{nil}, []int{3}},
		{"no semicolon before a meta-command or at the end", "SELECT 1\n\\set x 1\nSELECT :x",
			[]string{"SELECT 1", "SELECT $1"}, [][]string{nil, {"x"}}, []int{1, 3}},
		{"references numbered in order, each its own", `\set a 1` + "\n" + `\set b 2` + "\nUPDATE t SET v = :a + :b WHERE k = :a;",
			[]string{"UPDATE t SET v = $1 + $2 WHERE k = $3;"}, [][]string{{"a", "b", "a"}}, []int{3}},
		{"casts and slices are not references", `\set x 1` + "\nSELECT :x::int, '1'::text, a[1:2], b:::x FROM t;",
			[]string{"SELECT $1::int, '1'::text, a[1:2], b:::x FROM t;"}, [][]string{{"x"}}, []int{2}},
		{"semicolons in quotes, identifiers, dollar quotes, comments and parentheses",
			"SELECT ';', \"a;b\", $$;$$, $f$ ; $f$, /* ; /* ; */ */ (SELECT 1; ) ;",
			[]string{"SELECT ';', \"a;b\", $$;$$, $f$ ; $f$, /* ; /* ; */ */ (SELECT 1; ) ;"}, [][]string{nil}, []int{1}},
		{"doubled quotes and E strings", `SELECT 'it''s', E'a\'b;', "x""y";`,
			[]string{`SELECT 'it''s', E'a\'b;', "x""y";`}, [][]string{nil}, []int{1}},
		{"an identifier with a dollar and a parameter are no dollar quotes", "SELECT a$b$c, $1 FROM t;",
			[]string{"SELECT a$b$c, $1 FROM t;"}, [][]string{nil}, []int{1}},
		{"lines counted through strings and comments", "SELECT 'a\nb';\n/* c\nd */\nSELECT 2;",
			[]string{"SELECT 'a\nb';", "/* c\nd */\nSELECT 2;"}, [][]string{nil, nil}, []int{1, 3}},
		{"a comment alone is no statement", "SELECT 1;\n/* trailing */\n-- end\n",
			[]string{"SELECT 1;"}, [][]string{nil}, []int{1}},
		{"a reference in a leading -- comment is ignored", "-- uses :aid\n\\set aid 1\nSELECT :aid;",
			[]string{"SELECT $1;"}, [][]string{{"aid"}}, []int{3}},
		{"names with non-ASCII letters and digits", "\\set café_2 1\nSELECT :café_2;",
			[]string{"SELECT $1;"}, [][]string{{"café_2"}}, []int{2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("t.sql", []byte(c.src), nil)
			if err != nil {
				t.Fatal(err)
			}
			var sql []string
			var params [][]string
			var lines []int
			for _, st := range s.Statements {
				sql, params, lines = append(sql, st.SQL), append(params, st.Params), append(lines, st.Line)
			}
			if !reflect.DeepEqual(sql, c.sql) || !reflect.DeepEqual(params, c.params) || !reflect.DeepEqual(lines, c.lines) {
				t.Errorf("got\n%q %q %v\nwant\n%q %q %v", sql, params, lines, c.sql, c.params, c.lines)
			}
		})
	}
}

// TestRefused: every refusal names the script, the line and the reason, on one line.
func TestRefused(t *testing.T) {
	cases := []struct {
		src  string
		line int
		want string
	}{
		{"SELECT 1;\n\\gset\n", 2, `\gset is not supported`},
		{"SELECT 1 \\gset p_\n", 1, `\gset is not supported`},
		{"SELECT 1 \\aset\n", 1, `\aset is not supported`},
		{"\n\n\\shell echo hi\n", 3, `\shell is not supported`},
		{"\\setshell x echo 1\n", 1, `\setshell is not supported`},
		{"\\startpipeline\nSELECT 1;\n\\endpipeline\n", 1, `\startpipeline is not supported`},
		{"\\endpipeline\n", 1, `\endpipeline is not supported`},
		{"\\syncpipeline\n", 1, `\syncpipeline is not supported`},
		{"\\frobnicate 1\n", 1, `\frobnicate: invalid command`},
		{"\\\n", 1, `a backslash without a meta-command`},
		{"SELECT :client_id;\n", 1, ":client_id is refused"},
		{"\\set x :client_id + 1\n", 1, ":client_id is refused"},
		{"\\set client_id 5\n", 1, ":client_id is refused"},
		{"\\sleep :client_id ms\n", 1, ":client_id is refused"},
		{"\\if :client_id = 0\n\\endif\n", 1, ":client_id is refused"},
		{"SELECT :aid;\n\\set aid 1\n", 1, `undefined variable "aid"`},
		{"\\set a :b + 1\n", 1, `undefined variable "b"`},
		{"\\set a random(1, 10)\n\\sleep :c ms\n", 2, `undefined variable "c"`},
		{"\\if :scale > 1\n\\set a 1\n\\else\nSELECT :a;\n\\endif\n", 4, `undefined variable "a"`},
		{"\\if true\n\\set a 1\n\\elif :a = 1\n\\endif\n", 3, `undefined variable "a"`},
		{"\\set x 1 +\n", 1, `\set: syntax error (unexpected end of expression)`},
		{"\\set x (1 + 2\n", 1, "syntax error"},
		{"\\set x foo(1)\n", 1, "unexpected function name (foo)"},
		{"\\set x 1 $ 2\n", 1, "unexpected character ($)"},
		{"\\set x\n", 1, `\set: missing argument`},
		{"\\set 1x 5\n", 1, `\set: invalid variable name "1x"`},
		{"\\if\n\\endif\n", 1, `\if: missing argument`},
		{"\\if true\n\\endif 1\n", 2, `\endif: unexpected argument`},
		{"\\elif true\n", 1, `\elif without matching \if`},
		{"\\else\n", 1, `\else without matching \if`},
		{"\\endif\n", 1, `\endif without matching \if`},
		{"\\if true\n\\else\n\\else\n\\endif\n", 3, `\else after \else`},
		{"\\if true\n\\else\n\\elif false\n\\endif\n", 3, `\elif after \else`},
		{"SELECT 1;\n\\if true\n\\if false\n\\endif\n", 2, `\if without matching \endif`},
		{"\\sleep\n", 1, `\sleep: missing argument`},
		{"\\sleep 1 ms 2\n", 1, `\sleep: too many arguments`},
		{"\\sleep 10 min\n", 1, `unrecognized time unit "min"`},
		{"\\sleep 10xs\n", 1, `unrecognized time unit "xs"`},
		{"\\sleep ten\n", 1, `invalid sleep time "ten"`},
		{"\\sleep 10ms s\n", 1, `invalid sleep time "10ms"`},
		{"\\set x 1\nSELECT ':x';\n", 2, "variable :x inside a quoted string"},
		{"\\set x 1\nSELECT 1 AS \"a:x\";\n", 2, "variable :x inside a quoted identifier"},
		{"\\set x 1\nSELECT $$ :x $$;\n", 2, "variable :x inside a dollar-quoted string"},
		{"\\set x 1\nSELECT 1\n  -- about :x\n  ;\n", 3, "variable :x inside a comment"},
		{"\\set x 1\nSELECT 1 /* :x */;\n", 2, "variable :x inside a comment"},
		{"SELECT 1 \\; SELECT 2;\n", 1, `\; is not supported`},
		{"SELECT 'abc;\n", 1, "unterminated quoted string"},
		{"SELECT \"abc;\n", 1, "unterminated quoted identifier"},
		{"SELECT $x$ abc;\n", 1, "unterminated dollar-quoted string"},
		{"SELECT 1;\n/* abc\n", 2, "unterminated /* comment"},
		{"\\set x 1\nSELECT " + strings.Repeat(":x,", 256) + "1;\n", 2, "too many variable references (maximum is 255)"},
		{"", 1, "the script has no commands"},
		{"-- only a comment\n\n", 1, "the script has no commands"},
	}
	for _, c := range cases {
		_, err := Parse("t.sql", []byte(c.src), nil)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: error %v, want an *Error", c.src, err)
			continue
		}
		if e.Script != "t.sql" || e.Line != c.line || !strings.Contains(e.Msg, c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %q (line %d), want line %d and %q", c.src, err, e.Line, c.line, c.want)
		}
		if want := fmt.Sprintf("t.sql:%d: ", c.line); !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %q does not start with %q", c.src, err, want)
		}
	}
}

// TestDefinedVariables: the config's variables and the predefined ones may be read without a
// \set; a variable some \if branch sets may be read after it (and fails when drawn on a path that
// did not set it).
func TestDefinedVariables(t *testing.T) {
	if _, err := Parse("t.sql", []byte("SELECT :scale, :default_seed, :random_seed, :n;"), []string{"n"}); err != nil {
		t.Fatal(err)
	}
	src := "\\set c random(0, 1)\n\\if :c = 1\n\\set a 5\n\\endif\nSELECT :a;\n"
	s, err := Parse("t.sql", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGenerator(s, Config{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ok, failed := 0, 0
	for k := range uint64(200) {
		op, err := g.Draw(k)
		switch {
		case err == nil && op.Steps[0].Args[0] == int64(5):
			ok++
		case err != nil && err.Error() == `t.sql:5: statement: parameter :a: undefined variable "a" (only some branch sets it)`:
			failed++
		default:
			t.Fatalf("operation %d: %v %v", k, op, err)
		}
	}
	if ok < 70 || failed < 70 {
		t.Errorf("%d operations set a, %d did not: expected about half each", ok, failed)
	}
}

// steps renders an operation's steps for comparison.
func steps(op Op) []string {
	var out []string
	for _, s := range op.Steps {
		if s.Stmt == nil {
			out = append(out, "sleep "+s.Sleep.String())
		} else {
			out = append(out, fmt.Sprintf("%s %v", s.Stmt.SQL, s.Args))
		}
	}
	return out
}

// TestConditionals: \if, \elif and \else choose by the evaluated condition (non-zero numbers and
// TRUE are true; zero, FALSE and NULL false), nested blocks included.
func TestConditionals(t *testing.T) {
	src := `\if :v = 1
SELECT 'one';
\elif :v = 2
  \if :w
SELECT 'two, w';
  \else
SELECT 'two, not w';
  \endif
\elif :v
SELECT 'other, true';
\else
SELECT 'zero or null';
\endif
SELECT 'end';
`
	cases := []struct {
		v, w Value
		want string
	}{
		{Int(1), Int(0), "SELECT 'one';"},
		{Int(2), Int(7), "SELECT 'two, w';"},
		{Int(2), Bool(false), "SELECT 'two, not w';"},
		{Int(2), Null(), "SELECT 'two, not w';"},
		{Int(3), Int(0), "SELECT 'other, true';"},
		{Double(0.5), Int(0), "SELECT 'other, true';"},
		{Int(0), Int(0), "SELECT 'zero or null';"},
		{Null(), Int(0), "SELECT 'zero or null';"},
	}
	for _, c := range cases {
		op, err := run(t, src, map[string]Value{"v": c.v, "w": c.w}, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{c.want + " []", "SELECT 'end'; []"}
		if got := steps(op); !reflect.DeepEqual(got, want) {
			t.Errorf("v=%s w=%s: %q, want %q", c.v, c.w, got, want)
		}
	}
}

// TestSleep: \sleep's units, its variable form, the sum as think time, and the steps in order.
func TestSleep(t *testing.T) {
	src := "\\sleep 2\nSELECT 1;\n\\sleep 3 ms\n\\sleep 40us\n\\set d 250\n\\sleep :d MS\n\\set neg -5\n\\sleep :neg s\n\\set half 2.9\n\\sleep :half us\nSELECT 2;\n"
	op, err := run(t, src, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"sleep 2s", "SELECT 1; []", "sleep 3ms", "sleep 40µs", "sleep 250ms", "sleep 0s", "sleep 2µs", "SELECT 2; []"}
	if got := steps(op); !reflect.DeepEqual(got, want) {
		t.Errorf("steps %q, want %q", got, want)
	}
	if want := 2*time.Second + 3*time.Millisecond + 40*time.Microsecond + 250*time.Millisecond + 2*time.Microsecond; op.Think != want {
		t.Errorf("think time %v, want %v", op.Think, want)
	}
	for _, c := range []struct {
		v    Value
		want string
	}{
		{Bool(true), `t.sql:1: \sleep: invalid sleep time "true" for variable "d"`},
		{Null(), `t.sql:1: \sleep: invalid sleep time "NULL" for variable "d"`},
		{Text("abc"), `t.sql:1: \sleep: malformed variable "d" value: "abc"`},
		{Int(1 << 60), `t.sql:1: \sleep: sleep time 1152921504606846976 out of range`},
	} {
		if _, err := run(t, "\\sleep :d s\n", map[string]Value{"d": c.v}, 0); err == nil || err.Error() != c.want {
			t.Errorf("\\sleep :d with d = %s: %v, want %s", c.v, err, c.want)
		}
	}
	if op, err := run(t, "\\sleep :d ms\n", map[string]Value{"d": Text("15")}, 0); err != nil || op.Think != 15*time.Millisecond {
		t.Errorf("\\sleep :d with text 15: %v %v", op.Think, err)
	}
}

// TestEvalErrors: an expression failing when drawn names the line and the command.
func TestEvalErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"SELECT 1;\n\\set x 1 / (:scale - 1)\n", `t.sql:2: \set x: division by zero`},
		{"\\if 1 / 0 = 1\n\\endif\n", `t.sql:1: \if: division by zero`},
		{"\\set x random(10, 1)\n", `t.sql:1: \set x: empty range given to random`},
		{"\\set x abs(true)\n", `t.sql:1: \set x: cannot coerce boolean to double`}, // pgbench reads a boolean's bytes as a double
		{"\\set x random_gaussian(1, 10, sqrt(-1))\n", `t.sql:1: \set x: gaussian parameter must be finite (not NaN)`},
		{"\\set x random_zipfian(1, 10, sqrt(-1))\n", `t.sql:1: \set x: zipfian parameter must be in range [1.001, 1000] (not NaN)`},
	} {
		if _, err := run(t, c.src, nil, 0); err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %s", c.src, err, c.want)
		}
	}
}

// TestVariables: the config's values (typed or text, as pgbench's -D), the predefined defaults, and
// what NewGenerator refuses.
func TestVariables(t *testing.T) {
	src := "SELECT :scale, :n, :t, :b, :d;\n\\set m :t * 2\nSELECT :m;\n"
	op, err := run(t, src, map[string]Value{"n": Int(3), "t": Text(" 21"), "b": Text("ye"), "d": Double(0.25)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SELECT $1, $2, $3, $4, $5; [1 3  21 ye 0.25]", "SELECT $1; [42]"}
	if got := steps(op); !reflect.DeepEqual(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
	if op, err := run(t, "SELECT :scale;", map[string]Value{"scale": Int(10)}, 0); err != nil || op.Steps[0].Args[0] != int64(10) {
		t.Errorf("scale 10: %v %v", op, err)
	}
	if _, err := run(t, "\\set b :t\n", map[string]Value{"t": Text("maybe")}, 0); err == nil || !strings.Contains(err.Error(), `malformed variable "t" value: "maybe"`) {
		t.Errorf("malformed text: %v", err)
	}
	s, _ := Parse("t.sql", []byte("SELECT 1;"), nil)
	for vars, want := range map[*map[string]Value]string{
		{"client_id": Int(0)}: "client_id: refused",
		{"9lives": Int(0)}:    `"9lives": invalid name`,
		{"x": {}}:             "x: no value",
	} {
		if _, err := NewGenerator(s, Config{Vars: *vars, Seed: 1}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want %q", *vars, err, want)
		}
	}
}

// TestSeeds: operation k is a function of the seed and k alone (order of drawing, other generators
// and concurrent draws change nothing); another k or another seed draws other values; hash's
// default seed follows the run's seed unless the config fixes default_seed.
func TestSeeds(t *testing.T) {
	s, err := Builtin(TPCBLike)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]Value{ScaleVar: Int(10)}
	g1, _ := NewGenerator(s, Config{Vars: vars, Seed: 99})
	g2, _ := NewGenerator(s, Config{Vars: vars, Seed: 99})
	g3, _ := NewGenerator(s, Config{Vars: vars, Seed: 100})
	forward := map[uint64][]string{}
	for k := range uint64(50) {
		op, err := g1.Draw(k)
		if err != nil {
			t.Fatal(err)
		}
		forward[k] = steps(op)
	}
	done := make(chan struct{})
	for w := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for k := uint64(49); k < 50; k-- { // backwards, four at a time
				if op, _ := g2.Draw(k); !reflect.DeepEqual(steps(op), forward[k]) {
					t.Errorf("worker %d: operation %d differs when drawn again", w, k)
					return
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	same, sameSeed := 0, 0
	for k := range uint64(49) {
		if reflect.DeepEqual(forward[k], forward[k+1]) {
			same++
		}
		if op, _ := g3.Draw(k); reflect.DeepEqual(steps(op), forward[k]) {
			sameSeed++
		}
	}
	if same > 0 || sameSeed > 0 {
		t.Errorf("%d consecutive operations alike, %d alike under another seed", same, sameSeed)
	}

	hash := func(seed int64, vars map[string]Value) any {
		s, _ := Parse("h.sql", []byte("\\set h hash(12345)\n\\set e hash(12345, :default_seed)\n\\if :h <> :e\nSELECT 1/0;\n\\endif\nSELECT :h;"), nil)
		g, _ := NewGenerator(s, Config{Vars: vars, Seed: seed})
		op, err := g.Draw(0)
		if err != nil || op.Steps[0].Stmt.SQL != "SELECT $1;" {
			t.Fatalf("hash: %v %v", steps(op), err)
		}
		return op.Steps[0].Args[0]
	}
	if hash(1, nil) != hash(1, nil) || hash(1, nil) == hash(2, nil) {
		t.Error("hash's default seed does not follow the run's seed")
	}
	fixed := map[string]Value{DefaultSeedVar: Int(5432)}
	if hash(1, fixed) != hash(2, fixed) || hash(1, fixed) != hashMurmur2(12345, 5432) {
		t.Error("default_seed from the config is not hash's seed")
	}
}

// TestParseStatement: one statement of a YAML sql workload, with the same reference rules.
func TestParseStatement(t *testing.T) {
	st, err := ParseStatement("  SELECT * FROM t WHERE a = :a AND b = :b::int;  ")
	if err != nil || st.SQL != "SELECT * FROM t WHERE a = $1 AND b = $2::int;" || !reflect.DeepEqual(st.Params, []string{"a", "b"}) {
		t.Errorf("%+v %v", st, err)
	}
	for text, want := range map[string]string{
		"":                          "no statement",
		"-- nothing":                "no statement",
		"SELECT 1; SELECT 2;":       "line 1: a second statement",
		"SELECT 1 \\gset":           "line 1: a backslash outside quotes",
		"SELECT ':a'":               "line 1: variable :a inside a quoted string",
		"SELECT 1;\n\nSELECT 'x":    "line 3: unterminated quoted string",
		"SELECT\n1;\n\nSELECT 2;\n": "line 4: a second statement",
	} {
		if _, err := ParseStatement(text); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

// BenchmarkDraw: drawing one tpcb-like operation (the engine draws it, untimed, on the claim the
// open loop's workers take in turn).
func BenchmarkDraw(b *testing.B) {
	s, err := Builtin(TPCBLike)
	if err != nil {
		b.Fatal(err)
	}
	g, err := NewGenerator(s, Config{Vars: map[string]Value{ScaleVar: Int(10)}, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for k := range uint64(b.N) {
		if _, err := g.Draw(k); err != nil {
			b.Fatal(err)
		}
	}
}

// TestContinuation: a backslash at a line's end continues a meta-command (an expression, a \sleep's
// unit) on the next line; the lines after it keep their numbers; a statement keeps its text as
// written beside the prepared form.
func TestContinuation(t *testing.T) {
	src := "\\set a 2 * \\\n   (3 + \\\r\n 4)\n\\sleep 5 \\\nms\nSELECT :a, -- the product\n  :a;\n\\set b 1 / 0\n"
	s, err := Parse("t.sql", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	st := s.Statements[0]
	if st.Line != 6 || st.Text != "SELECT :a, -- the product\n  :a;" || st.SQL != "SELECT $1, -- the product\n  $2;" {
		t.Errorf("statement: line %d, text %q, SQL %q", st.Line, st.Text, st.SQL)
	}
	g, _ := NewGenerator(s, Config{Seed: 1})
	if _, err := g.Draw(0); err == nil || err.Error() != `t.sql:8: \set b: division by zero` {
		t.Errorf("the error after the continued lines: %v", err)
	}
	s.prog = s.prog[:len(s.prog)-1] // without the failing \set
	op, err := g.Draw(0)
	if err != nil || op.Think != 5*time.Millisecond || !reflect.DeepEqual(op.Steps[1].Args, []any{int64(14), int64(14)}) {
		t.Errorf("%v %v %v", op.Think, steps(op), err)
	}
}

package pgbench

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The fuzz targets require that no input makes the parser or the evaluator panic or hang, that every
// error is one line naming the script, and that a parsed statement has one parameter per reference.
// Run them with, for example:
//
//	go test ./workloads/pgbench -run '^$' -fuzz FuzzParse -fuzztime 30s
//	go test ./workloads/pgbench -run '^$' -fuzz FuzzExpr -fuzztime 30s

func FuzzParse(f *testing.F) {
	for _, n := range Builtins() {
		text, _ := BuiltinText(n)
		f.Add(text)
	}
	for _, s := range []string{
		"\\if :scale > 1\n\\set a random_zipfian(1, 10, 1.5)\n\\elif false\n\\sleep 1 ms\n\\else\n\\set a 2\n\\endif\nSELECT :a;",
		"SELECT ';', $$;$$, E'\\';', \"a\"\"b\", /* /* */ */ (1;2);\n\\set x hash(1)\n\\sleep :x us\n",
		"\\set x 1 + \\\n 2\nSELECT :x::int, a[1:2];",
		"SELECT ':x';", "\\gset", "\\set client_id 1", "\\set x permute(1, 10)\nSELECT :x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse("f.sql", []byte(src), []string{"n"})
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "f.sql:") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q: not one line naming the script", msg)
			}
			return
		}
		for _, st := range s.Statements {
			for i := range st.Params {
				if !strings.Contains(st.SQL, "$"+strconv.Itoa(i+1)) {
					t.Fatalf("%q: no $%d for parameter %s", st.SQL, i+1, st.Params[i])
				}
			}
		}
		g, err := NewGenerator(s, Config{Vars: map[string]Value{"n": Text("7")}, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for k := range uint64(3) {
			if _, err := g.Draw(k); err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
		}
	})
}

func FuzzExpr(f *testing.F) {
	if file, err := os.Open(exprFile); err == nil {
		sc := bufio.NewScanner(file)
		for sc.Scan() {
			if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
				e, _, _ := strings.Cut(l, "\t")
				f.Add(e)
			}
		}
		file.Close()
	}
	f.Fuzz(func(t *testing.T, expr string) {
		if strings.ContainsAny(expr, "\n\\") {
			return // one expression on one line: FuzzParse covers the rest
		}
		s, err := Parse("e.sql", []byte(`\set x `+expr+"\nSELECT :x;"), []string{"n"})
		if err != nil {
			return
		}
		g, err := NewGenerator(s, Config{Vars: map[string]Value{"n": Int(-3)}, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		op, err := g.Draw(0)
		if err == nil && len(op.Steps) != 1 {
			t.Fatalf("%q: %d steps", expr, len(op.Steps))
		}
	})
}

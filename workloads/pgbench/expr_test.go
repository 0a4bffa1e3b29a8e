package pgbench

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

var update = flag.Bool("update", false, "rewrite testdata/expressions.txt's results by running the installed PostgreSQL 15 pgbench")

const exprFile = "testdata/expressions.txt"

const exprHeader = `# Deterministic pgbench expressions and what PostgreSQL 15's pgbench makes of them, one a line:
# EXPRESSION <tab> RESULT. RESULT is what debug() printed ("int 5", "double 2.5", "boolean true",
# "null"), "syntax error: MESSAGE" for a script pgbench refused, or "error: MESSAGE" for one it
# aborted when evaluating it. Made by
#   go test ./workloads/pgbench -run TestExpressions -update
# which runs, for each expression E, the script "\set x debug(E)" with
# "pgbench -n -t 1 -f SCRIPT" against a throwaway PostgreSQL (internal/postgres/pgtest).
# Add an expression on a line of its own and run that command to record its result.
`

type exprCase struct{ expr, want string }

func readExprs(t *testing.T) []exprCase {
	t.Helper()
	f, err := os.Open(exprFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []exprCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		e, w, _ := strings.Cut(l, "\t")
		cases = append(cases, exprCase{e, w})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// pgbenchResult runs "\set x debug(expr)" once through pgbench and reads what it printed.
func pgbenchResult(t *testing.T, bin, dsn, dir, expr string) string {
	t.Helper()
	script := filepath.Join(dir, "e.sql")
	if err := os.WriteFile(script, []byte(`\set x debug(`+expr+")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, bin, "-n", "-t", "1", "-f", script, dsn).CombinedOutput()
	var last, firstErr string
	for _, l := range strings.Split(string(out), "\n") {
		if _, v, ok := strings.Cut(l, "debug(script=0,command=1): "); ok {
			last = v
		}
		if m, ok := strings.CutPrefix(l, "pgbench: error: "); ok && firstErr == "" {
			firstErr = m
		}
	}
	switch {
	case strings.HasPrefix(firstErr, script+":1: "):
		m := strings.TrimSuffix(strings.TrimPrefix(firstErr, script+":1: "), ` in command "set"`)
		return "syntax error: " + m
	case firstErr != "":
		return "error: " + firstErr
	case last != "":
		return last
	}
	t.Fatalf("pgbench printed neither a value nor an error for %q:\n%s", expr, out)
	return ""
}

// dbbenchResult evaluates the expression through the package's API: "\set x debug(E)" and a
// statement reading :x, whose argument is the value.
func dbbenchResult(expr string) (string, error) {
	s, err := Parse("e.sql", []byte(`\set x debug(`+expr+")\nSELECT :x;\n"), nil)
	if err != nil {
		return "", err
	}
	g, err := NewGenerator(s, Config{Seed: 1})
	if err != nil {
		return "", err
	}
	op, err := g.Draw(0)
	if err != nil {
		return "", err
	}
	switch v := op.Steps[0].Args[0].(type) {
	case nil:
		return "null", nil
	case bool:
		return Bool(v).debugString(), nil
	case int64:
		return Int(v).debugString(), nil
	case float64:
		return Double(v).debugString(), nil
	default:
		return fmt.Sprintf("%T %v", v, v), nil
	}
}

// TestExpressions evaluates every expression of testdata/expressions.txt and compares the value (its
// type and pgbench's text form) or the error (pgbench's message must be in dbbench's) with what the
// real pgbench gave. A syntax error pgbench reports when parsing may be found when evaluating here
// and the other way round (dbbench refuses more before running: an undefined variable, least with
// more than 16 arguments); only the message counts.
func TestExpressions(t *testing.T) {
	cases := readExprs(t)
	if len(cases) < 150 {
		t.Fatalf("%s holds %d expressions, expected at least 150", exprFile, len(cases))
	}
	if *update {
		bin, why := pgbench15(t)
		if bin == "" {
			t.Fatal(why)
		}
		dsn := pgtest.NewDatabase(t)
		dir := t.TempDir()
		var b strings.Builder
		b.WriteString(exprHeader)
		for i := range cases {
			cases[i].want = pgbenchResult(t, bin, dsn, dir, cases[i].expr)
			fmt.Fprintf(&b, "%s\t%s\n", cases[i].expr, cases[i].want)
		}
		if err := os.WriteFile(exprFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	values, errs := 0, 0
	for _, c := range cases {
		got, err := dbbenchResult(c.expr)
		switch {
		case c.want == "":
			t.Errorf("%q: no recorded result (run with -update)", c.expr)
		case strings.HasPrefix(c.want, "error: ") || strings.HasPrefix(c.want, "syntax error: "):
			errs++
			_, msg, _ := strings.Cut(c.want, "error: ")
			if err == nil {
				t.Errorf("%q: got %s, pgbench: %s", c.expr, got, c.want)
			} else if !strings.Contains(err.Error(), msg) {
				t.Errorf("%q: error %q does not say pgbench's %q", c.expr, err, msg)
			} else if strings.Count(err.Error(), "\n") > 0 {
				t.Errorf("%q: error of more than one line: %q", c.expr, err)
			}
		default:
			values++
			if err != nil {
				t.Errorf("%q: %v, pgbench: %s", c.expr, err, c.want)
			} else if got != c.want {
				t.Errorf("%q = %s, pgbench: %s", c.expr, got, c.want)
			}
		}
	}
	t.Logf("%d values and %d errors as pgbench has them", values, errs)
}

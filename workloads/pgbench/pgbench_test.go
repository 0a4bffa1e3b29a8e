package pgbench

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// pgbench15 finds PostgreSQL 15's pgbench, or says why not.
func pgbench15(t *testing.T) (string, string) {
	t.Helper()
	var cands []string
	if p, err := exec.LookPath("pgbench"); err == nil {
		cands = append(cands, p)
	}
	more, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
	sort.Sort(sort.Reverse(sort.StringSlice(more)))
	cands = append(cands, more...)
	var seen []string
	for _, p := range cands {
		out, err := exec.Command(p, "--version").Output()
		if err != nil {
			continue
		}
		v := strings.TrimSpace(string(out))
		if regexp.MustCompile(`\(PostgreSQL\) 15\.`).MatchString(v) {
			return p, ""
		}
		seen = append(seen, p+": "+v)
	}
	if len(seen) == 0 {
		return "", "no pgbench installed (PostgreSQL 15's is at /usr/lib/postgresql/15/bin/pgbench on Debian)"
	}
	return "", "no PostgreSQL 15 pgbench: " + strings.Join(seen, "; ")
}

// TestBuiltinText: the embedded built-in scripts are, byte for byte, what PostgreSQL 15's pgbench
// prints with --show-script (after its first line, a comment naming the script, and with the blank
// line it ends with).
func TestBuiltinText(t *testing.T) {
	if got, want := Builtins(), []string{SelectOnly, SimpleUpdate, TPCBLike}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Builtins() = %v, want %v", got, want)
	}
	bin, why := pgbench15(t)
	if bin == "" {
		t.Skip(why)
	}
	for _, name := range Builtins() {
		out, err := exec.Command(bin, "--show-script="+name).CombinedOutput()
		if err != nil {
			t.Fatalf("pgbench --show-script=%s: %v: %s", name, err, out)
		}
		text, _ := BuiltinText(name)
		want := "-- " + name + ": " + builtinDesc[name] + "\n" + text + "\n"
		if string(out) != want {
			t.Errorf("%s: embedded text differs from pgbench's:\n--- pgbench\n%s--- embedded\n%s", name, out, want)
		}
	}
}

// TestBuiltinsParse: each built-in parses, reads only :scale, and draws the statements pgbench
// describes, their parameters numbered in order.
func TestBuiltinsParse(t *testing.T) {
	want := map[string][]string{
		TPCBLike: {"BEGIN;", "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;",
			"SELECT abalance FROM pgbench_accounts WHERE aid = $1;",
			"UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2;",
			"UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2;",
			"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP);", "END;"},
		SimpleUpdate: {"BEGIN;", "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;",
			"SELECT abalance FROM pgbench_accounts WHERE aid = $1;",
			"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP);", "END;"},
		SelectOnly: {"SELECT abalance FROM pgbench_accounts WHERE aid = $1;"},
	}
	for name, stmts := range want {
		s, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, st := range s.Statements {
			if st.Index != i {
				t.Errorf("%s: statement %d has Index %d", name, i, st.Index)
			}
			got = append(got, st.SQL)
		}
		if strings.Join(got, "\n") != strings.Join(stmts, "\n") {
			t.Errorf("%s statements:\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(stmts, "\n"))
		}
	}
	if s, _ := Builtin(TPCBLike); strings.Join(s.Statements[5].Params, ",") != "tid,bid,aid,delta" || s.Statements[5].Line != 10 {
		t.Errorf("tpcb-like's insert: params %v, line %d", s.Statements[5].Params, s.Statements[5].Line)
	}
	if _, err := Builtin("tpcb"); err == nil || !strings.Contains(err.Error(), "select-only, simple-update, tpcb-like") {
		t.Errorf("an unknown built-in: %v", err)
	}
}

// run draws operation k of a script with the given variables.
func run(t *testing.T, src string, vars map[string]Value, k uint64) (Op, error) {
	t.Helper()
	var names []string
	for n := range vars {
		names = append(names, n)
	}
	s, err := Parse("t.sql", []byte(src), names)
	if err != nil {
		return Op{}, err
	}
	g, err := NewGenerator(s, Config{Vars: vars, Seed: 7})
	if err != nil {
		return Op{}, err
	}
	return g.Draw(k)
}

package commands

import (
	"strings"
	"testing"

	"github.com/dbbench/dbbench/internal/exitcode"
)

// TestSQLWorkloadExits: a pgbench script with \shell is refused by validate with the script's line
// (exit 2); a run whose statement's expect fails is a failed verification (exit 3); one whose
// checks hold passes.
func TestSQLWorkloadExits(t *testing.T) {
	dir := t.TempDir()
	cfg := func(script string) string {
		return "name: s\nwarmup: 0\nrepeats: 1\nverdict: {runs: 1}\nworkloads:\n  - name: q\n    ops: 20\n    sql:\n      script_text: |\n" + script +
			"targets: [{name: lite, adapter: sql, options: {storage: memory}}]\n"
	}
	shell := writeFile(t, dir, "shell.yaml", cfg("        SELECT 1;\n        \\shell echo hi\n"))
	code, _, errOut := execute(t, "validate", "-c", shell)
	if code != exitcode.Usage || !strings.Contains(errOut, "shell.yaml:11: workload q.sql: transaction script: script_text line 2: \\shell is not supported") {
		t.Errorf("validate a script with \\shell: exit %d, %s", code, errOut)
	}
	yamlStatements := func(expect string) string {
		return "name: e\nwarmup: 0\nrepeats: 1\nverdict: {runs: 1}\nworkloads:\n  - name: q\n    ops: 20\n    sql:\n" +
			"      transactions: [{name: one, statements: [{sql: SELECT 1, expect: {rows: " + expect + "}}]}]\n" +
			"targets: [{name: lite, adapter: sql, options: {storage: memory}}]\n"
	}
	bad := writeFile(t, dir, "bad.yaml", yamlStatements("2"))
	code, _, errOut = execute(t, "run", "-q", "-c", bad, "--out", dir+"/bad.json")
	if code != exitcode.Infra || !strings.Contains(errOut, "verification failed: transaction one, statement 1 (line 9) with arguments (): 1 row, expected 2 rows") {
		t.Errorf("run with a failing expect: exit %d, %s", code, errOut)
	}
	good := writeFile(t, dir, "good.yaml", yamlStatements("1"))
	if code, _, errOut = execute(t, "run", "-q", "-c", good, "--out", dir+"/good.json"); code != exitcode.OK {
		t.Errorf("run with its checks holding: exit %d, %s", code, errOut)
	}
}

package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/report"
)

// A sql workload's load block: its checks in words, and a table of its statements (pgbench -r's):
// per transaction and statement the executions, failures and times, the text on one line, cut.
func TestStatementsTable(t *testing.T) {
	h := report.NewHistogram()
	for _, v := range []int64{40_000, 50_000, 60_000, 900_000} {
		_ = h.RecordValue(v)
	}
	long := "SELECT abalance\n  FROM pgbench_accounts\n WHERE aid = :aid AND abalance > 0 AND bid IN (1, 2, 3, 4, 5)"
	r := &report.Report{Results: []report.Result{{
		Target: "pg", Workload: "bank", Size: 1, Status: report.StatusOK,
		Load: &report.Load{Loop: "closed", Workers: 4, Completed: 4, Types: []report.LoadType{{Op: "tpcb-like", Count: 4}},
			Checks: report.LoadChecks{Expects: 12, Comparisons: 30, FirstResults: 5},
			Statements: []report.LoadStatement{
				report.NewLoadStatement("tpcb-like", 1, 6, "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;", h, 1),
				report.NewLoadStatement("tpcb-like", 2, 7, long, h, 0),
				report.NewLoadStatement("read", 1, 20, "SELECT 1", report.NewHistogram(), 3),
			}},
	}}}
	var b bytes.Buffer
	Loads(&b, r, Style{})
	out := b.String()
	for _, want := range []string{
		"checks: 12 results against their statement's expect, 30 results of check: same against the first with the same",
		"OP         STMT  LINE  COUNT  ERRORS   MEAN     P50    P99  STATEMENT",
		"tpcb-like     1     6      4       1  262µs  50.0µs  900µs  UPDATE pgbench_accounts SET abalance = abalance + :delta ...",
		"              2     7      4       0  262µs  50.0µs  900µs  SELECT abalance FROM pgbench_accounts WHERE aid = :aid AN...",
		"read          1    20      0       3      -       -      -  SELECT 1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no line %q in\n%s", want, out)
		}
	}
}

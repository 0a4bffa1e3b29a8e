package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	sqladapter "github.com/dbbench/dbbench/adapters/sql"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/schema"
)

// sqlPlan resolves a config of sql workloads against the sql adapter (and the memory one).
func sqlPlan(t *testing.T, y string) *config.Plan {
	t.Helper()
	_, p := resolvePlan(t, "sql.yaml", y, sqladapter.New())
	p.Verdict.Runs = 1
	return p
}

func runSQLPlan(t *testing.T, p *config.Plan) *report.Report {
	t.Helper()
	r := &Runner{Plan: p, TempDir: t.TempDir(), Environment: func() report.Environment { return report.Environment{} }}
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(schema.Report, b); err != nil {
		t.Errorf("the report does not match its schema: %v", err)
	}
	return rep
}

const accountsSetup = `      setup:
        - CREATE TABLE acct (id integer PRIMARY KEY, owner integer NOT NULL, n integer NOT NULL)
        - INSERT INTO acct (id, owner, n) SELECT i, i % 10, 0 FROM (WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 100) SELECT i FROM s) AS q
        - CREATE TABLE five (x integer CHECK (x <> 5))
`

// TestSQLWorkloadSQLite: a mix of transactions on SQLite, closed loop of two workers, warm-up and
// repeats: every transaction and statement has its figures, the checks ran and were counted, a
// transaction whose second statement fails rolled back its first (a check of another transaction
// reads that it did) and counts one error, and the figures name what they measure.
func TestSQLWorkloadSQLite(t *testing.T) {
	p := sqlPlan(t, `name: s
warmup: 1
repeats: 2
load: {workers: 2, max_error_rate: 0.5}
workloads:
  - name: bank
    ops: 400
    sql:
`+accountsSetup+`      teardown: [DROP TABLE five, DROP TABLE acct]
      params:
        id: {kind: uniform, min: 1, max: 10}
        owner: {kind: uniform, min: 0, max: 9}
      transactions:
        - name: by-owner
          weight: 4
          statements:
            - sql: SELECT id, n FROM acct WHERE owner = :owner ORDER BY id
              expect: {rows: 10}
            - sql: SELECT count(*), sum(id) FROM acct WHERE owner = :owner
              check: same
        - name: bump
          weight: 4
          statements:
            - UPDATE acct SET n = n + 1 WHERE id = :id
            - INSERT INTO five (x) VALUES (:id)
        - name: five-untouched
          weight: 2
          statements:
            - sql: SELECT id FROM acct WHERE id = 5 AND n = 0
              expect: {rows: 1}
targets: [{name: lite, adapter: sql}]
`)
	rep := runSQLPlan(t, p)
	res := rep.Find("lite", "bank", 0)
	if res == nil || res.Status != report.StatusOK || res.Load == nil {
		t.Fatalf("result %+v", res)
	}
	l := res.Load
	if l.Loop != "closed" || l.Workers != 2 || len(l.Types) != 3 || l.Completed+l.Errors != 400 {
		t.Errorf("load %+v", l)
	}
	if len(res.Repeats) != 2 {
		t.Fatalf("%d repeats", len(res.Repeats))
	}
	f := res.Repeats[0].Figures
	// bump fails for id 5 (one in ten): its insert's check constraint; its update is rolled back.
	if f["bump.errors"] == 0 || f["bump.stmt2_errors"] != f["bump.errors"] || f["bump.stmt1_errors"] != 0 {
		t.Errorf("bump's errors: %v, statement 1's %v, statement 2's %v", f["bump.errors"], f["bump.stmt1_errors"], f["bump.stmt2_errors"])
	}
	for _, name := range []string{"by-owner.stmt1_mean", "by-owner.stmt2_p99", "bump.stmt1_p50", "five-untouched.stmt1_mean", "by-owner.response_p99", "bump.service_p50", "ops_per_s", "error_rate"} {
		if v, ok := f[name]; !ok || v <= 0 {
			t.Errorf("figure %s = %v, %v", name, v, ok)
		}
	}
	if _, ok := f["start_lag_p99"]; ok {
		t.Error("a closed loop has no start lag")
	}
	c := l.Checks
	if c.Expects == 0 || c.Comparisons == 0 || c.FirstResults == 0 || c.FirstResults > 10 {
		t.Errorf("checks %+v: expects and comparisons made, at most 10 first results (one per owner)", c)
	}
	if len(l.Statements) != 5 {
		t.Fatalf("statements %+v", l.Statements)
	}
	s := l.Statements[0]
	if s.Op != "by-owner" || s.Index != 1 || s.Line != 21 || !strings.HasPrefix(s.Text, "SELECT id, n FROM acct") || s.Count == 0 || s.Latency["mean"] <= 0 {
		t.Errorf("statement 1: %+v", s)
	}
	// Every transaction's statements ran as often as it completed (the failed ones apart).
	for _, ty := range l.Types {
		for _, st := range l.Statements {
			if st.Op == ty.Op && st.Index == 1 && st.Count != ty.Count+ty.Errors {
				t.Errorf("%s: statement 1 ran %d times, the transaction %d", ty.Op, st.Count, ty.Count+ty.Errors)
			}
		}
	}
	if !res.Verification.OK || !strings.Contains(res.Verification.Method, "check: same") {
		t.Errorf("verification %+v", res.Verification)
	}
}

// TestSQLThinkTime: a script's \sleep is think time, outside every clock: the operations' times
// hold the statements alone, while the run lasts the sleeps.
func TestSQLThinkTime(t *testing.T) {
	p := sqlPlan(t, `name: s
warmup: 0
repeats: 1
workloads:
  - name: think
    ops: 20
    sql:
      script_text: |
        SELECT 1;
        \sleep 25 ms
        SELECT 2;
targets: [{name: lite, adapter: sql, options: {storage: memory}}]
`)
	rep := runSQLPlan(t, p)
	res := rep.Find("lite", "think", 0)
	if res == nil || res.Status != report.StatusOK {
		t.Fatalf("%+v", res)
	}
	f := res.Repeats[0].Figures
	if f["elapsed"] < float64(20*25*time.Millisecond) {
		t.Errorf("elapsed %v: the 20 sleeps of 25 ms did not happen", time.Duration(f["elapsed"]))
	}
	if f["response_p99"] >= float64(20*time.Millisecond) || f["service_p50"] >= float64(20*time.Millisecond) {
		t.Errorf("response p99 %v, service p50 %v: the sleep is counted", time.Duration(f["response_p99"]), time.Duration(f["service_p50"]))
	}
}

// deleteMidRun is a check that a row another connection deletes during a run is caught: expect or
// check: same. Its workload reads 20 rows by id for 1.5 s; the test's own connection deletes one
// once the table is there, and the result fails as a failed verification.
type deleteMidRun struct {
	name, statement string
	want            string
}

var deleteMidRunCases = []deleteMidRun{
	{"expect", "{sql: 'SELECT v FROM gone WHERE id = :id', expect: {rows: 1}}", "0 rows, expected 1 row"},
	{"check same", "{sql: 'SELECT count(*), sum(id) FROM gone WHERE id <= :id', check: same}", "and its first execution with the same arguments"},
}

func deleteMidRunConfig(c deleteMidRun, target string) string {
	return `name: d
warmup: 0
repeats: 1
load: {workers: 2, duration: 1500ms}
workloads:
  - name: reads
    sql:
      setup:
        - CREATE TABLE gone (id integer PRIMARY KEY, v text)
        - INSERT INTO gone (id, v) VALUES (1,'a'),(2,'a'),(3,'a'),(4,'a'),(5,'a'),(6,'a'),(7,'a'),(8,'a'),(9,'a'),(10,'a'),(11,'a'),(12,'a'),(13,'a'),(14,'a'),(15,'a'),(16,'a'),(17,'a'),(18,'a'),(19,'a'),(20,'a')
      params: {id: {kind: uniform, min: 1, max: 20}}
      transactions:
        - name: read
          statements: [` + c.statement + `]
targets: [` + target + `]
`
}

// runDeleting runs the plan while del deletes a row once ready says the table is loaded.
func runDeleting(t *testing.T, p *config.Plan, ready func() bool, del func() error) *report.Report {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		for !ready() {
			if time.Now().After(deadline) {
				done <- fmt.Errorf("the table never appeared")
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond) // some reads before
		done <- del()
	}()
	r := &Runner{Plan: p, TempDir: t.TempDir(), Environment: func() report.Environment { return report.Environment{} }}
	rep, err := r.Run(context.Background())
	if derr := <-done; derr != nil {
		t.Fatalf("deleting: %v", derr)
	}
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return rep
}

func checkCaught(t *testing.T, rep *report.Report, target, want string) {
	t.Helper()
	res := rep.Find(target, "reads", 0)
	if res == nil || res.Status != report.StatusFailed || res.Verification.OK || !strings.Contains(res.Error, "verification failed") || !strings.Contains(res.Error, want) {
		t.Fatalf("the deleted row was not caught: %+v", res)
	}
}

// TestSQLDeletedRowSQLite: on SQLite, the test deletes a row through a connection of its own.
func TestSQLDeletedRowSQLite(t *testing.T) {
	for _, c := range deleteMidRunCases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "gone.db")
			p := sqlPlan(t, deleteMidRunConfig(c, fmt.Sprintf("{name: lite, adapter: sql, options: {path: %q}}", path)))
			db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&mode=rw")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			rep := runDeleting(t, p, func() bool {
				var n int
				return db.QueryRow("SELECT count(*) FROM gone").Scan(&n) == nil && n == 20
			}, func() error {
				_, err := db.Exec("DELETE FROM gone WHERE id = 7")
				return err
			})
			checkCaught(t, rep, "lite", c.want)
		})
	}
}

// TestSQLDeletedRowPostgres: on a throwaway PostgreSQL, in a schema of the test's (which the
// target works in and neither makes nor drops), the test deletes a row; the teardown leaves the
// schema empty.
func TestSQLDeletedRowPostgres(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	conn := pgtest.Connect(t, dsn)
	for _, c := range deleteMidRunCases {
		t.Run(c.name, func(t *testing.T) {
			schemaName := "given_" + strings.ReplaceAll(c.name, " ", "_")
			pgtest.Exec(t, conn, "CREATE SCHEMA "+schemaName)
			p := sqlPlan(t, strings.Replace(deleteMidRunConfig(c, fmt.Sprintf("{name: pg, adapter: sql, options: {driver: postgres, dsn: %q, schema: %s}}", dsn, schemaName)),
				"      transactions:", "      teardown: [DROP TABLE gone]\n      transactions:", 1))
			rep := runDeleting(t, p, func() bool {
				var n int
				return conn.QueryRow(context.Background(), "SELECT count(*) FROM "+schemaName+".gone").Scan(&n) == nil && n == 20
			}, func() error {
				_, err := conn.Exec(context.Background(), "DELETE FROM "+schemaName+".gone WHERE id = 7")
				return err
			})
			checkCaught(t, rep, "pg", c.want)
			if left := pgtest.Strings(t, conn, "SELECT table_name FROM information_schema.tables WHERE table_schema = $1", schemaName); len(left) != 0 {
				t.Errorf("the teardown left %v in the schema", left)
			}
		})
	}
}

// TestSQLPgbenchPostgres: tpcb-like at scale 1 on PostgreSQL, open loop at 300 ops/s, two
// workers (on connections that wait in blocking reads, with a P each while they run): pgbench's init as setup, every operation done, the statements' figures per transaction,
// and the init's tables dropped at the end from a schema the target does not own.
func TestSQLPgbenchPostgres(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	conn := pgtest.Connect(t, dsn)
	pgtest.Exec(t, conn, "CREATE SCHEMA bench")
	p := sqlPlan(t, fmt.Sprintf(`name: pgb
warmup: 0
repeats: 1
load: {rate: 300, duration: 1s, workers: 2}
workloads:
  - name: tpcb
    sql: {script: tpcb-like, scale: 1, init: pgbench}
targets: [{name: pg, adapter: sql, options: {driver: postgres, dsn: %q, schema: bench}}]
`, dsn))
	procs := runtime.GOMAXPROCS(0)
	rep := runSQLPlan(t, p)
	if now := runtime.GOMAXPROCS(0); now != procs {
		t.Errorf("GOMAXPROCS %d after the run, %d before", now, procs)
	}
	res := rep.Find("pg", "tpcb", 0)
	if res == nil || res.Status != report.StatusOK || res.Load.Loop != "open" {
		t.Fatalf("%+v", res)
	}
	// Its two connections wait in blocking reads, each holding a P: the run phases had two more.
	if c, _ := res.Info["connections"].(string); !strings.Contains(c, fmt.Sprintf("GOMAXPROCS %d while", procs+2)) {
		t.Errorf("connections: %q", c)
	}
	l := res.Load
	if l.Completed != 300 || l.Errors != 0 || len(l.Statements) != 7 {
		t.Errorf("completed %d errors %d statements %d", l.Completed, l.Errors, len(l.Statements))
	}
	f := res.Repeats[0].Figures
	for _, name := range []string{"tpcb-like.stmt2_mean", "tpcb-like.stmt6_p99", "tpcb-like.start_lag_p99", "start_lag_p99"} {
		if _, ok := f[name]; !ok {
			t.Errorf("no figure %s", name)
		}
	}
	for _, st := range l.Statements {
		if st.Count != 300 {
			t.Errorf("statement %d (%s) ran %d times, want 300", st.Index, st.Text, st.Count)
		}
	}
	if left := pgtest.Strings(t, conn, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'bench'"); len(left) != 0 {
		t.Errorf("the init's tables were left: %v", left)
	}
}

// TestSQLTimeoutOneError: on PostgreSQL an operation cut off by load.timeout is one error: its
// worker's connection, which the cut ended, is opened again (untimed) and the worker's later
// operations run, and the result says how many times that happened. Without the reopening every
// later operation of that worker failed.
func TestSQLTimeoutOneError(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	p := sqlPlan(t, fmt.Sprintf(`name: cut
warmup: 0
repeats: 1
load: {workers: 2, ops: 80, timeout: 300ms, max_error_rate: 1}
workloads:
  - name: slow
    sql:
      params: {k: {kind: sequential, min: 1, max: 20}}
      transactions:
        - name: maybe-slow
          statements: ["SELECT pg_sleep(CASE WHEN :k = 7 THEN 5 ELSE 0 END)"]
targets: [{name: pg, adapter: sql, options: {driver: postgres, dsn: %q}}]
`, dsn))
	rep := runSQLPlan(t, p)
	res := rep.Find("pg", "slow", 0)
	if res == nil || res.Load == nil {
		t.Fatalf("%+v", res)
	}
	l := res.Load
	// k = 7 comes 4 times in 80 operations: 4 errors, 76 done.
	if l.Errors != 4 || l.Completed != 76 {
		t.Errorf("errors %d, completed %d: want 4 and 76 (each cut off operation one error)", l.Errors, l.Completed)
	}
	want := "ended a worker's connection 4 times"
	if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, want) }) {
		t.Errorf("warnings %q: want one saying %q", res.Warnings, want)
	}
}

// TestSQLUserSchemaKept: a target that runs only sql workloads makes no person table of its own,
// so a schema of the user's that holds one (a table named persons) is not refused, and the user's
// table is neither touched nor dropped; what the setup made the teardown removes.
func TestSQLUserSchemaKept(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	conn := pgtest.Connect(t, dsn)
	pgtest.Exec(t, conn, "CREATE SCHEMA mine", "CREATE TABLE mine.persons (x int)", "INSERT INTO mine.persons VALUES (42)")
	p := sqlPlan(t, fmt.Sprintf(`name: u
warmup: 0
repeats: 1
workloads:
  - name: q
    ops: 50
    sql:
      setup: [CREATE TABLE t (id int PRIMARY KEY), INSERT INTO t VALUES (1)]
      teardown: [DROP TABLE t]
      transactions: [{name: read, statements: [{sql: SELECT x FROM persons, expect: {rows: 1}}]}]
targets: [{name: pg, adapter: sql, options: {driver: postgres, dsn: %q, schema: mine}}]
`, dsn))
	rep := runSQLPlan(t, p)
	if res := rep.Find("pg", "q", 0); res == nil || res.Status != report.StatusOK {
		t.Fatalf("%+v", res)
	}
	if got := pgtest.Strings(t, conn, "SELECT table_name || ':' || (SELECT string_agg(x::text, ',') FROM mine.persons) FROM information_schema.tables WHERE table_schema = 'mine'"); len(got) != 1 || got[0] != "persons:42" {
		t.Errorf("the schema holds %v, want the user's persons table with its row alone", got)
	}
}

// TestSQLShards: two shards of a sql workload draw, between them, exactly the operations one
// process draws: each execution writes its place in the run (a sequential parameter) and a random
// value into a table, which the teardown copies into a file of the test's (ATTACH), and the two
// shards' rows are one process's, split.
func TestSQLShards(t *testing.T) {
	dir := t.TempDir()
	rows := map[string][]string{}
	for _, run := range []struct {
		name  string
		shard *config.ShardPlan
	}{{"whole", nil}, {"s0", &config.ShardPlan{Index: 0, Total: 2, BuildHash: "ab12"}}, {"s1", &config.ShardPlan{Index: 1, Total: 2, BuildHash: "ab12"}}} {
		out := filepath.Join(dir, run.name+".db")
		p := sqlPlan(t, fmt.Sprintf(`name: sh
warmup: 1
repeats: 1
load: {workers: 2}
workloads:
  - name: w
    ops: 60
    sql:
      setup: ['CREATE TABLE seen (k integer PRIMARY KEY, v integer)']
      teardown: ["ATTACH DATABASE '%s' AS out; CREATE TABLE out.seen AS SELECT * FROM seen; DETACH DATABASE out"]
      params: {k: {kind: sequential, min: 0, max: 1000000}, v: {kind: uniform, min: 1, max: 1000000000}}
      transactions: [{name: log, statements: ['INSERT INTO seen (k, v) VALUES (:k, :v)']}]
targets: [{name: lite, adapter: sql}]
`, out))
		p.Shard = run.shard
		rep := runSQLPlan(t, p)
		if res := rep.Find("lite", "w", 0); res == nil || res.Status != report.StatusOK {
			t.Fatalf("%s: %+v", run.name, res)
		}
		db, err := sql.Open("sqlite", "file:"+out+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		q, err := db.Query("SELECT k || ':' || v FROM seen ORDER BY k")
		if err != nil {
			t.Fatal(err)
		}
		for q.Next() {
			var r string
			if err := q.Scan(&r); err != nil {
				t.Fatal(err)
			}
			rows[run.name] = append(rows[run.name], r)
		}
		q.Close()
		db.Close()
	}
	if len(rows["whole"]) != 120 || len(rows["s0"]) != 60 || len(rows["s1"]) != 60 {
		t.Fatalf("rows: whole %d, shards %d and %d (a warm-up and a repeat of 60 operations: 120, 60 each)", len(rows["whole"]), len(rows["s0"]), len(rows["s1"]))
	}
	union := append(append([]string{}, rows["s0"]...), rows["s1"]...)
	slices.Sort(union)
	whole := slices.Clone(rows["whole"])
	slices.Sort(whole)
	if !slices.Equal(union, whole) {
		t.Errorf("the shards drew other operations than one process:\nshards %v\nwhole  %v", union[:6], whole[:6])
	}
}

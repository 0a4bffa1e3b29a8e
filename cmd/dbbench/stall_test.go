package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbbench/dbbench/internal/postgres/pgtest"
	"github.com/dbbench/dbbench/internal/term/termtest"
	"github.com/dbbench/dbbench/report"
)

const stallConfig = `name: stall
dataset: {persons: 2000}
warmup: 0
repeats: 1000
workloads:
  - {name: page_all, ops: 50}
targets:
  - {name: pg, adapter: triplex, options: {backend: postgres, layout: indexed, dsn: "DSN"}}
`

// TestInterruptStalledServer: Ctrl-C while the user's PostgreSQL is stalled (its postmaster and the
// run's backends stopped with SIGSTOP) ends dbbench within 2 seconds, with one line naming the schema
// left behind and how to drop it, and a report with the repeats measured before, marked interrupted,
// although cleaning up did not finish; the next run against the server removes that schema.
func TestInterruptStalledServer(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	dir, tmp := t.TempDir(), t.TempDir()
	cfg := filepath.Join(dir, "stall.yaml")
	os.WriteFile(cfg, []byte(strings.Replace(stallConfig, "DSN", dsn, 1)), 0o644)

	args := []string{"run", "-c", cfg, "--out", filepath.Join(dir, "r.json")}
	cmd, sc, lines := startUntil(t, tmp, "loaded pg", args...)
	time.Sleep(200 * time.Millisecond) // into the workload

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var pid int
		rows.Scan(&pid)
		pids = append(pids, pid)
	}
	rows.Close()
	conn.Close(ctx)
	if len(pids) == 0 {
		t.Fatalf("no backends of the run found\n%s", strings.Join(lines, "\n"))
	}
	pids = append(pids, parentOf(t, pids[0])) // the postmaster: no new connection gets an answer
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGSTOP)
	}
	resumed := false
	resume := func() {
		if !resumed {
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGCONT)
			}
			resumed = true
		}
	}
	defer resume()

	t0 := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err = cmd.Wait()
	took := time.Since(t0)
	resume()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v, want 3\n%s", err, strings.Join(lines, "\n"))
	}
	if took > 2*time.Second {
		t.Errorf("Ctrl-C took %v to end the run, want at most 2 s", took)
	}
	last := lines[len(lines)-1]
	t.Logf("exit 3 after %v: %s", took, last)
	if !strings.HasPrefix(last, "dbbench: ") || !strings.Contains(last, "DROP SCHEMA dbbench_triplex_") {
		t.Errorf("last line %q does not say what to clean up by hand", last)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
	validateReports(t, args)
	r, err := report.Read(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatalf("no report after Ctrl-C with cleaning up unfinished: %v", err)
	}
	if !r.Run.Interrupted || r.Verdict != "error" || len(r.Results) != 1 || len(r.Results[0].Repeats) == 0 {
		t.Errorf("report: interrupted %v, verdict %s, %d results; want the repeats measured before Ctrl-C, marked interrupted",
			r.Run.Interrupted, r.Verdict, len(r.Results))
	}

	// The schema of the dead run is removed by the next run on that server, and nothing else is.
	conn, err = pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA dbbench_triplex_users_own"); err != nil {
		t.Fatal(err)
	}
	// The interrupted DROP SCHEMA may still complete once the server resumes (it can reach the server
	// before the deadline ends the client's wait); otherwise the leftover is there for the next run.
	before := schemas(t, conn)
	switch len(before) {
	case 1:
		t.Logf("the interrupted DROP SCHEMA completed after the server resumed: no leftover to sweep")
	case 2:
	default:
		t.Fatalf("schemas after the interrupted run: %v, want the user's and at most the leftover", before)
	}
	os.WriteFile(cfg, []byte(strings.Replace(strings.Replace(stallConfig, "DSN", dsn, 1), "repeats: 1000", "repeats: 1", 1)), 0o644)
	code, out, errOut := dbbench(t, tmp, "run", "-q", "-c", cfg, "--out", filepath.Join(dir, "r2.json"))
	if code != 0 {
		t.Fatalf("next run: exit %d\n%s%s", code, out, errOut)
	}
	if after := schemas(t, conn); len(after) != 1 || after[0] != "dbbench_triplex_users_own" {
		t.Errorf("schemas after the next run: %v, want only the user's unmarked one", after)
	}
}

// TestInterruptStalledThrowawayServer: Ctrl-C while dbbench's own throwaway PostgreSQL is stalled (its
// whole process group stopped) ends the run within 2 seconds, and the server, its processes and its
// directory are gone.
func TestInterruptStalledThrowawayServer(t *testing.T) {
	pgtest.ForTest(t) // PostgreSQL binaries are needed; skipped with DBBENCH_SKIP_POSTGRES=1
	dir, tmp := t.TempDir(), reachableTmp(t)
	cfg := filepath.Join(dir, "stall.yaml")
	os.WriteFile(cfg, []byte(strings.Replace(stallConfig, `, dsn: "DSN"`, "", 1)), 0o644)

	cmd, sc, lines := startUntil(t, tmp, "loaded pg", "run", "-c", cfg, "--out", filepath.Join(dir, "r.json"))
	time.Sleep(200 * time.Millisecond)
	postmaster := childNamed(t, cmd.Process.Pid, "postgres")
	if postmaster == 0 {
		cmd.Process.Kill()
		t.Fatalf("no postmaster under dbbench\n%s", strings.Join(lines, "\n"))
	}
	syscall.Kill(-postmaster, syscall.SIGSTOP)
	defer syscall.Kill(-postmaster, syscall.SIGCONT) // in case the test fails before dbbench kills it

	t0 := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err := cmd.Wait()
	took := time.Since(t0)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v, want 3\n%s", err, strings.Join(lines, "\n"))
	}
	t.Logf("exit 3 after %v: %s", took, lines[len(lines)-1])
	if took > 2*time.Second {
		t.Errorf("Ctrl-C took %v to end the run, want at most 2 s", took)
	}
	if err := syscall.Kill(-postmaster, 0); err == nil {
		t.Errorf("processes of the server (group %d) survived", postmaster)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
	// As root the server runs as the postgres user, which cannot enter the private run directory:
	// its directory goes elsewhere from the start, which is normal and says nothing (issue 17).
	for _, l := range lines {
		if strings.Contains(l, "cannot reach") {
			t.Errorf("a warning on a normal run: %s", l)
		}
	}
}

// reachableTmp is a TMPDIR for a run that the postgres user can reach when the test runs as root
// (t.TempDir and its parent are 0700), so that the server's directory goes there too and the test
// sees whether it is removed.
func reachableTmp(t *testing.T) string {
	tmp := t.TempDir()
	for _, d := range []string{tmp, filepath.Dir(tmp)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return tmp
}

// TestServerDiesMidRun: the throwaway server is killed (SIGKILL) during the workloads: the run ends
// with exit 3, the workload's failure is the first thing on the error line (any failure to stop the
// server comes after it), and the report keeps the results.
func TestServerDiesMidRun(t *testing.T) {
	pgtest.ForTest(t)
	dir, tmp := t.TempDir(), reachableTmp(t)
	cfg := filepath.Join(dir, "die.yaml")
	os.WriteFile(cfg, []byte(strings.Replace(stallConfig, `, dsn: "DSN"`, "", 1)), 0o644)
	out := filepath.Join(dir, "r.json")
	cmd, sc, lines := startUntil(t, tmp, "loaded pg", "run", "-c", cfg, "--out", out)
	time.Sleep(300 * time.Millisecond) // into the measured repeats
	postmaster := childNamed(t, cmd.Process.Pid, "postgres")
	if postmaster == 0 {
		cmd.Process.Kill()
		t.Fatalf("no postmaster under dbbench\n%s", strings.Join(lines, "\n"))
	}
	syscall.Kill(-postmaster, syscall.SIGKILL)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v, want 3\n%s", err, strings.Join(lines, "\n"))
	}
	last := lines[len(lines)-1]
	t.Logf("%s", last)
	// The workload's failure comes first. Whether stopping the dead server also fails depends on when
	// dbbench notices the death (a race with the kill), so the cleanup's failure may or may not follow.
	if !strings.HasPrefix(last, "dbbench: workload page_all failed on target pg") {
		t.Errorf("the error line does not start with the workload's failure: %q", last)
	}
	if i := strings.Index(last, "cleaning up"); i >= 0 && i < strings.Index(last, "page_all") {
		t.Errorf("the cleanup's failure comes before the workload's: %q", last)
	}
	r, err := report.Read(out)
	if err != nil || r.Verdict != "error" || len(r.Results) == 0 {
		t.Fatalf("report of the run whose server died: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// childNamed finds a process named name among parent's descendants (a run's worker process starts
// the server, so it is a grandchild of dbbench), or 0.
func childNamed(t *testing.T, parent int, name string) int {
	t.Helper()
	seen := map[int]bool{parent: true}
	for range 3 { // the processes under parent, generation by generation
		if pid := childOf(seen, name); pid != 0 {
			return pid
		}
	}
	return 0
}

// childOf returns a process named name whose parent is in seen, adding every child of seen to it.
func childOf(seen map[int]bool, name string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		i, j := strings.IndexByte(string(b), '('), strings.LastIndexByte(string(b), ')')
		if i < 0 || j < i {
			continue
		}
		f := strings.Fields(string(b[j+1:]))
		if len(f) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); seen[ppid] {
			if string(b[i+1:j]) == name {
				return pid
			}
			seen[pid] = true
		}
	}
	return 0
}

func schemas(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'dbbench_triplex_%' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// parentOf reads a process's parent pid from /proc.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatal(err)
	}
	return ppid
}

// stopBackends stops (SIGSTOP) the backends of dsn's database other than the caller's, and the
// postmaster, as a stalled machine would; resume (also registered with t.Cleanup) lets them go on.
func stopBackends(t *testing.T, dsn string, lines []string) (resume func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	conn.Close(ctx)
	if err != nil || len(pids) == 0 {
		t.Fatalf("no backends of the run found (%v)\n%s", err, strings.Join(lines, "\n"))
	}
	all := []int{parentOf(t, int(pids[0]))} // the postmaster: no new connection gets an answer
	for _, pid := range pids {
		all = append(all, int(pid))
	}
	for _, pid := range all {
		syscall.Kill(pid, syscall.SIGSTOP)
	}
	resumed := false
	resume = func() {
		if !resumed {
			for _, pid := range all {
				syscall.Kill(pid, syscall.SIGCONT)
			}
			resumed = true
		}
	}
	t.Cleanup(resume)
	return resume
}

// TestStalledServerEndsTheRun: the user's PostgreSQL stalls in the middle of a workload (its
// postmaster and the run's backends stopped with SIGSTOP) and nobody presses Ctrl-C: the run gives up
// on the target after stall_timeout, ends with exit 3 and one line naming the workload, the target
// and the setting, and its report keeps the repeats measured before the stall. For the triplex
// adapter (database/sql and pgx pools) and the sql adapter (database/sql through pgx/stdlib).
func TestStalledServerEndsTheRun(t *testing.T) {
	const stall = 2 * time.Second
	for _, tc := range []struct{ name, workload, target string }{
		{"triplex", "{name: page_all, ops: 50}", "{name: pg, adapter: triplex, options: {backend: postgres, layout: indexed, dsn: \"DSN\"}}"},
		{"sql", "{name: lookup, ops: 200}", "{name: pg, adapter: sql, options: {driver: postgres, dsn: \"DSN\"}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := pgtest.NewDatabase(t)
			dir, tmp := t.TempDir(), t.TempDir()
			cfg := filepath.Join(dir, "stall.yaml")
			os.WriteFile(cfg, []byte(fmt.Sprintf("name: stall\ndataset: {persons: 2000}\nwarmup: 0\nrepeats: 1000\nstall_timeout: %v\nworkloads:\n  - %s\ntargets:\n  - %s\n",
				stall, tc.workload, strings.Replace(tc.target, "DSN", dsn, 1))), 0o644)
			out := filepath.Join(dir, "r.json")
			args := []string{"run", "-c", cfg, "--out", out}
			cmd, sc, lines := startUntil(t, tmp, "loaded pg", args...)
			time.Sleep(500 * time.Millisecond) // a few repeats into the workload
			resume := stopBackends(t, dsn, lines)
			lines = waitStalledExit(t, cmd, sc, lines, resume, stall, stall*5/4+3*time.Second)
			last := lines[len(lines)-1]
			wl := strings.TrimSuffix(strings.TrimPrefix(strings.Fields(tc.workload)[1], ""), ",")
			want := fmt.Sprintf("dbbench: workload %s failed on target pg: stalled: no operation finished within stall_timeout %v", wl, stall)
			if !strings.HasPrefix(last, want) {
				t.Errorf("last line %q\nwant it to start %q", last, want)
			}
			validateReports(t, args)
			r, err := report.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != "error" || len(r.Results) != 1 || r.Results[0].Status == "ok" || len(r.Results[0].Repeats) == 0 {
				t.Errorf("report: verdict %s, %d results; want the failed workload with the repeats measured before the stall", r.Verdict, len(r.Results))
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("temporary files left behind: %v", left)
			}
		})
	}
}

// TestInterruptStalledServerSQL: Ctrl-C while the user's PostgreSQL is stalled, with the sql adapter
// (database/sql through pgx/stdlib, whose statements and connections close on the stalled server):
// dbbench ends within 2 seconds, and the report holds the repeats measured before, marked
// interrupted, whether or not cleaning up finished in time.
func TestInterruptStalledServerSQL(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	dir, tmp := t.TempDir(), t.TempDir()
	cfg := filepath.Join(dir, "stall.yaml")
	os.WriteFile(cfg, []byte("name: stall\ndataset: {persons: 2000}\nwarmup: 0\nrepeats: 1000\nworkloads:\n  - {name: lookup, ops: 200}\n"+
		"targets:\n  - {name: pg, adapter: sql, options: {driver: postgres, dsn: \""+dsn+"\"}}\n"), 0o644)
	out := filepath.Join(dir, "r.json")
	args := []string{"run", "-c", cfg, "--out", out}
	cmd, sc, lines := startUntil(t, tmp, "loaded pg", args...)
	time.Sleep(500 * time.Millisecond) // a few repeats into the workload
	resume := stopBackends(t, dsn, lines)

	t0 := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err := cmd.Wait()
	took := time.Since(t0)
	resume()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v, want 3\n%s", err, strings.Join(lines, "\n"))
	}
	t.Logf("exit 3 after %v: %s", took, lines[len(lines)-1])
	if took > 2*time.Second {
		t.Errorf("Ctrl-C took %v to end the run, want at most 2 s", took)
	}
	validateReports(t, args)
	r, err := report.Read(out)
	if err != nil {
		t.Fatalf("no report after Ctrl-C: %v", err)
	}
	if !r.Run.Interrupted || r.Verdict != "error" || len(r.Results) != 1 || len(r.Results[0].Repeats) == 0 {
		t.Errorf("report: interrupted %v, verdict %s, %d results; want the repeats measured before Ctrl-C, marked interrupted",
			r.Run.Interrupted, r.Verdict, len(r.Results))
	}
}

// TestStalledServerEndsTheLoad: the user's PostgreSQL stalls while a target loads its dataset (its
// postmaster and the run's backends stopped with SIGSTOP in the middle of the COPY) and nobody
// presses Ctrl-C: the load reported progress, then none for stall_timeout, so the run gives up on it
// and ends with exit 3, one line naming the target, the load and the setting, and a report. For the
// sql adapter (one pgx COPY) and the triplex adapter (COPY batches through a pgx pool).
func TestStalledServerEndsTheLoad(t *testing.T) {
	const stall = 2 * time.Second
	for _, tc := range []struct {
		name, target string
		persons      int
	}{
		{"sql", "{name: pg, adapter: sql, options: {driver: postgres, dsn: \"DSN\"}}", 1_000_000},
		{"triplex", "{name: pg, adapter: triplex, options: {backend: postgres, layout: indexed, dsn: \"DSN\"}}", 1_000_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := pgtest.NewDatabase(t)
			dir, tmp := t.TempDir(), t.TempDir()
			cfg := filepath.Join(dir, "stall.yaml")
			// A first size loads and is measured, then the second one's load stalls.
			os.WriteFile(cfg, []byte(fmt.Sprintf("name: stall\ndataset: {sizes: [2000, %d]}\nwarmup: 0\nrepeats: 1\nstall_timeout: %v\nworkloads:\n  - scan\ntargets:\n  - %s\n",
				tc.persons, stall, strings.Replace(tc.target, "DSN", dsn, 1))), 0o644)
			out := filepath.Join(dir, "r.json")
			args := []string{"run", "-c", cfg, "--out", out}
			cmd, sc, lines := startUntil(t, tmp, fmt.Sprintf("loading %d persons into pg", tc.persons), args...)
			waitCopying(t, dsn, lines)
			resume := stopBackends(t, dsn, lines)
			// The stall, then cleaning up on the stalled server: short deadlines (500 ms) for dropping
			// what the load created, closing the pool and dropping the schema.
			lines = waitStalledExit(t, cmd, sc, lines, resume, stall, stall*5/4+4*time.Second)
			last := lines[len(lines)-1]
			want := fmt.Sprintf("dbbench: target pg: load %d persons: stalled: the load made no progress within stall_timeout %v", tc.persons, stall)
			if !strings.HasPrefix(last, want) {
				t.Errorf("last line %q\nwant it to start %q\n%s", last, want, strings.Join(lines, "\n"))
			}
			validateReports(t, args)
			r, err := report.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != "error" || len(r.Run.Errors) == 0 || !strings.Contains(r.Run.Errors[0], "stall_timeout") ||
				len(r.Results) != 1 || r.Results[0].Status != "ok" || r.Results[0].Size != 2000 {
				t.Errorf("report: verdict %s, errors %q, %d results; want the first size's result and the stalled load", r.Verdict, r.Run.Errors, len(r.Results))
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("temporary files left behind: %v", left)
			}
		})
	}
}

// waitStalledExit waits for a run whose server was just stopped: it must exit 3 within limit of the
// stall (stall_timeout is stall). A run that still hangs 30 s past stall_timeout gets SIGQUIT, whose
// goroutine dump shows where. The server is resumed once the run has ended; the run's stderr lines
// are returned.
func waitStalledExit(t *testing.T, cmd *exec.Cmd, sc *bufio.Scanner, lines []string, resume func(), stall, limit time.Duration) []string {
	t.Helper()
	t0 := time.Now()
	done := make(chan error, 1)
	go func() {
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		done <- cmd.Wait()
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(stall + 30*time.Second):
		cmd.Process.Signal(syscall.SIGQUIT)
		<-done
		t.Fatalf("the run still hung %v after its server stalled\n%s", time.Since(t0), strings.Join(lines, "\n"))
	}
	took := time.Since(t0)
	resume()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v, want 3\n%s", err, strings.Join(lines, "\n"))
	}
	t.Logf("exit 3 %v after the stall: %s", took, lines[len(lines)-1])
	termtest.Check(t, strings.Join(cmd.Args, " "), 3, "", strings.Join(lines, "\n")+"\n")
	if took > limit {
		t.Errorf("the run ended %v after the stall, want at most %v (stall_timeout %v)", took, limit, stall)
	}
	return lines
}

// waitCopying waits until a backend of dsn's database is running a COPY, and a little more, so that
// the load has sent rows.
func waitCopying(t *testing.T, dsn string, lines []string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query ILIKE 'copy %'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			time.Sleep(100 * time.Millisecond)
			return
		}
	}
	t.Fatalf("no COPY of the load seen\n%s", strings.Join(lines, "\n"))
}

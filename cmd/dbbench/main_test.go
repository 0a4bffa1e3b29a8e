package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbbench/dbbench/internal/postgres/pgtest"
	"github.com/dbbench/dbbench/internal/term/termtest"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/schema"
)

// binary is the dbbench built once for these end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dbbench-e2e-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "dbbench")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		panic("cannot build dbbench: " + err.Error())
	}
	code := pgtest.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// dbbench runs the built binary with a private TMPDIR and returns its exit code and output.
func dbbench(t *testing.T, tmp string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != 2 { // a refused run writes nothing (and --out may name what must not be read)
		validateReports(t, args)
	}
	// lines that fit 120 columns, no Go value dumps, a one-line error (not for file formats)
	stdout := out.String()
	if slices.ContainsFunc(args, func(a string) bool { return a == "json" || a == "html" || a == "markdown" }) {
		stdout = ""
	}
	termtest.Check(t, "dbbench "+strings.Join(args, " "), code, stdout, errb.String())
	return code, out.String(), errb.String()
}

// startUntil starts dbbench with a private TMPDIR and reads its stderr until a line contains marker
// (say, that a target is loaded); it returns the running command, the rest of stderr and the lines read.
func startUntil(t *testing.T, tmp, marker string, args ...string) (*exec.Cmd, *bufio.Scanner, []string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.Contains(sc.Text(), marker) {
			break
		}
	}
	return cmd, sc, lines
}

// validateReports checks every report a run wrote (--out) against the published JSON Schema.
func validateReports(t *testing.T, args []string) {
	t.Helper()
	for i, a := range args {
		if a == "--out" && i+1 < len(args) {
			if st, err := os.Lstat(args[i+1]); err != nil || !st.Mode().IsRegular() {
				continue
			}
			if b, err := os.ReadFile(args[i+1]); err == nil {
				if err := schema.Validate(schema.Report, b); err != nil {
					t.Errorf("the report %s does not match its schema: %v", args[i+1], err)
				}
			}
		}
	}
}

const tinyConfig = `name: e2e
dataset: {persons: 2000}
warmup: 1
repeats: 3
workloads:
  - scan
  - {name: lookup, ops: 200}
  - {name: insert, ops: 500}
  - {name: concurrent, readers: 2, rows: 1000}
targets:
TARGETS
assertions:
  - scan.rows_per_s[lmdb-go] >= 0.000001 * scan.rows_per_s[lmdb-c]
  - lookup.p50[lmdb-go] - lookup.p50[lmdb-c] <= 1000000000
`

func TestEndToEnd(t *testing.T) {
	dir := t.TempDir()
	tmp := t.TempDir()
	cfg := filepath.Join(dir, "e2e.yaml")
	targets := "  - {name: lmdb-c, adapter: lmdb-c}\n  - {name: lmdb-go, adapter: lmdb}\n  - {name: memory, adapter: memory}"
	os.WriteFile(cfg, []byte(strings.Replace(tinyConfig, "TARGETS", targets, 1)), 0o644)
	out := filepath.Join(dir, "out", "report.json")
	code, stdout, stderr := dbbench(t, tmp, "run", "-c", cfg, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"TARGET", "concurrent", "verdict: PASS", "report: " + out} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "dbbench: e2e:") || !strings.Contains(stderr, "finished in") {
		t.Errorf("no progress on stderr:\n%s", stderr)
	}
	r, err := report.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.SchemaVersion != report.SchemaVersion || r.Verdict != "pass" || len(r.Results) != 12 || r.Environment.Cores == 0 {
		t.Errorf("report: schema %d verdict %s results %d", r.SchemaVersion, r.Verdict, len(r.Results))
	}
	// The C baseline and the Go binding read the same rows: every workload's checksum agrees.
	for _, w := range []string{"scan", "lookup", "insert", "concurrent"} {
		c, g := r.Find("lmdb-c", w, 0), r.Find("lmdb-go", w, 0)
		if c == nil || g == nil || c.Repeats[0].Checksum != g.Repeats[0].Checksum || !c.Verification.OK || !g.Verification.OK {
			t.Errorf("%s: C and Go results disagree or failed verification", w)
		}
	}
	if len(r.Assertions) != 2 || r.Assertions[0].Verdict != "pass" {
		t.Errorf("assertions: %+v", r.Assertions)
	}
	// The library a target measured is named by the version the binary links (go.mod's), never by
	// one written in the code.
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*github\.com/PowerDNS/lmdb-go (v\S+)`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod requires no github.com/PowerDNS/lmdb-go")
	}
	for _, tg := range r.Targets {
		if tg.Name == "lmdb-go" && (len(tg.Instances) != 1 || tg.Instances[0].Info["lmdb_go_version"] != string(m[1])) {
			t.Errorf("lmdb-go's info: %v, want lmdb_go_version %s (go.mod's)", tg.Instances, m[1])
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestInterrupt sends SIGINT, SIGTERM or SIGHUP in the middle of a run: exit 3, one line saying so,
// the report with what was measured, and nothing left in the temp dir.
func TestInterrupt(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) { testInterrupt(t, sig) })
	}
}

func testInterrupt(t *testing.T, sig syscall.Signal) {
	dir := t.TempDir()
	tmp := t.TempDir()
	cfg := filepath.Join(dir, "long.yaml")
	os.WriteFile(cfg, []byte(`name: long
dataset: {persons: 200000}
warmup: 0
repeats: 1000
workloads: [scan, {name: lookup, ops: 100000}]
targets: [{name: memory, adapter: memory}]
`), 0o644)
	out := filepath.Join(dir, "report.json")
	cmd, sc, lines := startUntil(t, tmp, "loaded memory", "run", "-c", cfg, "--out", out)
	time.Sleep(200 * time.Millisecond) // into the workloads
	cmd.Process.Signal(sig)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v, want 3\n%s", err, strings.Join(lines, "\n"))
	}
	last := lines[len(lines)-1]
	if !strings.Contains(last, "interrupted") {
		t.Errorf("last line %q does not say interrupted", last)
	}
	// The report keeps the results measured until the interrupt.
	if r, err := report.Read(out); err != nil || !r.Run.Interrupted || r.Verdict != "error" || len(r.Results) == 0 {
		t.Errorf("report of the interrupted run: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := dbbench(t, t.TempDir(), "version")
	if code != 0 || !strings.HasPrefix(out, "dbbench ") || !strings.Contains(out, "report schema "+strconv.Itoa(report.SchemaVersion)) {
		t.Errorf("exit %d: %q", code, out)
	}
}

// TestProcessIsolation runs every target in a worker process of its own: one merged report, the
// assertions decided on it, nothing left behind.
func TestProcessIsolation(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	cfg := filepath.Join(dir, "proc.yaml")
	targets := "  - {name: lmdb-c, adapter: lmdb-c}\n  - {name: lmdb-go, adapter: lmdb}\n  - {name: memory, adapter: memory}"
	body := strings.Replace(tinyConfig, "TARGETS", targets, 1)
	os.WriteFile(cfg, []byte(strings.Replace(body, "repeats: 3\n", "repeats: 3\nisolation: process\n", 1)), 0o644)
	out := filepath.Join(dir, "report.json")
	code, stdout, stderr := dbbench(t, tmp, "run", "-c", cfg, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	r, err := report.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Run.Isolation != "process" || len(r.Targets) != 3 || len(r.Results) != 12 || len(r.Assertions) != 2 || r.Verdict != "pass" {
		t.Errorf("report: isolation %q, %d targets, %d results, %d assertions, verdict %s", r.Run.Isolation, len(r.Targets), len(r.Results), len(r.Assertions), r.Verdict)
	}
	if r.Results[0].Target != "lmdb-c" || r.Results[1].Target != "lmdb-go" || r.Results[0].Workload != "scan" {
		t.Errorf("results not in run order: %s %s, %s %s", r.Results[0].Target, r.Results[0].Workload, r.Results[1].Target, r.Results[1].Workload)
	}
	for _, w := range []string{"scan", "lookup", "insert", "concurrent"} {
		c, g := r.Find("lmdb-c", w, 0), r.Find("lmdb-go", w, 0)
		if c == nil || g == nil || c.Repeats[0].Checksum != g.Repeats[0].Checksum {
			t.Errorf("%s: the worker processes' results disagree", w)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestRunsEndToEnd: --runs 3 makes three runs, each a worker process, merged into one version 2
// report that matches its schema: every repeat carries its run, each result has each run's figures,
// and the assertion is decided on an interval over the three run values. Ctrl-C during the second
// run keeps the first run's results.
func TestRunsEndToEnd(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	cfg := filepath.Join(dir, "runs.yaml")
	os.WriteFile(cfg, []byte(`name: runs
dataset: {persons: 200}
warmup: 0
repeats: 3
workloads: [scan, {name: lookup, ops: 50}]
targets: [{name: a, adapter: memory}, {name: b, adapter: memory}]
assertions:
  - name: far apart
    check: lookup.p50[a] - lookup.p50[b] <= 1000000000
`), 0o644)
	out := filepath.Join(dir, "r.json")
	code, stdout, stderr := dbbench(t, tmp, "run", "-c", cfg, "--runs", "3", "--out", out) // validates the schema
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"run 1 of 3 (a fresh process)", "run 3 of 3"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if joined := strings.Join(strings.Fields(stdout), " "); !strings.Contains(joined, "PASS far apart") || !strings.Contains(joined, "(3 runs, 98.75%)") {
		t.Errorf("stdout lacks the assertion's interval line:\n%s", stdout)
	}
	r, err := report.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.SchemaVersion != report.SchemaVersion || len(r.Run.Runs) != 3 || r.Run.Verdict == nil || r.Run.Verdict.InitialRuns != 3 {
		t.Fatalf("schema %d, runs %+v, rule %+v", r.SchemaVersion, r.Run.Runs, r.Run.Verdict)
	}
	for _, x := range r.Results {
		if len(x.Runs) != 3 || len(x.Repeats) != 9 || x.Repeats[0].Run != 1 || x.Repeats[8].Run != 3 {
			t.Errorf("%s %s: %d runs, %d repeats", x.Target, x.Workload, len(x.Runs), len(x.Repeats))
		}
	}
	a := r.Assertions[0]
	if a.Verdict != "pass" || len(a.RunValues) != 3 || a.Interval == nil || a.Interval.Method != "t" || a.Interval.Confidence < 0.95 {
		t.Errorf("assertion %+v", a)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}

	// Ctrl-C in the second run.
	os.WriteFile(cfg, []byte(`name: long
dataset: {persons: 2000}
warmup: 0
repeats: 200
workloads: [{name: lookup, ops: 20000}]
targets: [{name: a, adapter: memory}]
`), 0o644)
	out = filepath.Join(dir, "i.json")
	cmd, sc, lines := startUntil(t, tmp, "run 2 of 3", "run", "-c", cfg, "--runs", "3", "--out", out)
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v, want 3\n%s", err, strings.Join(lines, "\n"))
	}
	validateReports(t, []string{"--out", out})
	r, err = report.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Run.Interrupted || r.Verdict != "error" || len(r.Run.Runs) != 2 || !r.Run.Runs[1].Interrupted {
		t.Fatalf("interrupted %v, verdict %s, runs %+v", r.Run.Interrupted, r.Verdict, r.Run.Runs)
	}
	if x := r.Find("a", "lookup", 2000); x == nil || len(x.Repeats) < 200 || x.Repeats[0].Run != 1 {
		t.Errorf("the first run's 200 repeats are not kept: %+v", x)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

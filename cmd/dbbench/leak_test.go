//go:build cgo && linux

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/clients/refclient"
	"github.com/dbbench/dbbench/report"
)

// TestLeakCheck runs testdata/leak-check.yaml as CI would (--ci, the default verdict runs): the
// targets that keep 600 bytes of C memory per read transaction, in dbbench's process and in the Go
// client's, fail their bytes_retained_per_op assertions (exit 1, the failure line names the figure);
// the same targets without the leak pass theirs (docs/memory.md).
func TestLeakCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the leak check: four targets over 3 runs")
	}
	dir, tmp := t.TempDir(), t.TempDir()
	client, err := refclient.BuildGo(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DBBENCH_GO_CLIENT", client)
	out := filepath.Join(dir, "leak.json")
	code, stdout, stderr := dbbench(t, tmp, "run", "-q", "-c", "testdata/leak-check.yaml", "--ci", "--out", out)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the leaks caught)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "bytes_retained_per_op[lmdb-go-leak] <= 64") {
		t.Errorf("the failure line does not name the leaking target's figure: %s", stderr)
	}
	rep, err := report.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]report.Verdict{
		"lmdb-go": report.VerdictPass, "lmdb-go-leak": report.VerdictFail,
		"go-client": report.VerdictPass, "go-client-leak": report.VerdictFail,
	}
	for _, a := range rep.Assertions {
		target := strings.TrimSuffix(strings.TrimPrefix(a.Left, "lookup.bytes_retained_per_op["), "]")
		if v, ok := want[target]; !ok || a.Verdict != v {
			t.Errorf("%s: %s (%s), want %s", a.Expr, a.Verdict, a.Why, v)
		}
		delete(want, target)
	}
	if len(want) != 0 {
		t.Errorf("no verdict for %v", want)
	}
	// What each leak looks like from where it is read: malloc's count in process, the resident set
	// of the client.
	if x := rep.Find("lmdb-go-leak", "lookup", 0); x == nil || x.Figures["c_heap_retained_per_op"] < 600 {
		t.Errorf("lmdb-go-leak retains %v C bytes per lookup, want at least 600", x.Figures)
	}
	if x := rep.Find("go-client-leak", "lookup", 0); x == nil || x.Figures["rss_growth_per_op"] < 500 {
		t.Errorf("go-client-leak grows by %v bytes per lookup, want about 600", x.Figures)
	}
}

// TestServerMemory: a target on the run's PostgreSQL server has the server's memory figures; one
// that never asked for the server has none.
func TestServerMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	dir, tmp := t.TempDir(), t.TempDir()
	out := filepath.Join(dir, "r.json")
	if code, stdout, stderr := dbbench(t, tmp, "run", "-q", "-c", "testdata/server-memory.yaml", "--out", out); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	rep, err := report.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	pg, mem, tx := rep.Find("pg", "lookup", 0), rep.Find("mem", "lookup", 0), rep.Find("tx", "lookup", 0)
	if pg == nil || mem == nil || tx == nil {
		t.Fatal("a result is missing")
	}
	for _, x := range []*report.Result{pg, tx} {
		if v, ok := x.Figures["server_peak_rss_bytes"]; !ok || v < 1<<20 {
			t.Errorf("%s: server_peak_rss_bytes %v (present %v): a PostgreSQL server holds more than 1 MiB", x.Target, v, ok)
		}
		if _, ok := x.Figures["server_rss_growth_per_op"]; !ok {
			t.Errorf("%s: server_rss_growth_per_op missing: %v", x.Target, x.Figures)
		}
		// Both do their work in dbbench's process: the Go heap's figures are theirs.
		if _, ok := x.Figures["bytes_allocated_per_op"]; !ok {
			t.Errorf("%s: bytes_allocated_per_op missing (taken for a client process?): %v", x.Target, x.Figures)
		}
	}
	for _, f := range []string{"server_peak_rss_bytes", "server_rss_growth_per_op"} {
		if _, ok := mem.Figures[f]; ok {
			t.Errorf("mem, which never asked for the server, has %s", f)
		}
	}
}

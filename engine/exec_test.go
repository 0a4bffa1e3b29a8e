package engine

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters/exec"
	"github.com/dbbench/dbbench/adapters/exec/exectest"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

// TestMain lets the test binary serve as a fake protocol client for the exec targets below, and
// stops the PostgreSQL server the sql workload's tests start (pgtest).
func TestMain(m *testing.M) {
	exectest.Main()
	os.Exit(pgtest.Main(m))
}

func execPlan(t *testing.T, behaviour string, extra ...string) *config.Plan {
	t.Helper()
	cmd := exectest.Command()
	y := fmt.Sprintf(`name: exec
dataset: {persons: 300}
repeats: 2
%s
workloads:
  - {name: scan, rows: 120}
  - {name: lookup, ops: 30}
  - {name: insert, ops: 40}
  - {name: concurrent, readers: 2, rows: 300}
  - {name: echo, ops: 25, params: {flavour: plain}}
targets:
  - {name: mem, adapter: memory}
  - name: fake
    adapter: exec
    options: {command: [%q, %q], env: {%s: %s}, timeout: 5s}
`, strings.Join(extra, "\n"), cmd[0], cmd[1], exectest.FakeEnv, behaviour)
	_, p := resolvePlan(t, "exec.yaml", y, exec.New())
	p.Verdict.Runs = 1 // measured in this process
	return p
}

// TestExecTargetEndToEnd: a client in another process runs every workload, its own included, and is
// verified like the targets compiled in.
func TestExecTargetEndToEnd(t *testing.T) {
	rep, err := run(t, execPlan(t, exectest.OK))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != "pass" {
		t.Fatalf("verdict %s: %+v", rep.Verdict, rep.Results)
	}
	if len(rep.Results) != 9 {
		t.Fatalf("%d results, want 4 workloads x 2 targets + echo", len(rep.Results))
	}
	for _, x := range rep.Results {
		if x.Status != "ok" || !x.Verification.OK || x.Figures["p50"] <= 0 {
			t.Errorf("%s/%s: %s %s %+v", x.Target, x.Workload, x.Status, x.Error, x.Verification)
		}
	}
	if r := rep.Find("fake", "scan", 300); !strings.Contains(r.Verification.Method, "email order") {
		t.Errorf("partial scan not checked exactly: %s", r.Verification.Method)
	}
	if r := rep.Find("fake", "echo", 300); r.Figures["ops"] != 25 {
		t.Errorf("echo: %+v", r.Figures)
	}
	info := rep.Targets[1].Instances[0].Info
	if p, ok := info["protocol"].(map[string]any); !ok || p["ping_p50_ns"] == nil {
		t.Errorf("no protocol cost in the report: %v", info)
	}
	if env := rep.Targets[1].Options["env"].(map[string]any); env[exectest.FakeEnv] != "***" {
		t.Errorf("env not redacted: %v", env)
	}
}

func TestExecTargetWrongChecksum(t *testing.T) {
	rep, err := run(t, execPlan(t, exectest.Checksum))
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Find("fake", "scan", 300)
	if rep.Verdict != "error" || r.Status != "failed" || !strings.Contains(r.Error, "checksum") {
		t.Errorf("verdict %s, scan %s: %s", rep.Verdict, r.Status, r.Error)
	}
}

// TestExecTargetInterleaveOps: with interleave: ops a client that times itself keeps its per-repeat
// turn beside a target the engine times per operation; both are measured and verified as before.
func TestExecTargetInterleaveOps(t *testing.T) {
	rep, err := run(t, execPlan(t, exectest.OK, "interleave: ops"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != "pass" || len(rep.Results) != 9 {
		t.Fatalf("verdict %s, %d results: %+v", rep.Verdict, len(rep.Results), rep.Results)
	}
	for _, x := range rep.Results {
		if x.Status != "ok" || !x.Verification.OK || len(x.Repeats) != 2 {
			t.Errorf("%s/%s: %s %s", x.Target, x.Workload, x.Status, x.Error)
		}
	}
	if !strings.Contains(rep.Run.Order, "per operation") {
		t.Errorf("run.order %q", rep.Run.Order)
	}
}

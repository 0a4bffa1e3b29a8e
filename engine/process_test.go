package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/report"
)

// fakeWorkers makes Runner.Spawn start shell scripts that speak the worker protocol: each announces
// its steps, appends "TARGET STEP" to a shared log when let go, and leaves a prepared report.
func fakeWorkers(t *testing.T, dir string, steps map[string][]string, exit map[string]int) func(context.Context, WorkerSpec) *exec.Cmd {
	log := filepath.Join(dir, "order.log")
	return func(ctx context.Context, spec WorkerSpec) *exec.Cmd {
		target, out := spec.Target, spec.Out
		rep := &report.Report{
			SchemaVersion: report.SchemaVersion, Verdict: "pass",
			Targets: []report.Target{{Name: target, Adapter: "fake", Status: "ok", Options: map[string]any{}}},
			Results: []report.Result{{Target: target, Workload: "scan", Size: 20, Unit: "scan", Status: "ok",
				Figures: map[string]float64{"rows_per_s": 100}, Repeats: []report.Repeat{{Figures: map[string]float64{"rows_per_s": 100}}}}},
		}
		prepared := filepath.Join(dir, target+".prepared.json")
		if err := report.Write(prepared, rep); err != nil {
			t.Fatal(err)
		}
		var sh strings.Builder
		for _, s := range steps[target] {
			fmt.Fprintf(&sh, "echo 'step %s'; read go; echo '%s %s' >> %s\n", s, target, s, log)
		}
		if exit[target] > 1 {
			fmt.Fprintf(&sh, "echo 'dbbench: target %s: disk on fire' >&2\n", target)
		}
		fmt.Fprintf(&sh, "cp %s %s; exit %d\n", prepared, out, exit[target])
		return exec.CommandContext(ctx, "sh", "-c", sh.String())
	}
}

func TestProcessIsolationInterleaves(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, &callLog{}, `name: t
dataset: {persons: 20}
warmup: 0
repeats: 2
isolation: process
workloads: [scan, lookup]
targets:
  - {name: a, adapter: fake}
  - {name: b, adapter: fake, workloads: [lookup]}
assertions:
  - scan.rows_per_s[a] >= 50
`)
	steps := map[string][]string{
		"a": {"load 20", "scan 20 0", "scan 20 1", "lookup 20 0", "lookup 20 1"},
		"b": {"load 20", "lookup 20 0", "lookup 20 1"},
	}
	r := &Runner{Plan: p, TempDir: dir, Environment: func() report.Environment { return report.Environment{} },
		Spawn: fakeWorkers(t, dir, steps, map[string]int{"a": 1})} // a's own assertions failing is no error
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "order.log"))
	want := "a load 20\nb load 20\na scan 20 0\na scan 20 1\na lookup 20 0\nb lookup 20 0\na lookup 20 1\nb lookup 20 1\n"
	if string(b) != want {
		t.Errorf("steps ran in the order\n%s\nwant\n%s", b, want)
	}
	if rep.Run.Isolation != config.IsolationProcess || len(rep.Targets) != 2 || len(rep.Results) != 2 {
		t.Errorf("merged report: isolation %q, %d targets, %d results", rep.Run.Isolation, len(rep.Targets), len(rep.Results))
	}
	if len(rep.Assertions) != 1 || rep.Assertions[0].Verdict != "pass" || rep.Verdict != "pass" {
		t.Errorf("assertions %+v, verdict %s: the merged report decides", rep.Assertions, rep.Verdict)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "dbbench-workers-*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestProcessIsolationWorkerFailure(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, &callLog{}, `name: t
dataset: {persons: 20}
isolation: process
workloads: [scan]
targets:
  - {name: a, adapter: fake}
  - {name: b, adapter: fake}
`)
	steps := map[string][]string{"a": {"load 20"}, "b": {"load 20"}}
	r := &Runner{Plan: p, TempDir: dir, Environment: func() report.Environment { return report.Environment{} },
		Spawn: fakeWorkers(t, dir, steps, map[string]int{"b": 3})}
	_, err := r.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "the worker process for target b failed: target b: disk on fire") {
		t.Errorf("error %v, want the failed worker named", err)
	}
	r.Spawn = nil
	if _, err := r.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "needs a dbbench binary") {
		t.Errorf("without Spawn: %v", err)
	}
}

func TestWorkerStep(t *testing.T) {
	var out bytes.Buffer
	step := WorkerStep(strings.NewReader("go\n"), &out)
	if err := step("scan 20 0"); err != nil || out.String() != "step scan 20 0\n" {
		t.Errorf("step: %v, said %q", err, out.String())
	}
	if err := step("scan 20 1"); err == nil || !strings.Contains(err.Error(), "parent dbbench went away") {
		t.Errorf("no go-ahead: %v", err)
	}
}

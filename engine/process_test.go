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
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
)

// fakeWorkers makes Runner.Spawn start shell scripts that speak the worker protocol: each announces
// its steps, appends "TARGET STEP" to a shared log when let go, and leaves a prepared report.
func fakeWorkers(t *testing.T, dir string, steps map[string][]string, exit map[string]int) func(context.Context, WorkerSpec) *exec.Cmd {
	return fakeWorkersWith(t, dir, steps, exit, nil)
}

// fakeWorkersWith is fakeWorkers with each target's report changed by edit[target] first. A worker
// that exits with a code above 1 leaves its report only when edit has an entry for it.
func fakeWorkersWith(t *testing.T, dir string, steps map[string][]string, exit map[string]int, edit map[string]func(*report.Report)) func(context.Context, WorkerSpec) *exec.Cmd {
	log := filepath.Join(dir, "order.log")
	return func(ctx context.Context, spec WorkerSpec) *exec.Cmd {
		target, out := spec.Target, spec.Out
		rep := &report.Report{
			SchemaVersion: report.SchemaVersion, Verdict: "pass",
			Targets: []report.Target{{Name: target, Adapter: "fake", Status: "ok", Options: map[string]any{}}},
			Results: []report.Result{{Target: target, Workload: "scan", Size: 20, Unit: "scan", Status: "ok", Verification: report.Verification{OK: true},
				Figures: map[string]float64{"rows_per_s": 100}, Repeats: []report.Repeat{{Checksum: "0000000000000007", Figures: map[string]float64{"rows_per_s": 100}}}}},
		}
		if e := edit[target]; e != nil {
			e(rep)
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
		if exit[target] <= 1 || edit[target] != nil {
			fmt.Fprintf(&sh, "cp %s %s\n", prepared, out)
		}
		fmt.Fprintf(&sh, "exit %d\n", exit[target])
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

// TestProcessIsolationCrossChecks checks the targets of worker processes against each other, as one
// process does: a target whose checksum disagrees with the others' fails its verification and the
// run, and the agreeing ones pass.
func TestProcessIsolationCrossChecks(t *testing.T) {
	for _, tt := range []struct {
		name       string
		crossCheck string
		odd        string // the checksum target c reports
		verdict    string
	}{
		{"agree", "", "0000000000000007", "pass"},
		{"one odd out", "", "0000000000000008", "error"},
		{"cross_check false", ", cross_check: false", "0000000000000008", "pass"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := plan(t, &callLog{}, `name: t
dataset: {persons: 20}
isolation: process
workloads: [{name: scan`+tt.crossCheck+`}]
targets:
  - {name: a, adapter: fake}
  - {name: b, adapter: fake}
  - {name: c, adapter: fake}
`)
			steps := map[string][]string{"a": {"load 20"}, "b": {"load 20"}, "c": {"load 20"}}
			odd := func(rep *report.Report) { rep.Results[0].Repeats[0].Checksum = tt.odd }
			r := &Runner{Plan: p, TempDir: dir, Environment: func() report.Environment { return report.Environment{} },
				Spawn: fakeWorkersWith(t, dir, steps, nil, map[string]func(*report.Report){"c": odd})}
			rep, err := r.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if string(rep.Verdict) != tt.verdict {
				t.Errorf("verdict %s, want %s", rep.Verdict, tt.verdict)
			}
			for _, x := range rep.Results {
				bad := tt.verdict == "error" && x.Target == "c"
				if (x.Status == "failed") != bad || x.Verification.OK == bad {
					t.Errorf("%s: status %s, verification ok %v (%s)", x.Target, x.Status, x.Verification.OK, x.Error)
				}
				if bad && !strings.Contains(x.Error, "verification failed: targets disagree in repeat 1 (a=0000000000000007, b=0000000000000007, c=0000000000000008)") {
					t.Errorf("%s: error %q", x.Target, x.Error)
				}
			}
		})
	}
}

// TestProcessIsolationKeepsFailedWorkers: a worker whose workload failed exits 3 after writing its
// report; the run goes on and the merged report keeps every result, the failed one included, as one
// process does. A worker whose run stopped early adds its errors to the run's.
func TestProcessIsolationKeepsFailedWorkers(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, &callLog{}, `name: t
dataset: {persons: 20}
warmup: 0
repeats: 1
isolation: process
workloads: [scan, lookup]
targets:
  - {name: a, adapter: fake}
  - {name: b, adapter: fake}
`)
	steps := map[string][]string{"a": {"load 20", "scan 20 0", "lookup 20 0"}, "b": {"load 20", "scan 20 0", "lookup 20 0"}}
	failed := func(rep *report.Report) {
		rep.Verdict = "error"
		rep.Results[0].Status, rep.Results[0].Error = "failed", "verification failed: 3 rows, want 20"
		rep.Targets[0].Status = "failed"
	}
	r := &Runner{Plan: p, TempDir: dir, Environment: func() report.Environment { return report.Environment{} },
		Spawn: fakeWorkersWith(t, dir, steps, map[string]int{"b": 3}, map[string]func(*report.Report){"b": failed})}
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatalf("a failed workload is the result's, not the run's error: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "order.log"))
	if got := strings.Count(string(b), "\n"); got != 6 {
		t.Errorf("%d steps ran, want 6: the other worker went on\n%s", got, b)
	}
	if rep.Verdict != "error" || len(rep.Results) != 2 || rep.Find("b", "scan", 0).Status != "failed" || rep.Find("a", "scan", 0).Status != "ok" ||
		rep.TargetByName("b").Status != "failed" || len(rep.Run.Errors) != 0 {
		t.Errorf("verdict %s, %d results, run errors %v", rep.Verdict, len(rep.Results), rep.Run.Errors)
	}

	stopped := func(rep *report.Report) {
		failed(rep)
		rep.Run.Errors = []string{"triplex: load fixture: disk on fire"}
	}
	r.Spawn = fakeWorkersWith(t, dir, steps, map[string]int{"b": 3}, map[string]func(*report.Report){"b": stopped})
	rep, err = r.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "target b: triplex: load fixture: disk on fire") || exitcode.Of(err) != exitcode.Infra {
		t.Errorf("error %v, want the worker's run error", err)
	}
	if rep == nil || len(rep.Results) != 2 || rep.Verdict != "error" || len(rep.Run.Errors) != 1 {
		t.Fatalf("report %+v: want both workers' results and the run error", rep)
	}
}

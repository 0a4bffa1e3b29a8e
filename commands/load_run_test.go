package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/engine"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render"
)

// TestGeneratorSaturatedExit: a load run whose own generator fell behind exits 5 whatever its
// assertions say (they read the generator's limit), naming the run, and its report's verdict and
// verdict line say so (they said PASS while it exited 5); a target saturated is not the generator's,
// and a run that failed still exits 3.
func TestGeneratorSaturatedExit(t *testing.T) {
	withLoad := func(sat string, asserted report.Verdict, status report.Status) *report.Report {
		return &report.Report{Results: []report.Result{
			{Target: "sqlite", Workload: "ycsb-a", Status: status},
			{Target: "memory", Workload: "ycsb-a", Status: report.StatusOK, Load: &report.Load{Saturation: sat, Scheduled: 1000, LateAfter: 1e6,
				Generator: report.LoadGenerator{Late: 40}}},
		}, Assertions: []report.Assertion{{Expr: "ycsb-a.achieved_rate[memory] >= 900", Verdict: asserted}}}
	}
	tests := []struct {
		sat      string
		asserted report.Verdict
		status   report.Status
		verdict  report.Verdict
		code     int
		msg      string
	}{
		{"generator saturated", report.VerdictPass, report.StatusOK, report.VerdictSaturated, exitcode.GeneratorSaturated,
			"generator saturated: dbbench's own generator could not keep the schedule of ycsb-a on memory (40 of 1000 operations started more than 1ms late"},
		{"generator saturated", report.VerdictFail, report.StatusOK, report.VerdictSaturated, exitcode.GeneratorSaturated, "not the target's"},
		{"generator saturated", report.VerdictPass, report.StatusFailed, report.VerdictError, exitcode.Infra, ""},
		{"target saturated", report.VerdictPass, report.StatusOK, report.VerdictPass, exitcode.OK, ""},
		{"", report.VerdictFail, report.StatusOK, report.VerdictFail, exitcode.Failed, ""},
	}
	for _, tt := range tests {
		rep := withLoad(tt.sat, tt.asserted, tt.status)
		rep.Verdict = engine.Verdict(rep)
		var line strings.Builder
		render.VerdictLine(&line, rep, render.Style{})
		err := verdictError(rep)
		code := exitcode.OK
		if se, ok := err.(*silentError); ok {
			code = se.code
		}
		if rep.Verdict != tt.verdict || code != tt.code {
			t.Errorf("%q %s: verdict %s, exit %d (%v); want %s, exit %d", tt.sat, tt.asserted, rep.Verdict, code, err, tt.verdict, tt.code)
			continue
		}
		if saturated := strings.Contains(line.String(), "verdict: GENERATOR SATURATED: dbbench's own generator could not keep the schedule of ycsb-a on memory"); saturated != (tt.verdict == report.VerdictSaturated) {
			t.Errorf("%q %s: the verdict line says %q", tt.sat, tt.asserted, line.String())
		}
		if se, ok := err.(*silentError); tt.msg != "" && (!ok || !strings.Contains(se.msg, tt.msg)) {
			t.Errorf("%q %s: got %#v, want %q", tt.sat, tt.asserted, err, tt.msg)
		}
	}
}

// TestHlogPath: the interval log goes beside the report, never over a file without --force, and
// with --force only over an earlier interval log.
func TestHlogPath(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.json")
	got, err := hlogPath(rep, &RunOptions{})
	if err != nil || got != filepath.Join(dir, "r.hlog") {
		t.Fatalf("%q %v", got, err)
	}
	os.WriteFile(got, []byte("my notes\n"), 0o644)
	if _, err := hlogPath(rep, &RunOptions{}); err == nil || exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "--force replaces") {
		t.Errorf("an existing file without --force: %v", err)
	}
	if _, err := hlogPath(rep, &RunOptions{Force: true}); err == nil || !strings.Contains(err.Error(), "is not an interval log") {
		t.Errorf("a user's file with --force: %v", err)
	}
	os.WriteFile(got, []byte("#[Histogram log format version 1.3]\n"), 0o644)
	if p, err := hlogPath(rep, &RunOptions{Force: true}); err != nil || p != got {
		t.Errorf("an earlier interval log with --force: %q %v", p, err)
	}
}

// TestLoadFlags: --rate and --duration make a built-in YCSB config an open loop at that rate for
// that long, its interval log beside the report; they are refused where there is no YCSB workload.
// --precise is in the config as run, and refused without an open loop.
func TestLoadFlags(t *testing.T) {
	dir := t.TempDir()
	persons := writeFile(t, dir, "p.yaml", strings.Replace(tiny, "ASSERTION", "scan.p50[a] > 0", 1))
	out := filepath.Join(dir, "y.json")
	code, _, errOut := execute(t, "run", "-c", persons, "--rate", "100")
	if code != exitcode.Usage || !strings.Contains(errOut, "--rate and --duration apply to YCSB workloads") {
		t.Errorf("a config without YCSB workloads: exit %d, %s", code, errOut)
	}
	if code, _, errOut = execute(t, "run", "-c", "ycsb-c", "--rate", "-5"); code != exitcode.Usage {
		t.Errorf("a negative rate: exit %d, %s", code, errOut)
	}
	if code, _, errOut = execute(t, "run", "-c", persons, "--precise"); code != exitcode.Usage || !strings.Contains(errOut, "--precise applies to an open loop") {
		t.Errorf("--precise without an open loop: exit %d, %s", code, errOut)
	}
	writeFile(t, dir, "y.hlog", "a user's notes\n")
	if code, _, errOut = execute(t, "run", "-q", "-c", "ycsb-c", "--ci", "--out", out); code != exitcode.Usage || !strings.Contains(errOut, "y.hlog exists") {
		t.Errorf("an existing file where the interval log goes: exit %d, %s", code, errOut)
	}
	os.Remove(filepath.Join(dir, "y.hlog"))
	code, _, errOut = execute(t, "run", "-q", "-c", "ycsb-c", "--ci", "--rate", "200", "--duration", "300ms", "--precise", "--out", out)
	if code != exitcode.OK && !(code == exitcode.GeneratorSaturated && strings.Contains(errOut, "generator saturated")) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rep, err := report.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := rep.Config["load"].(map[string]any); l["precise"] != true {
		t.Errorf("--precise: the config as run has load %v", rep.Config["load"])
	}
	for _, x := range rep.Results {
		l := x.Load
		if l == nil || l.Loop != "open" || l.TargetRate != 200 || l.DurationNs != 300e6 || l.Scheduled != 60 || l.Hlog != "y.hlog" || x.Status != report.StatusOK {
			t.Errorf("%s: %s %s, load %+v", x.Target, x.Status, x.Error, l)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "y.hlog")); err != nil || fi.Size() == 0 {
		t.Errorf("interval log: %v", err)
	}
}

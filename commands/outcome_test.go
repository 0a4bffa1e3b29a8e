package commands

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
)

// TestQuietFailuresSayWhy: under -q every non-zero exit still has its one line on stderr.
func TestQuietFailuresSayWhy(t *testing.T) {
	dir := t.TempDir()
	skipped := writeFile(t, dir, "skipped.yaml", "name: s\ndataset: {persons: 100}\nworkloads: [scan]\ntargets: [{name: m, adapter: missing, optional: true}]\n")
	code, _, errOut := execute(t, "run", "-q", "-c", skipped, "--out", filepath.Join(dir, "s.json"))
	if code != exitcode.Infra || errOut != "dbbench: nothing was measured: every target was skipped\n" {
		t.Errorf("every target skipped: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "s.json")); err == nil {
		t.Error("a run that measured nothing left a report (or its placeholder)")
	}
}

// TestSummaryBeforeReport: when the report cannot be written (a full disk, a path swapped during the
// run), the summary with every figure has already been printed, and the exit is 3 with the reason.
func TestSummaryBeforeReport(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", strings.Replace(tiny, "ASSERTION", "scan.p50[a] > 0", 1))
	if code, _, errOut := execute(t, "run", "-q", "-c", cfg, "--out", filepath.Join(dir, "p.json")); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rep, err := report.Read(filepath.Join(dir, "p.json"))
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "new.json")
	res, err := report.Reserve(target, report.ReserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(target)
	os.Mkdir(target, 0o755) // the write fails, as on a full disk
	var out bytes.Buffer
	err = (&finisher{opts: &RunOptions{}, out: &out, res: res}).finish(rep, nil)
	if exitcode.Of(err) != exitcode.Infra || !strings.Contains(err.Error(), "new.json") {
		t.Errorf("err %v (exit %d), want exit 3 naming the report", err, exitcode.Of(err))
	}
	if !strings.Contains(out.String(), "verdict: PASS") || !strings.Contains(out.String(), "scan") {
		t.Errorf("summary not printed:\n%s", out.String())
	}
}

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// ciScript runs the repository's .ci/<name> with every step replaced by a stand-in that records its
// name and fails for the names in fail (DBBENCH_CI_STEP_RUNNER, see .ci/steps.sh). It returns the
// exit code, the steps in the order they ran, and stdout's last line.
func ciScript(t *testing.T, name string, fail ...string) (code int, ran []string, last string) {
	t.Helper()
	code, ran, out := ciScriptOut(t, name, nil, fail...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return code, ran, lines[len(lines)-1]
}

// ciScriptOut is ciScript with steps that exit 4 (inconclusive) too; it returns the whole stdout.
func ciScriptOut(t *testing.T, name string, inconclusive []string, fail ...string) (code int, ran []string, stdout string) {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "steps.log")
	runner := filepath.Join(dir, "step")
	if err := os.WriteFile(runner, []byte(`#!/bin/sh
printf '%s\n' "$1" >> "$STEP_LOG"
printf '%s\n' "$FAIL_STEPS" | grep -Fxq -- "$1" && exit 7
printf '%s\n' "$INCONCLUSIVE_STEPS" | grep -Fxq -- "$1" && exit 4
exit 0
`), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join("..", "..", ".ci", name))
	cmd.Env = append(os.Environ(), "DBBENCH_CI_STEP_RUNNER="+runner, "STEP_LOG="+log, "FAIL_STEPS="+strings.Join(fail, "\n"), "INCONCLUSIVE_STEPS="+strings.Join(inconclusive, "\n"))
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf(".ci/%s: %v", name, err)
	}
	b, _ := os.ReadFile(log)
	ran = strings.Split(strings.TrimSpace(string(b)), "\n")
	t.Logf(".ci/%s:\n%s", name, out)
	return cmd.ProcessState.ExitCode(), ran, string(out)
}

// TestCIScriptsRunEveryStep: .ci/test and .ci/run run every step when one fails, and end with the
// list of those that failed and a non-zero exit; only .ci/test's set-up stops everything.
func TestCIScriptsRunEveryStep(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	// What every step of .ci/test is called, in order: the set-up first, then the suite.
	code, all, last := ciScript(t, "test")
	if code != 0 || len(all) < 4 || all[0] != ".ci/setup" || !slices.Contains(all, "go test ./...") {
		t.Fatalf(".ci/test with every step passing: exit %d, steps %q", code, all)
	}
	suite := all[1:]
	if want := "== .ci/test: all " + strconv.Itoa(len(suite)) + " steps passed"; last != want {
		t.Errorf("last line %q, want %q", last, want)
	}

	t.Run("the first step fails", func(t *testing.T) {
		code, ran, last := ciScript(t, "test", suite[0])
		if code == 0 || !slices.Equal(ran, all) {
			t.Errorf("exit %d, ran %q; want non-zero and every step %q", code, ran, all)
		}
		if want := "== .ci/test: 1 of " + strconv.Itoa(len(suite)) + " steps failed: " + suite[0]; last != want {
			t.Errorf("last line %q, want %q", last, want)
		}
	})
	t.Run("two steps fail", func(t *testing.T) {
		code, ran, last := ciScript(t, "test", suite[0], suite[len(suite)-1])
		if code == 0 || !slices.Equal(ran, all) {
			t.Errorf("exit %d, ran %q; want non-zero and every step %q", code, ran, all)
		}
		if want := "== .ci/test: 2 of " + strconv.Itoa(len(suite)) + " steps failed: " + suite[0] + ", " + suite[len(suite)-1]; last != want {
			t.Errorf("last line %q, want %q", last, want)
		}
	})
	t.Run("the set-up fails", func(t *testing.T) {
		code, ran, last := ciScript(t, "test", ".ci/setup")
		if code != 7 || !slices.Equal(ran, []string{".ci/setup"}) || !strings.Contains(last, ".ci/setup failed (exit 7); nothing else can run") {
			t.Errorf("exit %d, ran %q, last line %q; want exit 7 after the set-up alone", code, ran, last)
		}
	})
	t.Run(".ci/run: .ci/test first, every gate after it", func(t *testing.T) {
		code, all, _ := ciScript(t, "run")
		if code != 0 || len(all) < 5 || all[0] != ".ci/test" || !slices.Contains(all, ".ci/lint-ci") {
			t.Fatalf(".ci/run with every step passing: exit %d, steps %q", code, all)
		}
		code, ran, last := ciScript(t, "run", ".ci/test")
		if code == 0 || !slices.Equal(ran, all) {
			t.Errorf("exit %d, ran %q; want non-zero and every step %q", code, ran, all)
		}
		if want := "== .ci/run: 1 of " + strconv.Itoa(len(all)) + " steps failed: .ci/test"; last != want {
			t.Errorf("last line %q, want %q", last, want)
		}
	})
	t.Run(".ci/run: an inconclusive verdict is loud and does not fail; a failing one does", func(t *testing.T) {
		_, all, _ := ciScript(t, "run")
		var verdicts []string // the gate and the runs whose assertions decide
		for _, s := range all {
			if strings.HasPrefix(s, ".ci/gate") || strings.HasPrefix(s, "dbbench run --ci") {
				verdicts = append(verdicts, s)
			}
		}
		if len(verdicts) < 2 || !strings.HasPrefix(verdicts[len(verdicts)-1], ".ci/gate") {
			t.Fatalf("want run --ci steps and a .ci/gate step in %q", all)
		}
		for _, gate := range verdicts {
			inconclusiveStep(t, all, gate)
		}
	})
}

// inconclusiveStep checks that a verdict step (gate) of .ci/run exiting 4 is a banner and not a
// failure, that exiting 7 is a failure, and that another step's exit 4 is a failure like any other.
func inconclusiveStep(t *testing.T, all []string, gate string) {
	t.Helper()
	code, ran, out := ciScriptOut(t, "run", []string{gate})
	if code != 0 || !slices.Equal(ran, all) {
		t.Errorf("%s exit 4: exit %d, ran %q; want 0 and every step", gate, code, ran)
	}
	if !strings.Contains(out, "!! "+gate+": INCONCLUSIVE (exit 4): the evidence did not decide; nothing failed.") ||
		!strings.HasSuffix(strings.TrimSpace(out), "== .ci/run: none of "+strconv.Itoa(len(all))+" steps failed (INCONCLUSIVE: "+gate+")") {
		t.Errorf("%s exit 4: no banner or summary in\n%s", gate, out)
	}
	// exit 4 of any other step is a failure like any other
	if code, _, out := ciScriptOut(t, "run", []string{".ci/lint-ci"}); code == 0 || !strings.Contains(out, "-- .ci/lint-ci failed (exit 4)") {
		t.Errorf("another step's exit 4: exit %d\n%s", code, out)
	}
	code, _, last := ciScript(t, "run", gate)
	if want := "== .ci/run: 1 of " + strconv.Itoa(len(all)) + " steps failed: " + gate; code == 0 || last != want {
		t.Errorf("%s exit 7: exit %d, last line %q, want %q", gate, code, last, want)
	}
}

// TestCIStepRunner runs real commands through .ci/steps.sh: a failing one is reported with its exit
// code and the next still runs.
func TestCIStepRunner(t *testing.T) {
	cmd := exec.Command("bash", "-c", `set -euo pipefail
source .ci/steps.sh
step "first" sh -c 'exit 3'
step "second" echo "second ran"
step "third" true
steps_done demo`)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "DBBENCH_CI_STEP_RUNNER=")
	out, err := cmd.Output()
	want := "== first\n-- first failed (exit 3)\n== second\nsecond ran\n== third\n== demo: 1 of 3 steps failed: first\n"
	if err == nil || string(out) != want {
		t.Errorf("err %v, stdout\n%s\nwant\n%s", err, out, want)
	}
}

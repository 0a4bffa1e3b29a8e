package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbbench/dbbench/internal/cleanup"
)

// leftoverConfig is a run of 2 runs on the memory store, long enough to be killed in the middle.
const leftoverConfig = `name: leftovers
seed: 3
dataset: {persons: 20000}
warmup: 1
repeats: 5
verdict: {runs: 2}
workloads: [scan, {name: lookup, ops: 20000}]
targets:
  - {name: memory, adapter: memory}
`

// TestKilledRunLeavesNothing: a run of several runs SIGKILLed while its runs' directory and its
// worker's run directory exist leaves them behind (nothing of a SIGKILLed process runs), each marked
// with its owner; the next run removes them, and when it is done nothing of either is left in the
// (private) TMPDIR. Before the runs' directory carried a mark, it stayed for good.
func TestKilledRunLeavesNothing(t *testing.T) {
	tmp, work := t.TempDir(), t.TempDir()
	cfg := filepath.Join(work, "leftovers.yaml")
	if err := os.WriteFile(cfg, []byte(leftoverConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "run", "-q", "-c", cfg, "--out", filepath.Join(work, "first.json"))
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	both := func() bool {
		runs, _ := filepath.Glob(filepath.Join(tmp, "dbbench-runs-*"))
		run, _ := filepath.Glob(filepath.Join(tmp, "dbbench-run-*"))
		return len(runs) > 0 && len(run) > 0
	}
	for deadline := time.Now().Add(time.Minute); !both(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the run made no runs' directory and worker's run directory in a minute: %v", entries(tmp))
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	// The worker learns of its parent's death (SIGTERM) and stops: wait until no owner lives.
	for deadline := time.Now().Add(time.Minute); liveOwners(tmp); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a process still owns a directory in TMPDIR a minute after the kill: %v", entries(tmp))
		}
	}
	left := entries(tmp)
	if !strings.Contains(strings.Join(left, " "), "dbbench-runs-") {
		t.Fatalf("after SIGKILL TMPDIR holds %v: the runs' directory should be left (the test would prove nothing)", left)
	}
	code, _, stderr := dbbench(t, tmp, "run", "-c", cfg, "--runs", "1", "--out", filepath.Join(work, "second.json"))
	if code != 0 && code != 1 && code != 4 {
		t.Fatalf("the next run: exit %d: %s", code, stderr)
	}
	if rest := entries(tmp); len(rest) > 0 {
		t.Errorf("after the next run TMPDIR still holds %v (left by the killed run: %v)", rest, left)
	}
	if !strings.Contains(strings.Join(strings.Fields(stderr), " "), "left by a dbbench run that did not finish") {
		t.Errorf("the next run did not say what it removed: %s", stderr)
	}
}

// entries lists a directory's names.
func entries(dir string) []string {
	es, _ := os.ReadDir(dir)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// liveOwners reports whether a directory in dir carries the owner mark of a process still alive.
func liveOwners(dir string) bool {
	for _, name := range entries(dir) {
		b, err := os.ReadFile(filepath.Join(dir, name, cleanup.OwnerFile))
		if err != nil {
			continue
		}
		if pid, _, ok := cleanup.ParseOwner(string(b)); ok && cleanup.Alive(pid) {
			return true
		}
	}
	return false
}

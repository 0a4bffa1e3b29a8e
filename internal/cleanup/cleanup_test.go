package cleanup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

func TestPending(t *testing.T) {
	a := Register("rm -rf /tmp/a")
	b := Register("DROP SCHEMA s CASCADE")
	a()
	a() // twice is fine
	if got := Pending(); len(got) != 1 || got[0] != "DROP SCHEMA s CASCADE" {
		t.Errorf("pending %q", got)
	}
	b()
	if got := Pending(); len(got) != 0 {
		t.Errorf("pending %q after done", got)
	}
}

func TestAbortRunsLocalCleanups(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	os.Mkdir(dir, 0o755)
	Register("DROP SCHEMA s CASCADE")
	RegisterLocal("rm -rf "+dir, func() { os.RemoveAll(dir) })
	Abort()
	if _, err := os.Stat(dir); err == nil {
		t.Error("a local cleanup did not run")
	}
	if got := Pending(); len(got) != 1 || got[0] != "DROP SCHEMA s CASCADE" {
		t.Errorf("pending %q, want only the remote step", got)
	}
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestSweepDirsRemovesOnlyDeadOwners(t *testing.T) {
	parent := t.TempDir()
	host, _ := os.Hostname()
	mk := func(name, mark string) string {
		d := filepath.Join(parent, name)
		os.MkdirAll(d, 0o755)
		if mark != "" {
			os.WriteFile(filepath.Join(d, OwnerFile), []byte(mark), 0o644)
		}
		return d
	}
	dead := mk("dbbench-run-dead", "dbbench pid="+strconv.Itoa(deadPID(t))+" host="+host)
	live := mk("dbbench-run-live", Owner())
	foreign := mk("dbbench-run-foreign", "dbbench pid="+strconv.Itoa(deadPID(t))+" host=elsewhere")
	unmarked := mk("dbbench-run-unmarked", "")
	garbage := mk("dbbench-run-garbage", "pid=1")
	other := mk("mine-dead", "dbbench pid="+strconv.Itoa(deadPID(t))+" host="+host)

	removed := SweepDirs(parent, "dbbench-run-")
	if len(removed) != 1 || removed[0] != dead {
		t.Errorf("removed %q, want only %s", removed, dead)
	}
	for _, d := range []string{live, foreign, unmarked, garbage, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed", d)
		}
	}
}

func TestParseOwner(t *testing.T) {
	pid, host, ok := ParseOwner(Owner())
	if !ok || pid != os.Getpid() || host == "" {
		t.Errorf("round trip: %d %q %v", pid, host, ok)
	}
	for _, s := range []string{"", "dbbench", "dbbench pid=x host=h", "dbbench pid=-1 host=h", "other pid=1 host=h"} {
		if _, _, ok := ParseOwner(s); ok {
			t.Errorf("%q parsed", s)
		}
	}
	if Dead(Owner()) {
		t.Error("this process counted as dead")
	}
}

package cleanup

import (
	"os"
	"os/exec"
	"testing"
)

func TestProcessState(t *testing.T) {
	self := Self()
	if self.PID != os.Getpid() || self.Host != Hostname() || self.Host == "" {
		t.Fatalf("Self() = %+v", self)
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil && self.Start == 0 {
		t.Fatal("no start time read from /proc")
	}
	recycled := self
	recycled.Start++
	rebooted := self
	rebooted.BootID = "not-this-boot"
	foreign := self
	foreign.Host = "elsewhere"
	cases := []struct {
		name string
		p    Process
		want ProcessState
	}{
		{"this process", self, Running},
		{"an exited process", Process{Host: Hostname(), BootID: self.BootID, PID: deadPID(t), Start: 1}, Gone},
		{"a recycled pid (this pid, another start time)", recycled, Gone},
		{"another host", foreign, Foreign},
		{"no pid", Process{Host: Hostname()}, Gone},
	}
	if self.BootID != "" {
		cases = append(cases, struct {
			name string
			p    Process
			want ProcessState
		}{"an earlier boot", rebooted, Gone})
	}
	for _, c := range cases {
		if got := c.p.State(); got != c.want {
			t.Errorf("%s: state %d, want %d", c.name, got, c.want)
		}
	}
}

// TestProcessStartOfAChild: the start time is read for any process, and a child started later has a
// start time no earlier than this process's.
func TestProcessStartOfAChild(t *testing.T) {
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	start, ok := processStart(cmd.Process.Pid)
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if !ok || start < Self().Start {
		t.Errorf("child start %d (%v), this process %d", start, ok, Self().Start)
	}
	child := Process{Host: Hostname(), BootID: bootID(), PID: cmd.Process.Pid, Start: start}
	if child.State() != Running {
		t.Error("a running child is not Running")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if child.State() != Gone {
		t.Error("a killed child is not Gone")
	}
}

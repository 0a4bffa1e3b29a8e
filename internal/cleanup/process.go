package cleanup

import (
	"os"
	"strconv"
	"strings"
	"sync"
)

// Process names one process of one host for as long as it runs, and never another one after it: a
// pid alone may be handed to a new process once the first has exited, so the process's start time
// (clock ticks after boot, /proc/PID/stat field 22) and the boot it belongs to go with it.
type Process struct {
	Host string `json:"host"`
	// BootID is the kernel's boot id (/proc/sys/kernel/random/boot_id); "" where there is none.
	BootID string `json:"boot_id,omitempty"`
	PID    int    `json:"pid"`
	// Start is when the process started, in clock ticks after boot; 0 where /proc is missing.
	Start uint64 `json:"process_start"`
}

// ProcessState is what a Process is now.
type ProcessState int

const (
	// Running: the process still runs on this host.
	Running ProcessState = iota
	// Gone: the process no longer runs on this host (it exited, its pid now names another process,
	// or the host has rebooted since).
	Gone
	// Foreign: the process belongs to another host, where this one cannot look.
	Foreign
)

// Self is this process.
func Self() Process {
	selfOnce.Do(func() {
		start, _ := processStart(os.Getpid())
		self = Process{Host: Hostname(), BootID: bootID(), PID: os.Getpid(), Start: start}
	})
	return self
}

var (
	selfOnce sync.Once
	self     Process
)

// State says whether p still runs.
func (p Process) State() ProcessState {
	if p.Host != Hostname() {
		return Foreign
	}
	if p.PID <= 0 {
		return Gone
	}
	if b := bootID(); p.BootID != "" && b != "" && p.BootID != b {
		return Gone
	}
	if !Alive(p.PID) {
		return Gone
	}
	if start, ok := processStart(p.PID); ok && p.Start != 0 && start != p.Start {
		return Gone // the pid was handed to another process
	}
	return Running
}

// Hostname is this host's name as marks record it (no spaces; "unknown" when it has none).
func Hostname() string { return hostname() }

// processStart reads when a process started, in clock ticks after boot.
func processStart(pid int) (uint64, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses, so count fields after the
	// last ')'. starttime is field 22 overall, the 20th after comm.
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 {
		return 0, false
	}
	v, err := strconv.ParseUint(f[19], 10, 64)
	return v, err == nil
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

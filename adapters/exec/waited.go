package exec

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// waited is the time process pid's main thread (the thread group's leader: the one a
// single-threaded client does everything on, and a threaded GHC program's bound main thread) has
// spent runnable but not running: the second field of Linux's /proc/PID/task/PID/schedstat
// (run-queue delay); ok is false where it cannot be read. A machine's load shows here, not as the
// client's work (measured: a threaded GHC client's lookup requests, 0.25 ms of work and 1 ms of CPU,
// took 7-37 ms round trips beside two busy loops). Only the leader counts: the waits of several
// threads overlap, and their sum would excuse more than the load took.
func waited(pid int) (time.Duration, bool) {
	p := strconv.Itoa(pid)
	b, err := os.ReadFile("/proc/" + p + "/task/" + p + "/schedstat")
	if err != nil {
		return 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, false
	}
	ns, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(ns), true
}

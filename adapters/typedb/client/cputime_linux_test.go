package client

import "golang.org/x/sys/unix"

// ThreadCPU is the CPU time (user and system) the calling OS thread has used. With the goroutine
// locked to its thread (runtime.LockOSThread) it is that goroutine's CPU time: its own code, the
// system calls it makes (reading the socket) and the GC assists it pays for, but not the fake
// server's goroutines, which run on other threads.
func ThreadCPU() (int64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}

// ProcessCPU is the CPU time (user and system) of the whole process: client, fake server and runtime.
func ProcessCPU() (int64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}

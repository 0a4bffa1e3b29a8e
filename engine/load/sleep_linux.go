package load

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// sleepThread sleeps the calling thread for d with the kernel's high-resolution timer. A Go timer
// (time.Sleep) wakes through the network poller, whose wait has millisecond resolution: its
// overshoot spread start lags evenly over 0-1 ms at 500 ops/s (measured on the 2-core VM: p50 457 us),
// while a thread's nanosleep overshoots by tens of microseconds, which the spin then absorbs.
func sleepThread(d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}

// sleepThreadCPU sleeps as sleepThread does and returns the CPU time the sleep took its thread
// (the system call's own work, and the timer's), read on the thread's CPU clock; the goroutine is
// locked to its thread meanwhile so that both reads are the same thread's.
func sleepThreadCPU(d time.Duration) (time.Duration, bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var c0, c1 unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &c0) != nil {
		sleepThread(d)
		return 0, false
	}
	sleepThread(d)
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &c1) != nil {
		return 0, false
	}
	return time.Duration(c1.Nano() - c0.Nano()), true
}

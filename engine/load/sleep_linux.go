package load

import (
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

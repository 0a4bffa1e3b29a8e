//go:build !linux

package load

import "time"

// sleepThread sleeps with the Go runtime's timer elsewhere.
func sleepThread(d time.Duration) { time.Sleep(d) }

// sleepThreadCPU cannot read a thread's CPU clock elsewhere.
func sleepThreadCPU(d time.Duration) (time.Duration, bool) {
	sleepThread(d)
	return 0, false
}

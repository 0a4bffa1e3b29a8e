//go:build !linux

package load

import "time"

// threadCPU is not measured outside Linux.
func threadCPU() (time.Duration, bool) { return 0, false }

// sleepThread sleeps with the Go runtime's timer elsewhere.
func sleepThread(d time.Duration) { time.Sleep(d) }

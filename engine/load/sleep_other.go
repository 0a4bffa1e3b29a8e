//go:build !linux

package load

import "time"

// sleepThread sleeps with the Go runtime's timer elsewhere.
func sleepThread(d time.Duration) { time.Sleep(d) }

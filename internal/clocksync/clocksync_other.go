//go:build !linux

package clocksync

// Read cannot ask this platform's kernel: the offset is unknown.
func Read() State { return State{Source: "not available on this platform"} }

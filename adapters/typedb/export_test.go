package typedb

import "time"

// SetStartupTimeout shortens the start-up deadline for a test and returns the function restoring it.
func SetStartupTimeout(d time.Duration) (restore func()) {
	old := startupTimeout
	startupTimeout = d
	return func() { startupTimeout = old }
}

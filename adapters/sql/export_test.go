package sqladapter

import "time"

// setSetupTimeout sets the setup deadline for a test and returns the function that restores it.
func setSetupTimeout(d time.Duration) (restore func()) {
	old := setupTimeout
	setupTimeout = d
	return func() { setupTimeout = old }
}

package postgres

// SweepLockTimeout is sweepLockTimeout for the external tests (schema_test.go), which need the
// shared test server of pgtest and so cannot be in this package.
const SweepLockTimeout = sweepLockTimeout

// ConnectErr is connectErr, for a made-up server answer.
var ConnectErr = connectErr

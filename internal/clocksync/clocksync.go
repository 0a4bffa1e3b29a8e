// Package clocksync reads how well this machine's clock is synchronized, as the kernel knows it
// from the time daemon (NTP, chrony): the last measured offset and the bound on the clock's error.
// It never estimates anything itself: a clock the kernel calls unsynchronized is unknown.
package clocksync

// State is the clock's synchronization as read.
type State struct {
	Source     string // how it was read ("adjtimex", or why it could not be)
	Known      bool   // the kernel says the clock is synchronized
	OffsetNs   int64  // the time daemon's last measured offset
	MaxErrorNs int64  // the kernel's bound on the clock's error
}

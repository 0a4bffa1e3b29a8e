package clocksync

import "golang.org/x/sys/unix"

// Read asks the kernel (adjtimex, read only: modes 0) for the clock's state.
func Read() State {
	var tx unix.Timex
	code, err := unix.Adjtimex(&tx)
	if err != nil {
		return State{Source: "adjtimex failed: " + err.Error()}
	}
	s := State{Source: "adjtimex"}
	if code == unix.TIME_ERROR || tx.Status&unix.STA_UNSYNC != 0 {
		return s // the kernel does not vouch for the clock: unknown, not zero
	}
	s.Known = true
	s.OffsetNs = int64(tx.Offset)
	if tx.Status&unix.STA_NANO == 0 {
		s.OffsetNs *= 1000 // microseconds
	}
	s.MaxErrorNs = int64(tx.Maxerror) * 1000 // always microseconds
	return s
}

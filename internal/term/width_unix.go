//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package term

import (
	"io"

	"golang.org/x/sys/unix"
)

// Columns is the width of the terminal w writes to, from the terminal driver; 0 when w is no terminal
// or the driver does not know (a pseudo-terminal nobody sized).
func Columns(w io.Writer) int {
	f, ok := file(w)
	if !ok || !IsTerminal(w) {
		return 0
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}

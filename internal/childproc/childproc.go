// Package childproc starts child processes that must not outlive dbbench (a throwaway PostgreSQL, a
// client speaking the protocol).
package childproc

import (
	"os/exec"
	"runtime"
)

// StartPinned starts cmd from a goroutine locked to its OS thread and runs wait on that goroutine,
// which must return only once the child has exited. Linux delivers a child's Pdeathsig when the
// thread that forked it exits, not the process, so that thread must live as long as the child: an
// unlocked goroutine could fork from a thread that the runtime later retires, killing the child.
func StartPinned(cmd *exec.Cmd, wait func()) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		wait()
	}()
	return <-started
}

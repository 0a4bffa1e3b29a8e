//go:build !(callgrind && cgo && linux)

package callgrind

// Available reports whether this build can talk to callgrind: only with the build tag callgrind
// (it needs valgrind's headers: Debian package valgrind), cgo and Linux.
const Available = false

func running() bool    { return false }
func start()           {}
func stop(name string) {}

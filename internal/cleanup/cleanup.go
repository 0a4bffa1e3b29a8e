// Package cleanup keeps the list of things this process created outside itself and has not removed
// yet (temporary directories, servers, schemas, databases), each described as what a person would do
// to remove it by hand. When an interrupted run cannot finish cleaning up in time, dbbench prints
// that list instead of hanging or leaving things behind silently.
package cleanup

import (
	"maps"
	"slices"
	"sync"
)

var (
	mu      sync.Mutex
	next    int
	pending = map[int]string{}
	aborts  = map[int]func(){}
)

// Register records a pending cleanup, described as the manual step ("rm -rf /tmp/x",
// "DROP SCHEMA s CASCADE in database d"), and returns the function that marks it done. done may be
// called more than once.
func Register(how string) (done func()) {
	mu.Lock()
	defer mu.Unlock()
	id := next
	next++
	pending[id] = how
	return func() {
		mu.Lock()
		delete(pending, id)
		delete(aborts, id)
		mu.Unlock()
	}
}

// RegisterLocal is Register for a cleanup this process can still do when it gives up waiting for the
// rest (removing a local file or directory): Abort runs undo instead of listing the step.
func RegisterLocal(how string, undo func()) (done func()) {
	d := Register(how)
	mu.Lock()
	aborts[next-1] = undo
	mu.Unlock()
	return d
}

// Abort runs the local cleanups still pending and marks them done; the others stay in Pending.
func Abort() {
	mu.Lock()
	var fns []func()
	for id, fn := range aborts {
		fns = append(fns, fn)
		delete(aborts, id)
		delete(pending, id)
	}
	mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// Pending returns the cleanups not done yet, oldest first.
func Pending() []string {
	mu.Lock()
	defer mu.Unlock()
	ids := slices.Sorted(maps.Keys(pending))
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = pending[id]
	}
	return out
}

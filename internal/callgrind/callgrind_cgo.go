//go:build callgrind && cgo && linux

package callgrind

/*
#include <stdlib.h>
#include <valgrind/valgrind.h>
#include <valgrind/callgrind.h>

static int dbbench_on_valgrind(void) { return RUNNING_ON_VALGRIND; }
// Counts start from zero: collection was off since the previous dump.
static void dbbench_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_TOGGLE_COLLECT; }
static void dbbench_stop(const char *name) { CALLGRIND_TOGGLE_COLLECT; CALLGRIND_DUMP_STATS_AT(name); }
*/
import "C"

import "unsafe"

// Available reports whether this build can talk to callgrind.
const Available = true

func running() bool { return C.dbbench_on_valgrind() != 0 }

func start() { C.dbbench_start() }

func stop(name string) {
	cs := C.CString(name)
	C.dbbench_stop(cs)
	C.free(unsafe.Pointer(cs))
}

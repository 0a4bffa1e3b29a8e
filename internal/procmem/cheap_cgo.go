//go:build cgo && linux

package procmem

/*
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

// In use: the bytes of allocated chunks in the arenas plus those malloc mmapped on its own (large
// blocks). What malloc keeps free for reuse is not counted.
static size_t dbb_malloc_in_use(void) {
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

// Written to, so that the pages are resident and not only reserved, and chained from a global, so
// that the compiler cannot drop an allocation nothing reads.
static void *volatile dbb_leaked;
static void dbb_leak(size_t n) {
	void *p = malloc(n < sizeof(void *) ? sizeof(void *) : n);
	if (p == NULL)
		return;
	memset(p, 0x5a, n);
	*(void **)p = dbb_leaked;
	dbb_leaked = p;
}
*/
import "C"

// CHeap returns the bytes glibc's malloc holds allocated for this process (every arena; chunks freed
// back to malloc are not counted), and true; false where it cannot be read. It sees what C code in
// the process allocates through malloc (an adapter's C side, a cgo leak); it does not see memory
// mapped without malloc, such as LMDB's map of its data file, nor Go's heap.
func CHeap() (int64, bool) {
	return int64(C.dbb_malloc_in_use()), true
}

// LeakC mallocs n bytes in C, writes them, and never frees them: a test aid that makes a target
// leak as a C library that keeps memory per transaction does (the lmdb adapter's
// leak_c_bytes_per_txn option). Nothing else may call it.
func LeakC(n int) {
	if n > 0 {
		C.dbb_leak(C.size_t(n))
	}
}

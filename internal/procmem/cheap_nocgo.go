//go:build !cgo || !linux

package procmem

// CHeap cannot read the C allocator without cgo on glibc: false.
func CHeap() (int64, bool) { return 0, false }

// LeakC leaks n bytes where there is no C allocator to leak from: on the Go heap, kept forever.
func LeakC(n int) {
	if n > 0 {
		leaked = append(leaked, make([]byte, n))
	}
}

var leaked [][]byte

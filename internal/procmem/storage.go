package procmem

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// ReadStorage is what a process has caused to be read from storage so far, in bytes: read_bytes of
// /proc/PID/io, the reads that reached the block device (so not what the page cache served), its
// threads' summed. It needs the right to trace the process (the same user, or root).
func ReadStorage(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0, err
	}
	return parseIO(b)
}

// ReadStorageTree sums ReadStorage over a process and every process below it (see ReadTree).
// Processes that end while the tree is read, or that cannot be read, are left out.
func ReadStorageTree(pid int) (int64, error) {
	n, err := ReadStorage(pid)
	if err != nil {
		return 0, err
	}
	for _, c := range descendants(pid) {
		if m, err := ReadStorage(c); err == nil {
			n += m
		}
	}
	return n, nil
}

// parseIO reads read_bytes out of a /proc/PID/io.
func parseIO(b []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		v, ok := bytes.CutPrefix(sc.Bytes(), []byte("read_bytes:"))
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc io: read_bytes: %v", err)
		}
		return n, nil
	}
	return 0, fmt.Errorf("/proc io: no read_bytes line (a kernel without I/O accounting)")
}

// Package procmem reads the memory of processes as the kernel and the C allocator count it: the
// resident set of a process (now and at its peak) from /proc, and the bytes glibc's malloc holds in
// use in this process (mallinfo2); and what a process has read from storage, the reads the page cache
// did not serve (/proc/PID/io). The engine reads them around a workload's timed repeats, outside
// every timed operation (docs/memory.md).
package procmem

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// Resident is a process's resident set: now (VmRSS) and its peak so far (VmHWM), in bytes.
type Resident struct {
	RSS, Peak int64
}

// ReadResident reads /proc/PID/status of a live process (Linux only: an error elsewhere).
func ReadResident(pid int) (Resident, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Resident{}, err
	}
	return parseStatus(b)
}

// parseStatus reads VmRSS and VmHWM (kB) out of a /proc/PID/status.
func parseStatus(b []byte) (Resident, error) {
	var r Resident
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		var dst *int64
		switch string(name) {
		case "VmRSS":
			dst = &r.RSS
		case "VmHWM":
			dst = &r.Peak
		default:
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return Resident{}, fmt.Errorf("/proc status: cannot read %s line %q", name, sc.Text())
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return Resident{}, fmt.Errorf("/proc status: %s: %v", name, err)
		}
		*dst = kb * 1024
		seen++
	}
	if seen != 2 {
		return Resident{}, fmt.Errorf("/proc status: no VmRSS and VmHWM lines (a kernel thread, or not Linux)")
	}
	return r, nil
}

package exec

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// waitClock reads the time process pid's main thread (the thread group's leader: the one a
// single-threaded client does everything on, and a threaded GHC program's bound main thread) has
// spent runnable but not running: the second field of Linux's /proc/PID/task/PID/schedstat
// (run-queue delay). A machine's load shows here, not as the
// client's work (measured: a threaded GHC client's lookup requests, 0.25 ms of work and 1 ms of CPU,
// took 7-37 ms round trips beside two busy loops). Only the leader counts: the waits of several
// threads overlap, and their sum would excuse more than the load took.
// It keeps the file open: each read is one pread of it (Linux regenerates it at offset 0) instead
// of an open, a read and a close, which took a quarter of dbbench's CPU per request at a record
// client's rate (measured with pprof on BenchmarkRecordRead).
type waitClock struct {
	f   *os.File
	buf [128]byte
}

// read returns the wait so far of pid's main thread, through the kept file opened on first use;
// ok is false where it cannot be read.
func (w *waitClock) read(pid int) (time.Duration, bool) {
	if w.f == nil {
		p := strconv.Itoa(pid)
		f, err := os.Open("/proc/" + p + "/task/" + p + "/schedstat")
		if err != nil {
			return 0, false
		}
		w.f = f
	}
	n, err := w.f.ReadAt(w.buf[:], 0)
	if n == 0 && err != nil {
		return 0, false
	}
	f := bytes.Fields(w.buf[:n])
	if len(f) < 2 {
		return 0, false
	}
	ns, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(ns), true
}

// close closes the kept file.
func (w *waitClock) close() {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
}

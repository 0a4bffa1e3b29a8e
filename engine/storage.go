package engine

import (
	"fmt"
	"os"
	"strings"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/internal/procmem"
)

// Storage reads in a timed repeat. A store the page cache no longer holds in full is read partly
// from disk, and the repeat's times say so without saying why: a store left idle while the other
// targets run can be evicted (memory pressure; on some virtual machines a kernel policy that pages
// out idle page cache within a minute). Mapped stores (LMDB) and a server's shared buffers are
// safer than stores read with pread (SQLite, PostgreSQL's data files), but none is immune. The engine
// reads, outside the timed operations, what the processes doing the work have read from storage
// (procmem.ReadStorage) before and after each measured repeat, and a result whose repeats read more
// than coldReadBytes says so in a warning. Warm-ups are not watched: reading the store in is theirs.
// Nor are the repeats of interleave: ops (the targets share one stretch of time, and in one process
// one count). The load model's run phases are watched the same way (ycsbRun.runPhase).

// coldReadBytes is the storage reads in one repeat above which the result warns: a few pages of
// metadata stay below it; a repeat whose data came partly from disk does not.
const coldReadBytes = 1 << 20

// watchStorage starts counting what the work of target t reads from storage; the function it
// returns says how much was read since, or 0 when either count could not be read. A server process
// that ended meanwhile takes its count with it, so the difference is kept from going negative.
func watchStorage(t adapters.Target, servers []adapters.Process) (readSince func() int64) {
	before, watched := storageSample(t, servers)
	return func() int64 {
		after, ok := storageSample(t, servers)
		if !watched || !ok {
			return 0
		}
		return max(0, after-before)
	}
}

// storageSample is what this process, the target's own processes and a server the run started for
// it have read from storage so far; ok is false when this process's count cannot be read (no
// /proc/self/io: not Linux, or a kernel without I/O accounting). A client or server process that
// cannot be read (another user's, without the right to trace it) is left out.
func storageSample(t adapters.Target, servers []adapters.Process) (n int64, ok bool) {
	n, err := procmem.ReadStorage(os.Getpid())
	if err != nil {
		return 0, false
	}
	for _, p := range targetProcesses(t, servers) {
		if m, err := procmem.ReadStorageTree(p.PID); err == nil {
			n += m
		}
	}
	return n, true
}

// coldRepeat is a measured repeat that read from storage.
type coldRepeat struct {
	index int
	bytes int64
}

// coldWarning says which repeats read more than coldReadBytes from storage, or "". A run worker's
// (run > 0) names its run: the merged report keeps each run's warning.
func coldWarning(cold []coldRepeat, run int) string {
	if len(cold) == 0 {
		return ""
	}
	which := "timed repeats"
	if run > 0 {
		which = fmt.Sprintf("run %d: timed repeats", run)
	}
	parts := make([]string, len(cold))
	for i, c := range cold {
		parts[i] = fmt.Sprintf("repeat %d %.1f MiB", c.index+1, float64(c.bytes)/(1<<20))
	}
	return which + " read from storage (" + strings.Join(parts, ", ") + "): the store was not all in " +
		"memory, so their times include reads from disk; a store left idle can be evicted from the page cache " +
		"(isolation: rewarm, an untimed run just before each timed repeat, makes it rarer)"
}

// Package callgrind counts the instructions a piece of this process executes, with valgrind's
// callgrind tool: the deterministic counterpart of a clock for a shared, noisy machine (CodSpeed's
// idea). The process runs under `valgrind --tool=callgrind --collect-atstart=no`; a Counter switches
// collection on around a region with callgrind's client requests (through cgo), dumps the counts
// under a name, and reads the instruction total back from the dump file. Only this process is
// counted: the work of a server in another process (PostgreSQL, TypeDB) is not.
package callgrind

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// OutEnv names the environment variable that carries callgrind's --callgrind-out-file to the
// process under valgrind, so that it can find its dumps.
const OutEnv = "DBBENCH_CALLGRIND_OUT"

// ErrUnavailable means the process is not running under callgrind (or was built without cgo).
var ErrUnavailable = errors.New("not running under valgrind's callgrind (dbbench run --instructions starts it)")

// Counter counts the instructions of regions, one at a time.
type Counter struct {
	mu   sync.Mutex
	out  string // --callgrind-out-file
	dump int    // dumps made so far: callgrind numbers them from 1
}

// New returns a Counter when the process runs under callgrind with OutEnv set, else ErrUnavailable.
func New() (*Counter, error) {
	out := os.Getenv(OutEnv)
	if !running() || out == "" {
		return nil, ErrUnavailable
	}
	return &Counter{out: out}, nil
}

// Count runs f with collection switched on and returns the instructions executed meanwhile. The
// goroutine stays on its OS thread throughout: callgrind keeps the collection state per thread, so
// switching it on and off must happen on one thread, and work f hands to other threads (other
// goroutines, the GC's workers) is not counted.
func (c *Counter) Count(name string, f func()) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start()
	f()
	stop(name)
	c.dump++
	return readTotal(fmt.Sprintf("%s.%d", c.out, c.dump))
}

// readTotal reads the instruction count of one dump: its "summary:" line (or "totals:").
func readTotal(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("callgrind dump: %w", err)
	}
	defer f.Close()
	defer os.Remove(path) // read once; a run makes hundreds
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for _, p := range []string{"summary:", "totals:"} {
			if v, ok := strings.CutPrefix(line, p); ok {
				fields := strings.Fields(v)
				if len(fields) == 0 {
					return 0, nil // nothing collected
				}
				return strconv.ParseInt(fields[0], 10, 64)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("callgrind dump %s: %w", filepath.Base(path), err)
	}
	return 0, fmt.Errorf("callgrind dump %s has no summary line", filepath.Base(path))
}

package engine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dbbench/dbbench/internal/childproc"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// Worker processes: the same dbbench, started by Runner.Spawn, for one target of a run with
// isolation: process (process.go) or for one whole run (runs.go). Both kinds are started, stopped
// and judged here, one way: stdin and stdout are pipes to the parent (the step protocol, or the
// run's progress events), the last line of stderr is its error, Ctrl-C reaches it as SIGINT (it
// stops as a run stops on Ctrl-C, keeping what it measured in its report), and it dies with the
// parent (SIGTERM, so that it still removes its stores).

// WorkerSpec says what a worker process runs; Runner.Spawn turns it into a command.
type WorkerSpec struct {
	// Target is the one target a worker of isolation: process runs ("" for a run worker).
	Target string
	// Run is a run worker's 1-based run index (0 for a worker of isolation: process).
	Run int
	// Workloads and Targets narrow a run worker's plan: it runs only these (in plan order).
	Workloads, Targets []string
	// Out is where the worker writes its report.
	Out string
}

// workerGrace is how long a worker may take to stop after SIGINT before it is killed: its own
// Ctrl-C handling gives up on cleaning up after commands.InterruptGrace (1.5 s).
const workerGrace = 5 * time.Second

type worker struct {
	index  int
	name   string // what the worker is, in messages: "target lmdb-go", "run 2"
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	outR   *os.File
	report string
	stderr lockedTail // its error line, if it fails

	exited  chan struct{} // closed once the process has exited and been reaped
	waitErr error

	// isolation: process only
	next []int // the pending step's order key; nil when the worker is done
	step string
	// stopped is the error of a worker that failed after writing its report (see ended); the
	// report's results are merged all the same.
	stopped error
	runErrs []string // its report's run.errors: its run stopped early or could not clean up
}

// startWorker starts a worker process for spec. Cancelling ctx sends it SIGINT, then kills it
// after workerGrace.
func (r *Runner) startWorker(ctx context.Context, index int, name string, spec WorkerSpec) (*worker, error) {
	w := &worker{index: index, name: name, report: spec.Out, exited: make(chan struct{})}
	w.cmd = r.Spawn(ctx, spec)
	w.cmd.Stderr = &w.stderr
	w.cmd.Cancel = func() error { return w.cmd.Process.Signal(os.Interrupt) }
	w.cmd.WaitDelay = workerGrace
	// Pipes of our own, not the command's: Wait runs beside the reads and must not close them.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, exitcode.Infraf("worker for %s: %v", name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, exitcode.Infraf("worker for %s: %v", name, err)
	}
	w.cmd.Stdin, w.cmd.Stdout = inR, outW
	if w.cmd.SysProcAttr == nil {
		w.cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	w.cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	// Pdeathsig follows the forking thread: fork from one that lives until the worker has exited.
	err = childproc.StartPinned(w.cmd, func() {
		w.waitErr = w.cmd.Wait()
		close(w.exited)
	})
	inR.Close() // the worker holds its own copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, exitcode.Infraf("start the worker process for %s: %v", name, err)
	}
	w.in, w.outR, w.out = inW, outR, bufio.NewReader(outR)
	return w, nil
}

// wait waits for the worker to exit and returns what Wait said.
func (w *worker) wait() error {
	<-w.exited
	return w.waitErr
}

// close ends the parent's side of the pipes: a worker still waiting for a step reads end of file
// and stops.
func (w *worker) close() {
	w.in.Close()
	w.outR.Close()
}

// failed turns a worker's end (the error of its Wait) into the run's error, with its last line.
func (w *worker) failed(err error) error {
	w.next = nil
	code := exitcode.Infra
	if c := exitCode(err); c > 0 {
		code = c
	}
	last := w.stderr.lastLine()
	if last == "" {
		last = fmt.Sprint(err)
	}
	msg := fmt.Sprintf("the worker process for %s failed: %s", w.name, last)
	if code == exitcode.Usage {
		return exitcode.Usagef("%s", msg)
	}
	return exitcode.Infraf("%s", msg)
}

// runFailed is a run worker's end as the run's error: its own last line (what a single run would
// have said), with the run it ended, and its exit code (2 stays a usage error; anything else is 3).
// Without a line (a crash, a kill) it says how the process ended.
func (w *worker) runFailed(err error) error {
	last := w.stderr.lastLine()
	if last == "" {
		return w.failed(err)
	}
	if exitCode(err) == exitcode.Usage {
		return exitcode.Usagef("%s (in %s)", last, w.name)
	}
	return exitcode.Infraf("%s (in %s)", last, w.name)
}

// exitCode is the code a worker's process exited with, read from the error of its Wait: -1 when it
// did not exit by itself (a signal killed it) or Wait failed otherwise.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// lockedTail keeps what a worker writes on stderr, for its last line (the exec package copies into
// it from its own goroutine).
type lockedTail struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 64<<10 { // only the end matters
		rest := l.b.Bytes()[l.b.Len()-4<<10:]
		l.b.Reset()
		l.b.Write(rest)
	}
	return l.b.Write(p)
}

// lastLine is the last line written, without dbbench's "dbbench: " prefix.
func (l *lockedTail) lastLine() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	last := strings.TrimSpace(l.b.String())
	if i := strings.LastIndexByte(last, '\n'); i >= 0 {
		last = last[i+1:]
	}
	return strings.TrimPrefix(last, "dbbench: ")
}

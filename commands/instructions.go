package commands

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/dbbench/dbbench/internal/callgrind"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// callgrindAvailable is callgrind.Available; the tests of what happens when valgrind fails switch it
// on in a build without callgrind support (their fake valgrind never runs the binary).
var callgrindAvailable = callgrind.Available

// underCallgrind runs this very command again under valgrind's callgrind, with collection off until
// the engine switches it on around a timed repeat, and passes its output and exit code on. The
// environment it runs in is callgrind.ChildEnv's (why each setting: there). When valgrind cannot run
// it (a crash, valgrind's own failure), dbbench says so in one line, exit 3, instead of passing a
// Go stack or valgrind's dump on.
func underCallgrind(cmd *cobra.Command, opts *RunOptions) error {
	f := opts.f
	if !callgrindAvailable {
		return exitcode.Usagef("--instructions: this dbbench was built without callgrind support: build it with go build -tags callgrind ./cmd/dbbench (needs valgrind's headers)")
	}
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		return exitcode.Infraf("--instructions needs valgrind on the PATH (Debian: apt-get install valgrind)")
	}
	self, err := os.Executable()
	if err != nil {
		return exitcode.Infraf("--instructions: cannot find this executable: %v", err)
	}
	dir, err := os.MkdirTemp(f.TempDir, "dbbench-callgrind-")
	if err != nil {
		return exitcode.Infraf("--instructions: %v", err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "callgrind.out")
	args := []string{"--tool=callgrind", "--collect-atstart=no", "--callgrind-out-file=" + out, "-q", self}
	if len(opts.Args) > 1 {
		args = append(args, opts.Args[1:]...)
	}
	c := exec.CommandContext(cmd.Context(), vg, args...)
	c.Env = callgrind.ChildEnv(os.Environ(), out)
	// Ctrl-C reaches the run under valgrind by itself (one process group); SIGTERM or SIGHUP sent to
	// this process alone is passed on as an interrupt, so that the run cleans up and keeps its
	// results as an interrupted run does, instead of being killed.
	c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
	stderr := &valgrindNotes{w: f.Err}
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, f.Out, stderr
	err = c.Run()
	stderr.flush()
	return valgrindOutcome(err, stderr, cmd.Context().Err() != nil)
}

// valgrindOutcome turns the end of the run under valgrind into the command's error. A run that
// exited with a code of its own said why; one that crashed, or that valgrind could not run, gets one
// line naming the cause and what to do, exit 3.
func valgrindOutcome(err error, notes *valgrindNotes, interrupted bool) error {
	crash := notes.crash
	if err == nil {
		notes.release() // held back for nothing: the run went through
		return nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return exitcode.Infraf("--instructions: cannot start valgrind: %v", err)
	}
	sig := ""
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig = unix.SignalName(ws.Signal())
	}
	switch {
	case crash == nil && sig == "":
		return &silentError{code: ee.ExitCode()} // the run under valgrind said why
	case crash == nil && interrupted:
		return exitcode.Infraf("interrupted (the run under valgrind ended by %s)", sig)
	case crash != nil && crash.valgrind:
		return exitcode.Infraf("--instructions: valgrind failed: %s; check that `valgrind --tool=callgrind /bin/true` runs, or run without --instructions",
			strings.TrimPrefix(crash.first, "valgrind: "))
	}
	if crash != nil && crash.signal != "" {
		sig = crash.signal // the program's own death, not how valgrind ended
	}
	what := "a signal"
	if sig != "" {
		what = sig
		if n := unix.SignalNum(sig); n != 0 {
			what += " (" + n.String() + ")"
		}
	}
	if crash != nil && crash.bytes != "" {
		what += " at instruction bytes " + crash.bytes
	}
	if sig == "SIGILL" {
		return exitcode.Infraf("--instructions: valgrind cannot run dbbench on this CPU: the run died of %s, an instruction valgrind cannot execute here; run without --instructions, or try another valgrind version", what)
	}
	return exitcode.Infraf("--instructions: the run under valgrind died of %s; run without --instructions to see whether it fails without valgrind too", what)
}

// valgrindNotes passes the run's stderr on without valgrind's own notes ("--PID-- WARNING: unhandled
// syscall": Go probes pidfd_open, which valgrind 3.19 does not know, and goes on without it), so
// that an error stays one line. valgrind's error reports ("==PID==") pass. From the first line of a
// crash (a Go fatal signal, valgrind's report of an instruction it cannot run or of the program's
// death, valgrind's own failure) on, the rest is held back: valgrindOutcome says it in one line.
type valgrindNotes struct {
	w     io.Writer
	line  []byte
	crash *valgrindCrash
}

// valgrindCrash is what the held-back lines said.
type valgrindCrash struct {
	first    string // the line it began with
	signal   string // the signal the program died of ("SIGILL"), when a line names it
	bytes    string // the instruction bytes at the faulting PC, when a line gives them
	valgrind bool   // valgrind itself failed, not the program
	held     []byte // the lines held back (bounded), passed on if the run goes through after all
}

// maxHeld bounds what is held back of a crash: a Go crash prints every goroutine's stack.
const maxHeld = 64 << 10

func (v *valgrindNotes) Write(p []byte) (int, error) {
	for _, b := range p {
		v.line = append(v.line, b)
		if b == '\n' {
			if err := v.flush(); err != nil {
				return 0, err
			}
		}
	}
	return len(p), nil
}

func (v *valgrindNotes) flush() error {
	line := v.line
	v.line = v.line[:0]
	if len(line) == 0 || valgrindNote.Match(line) {
		return nil
	}
	if v.crash == nil {
		v.crash = crashStart(string(line))
	}
	if v.crash == nil {
		_, err := v.w.Write(line)
		return err
	}
	v.crash.note(string(line))
	return nil
}

// release passes on what was held back.
func (v *valgrindNotes) release() {
	if v.crash != nil {
		_, _ = v.w.Write(v.crash.held)
		v.crash = nil
	}
}

var (
	valgrindNote = regexp.MustCompile(`^--[0-9]+-- `)
	// The first line of a crash: Go's fatal signal ("SIGILL: illegal instruction"), Go's throw on a
	// signal in the runtime (followed by "[signal SIGILL: ..."), valgrind's report of the program's
	// death by a signal, of an instruction it cannot decode, or of its own failure.
	goFatalSignal   = regexp.MustCompile(`^(SIG[A-Z0-9]+): `)
	goThrowSignal   = regexp.MustCompile(`^fatal error: unexpected signal`)
	vgSignal        = regexp.MustCompile(`^==[0-9]+== Process terminating with default action of signal [0-9]+ \((SIG[A-Z0-9]+)\)`)
	vgUndecodable   = regexp.MustCompile(`^(vex [^:]+: unhandled instruction bytes: |==[0-9]+== valgrind: Unrecognised instruction)`)
	vgFailed        = regexp.MustCompile(`^(valgrind: |Callgrind: .*Assertion|Valgrind's memory management: out of memory)`)
	signalLine      = regexp.MustCompile(`^\[signal (SIG[A-Z0-9]+)`)
	instrBytes      = regexp.MustCompile(`^instruction bytes: ((?:0x[0-9a-f]+ ?){1,6})`)
	vexInstrBytes   = regexp.MustCompile(`^vex [^:]+: unhandled instruction bytes: ((?:0x[0-9A-Fa-f]+ ?){1,6})`)
	crashSignatures = []*regexp.Regexp{goFatalSignal, goThrowSignal, vgSignal, vgUndecodable, vgFailed}
)

// crashStart returns a crash when line begins one, else nil.
func crashStart(line string) *valgrindCrash {
	for _, re := range crashSignatures {
		if re.MatchString(line) {
			c := &valgrindCrash{first: strings.TrimSpace(line), valgrind: re == vgFailed}
			if re == vgUndecodable {
				c.signal = "SIGILL" // valgrind delivers one for an instruction it cannot decode
			}
			return c
		}
	}
	return nil
}

// note holds a line of the crash back and reads what it says.
func (c *valgrindCrash) note(line string) {
	if len(c.held)+len(line) <= maxHeld {
		c.held = append(c.held, line...)
	}
	for _, re := range []*regexp.Regexp{goFatalSignal, signalLine, vgSignal} {
		if m := re.FindStringSubmatch(line); m != nil && c.signal == "" {
			c.signal = m[1]
		}
	}
	for _, re := range []*regexp.Regexp{instrBytes, vexInstrBytes} {
		if m := re.FindStringSubmatch(line); m != nil && c.bytes == "" {
			c.bytes = strings.ToLower(strings.TrimSpace(m[1]))
		}
	}
}

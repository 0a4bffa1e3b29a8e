package commands

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// fakeValgrind puts testdata/fake-valgrind/valgrind first on the PATH, ending as mode says, and lets
// this build start it as a callgrind-enabled build would.
func fakeValgrind(t *testing.T, mode string) {
	dir, err := filepath.Abs("testdata/fake-valgrind")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKE_VALGRIND", mode)
	was := callgrindAvailable
	callgrindAvailable = true
	t.Cleanup(func() { callgrindAvailable = was })
}

// TestInstructionsWhenValgrindFails: when the run under valgrind crashes or valgrind cannot run it,
// `dbbench run --instructions` says so in one line, exit 3, with none of the crash's dump; a run that
// ends with an exit code of its own passes it on. What the run printed before passes on as it came
// (valgrind's own notes dropped).
func TestInstructionsWhenValgrindFails(t *testing.T) {
	const before = "loading 2000 persons into lmdb-c\n"
	for _, tc := range []struct {
		mode string
		code int
		want string // the last line of stderr
	}{
		{"sigill", exitcode.Infra, "dbbench: --instructions: valgrind cannot run dbbench on this CPU: the run died of SIGILL (illegal instruction), an instruction valgrind cannot execute here; run without --instructions, or try another valgrind version"},
		{"go-sigill", exitcode.Infra, "dbbench: --instructions: valgrind cannot run dbbench on this CPU: the run died of SIGILL (illegal instruction), an instruction valgrind cannot execute here; run without --instructions, or try another valgrind version"},
		{"broken", exitcode.Infra, "dbbench: --instructions: valgrind failed: failed to start tool 'callgrind' for platform 'amd64-linux': No such file or directory; check that `valgrind --tool=callgrind /bin/true` runs, or run without --instructions"},
		{"exit1", exitcode.Failed, "dbbench: 1 of 3 assertions failed, first: lookup.p50[lmdb-go] < 2us"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			fakeValgrind(t, tc.mode)
			var out, errb bytes.Buffer
			f := &Factory{Out: &out, Err: &errb, TempDir: t.TempDir(), Registry: func() (*adapters.Registry, error) {
				return adapters.NewRegistry(builtinAdapters()...)
			}}
			code := Execute(context.Background(), f, []string{"run", "-q", "--instructions"})
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if want := before + tc.want + "\n"; errb.String() != want {
				t.Errorf("stderr\n%s\nwant\n%s", errb.String(), want)
			}
			if left, _ := os.ReadDir(f.TempDir); len(left) != 0 {
				t.Errorf("left behind in the temp dir: %v", left)
			}
		})
	}
}

// TestInstructionsInterruptIsPassedOn: an interrupt of dbbench reaches the run under valgrind as
// SIGINT, so that it ends (and cleans up) as an interrupted run does, rather than being killed.
func TestInstructionsInterruptIsPassedOn(t *testing.T) {
	fakeValgrind(t, "interrupt")
	ready := make(chan struct{})
	errw := &signalWriter{marker: "ready\n", seen: ready}
	f := &Factory{Out: &bytes.Buffer{}, Err: errw, TempDir: t.TempDir(), Registry: func() (*adapters.Registry, error) {
		return adapters.NewRegistry(builtinAdapters()...)
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- Execute(ctx, f, []string{"run", "-q", "--instructions"}) }()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("the fake valgrind never got ready")
	}
	cancel()
	var code int
	select {
	case code = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("no exit after the interrupt")
	}
	got := errw.String()
	if code != exitcode.Infra || !strings.HasSuffix(got, "ready\ndbbench: interrupted\n") {
		t.Errorf("exit %d, stderr %q; want exit 3 and the run's own line last", code, got)
	}
}

// signalWriter collects what is written and closes seen once marker appeared.
type signalWriter struct {
	mu     sync.Mutex
	b      bytes.Buffer
	marker string
	seen   chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if w.seen != nil && strings.Contains(w.b.String(), w.marker) {
		close(w.seen)
		w.seen = nil
	}
	return len(p), nil
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestValgrindCrashReading: what the one line says is read from the crash's first lines, whatever
// follows them.
func TestValgrindCrashReading(t *testing.T) {
	for _, tc := range []struct {
		name, stderr         string
		signal, bytes, first string
		valgrind             bool
	}{
		{"Go's fatal signal in user code", "SIGILL: illegal instruction\nPC=0x49e200 m=0 sigcode=2\ninstruction bytes: 0x62 0xf1 0x7d 0x48 0xef 0xc0 0xc3 0xcc 0xcc\n\ngoroutine 1 [running]:\n",
			"SIGILL", "0x62 0xf1 0x7d 0x48 0xef 0xc0", "SIGILL: illegal instruction", false},
		{"Go's throw on a signal in the runtime", "fatal error: unexpected signal during runtime execution\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4]\n",
			"SIGSEGV", "", "fatal error: unexpected signal during runtime execution", false},
		{"valgrind cannot decode", "vex amd64->IR: unhandled instruction bytes: 0xF 0x1 0xF9 0x48 0xC1 0xE2 0x20\n==7== valgrind: Unrecognised instruction at address 0x47f3a5.\n",
			"SIGILL", "0xf 0x1 0xf9 0x48 0xc1 0xe2", "vex amd64->IR: unhandled instruction bytes: 0xF 0x1 0xF9 0x48 0xC1 0xE2 0x20", false},
		{"valgrind reports the program's death", "==7== Process terminating with default action of signal 11 (SIGSEGV)\n==7==  Access not within mapped region at address 0x0\n",
			"SIGSEGV", "", "==7== Process terminating with default action of signal 11 (SIGSEGV)", false},
		{"callgrind's assertion", "Callgrind: threads.c:247 (vgCallgrind_post_signal): Assertion 'sigNum == vgCallgrind_current_state.sig' failed.\n\nhost stacktrace:\n",
			"", "", "Callgrind: threads.c:247 (vgCallgrind_post_signal): Assertion 'sigNum == vgCallgrind_current_state.sig' failed.", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			v := &valgrindNotes{w: &b}
			v.Write([]byte("TARGET  WORKLOAD\n" + tc.stderr))
			v.flush()
			c := v.crash
			if b.String() != "TARGET  WORKLOAD\n" {
				t.Errorf("passed on %q, want only the line before the crash", b.String())
			}
			if c == nil {
				t.Fatal("no crash seen")
			}
			if c.signal != tc.signal || c.bytes != tc.bytes || c.first != tc.first || c.valgrind != tc.valgrind {
				t.Errorf("read signal %q, bytes %q, first %q, valgrind %v; want %q, %q, %q, %v",
					c.signal, c.bytes, c.first, c.valgrind, tc.signal, tc.bytes, tc.first, tc.valgrind)
			}
			// A run that goes through after all loses nothing.
			v.release()
			if b.String() != "TARGET  WORKLOAD\n"+tc.stderr {
				t.Errorf("after release: %q", b.String())
			}
		})
	}
}

package commands

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/memory"
	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/internal/exitcode"
	reportpkg "github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/workloads"
)

// stuckServer is an adapter whose Open creates something remote and then hangs, deaf to its
// context, as a driver blocked on a stalled server can.
type stuckServer struct{ release chan struct{} }

func (stuckServer) Info() adapters.Info {
	return adapters.Info{Name: "stuck", Summary: "hangs in Open", Builtin: []string{workloads.Scan}}
}

func (s stuckServer) Open(context.Context, adapters.Options, adapters.Env) (adapters.Target, error) {
	defer cleanup.Register("DROP SCHEMA stuck_schema CASCADE")()
	<-s.release
	return nil, adapters.Unavailable("released")
}

// TestInterruptGivesUpInTime: an interrupted command that does not return within the grace period is
// abandoned: exit 3, one line naming what is left to remove by hand, and the local run directory
// removed anyway.
func TestInterruptGivesUpInTime(t *testing.T) {
	dir := t.TempDir()
	tmp := t.TempDir()
	cfg := writeFile(t, dir, "s.yaml", "name: s\ndataset: {persons: 10}\nworkloads: [scan]\ntargets: [{name: s, adapter: stuck}]\n")
	stuck := stuckServer{release: make(chan struct{})}
	defer close(stuck.release)
	var out, errb bytes.Buffer
	f := &Factory{Out: &out, Err: &errb, TempDir: tmp, Registry: func() (*adapters.Registry, error) {
		return adapters.NewRegistry(append(builtinAdapters(), stuck)...)
	}}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	code := executeWithin(ctx, f, []string{"run", "-q", "--runs", "1", "-c", cfg, "--out", dir + "/r.json"}, 300*time.Millisecond)
	if code != exitcode.Infra {
		t.Errorf("exit %d, want 3", code)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v after the interrupt", d)
	}
	msg := errb.String()
	if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "left behind, remove by hand: DROP SCHEMA stuck_schema CASCADE") || strings.Contains(msg, "rm -rf") {
		t.Errorf("stderr %q", msg)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("run directory left behind: %v", left)
	}
	if _, err := os.Stat(dir + "/r.json"); err == nil {
		t.Error("the report placeholder was left behind")
	}
}

// stuckCleanup is an adapter whose targets are the memory store, except that the lookup numbered
// interruptAt presses Ctrl-C (cancels the run) and Close then hangs for good, deaf to its context, on
// a server that stopped answering; what it created stays listed for removal by hand.
type stuckCleanup struct {
	interrupt   context.CancelFunc
	interruptAt int64
	registered  chan func() // the target's pending cleanup, for the test to drop at its end
}

func (stuckCleanup) Info() adapters.Info {
	return adapters.Info{Name: "stuckclose", Summary: "hangs in Close", Builtin: []string{workloads.Lookup}}
}

func (s stuckCleanup) Open(ctx context.Context, o adapters.Options, env adapters.Env) (adapters.Target, error) {
	inner, err := memory.New().Open(ctx, o, env)
	if err != nil {
		return nil, err
	}
	done := cleanup.Register("DROP SCHEMA stuck_close CASCADE")
	s.registered <- done
	return &stuckCleanupTarget{Target: inner, s: s}, nil
}

type stuckCleanupTarget struct {
	adapters.Target
	s       stuckCleanup
	lookups atomic.Int64
}

func (t *stuckCleanupTarget) Lookup(ctx context.Context, email []byte) (adapters.Tally, error) {
	if t.lookups.Add(1) == t.s.interruptAt {
		t.s.interrupt()
	}
	return t.Target.(adapters.PointReader).Lookup(ctx, email)
}

func (t *stuckCleanupTarget) Close() error {
	select {} // the run is abandoned here, as on a server that never answers
}

// TestInterruptKeepsReportWhenCleanupHangs: Ctrl-C during a workload, then cleaning up hangs past the
// grace period: dbbench exits 3 in time, naming what is left behind, and the report is on disk all
// the same, with every repeat measured before Ctrl-C, marked interrupted; the summary came first.
func TestInterruptKeepsReportWhenCleanupHangs(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	cfg := writeFile(t, dir, "s.yaml", "name: s\ndataset: {persons: 100}\nwarmup: 0\nrepeats: 1000\n"+
		"workloads: [{name: lookup, ops: 100}]\ntargets: [{name: s, adapter: stuckclose}]\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stuck := stuckCleanup{interrupt: cancel, interruptAt: 3*100 + 50, registered: make(chan func(), 1)}
	defer func() {
		select {
		case done := <-stuck.registered: // the abandoned run's pending cleanup is no other test's
			done()
		default:
		}
	}()
	var out, errb lockedBuffer // the abandoned run goes on writing after executeWithin returns
	f := &Factory{Out: &out, Err: &errb, TempDir: tmp, Registry: func() (*adapters.Registry, error) {
		return adapters.NewRegistry(append(builtinAdapters(), stuck)...)
	}}
	report := filepath.Join(dir, "r.json")
	args := []string{"run", "-q", "--runs", "1", "-c", cfg, "--out", report}
	start := time.Now()
	code := executeWithin(ctx, f, args, 300*time.Millisecond)
	if code != exitcode.Infra {
		t.Errorf("exit %d, want 3", code)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	if msg := errb.String(); !strings.Contains(msg, "left behind, remove by hand: DROP SCHEMA stuck_close CASCADE") {
		t.Errorf("stderr %q", msg)
	}
	validateOutputs(t, args, nil)
	r, err := reportpkg.Read(report)
	if err != nil {
		t.Fatalf("no report although cleaning up hung: %v", err)
	}
	if !r.Run.Interrupted || r.Verdict != "error" || len(r.Results) != 1 || len(r.Results[0].Repeats) != 3 {
		t.Errorf("report: interrupted %v, verdict %s, %d results; want the 3 repeats measured before Ctrl-C, marked interrupted",
			r.Run.Interrupted, r.Verdict, len(r.Results))
	}
	if s := out.String(); !strings.Contains(s, "lookup") || !strings.Contains(s, "report: "+report) || strings.Index(s, "lookup") > strings.Index(s, "report: ") {
		t.Errorf("stdout: want the summary, then the report's path:\n%s", s)
	}
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader on different goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// stuckServer is an adapter whose Open creates something remote and then hangs, deaf to its
// context, as a driver blocked on a stalled server can.
type stuckServer struct{ release chan struct{} }

func (stuckServer) Info() adapters.Info {
	return adapters.Info{Name: "stuck", Summary: "hangs in Open", Builtin: []string{adapters.Scan}}
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
	code := executeWithin(ctx, f, []string{"run", "-q", "-c", cfg, "--out", dir + "/r.json"}, 300*time.Millisecond)
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

package postgres

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// ownerEnv makes TestHelperOwner start a server in the named directory and then die by SIGKILL.
const ownerEnv = "PGSERVER_TEST_OWNER_DIR"

// TestHelperOwner is the owner process of TestServerDiesWithItsOwner; it runs only there.
func TestHelperOwner(t *testing.T) {
	dir := os.Getenv(ownerEnv)
	if dir == "" {
		t.Skip("helper process of TestServerDiesWithItsOwner")
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	s, err := Start(ctx, Options{TempDir: dir})
	if err != nil {
		fmt.Printf("ERROR %v\n", err)
		os.Exit(2)
	}
	b := s.backend.(*localBackend)
	fmt.Printf("READY %d %d %s\n", s.Port(), b.proc.cmd.Process.Pid, b.wd.dir)
	os.Stdout.Sync()
	// Die the hardest way: no deferred calls, no Stop.
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

// TestServerDiesWithItsOwner kills a process that started a server: the server must go down with
// it (Pdeathsig), cleanly enough to remove its lock files, and the next start in the same parent
// directory must remove what was left.
func TestServerDiesWithItsOwner(t *testing.T) {
	t.Parallel()
	parent := reachableTempDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperOwner$", "-test.count=1")
	cmd.Env = append(os.Environ(), ownerEnv+"="+parent)
	out, _ := cmd.Output() // it dies by SIGKILL: the error says so
	var port, pid int
	var dir string
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		if _, err := fmt.Sscanf(sc.Text(), "READY %d %d %s", &port, &pid, &dir); err == nil {
			break
		}
	}
	if pid == 0 {
		t.Fatalf("owner process did not start a server: %s", out)
	}
	deadline := time.Now().Add(guard)
	for cleanup.Alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("postgres (pid %d) still runs %v after its owner died", pid, guard)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 5*time.Second); err == nil {
		c.Close()
		t.Errorf("port %d still accepts connections after the owner died", port)
	}
	// An orderly (immediate) shutdown removes postmaster.pid; SIGKILL would have left it.
	if _, err := os.Stat(filepath.Join(dir, "data", "postmaster.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("postmaster.pid after the owner died: %v, want it removed by the shutdown", err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the dead owner's directory: %v, want it left for the sweep", err)
	}
	sweepLeftovers(parent, t.Logf)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after the sweep, %s: %v, want it removed", dir, err)
	}
}

// TestCancelDuringStart cancels Start while initdb runs (a stand-in that never finishes): Start
// must return the cancellation promptly and leave nothing behind.
func TestCancelDuringStart(t *testing.T) {
	t.Parallel()
	parent := reachableTempDir(t)
	bin := filepath.Join(parent, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// initdb runs as the postgres user when the tests run as root: give it a place to write.
	marks := filepath.Join(parent, "marks")
	if err := os.Mkdir(marks, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(marks, 0o777); err != nil { // despite the umask
		t.Fatal(err)
	}
	started := filepath.Join(marks, "initdb-started")
	scripts := map[string]string{
		"initdb":   fmt.Sprintf("#!/bin/sh\ntouch %s\nexec sleep 600\n", started),
		"postgres": "#!/bin/sh\nexit 1\n",
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(started); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	done := make(chan error, 1)
	go func() {
		_, err := Start(ctx, Options{TempDir: parent, BinDir: bin, Logf: t.Logf})
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(guard):
		t.Fatal("Start did not return after its context was cancelled")
	}
	if !errors.Is(err, context.Canceled) || exitcode.Of(err) != exitcode.Infra || !strings.Contains(err.Error(), "initdb") {
		t.Errorf("err = %v (exit %d), want initdb's cancellation, exit %d", err, exitcode.Of(err), exitcode.Infra)
	}
	if left, _ := filepath.Glob(filepath.Join(parent, workDirPrefix+"*")); len(left) > 0 {
		t.Errorf("a cancelled start left %v", left)
	}
}

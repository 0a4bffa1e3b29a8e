package procmem

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestParseIO(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     int64
		err      bool
	}{
		{"linux", "rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\nread_bytes: 8192\nwrite_bytes: 4096\ncancelled_write_bytes: 0\n", 8192, false},
		{"no accounting", "rchar: 6976\nwchar: 0\n", 0, true},
		{"not a number", "read_bytes: lots\n", 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseIO([]byte(tt.in))
			if (err != nil) != tt.err || got != tt.want {
				t.Fatalf("parseIO = %d, %v; want %d, error %v", got, err, tt.want, tt.err)
			}
		})
	}
}

// coldFile writes size bytes to a file on disk and drops it from the page cache, so that reading it
// reads from storage. It skips on a temp dir in memory (tmpfs), where nothing is read from storage.
func coldFile(t *testing.T, size int) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	dir := t.TempDir()
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	if fs.Type == unix.TMPFS_MAGIC || fs.Type == unix.RAMFS_MAGIC {
		t.Skipf("the temp dir %s is in memory: nothing is read from storage there", dir)
	}
	path := filepath.Join(dir, "cold")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(make([]byte, size)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil { // only clean pages can be dropped
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	return path
}

// Reading a file the page cache does not hold counts as storage reads, in this process and, through
// ReadStorageTree, in a child.
func TestReadStorage(t *testing.T) {
	const size = 4 << 20
	path := coldFile(t, size)
	before, err := ReadStorage(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	after, err := ReadStorage(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if after-before < size*3/4 {
		t.Fatalf("reading a %d-byte file from disk: read_bytes grew by %d", size, after-before)
	}

	// A child that reads the file again (evicted again) and stays alive: the tree counts it.
	path = coldFile(t, size)
	cmd := exec.Command("sh", "-c", `cat "$1" > /dev/null && echo read && exec sleep 30`, "sh", path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skip("no sh to start:", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	buf := make([]byte, 5)
	done := make(chan error, 1)
	go func() { _, err := out.Read(buf); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the child did not read the file")
	}
	own, err := ReadStorage(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	tree, err := ReadStorageTree(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if tree-own < size*3/4 {
		t.Fatalf("tree %d, own %d: the child's %d-byte read is not counted", tree, own, size)
	}
}

package procmem

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

func TestParseStatus(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     Resident
		err      bool
	}{
		{"both", "Name:\tx\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\nThreads:\t1\n", Resident{RSS: 1 << 20, Peak: 2 << 20}, false},
		{"kernel thread", "Name:\tkthreadd\nThreads:\t1\n", Resident{}, true},
		{"no unit", "VmHWM:\t2048\nVmRSS:\t1024 kB\n", Resident{}, true},
		{"not a number", "VmHWM:\tlots kB\nVmRSS:\t1024 kB\n", Resident{}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatus([]byte(tt.in))
			if (err != nil) != tt.err || got != tt.want {
				t.Fatalf("parseStatus = %+v, %v; want %+v, error %v", got, err, tt.want, tt.err)
			}
		})
	}
}

func TestReadResidentOfThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	r, err := ReadResident(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if r.RSS <= 0 || r.Peak < r.RSS {
		t.Fatalf("resident %+v: want 0 < RSS <= Peak", r)
	}
	if _, err := ReadResident(-1); err == nil {
		t.Fatal("no error for pid -1")
	}
}

// TestCHeapSeesLeakC leaks 1000 blocks of 600 bytes in C: the in-use count must grow by at least
// their size (and, the blocks being written, the resident set by most of it).
func TestCHeapSeesLeakC(t *testing.T) {
	before, ok := CHeap()
	if !ok {
		t.Skip("no C allocator to read (built without cgo, or not glibc)")
	}
	for range 1000 {
		LeakC(600)
	}
	after, _ := CHeap()
	if grew := after - before; grew < 600*1000 || grew > 2*600*1000 {
		t.Fatalf("CHeap grew by %d bytes over 1000 leaks of 600 bytes, want 600000 to 1200000", grew)
	}
}

func TestParseParent(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"42 (sh) S 7 42 42 0 -1", 7, true},
		{"42 (a) b) c) S 9 42 42", 9, true}, // a command name with spaces and parentheses
		{"42 (sh", 0, false},
		{"42 (sh) S", 0, false},
	} {
		if got, ok := parseParent([]byte(tt.in)); got != tt.want || ok != tt.ok {
			t.Errorf("parseParent(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestReadTreeCountsChildren starts a child (sleep) and requires the tree's resident set to be
// larger than the process's own.
func TestReadTreeCountsChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep to start:", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	own, err := ReadResident(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	child, err := ReadResident(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := ReadTree(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if tree.RSS < own.RSS+child.RSS/2 {
		t.Fatalf("tree RSS %d, own %d, child %d: the child is not counted", tree.RSS, own.RSS, child.RSS)
	}
}

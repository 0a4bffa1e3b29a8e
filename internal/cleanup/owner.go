package cleanup

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Owner marks what this process creates outside itself (run directories, schemas), so that a later
// run can tell a leftover of a dead run from something still in use: "dbbench pid=123 host=ci-7".
func Owner() string {
	return fmt.Sprintf("dbbench pid=%d host=%s", os.Getpid(), hostname())
}

func hostname() string {
	h, _ := os.Hostname()
	if h == "" {
		h = "unknown"
	}
	return strings.ReplaceAll(h, " ", "_")
}

// ParseOwner reads a mark made by Owner.
func ParseOwner(s string) (pid int, host string, ok bool) {
	f := strings.Fields(strings.TrimSpace(s))
	if len(f) != 3 || f[0] != "dbbench" || !strings.HasPrefix(f[1], "pid=") || !strings.HasPrefix(f[2], "host=") {
		return 0, "", false
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(f[1], "pid="))
	if err != nil || pid <= 0 {
		return 0, "", false
	}
	return pid, strings.TrimPrefix(f[2], "host="), true
}

// Dead reports whether the owner named by a mark is a process of this host that no longer runs. A
// mark from another host, or one that does not parse, is never dead: it is not ours to judge.
func Dead(mark string) bool {
	pid, host, ok := ParseOwner(mark)
	if !ok || host != hostname() || pid == os.Getpid() {
		return false
	}
	return !Alive(pid)
}

// Alive reports whether a process exists (ours or, EPERM, another user's) and is not a zombie (an
// orphan may wait unreaped where PID 1 does not reap).
func Alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && err != syscall.EPERM {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// OwnerFile is the name of the mark inside a directory dbbench creates.
const OwnerFile = ".dbbench-owner"

// MarkDir writes the owner mark into dir.
func MarkDir(dir string) error {
	return os.WriteFile(filepath.Join(dir, OwnerFile), []byte(Owner()+"\n"), 0o644)
}

// SweepDirs removes the directories in parent whose names start with prefix and whose owner mark
// names a dead process of this host, and returns what it removed. Directories without a mark, or
// with a live or foreign owner, are left alone.
func SweepDirs(parent, prefix string) (removed []string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, OwnerFile))
		if err != nil || !Dead(string(b)) {
			continue
		}
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

package postgres

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dbbench/dbbench/internal/cleanup"
)

// A work directory holds everything a local server creates:
//
//	dbbench-pg-XXXX/       owned by the server user, mode 0700
//	  owner.lock           flock(LOCK_EX) held by the dbbench process for the server's lifetime
//	  data/                the cluster (initdb)
//	  sock/                the unix socket
//	  server.log           the postmaster's stdout and stderr
//
// The lock tells a live directory from the leftover of a dbbench that died without Stop (its server
// died with it, by Pdeathsig): the kernel drops the lock with the process, so the next Start in the
// same parent removes such leftovers, and only those.
const (
	workDirPrefix = "dbbench-pg-"
	lockName      = "owner.lock"
)

// maxSocketPath leaves room for "/.s.PGSQL.65535" in sockaddr_un's 108 bytes.
const maxSocketPath = 90

type workDir struct {
	dir       string
	socketDir string // "" when the path would be too long for a unix socket
	lock      *os.File
}

func (w *workDir) dataDir() string { return filepath.Join(w.dir, "data") }
func (w *workDir) logPath() string { return filepath.Join(w.dir, "server.log") }

// newWorkDir creates and locks a fresh work directory, owned by cred's user when set.
func newWorkDir(o *Options, cred *syscall.Credential) (*workDir, error) {
	parent := o.TempDir
	if parent == "" {
		parent = os.TempDir()
	}
	parent, err := filepath.Abs(parent)
	if err != nil {
		return nil, startErr("temp dir: %v", err)
	}
	if cred != nil {
		if parent, err = serverParent(parent, cred, o.logf); err != nil {
			return nil, err
		}
	}
	sweepLeftovers(parent, o.logf)
	dir, err := os.MkdirTemp(parent, workDirPrefix)
	if err != nil {
		return nil, startErr("create server directory: %v", err)
	}
	w := &workDir{dir: dir}
	if w.lock, err = lockOwner(dir); err != nil {
		_ = os.RemoveAll(dir)
		return nil, startErr("lock server directory: %v", err)
	}
	sock := filepath.Join(dir, "sock")
	if len(sock) <= maxSocketPath && !strings.ContainsAny(sock, `, "'\`) {
		w.socketDir = sock
	}
	dirs := []string{dir}
	if w.socketDir != "" {
		if err := os.Mkdir(w.socketDir, 0o700); err != nil {
			_ = w.remove()
			return nil, startErr("create socket directory: %v", err)
		}
		dirs = append(dirs, w.socketDir)
	}
	if cred != nil {
		for _, d := range dirs {
			if err := os.Chown(d, int(cred.Uid), int(cred.Gid)); err != nil {
				_ = w.remove()
				return nil, startErr("hand %s to the postgres user: %v", d, err)
			}
		}
	}
	return w, nil
}

// lockOwner creates dir/owner.lock holding an exclusive flock. The file is locked under a temporary
// name and then renamed, so a sweeper never sees it unlocked. The descriptor is close-on-exec: server
// processes do not inherit the lock.
func lockOwner(dir string) (*os.File, error) {
	tmp := filepath.Join(dir, lockName+".new")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	fmt.Fprintf(f, "%d\n", os.Getpid())
	if err := os.Rename(tmp, filepath.Join(dir, lockName)); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// remove deletes the directory with everything in it, then releases the lock (in this order, so a
// sweeper never finds the directory unlocked while it still exists).
func (w *workDir) remove() error {
	releaseSharedMemory(w.dataDir())
	err := os.RemoveAll(w.dir)
	if w.lock != nil {
		w.lock.Close()
		w.lock = nil
	}
	if err != nil {
		return fmt.Errorf("remove %s: %v", w.dir, err)
	}
	return nil
}

// sweepLeftovers removes work directories in parent whose owner died. A directory counts as a
// leftover only when it carries our lock file and nobody holds the lock; anything else is left alone.
func sweepLeftovers(parent string, logf func(string, ...any)) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), workDirPrefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if !abandoned(dir) {
			continue
		}
		releaseSharedMemory(filepath.Join(dir, "data"))
		if err := os.RemoveAll(dir); err != nil {
			logf("pgserver: remove leftover %s: %v", dir, err)
			continue
		}
		logf("pgserver: removed %s, left by a dbbench that did not stop its server", dir)
	}
}

func abandoned(dir string) bool {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return false
	}
	// A leftover's postmaster died with its owner; one still running means this is not ours to touch.
	if pid, ok := postmasterPID(filepath.Join(dir, "data")); ok && cleanup.Alive(pid) {
		return false
	}
	return true
}

// postmasterPID reads the pid from a data directory's postmaster.pid.
func postmasterPID(dataDir string) (int, bool) {
	var pid int
	if _, err := fmt.Sscanf(pidFileLine(dataDir, 0), "%d", &pid); err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// pidFileLine returns line i (from 0) of a data directory's postmaster.pid, or "".
func pidFileLine(dataDir string, i int) string {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if i >= len(lines) {
		return ""
	}
	return lines[i]
}

// releaseSharedMemory removes the small System V segment of a postmaster that died without a
// shutdown (SIGKILL): it outlives the processes. postmaster.pid exists only then (a shutdown
// deletes it) and names the segment on its 7th line ("key shmid"). The segment goes only when it
// still carries that key and nothing is attached to it; the backends of a killed postmaster detach
// within moments, so it waits for them a little.
func releaseSharedMemory(dataDir string) {
	var key, id int
	if _, err := fmt.Sscanf(pidFileLine(dataDir, 6), "%d %d", &key, &id); err != nil {
		return
	}
	for deadline := time.Now().Add(detachWait); ; time.Sleep(10 * time.Millisecond) {
		var desc unix.SysvShmDesc
		if _, err := unix.SysvShmCtl(id, unix.IPC_STAT, &desc); err != nil || int(desc.Perm.Key) != key {
			return
		}
		if desc.Nattch == 0 {
			_, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil)
			return
		}
		if time.Now().After(deadline) {
			return
		}
	}
}

// detachWait bounds the wait for backends of a dead postmaster to detach from shared memory.
const detachWait = 3 * time.Second

// serverParent returns where the work directory of a server run as cred's user (as root: the postgres
// user) goes: parent when that user can reach it, else the system temp dir. dbbench's run and target
// directories are private (0700) and the postgres user cannot enter them, so as root that is the
// normal case and says nothing; the work directory, owned by the postgres user and locked, is swept
// from there like anywhere else. Only a system temp dir that user cannot reach either (a private
// TMPDIR) is unusual: then /tmp, with a line saying so.
func serverParent(parent string, cred *syscall.Credential, logf func(string, ...any)) (string, error) {
	first := reachable(parent, cred)
	if first == nil {
		return parent, nil
	}
	sys, err := filepath.Abs(os.TempDir())
	if err != nil {
		return "", startErr("temp dir: %v", err)
	}
	why := reachable(sys, cred)
	if why == nil {
		return sys, nil
	}
	if sys != "/tmp" && reachable("/tmp", cred) == nil {
		logf("pgserver: the postgres user cannot reach the temp dir %s (%v); using /tmp", sys, why)
		return "/tmp", nil
	}
	return "", startErr("the postgres user cannot reach %s (%v), nor the system temp dir: give a temp dir it can use", parent, first)
}

// reachable checks that cred's user may traverse every directory down to dir (mode bits only; ACLs
// are not considered). It needs no write permission: root creates the work directory and hands it
// over.
func reachable(dir string, cred *syscall.Credential) error {
	for d := dir; ; d = filepath.Dir(d) {
		var st syscall.Stat_t
		if err := syscall.Stat(d, &st); err != nil {
			return err
		}
		if !permits(&st, cred, 0o1) {
			return fmt.Errorf("no search permission on %s", d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// permits reports whether cred has the permission bits want (in "other" position: 1 execute, 2 write,
// 4 read) on a file.
func permits(st *syscall.Stat_t, cred *syscall.Credential, want uint32) bool {
	mode := st.Mode & 0o777
	switch {
	case st.Uid == cred.Uid:
		return mode>>6&want == want
	case st.Gid == cred.Gid:
		return mode>>3&want == want
	default:
		return mode&want == want
	}
}

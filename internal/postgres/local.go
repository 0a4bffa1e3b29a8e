package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dbbench/dbbench/internal/childproc"
	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// debianRoots hold one directory per installed major version, each with a bin/ inside.
var debianRoots = []string{"/usr/lib/postgresql"}

// Timeouts of a local server's shutdown: an immediate shutdown first (the data is thrown away, so
// nothing needs a checkpoint), then SIGKILL to its process group, so that a stalled server (stopped,
// or stuck in I/O) never holds up the end of a run.
const (
	quitWait = 750 * time.Millisecond
	killWait = 5 * time.Second
)

// startLocal runs initdb and postgres from this machine in a fresh private directory.
func startLocal(ctx context.Context, o Options, settings map[string]string) (*Server, error) {
	bins, err := findBinaries(o.BinDir, debianRoots)
	if err != nil {
		return nil, err
	}
	cred, err := serverCredential()
	if err != nil {
		return nil, err
	}
	wd, err := newWorkDir(&o, cred)
	if err != nil {
		return nil, err
	}
	s, err := startInWorkDir(ctx, o, settings, bins, cred, wd)
	if err != nil {
		if cerr := wd.remove(); cerr != nil {
			o.logf("pgserver: %v", cerr)
		}
		return nil, err
	}
	return s, nil
}

func startInWorkDir(ctx context.Context, o Options, settings map[string]string, bins binaries, cred *syscall.Credential, wd *workDir) (*Server, error) {
	t0 := time.Now()
	if err := initdb(ctx, bins, cred, wd); err != nil {
		return nil, err
	}
	initTime := time.Since(t0)

	// The port is probed free and then handed to postgres, so another process can take it in
	// between: retry with a fresh port when postgres cannot bind.
	const attempts = 5
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, startErr("find a free port: %v", err)
		}
		t1 := time.Now()
		p, err := launch(bins, cred, wd, port, settings)
		if err != nil {
			return nil, err
		}
		s := &Server{mode: ModeLocal, host: "127.0.0.1", port: port, socketDir: wd.socketDir, settings: settings,
			binDir: bins.dir, backend: &localBackend{proc: p, wd: wd}}
		dataDir, err := s.waitReady(ctx, o.StartTimeout, p.exited)
		if err == nil && !sameDir(dataDir, wd.dataDir()) {
			// A port taken between the probe and the bind, by another PostgreSQL.
			err = errServerExited
		}
		if err == nil {
			b := s.backend.(*localBackend)
			b.pending = cleanup.Register(fmt.Sprintf("kill -KILL -- -%d; rm -rf %s", p.cmd.Process.Pid, wd.dir))
			o.logf("pgserver: PostgreSQL %s ready on 127.0.0.1:%d (local, initdb %v, start %v, %s)",
				s.version, port, initTime.Round(time.Millisecond), time.Since(t1).Round(time.Millisecond), wd.dir)
			return s, nil
		}
		p.kill()
		tail := logTail(wd.logPath(), 6)
		if errors.Is(err, errServerExited) && attempt < attempts && portTaken(tail, dataDir) {
			o.logf("pgserver: port %d was taken, retrying with another", port)
			continue
		}
		if errors.Is(err, errServerExited) {
			return nil, startErr("postgres exited during start-up (%v): %s", p.waitErr, tail)
		}
		if errors.Is(err, exitcode.ErrUnavailable) {
			return nil, err
		}
		return nil, startErr("%w; server log: %s", err, tail)
	}
}

// portTaken tells from the log tail (or a foreign data_directory) that the port was in use.
func portTaken(tail, dataDir string) bool {
	return dataDir != "" || strings.Contains(tail, "Address already in use") || strings.Contains(tail, "could not bind")
}

func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// binaries are initdb and postgres from one installation.
type binaries struct {
	dir, initdb, postgres string
}

// findBinaries looks for initdb and postgres side by side: only in binDir when it is set, else in the
// directory of the initdb on PATH (symlinks resolved, so that both come from one installation), else
// in roots/*/bin, highest major version first.
func findBinaries(binDir string, roots []string) (binaries, error) {
	if binDir != "" {
		if b, ok := binariesIn(binDir); ok {
			return b, nil
		}
		return binaries{}, exitcode.Unavailable("no PostgreSQL server binaries (initdb and postgres) in %s", binDir)
	}
	var dirs []string
	if p, err := exec.LookPath("initdb"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			dirs = append(dirs, filepath.Dir(r))
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	dirs = append(dirs, versionedBinDirs(roots)...)
	for _, d := range dirs {
		if b, ok := binariesIn(d); ok {
			return b, nil
		}
	}
	return binaries{}, exitcode.Unavailable("no PostgreSQL server binaries (initdb) found on PATH or in %s", strings.Join(roots, ", "))
}

func binariesIn(dir string) (binaries, bool) {
	b := binaries{dir: dir, initdb: filepath.Join(dir, "initdb"), postgres: filepath.Join(dir, "postgres")}
	return b, isExecutable(b.initdb) && isExecutable(b.postgres)
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// versionedBinDirs returns root/VERSION/bin for every root, highest version first ("15" > "9.6").
func versionedBinDirs(roots []string) []string {
	type cand struct {
		dir string
		ver []int
	}
	var cs []cand
	for _, root := range roots {
		entries, err := os.ReadDir(root)
		if err != nil {
			continue
		}
		for _, e := range entries {
			ver, ok := parseVersion(e.Name())
			if ok {
				cs = append(cs, cand{filepath.Join(root, e.Name(), "bin"), ver})
			}
		}
	}
	// Insertion sort, descending: a handful of entries.
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && compareVersions(cs[j].ver, cs[j-1].ver) > 0; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	dirs := make([]string, len(cs))
	for i, c := range cs {
		dirs[i] = c.dir
	}
	return dirs
}

func parseVersion(s string) ([]int, bool) {
	var v []int
	for _, part := range strings.Split(s, ".") {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 {
			return nil, false
		}
		v = append(v, n)
	}
	return v, true
}

func compareVersions(a, b []int) int {
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y int
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// serverCredential returns whom to run initdb and postgres as: nil (ourselves) unless we are
// root, which PostgreSQL refuses; then the postgres system user.
func serverCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, exitcode.Unavailable("running as root, which PostgreSQL refuses, and there is no postgres system user to run the server as")
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, exitcode.Unavailable("user postgres has a non-numeric uid %q or gid %q", u.Uid, u.Gid)
	}
	if uid == 0 {
		return nil, exitcode.Unavailable("user postgres is uid 0, which PostgreSQL refuses")
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

// initdb creates the cluster: trust authentication for the postgres superuser, UTF8, C locale
// (byte-order collation, like SQLite's BINARY), and no fsync since the data is thrown away.
func initdb(ctx context.Context, bins binaries, cred *syscall.Credential, wd *workDir) error {
	cmd := exec.CommandContext(ctx, bins.initdb, "-D", wd.dataDir(), "-A", "trust", "-U", User,
		"-E", "UTF8", "--locale=C", "--no-sync")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	configure(cmd, cred, wd.dir, syscall.SIGKILL)
	// On cancel, kill initdb's bootstrap backends too.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = killWait
	exited, err := startPinned(cmd)
	if err != nil {
		return startErr("run %s: %v", bins.initdb, err)
	}
	if err := <-exited; err != nil {
		if ctx.Err() != nil {
			return startErr("initdb: %w", ctx.Err())
		}
		return startErr("initdb failed (%v): %s", err, tailOf(out.String(), 6))
	}
	return nil
}

// configure sets what every child process gets: the server user, its own process group (so a
// terminal's Ctrl-C reaches only dbbench, which then stops the server in order), a signal when
// dbbench dies.
func configure(cmd *exec.Cmd, cred *syscall.Credential, dir string, deathSignal syscall.Signal) {
	cmd.Dir = dir
	cmd.Env = environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: deathSignal}
}

// startPinned starts cmd on a thread that lives as long as it (childproc.StartPinned) and returns a
// channel that receives its exit.
func startPinned(cmd *exec.Cmd) (<-chan error, error) {
	exited := make(chan error, 1)
	if err := childproc.StartPinned(cmd, func() { exited <- cmd.Wait() }); err != nil {
		return nil, err
	}
	return exited, nil
}

// proc is a running postmaster.
type proc struct {
	cmd      *exec.Cmd
	exited   chan struct{} // closed when the postmaster has exited; waitErr is set before
	waitErr  error
	stopping atomic.Bool // set before Stop signals the process: its exit is then expected
}

// launch starts postgres on the given port. Pdeathsig is SIGQUIT: PostgreSQL's immediate shutdown,
// which stops every backend (SIGKILL after 5 s), and still removes the shared memory and lock
// files, which SIGKILL would leave behind.
func launch(bins binaries, cred *syscall.Credential, wd *workDir, port int, settings map[string]string) (*proc, error) {
	logFile, err := os.OpenFile(wd.logPath(), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, startErr("server log: %v", err)
	}
	defer logFile.Close() // the child has its own copy
	args := []string{"-D", wd.dataDir(),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "port=" + strconv.Itoa(port),
		"-c", "unix_socket_directories=" + wd.socketDir}
	args = append(args, settingArgs(settings)...)
	cmd := exec.Command(bins.postgres, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	configure(cmd, cred, wd.dir, syscall.SIGQUIT)
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	exited, err := startPinned(cmd)
	if err != nil {
		return nil, startErr("run %s: %v", bins.postgres, err)
	}
	go func() {
		p.waitErr = <-exited
		close(p.exited)
	}()
	return p, nil
}

// shutdown asks for an immediate shutdown (SIGQUIT: backends end at once, shared memory and lock
// files are removed) and kills the process group when that does not finish within quitWait.
func (p *proc) shutdown() error {
	p.stopping.Store(true)
	_ = p.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-p.exited:
		return nil
	case <-time.After(quitWait):
	}
	p.kill()
	select {
	case <-p.exited:
		return nil
	default:
		return fmt.Errorf("postgres (pid %d) survived SIGKILL for %v", p.cmd.Process.Pid, killWait)
	}
}

// kill ends the process group at once and waits briefly for the postmaster.
func (p *proc) kill() {
	p.stopping.Store(true)
	select {
	case <-p.exited:
		return // reaped: its pid may belong to someone else now
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-p.exited:
	case <-time.After(killWait):
	}
}

// localBackend is a local server: its process and its directory.
type localBackend struct {
	proc    *proc
	wd      *workDir
	pending func() // marks the manual cleanup step done
}

func (b *localBackend) done() <-chan struct{} { return b.proc.exited }

func (b *localBackend) exitErr() error {
	if b.proc.stopping.Load() {
		return nil
	}
	return fmt.Errorf("postgres exited unexpectedly (%v): %s", b.proc.waitErr, logTail(b.wd.logPath(), 4))
}

func (b *localBackend) stop() error {
	var errs []error
	select {
	case <-b.proc.exited:
		errs = append(errs, b.exitErr())
	default:
		errs = append(errs, b.proc.shutdown())
	}
	errs = append(errs, b.wd.remove())
	if b.pending != nil {
		b.pending()
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("stop PostgreSQL: %s", exitcode.OneLine(err.Error()))
	}
	return nil
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// logTail returns the last n non-empty lines of a log file, on one line.
func logTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no server log: " + err.Error() + ")"
	}
	defer f.Close()
	const max = 16 << 10
	if st, err := f.Stat(); err == nil && st.Size() > max {
		_, _ = f.Seek(st.Size()-max, 0)
	}
	buf := make([]byte, max)
	k, _ := f.Read(buf)
	return tailOf(string(buf[:k]), n)
}

// logPrefix is PostgreSQL's default log_line_prefix ("%m [%p] "): noise in a one-line error.
var logPrefix = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \S+ \[\d+\] `)

// tailOf returns the last n non-empty lines of s, on one line.
func tailOf(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.Join(strings.Fields(logPrefix.ReplaceAllString(l, "")), " "); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 0 {
		return "(empty server log)"
	}
	return strings.Join(lines, " | ")
}

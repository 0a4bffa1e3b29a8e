package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sys/unix"

	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// guard bounds waits that must end; it is a hang guard, not a performance assertion.
const guard = 60 * time.Second

// reachableTempDir returns a temp dir that the postgres user can reach when the tests run as root
// (t.TempDir is 0700).
func reachableTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func start(t *testing.T, o Options) *Server {
	t.Helper()
	if o.Logf == nil {
		o.Logf = t.Logf
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	s, err := Start(ctx, o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

func workDirOf(t *testing.T, s *Server) string {
	t.Helper()
	b, ok := s.backend.(*localBackend)
	if !ok {
		t.Fatalf("server mode %s, want a local server", s.Mode())
	}
	return b.wd.dir
}

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect %s: %v", dsn, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// TestTwoServersServeAndStop starts two servers at once, uses both (TCP and unix socket), stops
// them, and checks that everything they created is gone.
func TestTwoServersServeAndStop(t *testing.T) {
	parent := reachableTempDir(t)
	var (
		wg      sync.WaitGroup
		servers [2]*Server
		errs    [2]error
	)
	for i := range servers {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			servers[i], errs[i] = Start(ctx, Options{TempDir: parent, Logf: t.Logf,
				Settings: map[string]string{"work_mem": fmt.Sprintf("%dMB", 8+i)}})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("server %d: %v", i, err)
		}
		t.Cleanup(func() { _ = servers[i].Stop() })
	}
	a, b := servers[0], servers[1]
	if a.Port() == b.Port() {
		t.Fatalf("both servers on port %d", a.Port())
	}
	if workDirOf(t, a) == workDirOf(t, b) {
		t.Fatalf("both servers in %s", workDirOf(t, a))
	}
	for i, s := range servers {
		if s.Mode() != ModeLocal {
			t.Errorf("server %d: Mode() = %q, want %q", i, s.Mode(), ModeLocal)
		}
		if s.VersionNum() < MinVersionNum || !strings.HasPrefix(s.Version(), fmt.Sprint(s.VersionNum()/10000)) {
			t.Errorf("server %d: Version() = %q, VersionNum() = %d", i, s.Version(), s.VersionNum())
		}
		if dir := filepath.Dir(workDirOf(t, s)); dir != parent {
			t.Errorf("server %d: work dir in %s, want it in TempDir %s", i, dir, parent)
		}
		ctx := context.Background()
		conn := connect(t, s.DSN("postgres"))
		if _, err := conn.Exec(ctx, `CREATE TABLE person (id int PRIMARY KEY, email text NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, `INSERT INTO person SELECT g, 'p' || g || '@example.org' FROM generate_series(1, 1000) g`); err != nil {
			t.Fatal(err)
		}
		var n int
		var sum int64
		if err := conn.QueryRow(ctx, `SELECT count(*), sum(id) FROM person`).Scan(&n, &sum); err != nil || n != 1000 || sum != 500500 {
			t.Fatalf("server %d: count, sum = %d, %d (%v), want 1000, 500500", i, n, sum, err)
		}
		// The socket reaches the same server; the settings took effect.
		sock := connect(t, s.SocketDSN("postgres"))
		var workMem, fsync, collate string
		err := sock.QueryRow(ctx, `SELECT current_setting('work_mem'), current_setting('fsync'),
			(SELECT datcollate FROM pg_database WHERE datname = current_database())`).Scan(&workMem, &fsync, &collate)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%dMB", 8+i); workMem != want || fsync != "off" || collate != "C" {
			t.Errorf("server %d: work_mem, fsync, collate = %s, %s, %s; want %s, off, C", i, workMem, fsync, collate, want)
		}
		if err := sock.QueryRow(ctx, `SELECT count(*) FROM person`).Scan(&n); err != nil || n != 1000 {
			t.Errorf("server %d over the socket: count = %d (%v), want 1000", i, n, err)
		}
	}

	dirA, portA := workDirOf(t, a), a.Port()
	if err := a.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if _, err := os.Stat(dirA); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Stop, %s: %v, want it removed", dirA, err)
	}
	if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", portA), 5*time.Second); err == nil {
		c.Close()
		t.Errorf("after Stop, port %d still accepts connections", portA)
	}
	select {
	case <-a.Done():
	default:
		t.Error("after Stop, Done() is not closed")
	}
	if err := a.Err(); err != nil {
		t.Errorf("after a clean Stop, Err() = %v", err)
	}
	if err := a.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	// The other server is untouched.
	var one int
	if err := connect(t, b.DSN("postgres")).QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
		t.Errorf("the other server after Stop: %v", err)
	}
}

// logText collects what a server logs, a line each (and passes it on to t's log when t is set).
type logText struct {
	t    *testing.T
	mu   sync.Mutex
	text strings.Builder
}

func (l *logText) logf(f string, a ...any) {
	l.mu.Lock()
	fmt.Fprintf(&l.text, f+"\n", a...)
	l.mu.Unlock()
	if l.t != nil {
		l.t.Logf(f, a...)
	}
}

func (l *logText) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.String()
}

// TestKilledServerIsReported kills the postmaster behind the server's back: Done, Err and Stop
// must report it, and Stop must still clean up. It also runs from a private directory, as dbbench's
// run directories are, which the postgres user cannot reach when run as root: the server's
// directory goes to os.TempDir, without a word (it is the normal case).
func TestKilledServerIsReported(t *testing.T) {
	t.Parallel()
	private := privateDir(t)
	log := &logText{t: t}
	s := start(t, Options{TempDir: private, Logf: log.logf})
	dir := workDirOf(t, s)
	if os.Geteuid() == 0 {
		if filepath.Dir(dir) != filepath.Clean(os.TempDir()) {
			t.Errorf("as root with an unreachable TempDir, work dir %s, want it in %s", dir, os.TempDir())
		}
		if logged := log.String(); strings.Contains(logged, "cannot reach") {
			t.Errorf("a warning about the private TempDir, the normal case: %q", logged)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("Err() of a running server = %v", err)
	}
	pid := s.backend.(*localBackend).proc.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	case <-time.After(guard):
		t.Fatal("Done() not closed after the postmaster was killed")
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "exited unexpectedly") || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Err() = %v, want an unexpected exit by a kill", err)
	}
	// A killed postmaster leaves its System V segment behind; Stop must release it.
	var shmKey, shmID int
	if _, err := fmt.Sscanf(pidFileLine(filepath.Join(dir, "data"), 6), "%d %d", &shmKey, &shmID); err != nil {
		t.Fatalf("postmaster.pid of the killed server: %v", err)
	}
	err := s.Stop()
	var desc unix.SysvShmDesc
	if _, serr := unix.SysvShmCtl(shmID, unix.IPC_STAT, &desc); serr == nil && int(desc.Perm.Key) == shmKey {
		t.Errorf("shared memory segment %d (key %d) survived Stop", shmID, shmKey)
	}
	if err == nil || !strings.Contains(err.Error(), "exited unexpectedly") {
		t.Errorf("Stop() = %v, want it to report the unexpected exit", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("Stop() error spans lines: %q", err)
	}
	if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("after Stop, %s: %v, want it removed", dir, serr)
	}
	if again := s.Stop(); again == nil || again.Error() != err.Error() {
		t.Errorf("second Stop() = %v, want the first result %v", again, err)
	}
}

// privateDir is a directory only its owner may enter, as dbbench's run directories are.
func privateDir(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "private")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPrivateParent (as root): from a private parent (a dbbench run directory) the server's
// directory goes to the system temp dir without a word, and a directory a dead dbbench left there is
// swept, as in any parent.
func TestPrivateParent(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the server runs as another user only as root")
	}
	sys := reachableTempDir(t)
	t.Setenv("TMPDIR", sys)
	left := filepath.Join(sys, workDirPrefix+"dead")
	if err := os.MkdirAll(filepath.Join(left, "data"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(left, lockName), []byte("1\n"), 0o600); err != nil { // nobody holds it
		t.Fatal(err)
	}
	private := privateDir(t)
	log := &logText{}
	s := start(t, Options{TempDir: private, Logf: log.logf})
	if dir := workDirOf(t, s); filepath.Dir(dir) != sys {
		t.Errorf("work dir %s, want it in %s", dir, sys)
	}
	if _, err := os.Stat(left); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dead owner's %s: %v, want it swept", left, err)
	}
	if logged := log.String(); strings.Contains(logged, "cannot reach") {
		t.Errorf("a warning for the normal case: %q", logged)
	}
}

// TestPrivateSystemTempDir (as root): when the postgres user cannot reach the system temp dir
// either (a private TMPDIR), the server's directory goes to /tmp, with a line saying so; that is the
// one case worth a word.
func TestPrivateSystemTempDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the server runs as another user only as root")
	}
	private := privateDir(t)
	t.Setenv("TMPDIR", private)
	log := &logText{}
	s := start(t, Options{TempDir: private, Logf: log.logf})
	if dir := workDirOf(t, s); filepath.Dir(dir) != "/tmp" {
		t.Errorf("work dir %s, want it in /tmp", dir)
	}
	first, _, _ := strings.Cut(log.String(), "\n")
	want := "pgserver: the postgres user cannot reach the temp dir " + private + " (no search permission on "
	if !strings.HasPrefix(first, want) || !strings.HasSuffix(first, "); using /tmp") {
		t.Errorf("log %q, want first %q...", log, want)
	}
}

// TestBadSettings: settings the package owns or cannot pass are usage errors found before anything
// starts; a setting PostgreSQL rejects fails the start with PostgreSQL's reason and leaves nothing.
func TestBadSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		settings map[string]string
		want     string
	}{
		{map[string]string{"port": "5432"}, `"port" is chosen by dbbench`},
		{map[string]string{"Listen_Addresses": "*"}, `"Listen_Addresses" is chosen by dbbench`},
		{map[string]string{"work mem": "1MB"}, "not a setting name"},
		{map[string]string{"work_mem": "1MB\nfsync=on"}, "NUL or newline"},
	} {
		_, err := Start(context.Background(), Options{Settings: tc.settings})
		if err == nil || !strings.Contains(err.Error(), tc.want) || exitcode.Of(err) != exitcode.Usage {
			t.Errorf("Settings %v: err = %v (exit %d), want %q and exit %d", tc.settings, err, exitcode.Of(err), tc.want, exitcode.Usage)
		}
	}

	parent := reachableTempDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	_, err := Start(ctx, Options{TempDir: parent, Settings: map[string]string{"no_such_setting": "1"}})
	t.Logf("unknown setting: %v", err)
	if err == nil || !strings.Contains(err.Error(), `unrecognized configuration parameter "no_such_setting"`) ||
		exitcode.Of(err) != exitcode.Infra || strings.Contains(err.Error(), "\n") {
		t.Errorf("unknown setting: err = %v (exit %d), want PostgreSQL's reason on one line, exit %d", err, exitcode.Of(err), exitcode.Infra)
	}
	if left, _ := filepath.Glob(filepath.Join(parent, workDirPrefix+"*")); len(left) > 0 {
		t.Errorf("a failed start left %v", left)
	}
}

// TestUnavailable: with no binaries and no Docker engine, Start says so promptly with an error
// wrapping exitcode.ErrUnavailable.
func TestUnavailable(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(empty, "docker.sock"))
	for _, tc := range []struct {
		mode string
		want []string
	}{
		{"", []string{"no PostgreSQL server binaries", "no Docker engine", "give the target a dsn"}},
		{ModeLocal, []string{"no PostgreSQL server binaries (initdb and postgres) in " + empty}},
		{ModeContainer, []string{"no Docker engine at DOCKER_HOST="}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		_, err := Start(ctx, Options{Mode: tc.mode, BinDir: empty})
		cancel()
		t.Logf("mode %q: %v", tc.mode, err)
		if !errors.Is(err, exitcode.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("mode %q: err = %v, want ErrUnavailable", tc.mode, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("mode %q: err = %q, want it to mention %q", tc.mode, err, w)
			}
		}
	}
	if _, err := Start(context.Background(), Options{Mode: "vm"}); exitcode.Of(err) != exitcode.Usage {
		t.Errorf("mode vm: err = %v (exit %d), want a usage error", err, exitcode.Of(err))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Start(ctx, Options{}); !errors.Is(err, context.Canceled) || exitcode.Of(err) != exitcode.Infra {
		t.Errorf("cancelled context: err = %v (exit %d), want context.Canceled, exit %d", err, exitcode.Of(err), exitcode.Infra)
	}
}

// TestLazy: a Lazy server's failure is every caller's, without a second start, unless the caller's
// context ended the start: then the next caller tries again.
func TestLazy(t *testing.T) {
	var l Lazy
	l.Options = Options{Mode: ModeLocal, BinDir: t.TempDir()} // no binaries: fails at once
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Server(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	_, first := l.Server(context.Background())
	_, again := l.Server(context.Background())
	if !errors.Is(first, exitcode.ErrUnavailable) || again != first {
		t.Errorf("after a cancelled start: %v, then %v; want the same ErrUnavailable twice", first, again)
	}
	if err := l.Stop(); err != nil {
		t.Errorf("Stop without a server: %v", err)
	}
	if _, err := l.Server(context.Background()); err == first || !errors.Is(err, exitcode.ErrUnavailable) {
		t.Errorf("after Stop: %v, want a new start", err)
	}
}

func TestFindBinaries(t *testing.T) {
	root := t.TempDir()
	install := func(dir string, names ...string) string {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	debian := filepath.Join(root, "lib", "postgresql")
	install(filepath.Join(debian, "9.6", "bin"), "initdb", "postgres")
	v15 := install(filepath.Join(debian, "15", "bin"), "initdb", "postgres")
	install(filepath.Join(debian, "16", "bin"), "initdb") // incomplete: no postgres
	install(filepath.Join(debian, "notes"))
	onlyInitdb := install(filepath.Join(root, "bin-initdb-only"), "initdb")
	linked := install(filepath.Join(root, "opt", "pg17", "bin"), "initdb", "postgres")
	symlinks := install(filepath.Join(root, "usr-local-bin"))
	if err := os.Symlink(filepath.Join(linked, "initdb"), filepath.Join(symlinks, "initdb")); err != nil {
		t.Fatal(err)
	}
	nonExec := install(filepath.Join(root, "nonexec"))
	for _, n := range []string{"initdb", "postgres"} {
		if err := os.WriteFile(filepath.Join(nonExec, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	for _, tc := range []struct {
		name, path, binDir string
		roots              []string
		want               string // "" = unavailable
	}{
		{"highest complete version", "", "", []string{debian}, v15},
		{"PATH first, symlink resolved", symlinks, "", []string{debian}, linked},
		{"initdb on PATH without postgres", onlyInitdb, "", []string{debian}, v15},
		{"BinDir only", symlinks, v15, nil, v15},
		{"BinDir without binaries", "", onlyInitdb, []string{debian}, ""},
		{"not executable", nonExec, "", nil, ""},
		{"nothing", "", "", []string{filepath.Join(root, "missing")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", tc.path)
			b, err := findBinaries(tc.binDir, tc.roots)
			if tc.want == "" {
				if !errors.Is(err, exitcode.ErrUnavailable) {
					t.Errorf("findBinaries = %+v, %v; want ErrUnavailable", b, err)
				}
				return
			}
			if err != nil || b.dir != tc.want || b.initdb != filepath.Join(tc.want, "initdb") || b.postgres != filepath.Join(tc.want, "postgres") {
				t.Errorf("findBinaries = %+v, %v; want binaries in %s", b, err, tc.want)
			}
		})
	}
}

// TestSweepLeftovers removes only directories that carry our lock file with nobody holding it.
func TestSweepLeftovers(t *testing.T) {
	parent := t.TempDir()
	mk := func(name string, lock bool) string {
		t.Helper()
		dir := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(dir, "data"), 0o700); err != nil {
			t.Fatal(err)
		}
		if lock {
			if err := os.WriteFile(filepath.Join(dir, lockName), []byte("1\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	leftover := mk(workDirPrefix+"dead", true)
	live := mk(workDirPrefix+"live", false)
	f, err := lockOwner(live)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	noLock := mk(workDirPrefix+"nolock", false)
	other := mk("other-dir", true)
	running := mk(workDirPrefix+"running", true)
	// A postmaster.pid naming a live process (this one) protects the directory.
	if err := os.WriteFile(filepath.Join(running, "data", "postmaster.pid"), fmt.Appendf(nil, "%d\n/x\n", os.Getpid()), 0o600); err != nil {
		t.Fatal(err)
	}

	sweepLeftovers(parent, t.Logf)
	for dir, wantGone := range map[string]bool{leftover: true, live: false, noLock: false, other: false, running: false} {
		_, err := os.Stat(dir)
		if gone := errors.Is(err, os.ErrNotExist); gone != wantGone {
			t.Errorf("%s: removed = %v, want %v", filepath.Base(dir), gone, wantGone)
		}
	}
}

func TestTailOf(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "(empty server log)"},
		{"a\n\n b \nc\nd\n", "b | c | d"},
		{"2026-11-30 06:20:31.071 GMT [27815] FATAL:  unrecognized configuration parameter \"x\"\n",
			`FATAL: unrecognized configuration parameter "x"`},
		{"one", "one"},
	} {
		if got := tailOf(tc.in, 3); got != tc.want {
			t.Errorf("tailOf(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// BenchmarkStartStop measures a whole server lifetime: initdb, start, first connection, stop and
// removal. Run: go test -run '^$' -bench StartStop -benchtime 5x ./internal/postgres/
func BenchmarkStartStop(b *testing.B) {
	for b.Loop() {
		s, err := Start(context.Background(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Stop(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStopStalledServer: a server whose processes are all stopped (SIGSTOP: a stalled machine, a
// debugger) is still stopped quickly and leaves nothing behind, and Stop does not wait for it.
func TestStopStalledServer(t *testing.T) {
	s := start(t, Options{TempDir: reachableTempDir(t)})
	dir := workDirOf(t, s)
	pid := s.backend.(*localBackend).proc.cmd.Process.Pid
	if err := syscall.Kill(-pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGCONT) })
	t0 := time.Now()
	if err := s.Stop(); err != nil {
		t.Errorf("Stop() = %v", err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("Stop() of a stalled server took %v, want under 2 s", d)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Stop, %s: %v, want it removed", dir, err)
	}
	if cleanup.Alive(pid) {
		t.Errorf("postmaster %d still runs", pid)
	}
}

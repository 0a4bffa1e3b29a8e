package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbbench/dbbench/internal/exitcode"
)

// The modes a server can run in.
const (
	ModeAuto      = "auto"      // local binaries when found, else a container
	ModeLocal     = "local"     // initdb and postgres from this machine
	ModeContainer = "container" // the postgres image through testcontainers-go
)

// MinVersionNum is the oldest server (server_version_num) dbbench accepts: 11 brought covering
// indexes (INCLUDE), which the benchmarked layouts rely on.
const MinVersionNum = 110000

// User is the superuser every server is initialised with; trust authentication, so no password.
const User = "postgres"

// Options configures Start. The zero value is valid.
type Options struct {
	// TempDir is the parent of the server's private directory (default os.TempDir()). As root the
	// server runs as the postgres user, which must be able to reach it; when it cannot (dbbench's own
	// directories are private), the system temp dir is used instead, and /tmp, with a log line, when
	// the postgres user cannot reach that either.
	TempDir string
	// Logf receives progress lines; nil means quiet.
	Logf func(format string, args ...any)
	// Settings are extra server settings (postgresql.conf names), e.g. shared_buffers: "1GB". They
	// override the throwaway defaults (fsync=off, ...). The listening address, port and socket
	// directory belong to this package and are rejected.
	Settings map[string]string
	// Mode is ModeAuto (""), ModeLocal or ModeContainer.
	Mode string
	// BinDir, when set, is the only directory searched for initdb and postgres.
	BinDir string
	// Image is the container image of ModeContainer and the fallback (default "postgres:15").
	Image string
	// StartTimeout bounds the wait for the first connection once the server runs (default 60s;
	// initdb and pulling an image are not counted).
	StartTimeout time.Duration
}

func (o *Options) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

// Server is a running throwaway PostgreSQL server. Its methods are safe for concurrent use.
type Server struct {
	mode       string
	host       string
	port       int
	socketDir  string // "" when the server has no unix socket (container mode, or a path too long)
	version    string
	versionNum int
	settings   map[string]string
	binDir     string

	stopOnce sync.Once
	stopErr  error
	// backend is the mode-specific part (process or container).
	backend backend
}

// backend is what a mode provides: a way to stop everything it created, and to tell whether the
// server died on its own.
type backend interface {
	// stop shuts the server down and removes everything the mode created.
	stop() error
	// done is closed when the server is known to have exited (for a container: once stopped).
	done() <-chan struct{}
	// exitErr describes how the server exited once done is closed.
	exitErr() error
}

// Start launches a private PostgreSQL server and returns once it accepts connections. ctx bounds
// the start-up only: the server runs until Stop (or until this process dies). An error
// wrapping exitcode.ErrUnavailable means this machine can run neither mode; a bad Settings entry is
// an exit-code-2 error; anything else is an exit-code-3 error.
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	if o.Image == "" {
		o.Image = "postgres:15"
	}
	settings, err := mergeSettings(o.Settings)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, exitcode.Infraf("start PostgreSQL: %w", err)
	}
	switch o.Mode {
	case "", ModeAuto:
		s, localErr := startLocal(ctx, o, settings)
		if !errors.Is(localErr, exitcode.ErrUnavailable) {
			return s, localErr
		}
		s, err := startContainer(ctx, o, settings)
		if errors.Is(err, exitcode.ErrUnavailable) {
			return nil, exitcode.Unavailable("%s, and %s: install postgresql (initdb, postgres) or start Docker, or give the target a dsn",
				reason(localErr), reason(err))
		}
		return s, err
	case ModeLocal:
		return startLocal(ctx, o, settings)
	case ModeContainer:
		return startContainer(ctx, o, settings)
	}
	return nil, exitcode.Usagef("PostgreSQL server mode %q: want %s, %s or %s", o.Mode, ModeAuto, ModeLocal, ModeContainer)
}

// reason strips the ErrUnavailable prefix so two reasons can be joined in one line.
func reason(err error) string {
	return strings.TrimPrefix(err.Error(), exitcode.ErrUnavailable.Error()+": ")
}

// defaultSettings make a throwaway server fast: nothing it holds needs to survive a crash.
var defaultSettings = map[string]string{
	"fsync":              "off",
	"synchronous_commit": "off",
	"full_page_writes":   "off",
}

// managedSettings are chosen here; letting a user set them would break DSN.
var managedSettings = []string{"listen_addresses", "port", "unix_socket_directories", "data_directory",
	"config_file", "hba_file", "ident_file"}

var settingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

func mergeSettings(extra map[string]string) (map[string]string, error) {
	m := maps.Clone(defaultSettings)
	for k, v := range extra {
		switch {
		case !settingName.MatchString(k):
			return nil, exitcode.Usagef("PostgreSQL setting %q: not a setting name (letters, digits, '_' and '.')", k)
		case slices.Contains(managedSettings, strings.ToLower(k)):
			return nil, exitcode.Usagef("PostgreSQL setting %q is chosen by dbbench's throwaway server and cannot be set", k)
		case strings.ContainsAny(v, "\x00\n"):
			return nil, exitcode.Usagef("PostgreSQL setting %q: value contains a NUL or newline", k)
		}
		m[strings.ToLower(k)] = v
	}
	return m, nil
}

// settingArgs renders settings as postgres command-line flags, in a stable order.
func settingArgs(settings map[string]string) []string {
	var args []string
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		args = append(args, "-c", k+"="+settings[k])
	}
	return args
}

// DSN returns a URL connection string for the named database over TCP, e.g.
// postgres://postgres@127.0.0.1:PORT/db?sslmode=disable.
func (s *Server) DSN(database string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User(User),
		Host:     fmt.Sprintf("%s:%d", s.host, s.port),
		Path:     "/" + database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// SocketDSN returns a connection string for the named database over the server's unix socket
// (lower latency than TCP), or "" when the server has no socket (container mode).
func (s *Server) SocketDSN(database string) string {
	if s.socketDir == "" {
		return ""
	}
	q := url.Values{"host": {s.socketDir}, "port": {strconv.Itoa(s.port)}, "sslmode": {"disable"}}
	u := url.URL{Scheme: "postgres", User: url.User(User), Path: "/" + database, RawQuery: q.Encode()}
	return u.String()
}

// Version returns the server's server_version, e.g. "15.14 (Debian 15.14-0+deb12u1)".
func (s *Server) Version() string { return s.version }

// VersionNum returns the server's server_version_num, e.g. 150014.
func (s *Server) VersionNum() int { return s.versionNum }

// Mode returns ModeLocal or ModeContainer.
func (s *Server) Mode() string { return s.mode }

// PID is the server's main process (the postmaster), whose children are its backends; 0 when the
// server runs in a container, whose processes this one cannot read.
func (s *Server) PID() int {
	if b, ok := s.backend.(*localBackend); ok {
		return b.proc.cmd.Process.Pid
	}
	return 0
}

// Port returns the TCP port the server listens on (on the host, in container mode).
func (s *Server) Port() int { return s.port }

// Info returns facts about the server for a report (no secrets: there are none).
func (s *Server) Info() map[string]any {
	m := map[string]any{
		"server":         "throwaway",
		"server_mode":    s.mode,
		"server_version": s.version,
		"settings":       maps.Clone(s.settings),
	}
	if s.binDir != "" {
		m["bin_dir"] = s.binDir
	}
	return m
}

// Done is closed when the server process exits without Stop having been called (a crash, or
// someone killed it), and also once Stop has finished. A container server reports only Stop.
func (s *Server) Done() <-chan struct{} { return s.backend.done() }

// Err returns why the server exited unexpectedly, or nil while it runs (and after a clean Stop).
func (s *Server) Err() error {
	select {
	case <-s.backend.done():
		return s.backend.exitErr()
	default:
		return nil
	}
}

// Stop shuts the server down (fast shutdown, then a kill after a timeout) and removes everything
// Start created. It is idempotent and safe from several goroutines; every call returns the first
// call's result. It reports an earlier unexpected exit of the server as an error, after cleaning up.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() { s.stopErr = s.backend.stop() })
	return s.stopErr
}

// waitReady polls until a connection to the postgres database succeeds, then reads the version and
// returns the server's data_directory. It gives up when died is closed (the server exited) or after
// timeout.
func (s *Server) waitReady(ctx context.Context, timeout time.Duration, died <-chan struct{}) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	delay := 20 * time.Millisecond
	var last error
	for {
		dataDir, err := s.probe(ctx)
		if err == nil {
			return dataDir, s.checkVersion()
		}
		last = err
		select {
		case <-died:
			return "", errServerExited
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return "", fmt.Errorf("no connection within %v: %v", timeout, exitcode.OneLine(last.Error()))
			}
			return "", ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 250*time.Millisecond)
	}
}

// probe connects once and reads the version and data directory.
func (s *Server) probe(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.DSN("postgres"))
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	var dataDir string
	err = conn.QueryRow(ctx, `SELECT current_setting('server_version'), current_setting('server_version_num')::int,
		current_setting('data_directory')`).Scan(&s.version, &s.versionNum, &dataDir)
	if err != nil {
		return "", fmt.Errorf("read server_version: %w", err)
	}
	return dataDir, nil
}

var errServerExited = errors.New("server exited during start-up")

func (s *Server) checkVersion() error {
	if s.versionNum < MinVersionNum {
		return exitcode.Unavailable("PostgreSQL %s is too old: dbbench needs %d or newer", s.version, MinVersionNum/10000)
	}
	return nil
}

// startErr formats a start-up failure: an infrastructure error (exit 3) unless it wraps
// ErrUnavailable or an error with an exit code of its own.
func startErr(format string, args ...any) error {
	err := fmt.Errorf("start PostgreSQL: "+format, args...)
	var coded *exitcode.Error
	switch {
	case errors.Is(err, exitcode.ErrUnavailable):
		return err
	case errors.As(err, &coded):
		return &exitcode.Error{Code: coded.Code, Err: err}
	}
	return &exitcode.Error{Code: exitcode.Infra, Err: err}
}

// environ is the environment for server processes: ours without PG* variables, which could point
// initdb or postgres elsewhere, and with a C locale.
func environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C", "LANG=C")
}

// Lazy is a throwaway server started on first use and shared by all its users until Stop: every
// caller gets the same server, or the same failure, except that a start its caller's context ended
// is tried again by the next caller. The zero value is ready (Options zero: Start's defaults).
type Lazy struct {
	Options Options
	// Timeout, when set, bounds the start (initdb and pulling an image included); a start that runs
	// out of it has failed for every caller.
	Timeout time.Duration

	mu    sync.Mutex
	srv   *Server
	err   error
	tried bool
}

// Server returns the server, starting it on first use.
func (l *Lazy) Server(ctx context.Context) (*Server, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.tried {
		start := ctx
		if l.Timeout > 0 {
			var cancel context.CancelFunc
			start, cancel = context.WithTimeout(ctx, l.Timeout)
			defer cancel()
		}
		l.srv, l.err = Start(start, l.Options)
		l.tried = l.err == nil || ctx.Err() == nil
	}
	return l.srv, l.err
}

// Started returns the server if one is running, without starting it.
func (l *Lazy) Started() *Server {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.srv
}

// Stop stops the server if one was started; the next Server starts a new one.
func (l *Lazy) Stop() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	if l.srv != nil {
		err = l.srv.Stop()
	}
	l.srv, l.err, l.tried = nil, nil, false
	return err
}

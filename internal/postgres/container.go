package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/dbbench/dbbench/internal/docker"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// startContainer runs the postgres image with the same settings as a local server. Orphans are
// removed by testcontainers' reaper (Ryuk), which deletes the container when this process's
// connection to it closes, however the process ends.
func startContainer(ctx context.Context, o Options, settings map[string]string) (s *Server, err error) {
	host, err := docker.Find(ctx, docker.PingTimeout)
	if err != nil {
		return nil, exitcode.Unavailable("%v", err)
	}
	defer func() {
		// testcontainers panics on some discovery failures; keep them one-line errors.
		if r := recover(); r != nil {
			s, err = nil, startErr("container: %v", r)
		}
	}()
	o.logf("pgserver: starting a %s container (Docker at %s)", o.Image, host)
	t0 := time.Now()
	req := testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image:        o.Image,
			ExposedPorts: []string{"5432/tcp"},
			Env: map[string]string{
				"POSTGRES_HOST_AUTH_METHOD": "trust",
				"POSTGRES_INITDB_ARGS":      "-E UTF8 --locale=C --no-sync",
			},
			Cmd: append([]string{"postgres"}, settingArgs(settings)...),
			// The image's entrypoint starts the server twice: once to initialise, once for real.
			WaitingFor: wait.ForLog("database system is ready to accept connections").
				WithOccurrence(2).WithStartupTimeout(o.StartTimeout),
		},
		Started: true,
		Logger:  tcLogger{o.logf},
	}
	ctr, err := testcontainers.GenericContainer(ctx, req)
	b := &containerBackend{ctr: ctr, stopped: make(chan struct{})}
	if err != nil {
		_ = b.stop()
		return nil, startErr("container %s: %s", o.Image, exitcode.OneLine(err.Error()))
	}
	hostName, err := ctr.Host(ctx)
	if err != nil {
		_ = b.stop()
		return nil, startErr("container host: %v", err)
	}
	port, err := ctr.MappedPort(ctx, "5432/tcp")
	if err != nil {
		_ = b.stop()
		return nil, startErr("container port: %v", err)
	}
	s = &Server{mode: ModeContainer, host: hostName, port: int(port.Num()), settings: settings, backend: b}
	if _, err := s.waitReady(ctx, o.StartTimeout, nil); err != nil {
		_ = b.stop()
		return nil, startErr("container %s: %v", o.Image, err)
	}
	o.logf("pgserver: PostgreSQL %s ready on %s:%d (container, %v)", s.version, hostName, s.port, time.Since(t0).Round(time.Millisecond))
	return s, nil
}

// containerBackend is a container server.
type containerBackend struct {
	ctr      testcontainers.Container
	stopOnce sync.Once
	stopped  chan struct{}
	err      error
}

func (b *containerBackend) done() <-chan struct{} { return b.stopped }
func (b *containerBackend) exitErr() error        { return nil }

func (b *containerBackend) stop() error {
	b.stopOnce.Do(func() {
		defer close(b.stopped)
		if b.ctr == nil {
			return
		}
		if err := testcontainers.TerminateContainer(b.ctr, testcontainers.StopTimeout(quitWait)); err != nil {
			b.err = fmt.Errorf("stop PostgreSQL container: %s", exitcode.OneLine(err.Error()))
		}
	})
	return b.err
}

// tcLogger sends testcontainers' progress lines to Logf, or nowhere.
type tcLogger struct{ logf func(string, ...any) }

func (l tcLogger) Printf(format string, args ...any) { l.logf("testcontainers: "+format, args...) }

var _ tclog.Logger = tcLogger{}

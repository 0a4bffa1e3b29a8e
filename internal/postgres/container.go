package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/dbbench/dbbench/internal/docker"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// startContainer runs the postgres image with the same settings as a local server. Orphans are
// removed by testcontainers' reaper (Ryuk), which deletes the container when this process's
// connection to it closes, however the process ends.
func startContainer(ctx context.Context, o Options, settings map[string]string) (*Server, error) {
	host, err := docker.Find(ctx, docker.PingTimeout)
	if err != nil {
		return nil, exitcode.Unavailable("%v", err)
	}
	t0 := time.Now()
	ctr, hostName, port, err := docker.Start(ctx, host, testcontainers.ContainerRequest{
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
	}, func(format string, args ...any) { o.logf("pgserver: "+format, args...) })
	if err != nil {
		return nil, startErr("%w", err)
	}
	b := &containerBackend{ctr: ctr, stopped: make(chan struct{})}
	s := &Server{mode: ModeContainer, host: hostName, port: port, settings: settings, backend: b}
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
		if err := docker.Remove(b.ctr, quitWait); err != nil {
			b.err = fmt.Errorf("PostgreSQL: %w", err)
		}
	})
	return b.err
}

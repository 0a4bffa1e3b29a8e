package docker

import (
	"context"
	"fmt"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/dbbench/dbbench/internal/exitcode"
)

// Start starts a container of req (its image, the port to publish as req.ExposedPorts[0], its
// command, environment and wait strategy) on the engine at host (Find's answer), and returns it with
// the host and port that port is published on. testcontainers' reaper removes the container if this
// process dies; its progress lines go to logf. Errors are one line; a start that fails removes what
// it made, and a panic of testcontainers' discovery is an ErrUnavailable.
func Start(ctx context.Context, host string, req testcontainers.ContainerRequest, logf func(string, ...any)) (ctr testcontainers.Container, hostName string, port int, err error) {
	defer func() {
		if r := recover(); r != nil {
			ctr, hostName, port, err = nil, "", 0, exitcode.Unavailable("testcontainers: %v", r)
		}
	}()
	logf("starting a %s container (Docker at %s)", req.Image, host)
	ctr, err = testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
		ContainerRequest: req, Started: true, Logger: tcLogger{logf},
	})
	fail := func(err error) (testcontainers.Container, string, int, error) {
		_ = Remove(ctr, 10*time.Second)
		return nil, "", 0, err
	}
	if err != nil {
		return fail(fmt.Errorf("container %s: %s", req.Image, exitcode.OneLine(err.Error())))
	}
	if hostName, err = ctr.Host(ctx); err != nil {
		return fail(fmt.Errorf("container %s: host: %s", req.Image, exitcode.OneLine(err.Error())))
	}
	mapped, err := ctr.MappedPort(ctx, req.ExposedPorts[0])
	if err != nil {
		return fail(fmt.Errorf("container %s: port %s: %s", req.Image, req.ExposedPorts[0], exitcode.OneLine(err.Error())))
	}
	return ctr, hostName, int(mapped.Num()), nil
}

// Remove stops (within timeout) and removes a container Start returned; nil does nothing.
func Remove(ctr testcontainers.Container, timeout time.Duration) error {
	if ctr == nil {
		return nil
	}
	if err := testcontainers.TerminateContainer(ctr, testcontainers.StopTimeout(timeout)); err != nil {
		return fmt.Errorf("remove container: %s", exitcode.OneLine(err.Error()))
	}
	return nil
}

// tcLogger sends testcontainers' progress lines to a log function.
type tcLogger struct{ logf func(string, ...any) }

func (l tcLogger) Printf(format string, args ...any) { l.logf("testcontainers: "+format, args...) }

var _ tclog.Logger = tcLogger{}

package typedb

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/internal/docker"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// noServer is the reason given when there is neither an address nor Docker.
const noServer = "no TypeDB server: set TYPEDB_ADDRESS or install Docker"

// container is a TypeDB server started for this target. testcontainers' reaper removes it if the
// process dies before Close.
type container struct {
	ctr testcontainers.Container
}

// startContainer runs typedb/typedb:<version> and waits until /health answers 204. It returns the
// HTTP address.
func startContainer(ctx context.Context, image string, timeout time.Duration, logf func(string, ...any)) (c *container, addr string, err error) {
	host, err := docker.Find(ctx, docker.PingTimeout)
	if err != nil {
		return nil, "", adapters.Unavailable("%s (%v)", noServer, err)
	}
	defer func() {
		// testcontainers panics on some discovery failures: keep them one-line errors.
		if r := recover(); r != nil {
			c, addr, err = nil, "", adapters.Unavailable("%s (testcontainers: %v)", noServer, r)
		}
	}()
	logf("starting a %s container (Docker at %s)", image, host)
	t0 := time.Now()
	ctr, err := testcontainers.Run(ctx, image,
		testcontainers.WithExposedPorts("8000/tcp"),
		// Offline, reproducible runs: no diagnostics reporting to TypeDB's servers.
		testcontainers.WithCmdArgs("--diagnostics.reporting.metrics=false", "--diagnostics.reporting.errors=false"),
		testcontainers.WithWaitStrategy(wait.ForHTTP("/health").WithPort("8000/tcp").
			WithStatusCodeMatcher(func(status int) bool { return status == 204 }).
			WithStartupTimeout(timeout)),
		testcontainers.WithLogger(tcLogger{logf}),
	)
	c = &container{ctr: ctr}
	if err != nil {
		_ = c.stop()
		return nil, "", fmt.Errorf("typedb container %s: %s", image, exitcode.OneLine(err.Error()))
	}
	hostName, err := ctr.Host(ctx)
	if err != nil {
		_ = c.stop()
		return nil, "", fmt.Errorf("typedb container host: %v", err)
	}
	port, err := ctr.MappedPort(ctx, "8000/tcp")
	if err != nil {
		_ = c.stop()
		return nil, "", fmt.Errorf("typedb container port: %v", err)
	}
	addr = "http://" + net.JoinHostPort(hostName, strconv.Itoa(int(port.Num())))
	logf("server ready at %s (%v)", addr, time.Since(t0).Round(time.Millisecond))
	return c, addr, nil
}

func (c *container) stop() error {
	if c == nil || c.ctr == nil {
		return nil
	}
	err := testcontainers.TerminateContainer(c.ctr, testcontainers.StopTimeout(10*time.Second))
	c.ctr = nil
	if err != nil {
		return fmt.Errorf("remove the TypeDB container: %s", exitcode.OneLine(err.Error()))
	}
	return nil
}

// tcLogger sends testcontainers' progress lines to the target's log.
type tcLogger struct{ logf func(string, ...any) }

func (l tcLogger) Printf(format string, args ...any) { l.logf("testcontainers: "+format, args...) }

var _ tclog.Logger = tcLogger{}

package typedb

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/internal/docker"
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
func startContainer(ctx context.Context, image string, timeout time.Duration, logf func(string, ...any)) (*container, string, error) {
	host, err := docker.Find(ctx, docker.PingTimeout)
	if err != nil {
		return nil, "", adapters.Unavailable("%s (%v)", noServer, err)
	}
	t0 := time.Now()
	ctr, hostName, port, err := docker.Start(ctx, host, testcontainers.ContainerRequest{
		Image:        image,
		ExposedPorts: []string{"8000/tcp"},
		// Offline, reproducible runs: no diagnostics reporting to TypeDB's servers.
		Cmd: []string{"--diagnostics.reporting.metrics=false", "--diagnostics.reporting.errors=false"},
		WaitingFor: wait.ForHTTP("/health").WithPort("8000/tcp").
			WithStatusCodeMatcher(func(status int) bool { return status == 204 }).
			WithStartupTimeout(timeout),
	}, logf)
	if err != nil {
		return nil, "", fmt.Errorf("typedb: %w", err)
	}
	addr := "http://" + net.JoinHostPort(hostName, strconv.Itoa(port))
	logf("server ready at %s (%v)", addr, time.Since(t0).Round(time.Millisecond))
	return &container{ctr: ctr}, addr, nil
}

func (c *container) stop() error {
	if c == nil || c.ctr == nil {
		return nil
	}
	err := docker.Remove(c.ctr, 10*time.Second)
	c.ctr = nil
	if err != nil {
		return fmt.Errorf("typedb: %w", err)
	}
	return nil
}

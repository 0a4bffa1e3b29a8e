// Package docker finds a Docker (or Podman) engine and starts containers on it, for the adapters that
// can start their server in a container. Find answers quickly on machines without one, so a target can
// say so in one line instead of hanging in a container library's discovery.
package docker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/moby/moby/client"
)

// PingTimeout bounds the check for an engine, so a machine without one (or with a dead DOCKER_HOST)
// is told so in seconds.
const PingTimeout = 3 * time.Second

// Find returns the engine's host ("unix:///var/run/docker.sock"), or a one-line error saying why there
// is none. DOCKER_HOST wins when set, as for the docker CLI; otherwise the usual socket locations are
// tried. The engine must answer a ping within timeout.
func Find(ctx context.Context, timeout time.Duration) (string, error) {
	host := os.Getenv("DOCKER_HOST")
	if host == "" {
		for _, sock := range sockets() {
			if st, err := os.Stat(sock); err == nil && st.Mode()&os.ModeSocket != 0 {
				host = "unix://" + sock
				break
			}
		}
		if host == "" {
			return "", fmt.Errorf("no Docker engine: DOCKER_HOST is unset and no docker.sock exists")
		}
	}
	if path, ok := strings.CutPrefix(host, "unix://"); ok {
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("no Docker engine at DOCKER_HOST=%s", host)
		}
	}
	cli, err := client.New(client.FromEnv, client.WithHost(host))
	if err != nil {
		return "", fmt.Errorf("Docker client for %s: %s", host, exitcode.OneLine(err.Error()))
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		return "", fmt.Errorf("the Docker engine at %s does not answer: %s", host, exitcode.OneLine(err.Error()))
	}
	return host, nil
}

// sockets lists where Docker (rootful, rootless, Desktop) and Podman put their API socket.
func sockets() []string {
	socks := []string{"/var/run/docker.sock"}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		socks = append(socks, filepath.Join(d, "docker.sock"), filepath.Join(d, "podman", "podman.sock"))
	}
	if h, err := os.UserHomeDir(); err == nil {
		socks = append(socks, filepath.Join(h, ".docker", "run", "docker.sock"),
			filepath.Join(h, ".docker", "desktop", "docker.sock"))
	}
	return append(socks, fmt.Sprintf("/run/user/%d/docker.sock", os.Getuid()))
}

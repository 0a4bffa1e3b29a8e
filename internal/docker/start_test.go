package docker

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
)

// Start on an engine that is not there fails in one line, leaves nothing and does not panic
// (testcontainers panics on some discovery failures).
func TestStartWithoutEngine(t *testing.T) {
	host := "unix://" + filepath.Join(t.TempDir(), "docker.sock")
	t.Setenv("DOCKER_HOST", host)
	t.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var logged []string
	ctr, h, port, err := Start(ctx, host, testcontainers.ContainerRequest{Image: "postgres:15", ExposedPorts: []string{"5432/tcp"}},
		func(format string, args ...any) { logged = append(logged, format) })
	t.Logf("err: %v; log: %q", err, logged)
	if err == nil || ctr != nil || h != "" || port != 0 {
		t.Fatalf("Start = %v, %q, %d, %v; want an error and nothing else", ctr, h, port, err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error on several lines: %q", err)
	}
	if len(logged) == 0 || !strings.HasPrefix(logged[0], "starting a %s container") {
		t.Errorf("log: %q, want the start said first", logged)
	}
}

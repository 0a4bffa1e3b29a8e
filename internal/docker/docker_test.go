package docker

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFind checks Docker discovery against sockets that stand in for an engine: one that
// answers the API's ping, one that accepts and never answers (it must not hang Start), and none.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	listen := func(name string) (string, net.Listener) {
		t.Helper()
		path := filepath.Join(dir, name)
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return "unix://" + path, l
	}
	answering, l := listen("answering.sock")
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Api-Version", "1.45")
		w.Header().Set("Ostype", "linux")
		_, _ = w.Write([]byte("OK"))
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	silent, sl := listen("silent.sock")
	go func() {
		for {
			c, err := sl.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()

	for _, tc := range []struct {
		name, host string
		want       string // "" = found
	}{
		{"answering engine", answering, ""},
		{"silent engine", silent, "does not answer"},
		{"no socket", "unix://" + filepath.Join(dir, "missing.sock"), "no Docker engine at DOCKER_HOST="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("DOCKER_HOST", tc.host)
			host, err := Find(context.Background(), 300*time.Millisecond)
			t.Log(err)
			if tc.want == "" {
				if err != nil || host != tc.host {
					t.Errorf("Find = %q, %v; want %q", host, err, tc.host)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Find = %q, %v; want one line with %q", host, err, tc.want)
			}
		})
	}
}

// Package clients holds the reference protocol clients (Go, Node, Python); this test runs the
// conformance kit (`dbbench client-test`) against each of them on every library it drives.
package clients

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbbench/dbbench/commands/clienttest"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
	"github.com/dbbench/dbbench/internal/term/termtest"
)

// RequireEnv, set to 1, makes a missing runtime a failure instead of a skip (CI sets it, so that it
// cannot pass by skipping).
const RequireEnv = "DBBENCH_REQUIRE_CLIENTS"

func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	if goBin != "" {
		os.RemoveAll(filepath.Dir(goBin))
	}
	os.Exit(code)
}

// reference is one reference client on one library.
type reference struct {
	name     string
	command  func(t *testing.T) ([]string, string) // argv, or "" and the reason it cannot run here
	postgres bool
}

var (
	goBuild      sync.Once
	goBin, goErr string
)

// goClient builds the Go client once per test binary (go run would rebuild it for every check).
func goClient(lib string) func(t *testing.T) ([]string, string) {
	return func(t *testing.T) ([]string, string) {
		goBuild.Do(func() {
			dir, err := os.MkdirTemp("", "dbbench-go-client-")
			if err != nil {
				goErr = err.Error()
				return
			}
			goBin = filepath.Join(dir, "dbbench-client")
			out, err := exec.Command("go", "build", "-o", goBin, "./go/cmd/dbbench-client").CombinedOutput()
			if err != nil {
				goErr = "go build ./clients/go/cmd/dbbench-client: " + strings.TrimSpace(string(out))
			}
		})
		if goErr != "" {
			return nil, goErr
		}
		return []string{goBin, lib}, ""
	}
}

func nodeClient(lib string) func(t *testing.T) ([]string, string) {
	return func(t *testing.T) ([]string, string) {
		if _, err := exec.LookPath("node"); err != nil {
			return nil, "no node on PATH"
		}
		if _, err := os.Stat("node/node_modules"); err != nil {
			return nil, "clients/node/node_modules is missing: run npm ci in clients/node"
		}
		return []string{"node", "clients/node/bin/dbbench-client.js", lib}, ""
	}
}

// python is Debian's interpreter: only it sees Debian's python3-lmdb and python3-psycopg2.
const python = "/usr/bin/python3"

func pythonClient(lib, module string) func(t *testing.T) ([]string, string) {
	return func(t *testing.T) ([]string, string) {
		if _, err := os.Stat(python); err != nil {
			return nil, python + " is missing"
		}
		if err := exec.Command(python, "-c", "import "+module).Run(); err != nil {
			return nil, "python module " + module + " is missing: apt-get install -y python3-" + module
		}
		return []string{python, "clients/python/dbbench-client.py", lib}, ""
	}
}

var references = []reference{
	{"go/lmdb", goClient("lmdb"), false},
	{"go/sqlite", goClient("sqlite"), false},
	{"go/postgres", goClient("postgres"), true},
	{"node/lmdb", nodeClient("lmdb"), false},
	{"node/better-sqlite3", nodeClient("better-sqlite3"), false},
	{"node/pg", nodeClient("pg"), true},
	{"python/lmdb", pythonClient("lmdb", "lmdb"), false},
	{"python/sqlite3", pythonClient("sqlite3", "sqlite3"), false},
	{"python/psycopg2", pythonClient("psycopg2", "psycopg2"), true},
}

func TestReferenceClientsConform(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range references {
		t.Run(r.name, func(t *testing.T) {
			argv, missing := r.command(t)
			if missing != "" {
				if os.Getenv(RequireEnv) == "1" {
					t.Fatalf("%s=1 and the client cannot run: %s", RequireEnv, missing)
				}
				t.Skipf("skipped: %s", missing)
			}
			var out bytes.Buffer
			opts := clienttest.Options{
				Command: argv, Dir: root, Size: 500, Timeout: time.Minute, TempDir: t.TempDir(),
				Out: io.MultiWriter(testWriter{t}, &out), Logf: t.Logf,
			}
			if r.postgres {
				opts.DSN = pgtest.NewDatabase(t)
			}
			res, err := clienttest.Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Failures {
				t.Errorf("FAIL %s", f)
			}
			if res.Passed == 0 {
				t.Error("no check passed")
			}
			// what client-test prints for this client fits 120 columns and shows no Go value dump
			termtest.Check(t, "client-test "+r.name, 0, out.String(), "")
		})
	}
}

// testWriter sends the kit's lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// Package clients holds the reference protocol clients (Go, Node, Python, Haskell, Rust); this test runs the
// conformance kit (`dbbench client-test`) against each of them on every library it drives.
package clients

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbbench/dbbench/clients/refclient"
	"github.com/dbbench/dbbench/commands/clienttest"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
	"github.com/dbbench/dbbench/internal/term/termtest"
)

func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	if goBin != "" {
		os.RemoveAll(filepath.Dir(goBin))
	}
	os.Exit(code)
}

var (
	goBuild sync.Once
	goBin   string
	goErr   error
)

// goClient builds the Go client once per test binary (go run would rebuild it for every check).
func goClient(t *testing.T) string {
	goBuild.Do(func() {
		dir, err := os.MkdirTemp("", "dbbench-go-client-")
		if err != nil {
			goErr = err
			return
		}
		goBin, goErr = refclient.BuildGo(dir)
	})
	if goErr != nil {
		t.Fatal(goErr)
	}
	return goBin
}

// command is the argv of a reference client, the Go client built first (or the test skipped, as
// refclient says).
func command(t *testing.T, r refclient.Client) []string {
	var bin string
	if r.Go != "" {
		bin = goClient(t)
	}
	return r.Command(t, bin)
}

func TestReferenceClientsConform(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refclient.All {
		t.Run(r.Name, func(t *testing.T) {
			argv := command(t, r)
			var out bytes.Buffer
			opts := clienttest.Options{
				Command: argv, Dir: root, Size: 500, Timeout: time.Minute, TempDir: t.TempDir(), Client: r.Options,
				Out: io.MultiWriter(testWriter{t}, &out), Logf: t.Logf,
			}
			if r.Postgres {
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
			termtest.Check(t, "client-test "+r.Name, 0, out.String(), "")
		})
	}
}

// testWriter sends the kit's lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

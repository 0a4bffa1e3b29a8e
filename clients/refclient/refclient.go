// Package refclient lists the reference protocol clients (Go, Node, Python, Haskell, Rust) on each library they
// drive, for the tests that run them: how to start each one, and why it cannot run on this machine
// when it cannot. Commands are relative to the module's root (Root).
package refclient

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// RequireEnv, set to 1, makes a client that cannot run here a failure instead of a skip (CI sets
// it, so that a test cannot pass by skipping).
const RequireEnv = "DBBENCH_REQUIRE_CLIENTS"

// Client is one reference client on one library.
type Client struct {
	Name string // language/library, e.g. go/lmdb
	// Postgres says that the client's store is a PostgreSQL schema it is given (open.postgres).
	Postgres bool
	// Go is the library of the Go client ("" for the other languages); Argv, the command of the
	// others; Needs, what they need here: the reason they cannot run, "" when they can.
	Go    string
	Argv  []string
	Needs func() string
	// Options go to the client in open (a variant of the same program); Build, when set, builds the
	// client once per test binary before its first run (a failed build fails the test).
	Options map[string]any
	Build   []string
	// Records says that the client serves YCSB's records (capability ops: load_records and do).
	Records bool
}

// All lists the reference clients.
var All = []Client{
	{Name: "go/lmdb", Go: "lmdb", Records: true},
	{Name: "go/sqlite", Go: "sqlite", Records: true},
	{Name: "go/postgres", Go: "postgres", Postgres: true, Records: true},
	withRecords(node("lmdb", false)),
	withRecords(node("better-sqlite3", false)),
	withRecords(node("pg", true)),
	withRecords(python("lmdb", "lmdb", false)),
	withRecords(python("sqlite3", "sqlite3", false)),
	withRecords(python("psycopg2", "psycopg2", true)),
	// Haskell and Rust on LMDB: each variant that runs different code (docs/clients.md)
	haskell("unsafe", nil, "ffi", "unsafe"),
	haskell("threaded-safe-copy", []string{"--threaded"}, "ffi", "safe", "copy", true),
	haskell("c", nil, "ffi", "c"),
	rust("crate", "crate"),
	rust("c", "c"),
}

// GHC is Debian's compiler: the Haskell client needs it and its aeson package (libghc-aeson-dev).
const GHC = "/usr/bin/ghc"

func haskell(name string, args []string, opts ...any) Client {
	return Client{Name: "haskell/lmdb-" + name, Argv: append([]string{"clients/haskell/run"}, args...), Options: pairs(opts),
		Build: []string{"clients/haskell/build"}, Needs: func() string {
			if _, err := os.Stat(GHC); err != nil {
				return GHC + " is missing: apt-get install -y ghc libghc-aeson-dev liblmdb-dev (or .ci/setup)"
			}
			if out, err := exec.Command(GHC+"-pkg", "--global", "list", "--simple-output", "aeson").Output(); err != nil || !strings.Contains(string(out), "aeson") {
				return "GHC has no aeson package: apt-get install -y libghc-aeson-dev (or .ci/setup)"
			}
			return ""
		}}
}

// Cargo and Rustc are Debian's toolchain, which the Rust client pins (never a rustup one on the PATH).
const (
	Cargo = "/usr/bin/cargo"
	Rustc = "/usr/bin/rustc"
)

func rust(name, variant string) Client {
	return Client{Name: "rust/lmdb-" + name, Argv: []string{"clients/rust/run"}, Options: map[string]any{"variant": variant},
		Build: []string{"clients/rust/build"}, Needs: func() string {
			for _, f := range []string{Cargo, Rustc, "/usr/share/cargo/registry/lmdb-0.8.0"} {
				if _, err := os.Stat(f); err != nil {
					return f + " is missing: apt-get install -y rustc cargo librust-lmdb-dev (or .ci/setup)"
				}
			}
			return ""
		}}
}

func pairs(kv []any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// withRecords marks a client that serves YCSB's records (capability ops).
func withRecords(c Client) Client {
	c.Records = true
	return c
}

func node(lib string, pg bool) Client {
	return Client{Name: "node/" + lib, Postgres: pg, Argv: []string{"node", "clients/node/bin/dbbench-client.js", lib}, Needs: func() string {
		if _, err := exec.LookPath("node"); err != nil {
			return "no node on PATH"
		}
		root, err := Root()
		if err != nil {
			return err.Error()
		}
		if _, err := os.Stat(filepath.Join(root, "clients/node/node_modules")); err != nil {
			return "clients/node/node_modules is missing: run npm ci in clients/node (or .ci/setup)"
		}
		return ""
	}}
}

// Python is Debian's interpreter: only it sees Debian's python3-lmdb and python3-psycopg2.
const Python = "/usr/bin/python3"

func python(lib, module string, pg bool) Client {
	return Client{Name: "python/" + lib, Postgres: pg, Argv: []string{Python, "clients/python/dbbench-client.py", lib}, Needs: func() string {
		if _, err := os.Stat(Python); err != nil {
			return Python + " is missing"
		}
		if err := exec.Command(Python, "-c", "import "+module).Run(); err != nil {
			return "python module " + module + " is missing: apt-get install -y python3-" + module
		}
		return ""
	}}
}

// Command returns the client's argv, relative to Root: for the Go client, the binary built in
// goBin's directory (see BuildGo). A client that cannot run here skips the test with the reason,
// or fails it when RequireEnv is 1.
func (c Client) Command(t testing.TB, goBin string) []string {
	t.Helper()
	if c.Go != "" {
		return []string{goBin, c.Go}
	}
	if why := c.Needs(); why != "" {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%s=1 and the client %s cannot run: %s", RequireEnv, c.Name, why)
		}
		t.Skipf("skipped: %s", why)
	}
	if len(c.Build) > 0 {
		if err := build(c.Build); err != nil {
			t.Fatal(err)
		}
	}
	return c.Argv
}

var builds sync.Map // the Build command's first word → func() error (sync.OnceValue)

// build runs a client's build command once per test binary, from Root.
func build(argv []string) error {
	f, _ := builds.LoadOrStore(argv[0], sync.OnceValue(func() error {
		root, err := Root()
		if err != nil {
			return err
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}))
	return f.(func() error)()
}

// BuildGo builds the Go reference client into dir and returns its path (go run would rebuild it
// for every target).
func BuildGo(dir string) (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "dbbench-client")
	cmd := exec.Command("go", "build", "-o", bin, "./clients/go/cmd/dbbench-client")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &buildError{strings.TrimSpace(string(out))}
	}
	return bin, nil
}

type buildError struct{ out string }

func (e *buildError) Error() string { return "go build ./clients/go/cmd/dbbench-client: " + e.out }

// Root returns the module's root directory.
func Root() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}

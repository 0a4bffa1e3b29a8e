package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

var personFile = filepath.Join("..", "..", "..", "..", "dataset", "testdata", "persons-1000-seed1.bin")

// client is the built dbbench-client, shared by the tests.
var client string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dbbench-client-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	client = filepath.Join(dir, "dbbench-client")
	if out, err := exec.Command("go", "build", "-o", client, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := pgtest.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// session is a running client process.
type session struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.Closer
	in    *bufio.Writer
	out   *bufio.Scanner
	id    int
}

func start(t *testing.T, library string) *session {
	t.Helper()
	cmd := exec.Command(client, library)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, cmd: cmd, stdin: stdin, in: bufio.NewWriter(stdin), out: bufio.NewScanner(stdout)}
	s.out.Buffer(nil, 64<<20)
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	return s
}

// do sends one request (the id is added) and returns the reply, checking its id.
func (s *session) do(req map[string]any) map[string]any {
	s.t.Helper()
	s.id++
	req["id"] = s.id
	b, _ := json.Marshal(req)
	s.in.Write(append(b, '\n'))
	if err := s.in.Flush(); err != nil {
		s.t.Fatal(err)
	}
	if !s.out.Scan() {
		s.t.Fatalf("no reply to %s: %v", b, s.out.Err())
	}
	var reply map[string]any
	if err := json.Unmarshal(s.out.Bytes(), &reply); err != nil {
		s.t.Fatalf("reply %q: %v", s.out.Bytes(), err)
	}
	if reply["id"] != float64(s.id) {
		s.t.Fatalf("reply %s to request %d", s.out.Bytes(), s.id)
	}
	return reply
}

// ok is do for a request that must succeed.
func (s *session) ok(req map[string]any) map[string]any {
	s.t.Helper()
	r := s.do(req)
	if r["error"] != nil {
		s.t.Fatalf("%v: error %v", req, r["error"])
	}
	return r
}

// end closes stdin and waits for the client to exit by itself, with status 0.
func (s *session) end() {
	s.t.Helper()
	s.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			s.t.Errorf("client exit: %v", err)
		}
	case <-time.After(30 * time.Second):
		s.t.Errorf("the client did not exit at the end of its input")
	}
}

func checksum(sum uint64) string { return fmt.Sprintf("%016x", sum) }

// TestLibraries drives every library through a whole session on the 1,000-person file and checks
// every tally against the dataset's own checksums.
func TestLibraries(t *testing.T) {
	ds, err := dataset.ReadFile(personFile)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		library string
		options []string // offered in hello
		pg      bool
	}{
		{"lmdb", []string{"path", "map_size", "durable", "max_readers", "txn_size", "keep", "raw_read", "batch", "leak_c_bytes_per_txn"}, false},
		{"sqlite", []string{"storage", "path"}, false},
		{"postgres", []string{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.library, func(t *testing.T) {
			tmp := t.TempDir()
			open := map[string]any{"op": "open", "options": map[string]any{}, "size": 1000, "seed": 1,
				"temp_dir": tmp, "dataset": personFile}
			var schema string
			var conn *pgx.Conn
			if tt.pg {
				dsn := pgtest.NewDatabase(t)
				if conn, err = pgx.Connect(context.Background(), dsn); err != nil {
					t.Fatal(err)
				}
				defer conn.Close(context.Background())
				schema = "dbbench_client_test"
				if _, err := conn.Exec(context.Background(), "CREATE SCHEMA "+schema); err != nil {
					t.Fatal(err)
				}
				open["postgres"] = map[string]any{"dsn": dsn, "schema": schema}
			}
			s := start(t, tt.library)
			hello := s.ok(map[string]any{"op": "hello", "protocol": 1, "dbbench": "test"})
			if got := fmt.Sprint(hello["options"]); got != fmt.Sprint(tt.options) {
				t.Errorf("hello options %s, want %v", got, tt.options)
			}
			if hello["protocol"] != 1.0 || hello["language"] != "Go" || hello["library_version"] == "unknown" {
				t.Errorf("hello %v", hello)
			}
			if r := s.ok(open); strings.Contains(fmt.Sprint(r), "127.0.0.1") {
				t.Errorf("open info repeats the DSN: %v", r["info"])
			}
			if r := s.ok(map[string]any{"op": "load"}); r["rows"] != 1000.0 {
				t.Errorf("load: %v", r)
			}
			s.ok(map[string]any{"op": "ping"})
			for _, c := range []struct {
				req      map[string]any
				rows     float64
				checksum string
			}{
				{map[string]any{"op": "scan", "rows": 1000}, 1000, "9a8d33d6f43e47cd"},
				{map[string]any{"op": "scan", "rows": 10}, 10, "2f9e6b50f7811139"},
				{map[string]any{"op": "lookup", "keys": []int{0, 17, 5}}, 3, checksum(ds.Sum(0) + ds.Sum(17) + ds.Sum(5))},
				{map[string]any{"op": "insert", "rows": 10}, 10, "e27dc92647c5e680"},
				{map[string]any{"op": "insert", "rows": 1000}, 1000, "9a8d33d6f43e47cd"},
			} {
				r := s.ok(c.req)
				if r["rows"] != c.rows || r["checksum"] != c.checksum {
					t.Errorf("%v: %v, want %v rows and checksum %s", c.req, r, c.rows, c.checksum)
				}
				if lat, ok := r["latencies_ns"].([]any); ok && (len(lat) != 3 || slices.Contains(lat, any(0.0))) {
					t.Errorf("%v: latencies %v", c.req, lat)
				} else if !ok && !(r["elapsed_ns"].(float64) > 0) {
					t.Errorf("%v: elapsed %v", c.req, r["elapsed_ns"])
				}
			}
			r := s.ok(map[string]any{"op": "concurrent", "readers": 2, "rows": 1000})
			readers, _ := r["readers"].([]any)
			if len(readers) != 2 || !(r["wall_ns"].(float64) > 0) {
				t.Fatalf("concurrent: %v", r)
			}
			for _, rd := range readers {
				if m := rd.(map[string]any); m["rows"] != 1000.0 || m["checksum"] != "9a8d33d6f43e47cd" || !(m["elapsed_ns"].(float64) > 0) {
					t.Errorf("concurrent reader: %v", m)
				}
			}
			if r := s.do(map[string]any{"op": "open", "options": map[string]any{}}); r["error"] == nil {
				t.Errorf("a second open succeeded: %v", r)
			}
			s.ok(map[string]any{"op": "close"})
			s.end()
			if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
				t.Errorf("temp_dir holds %d entries after close", len(entries))
			}
			if tt.pg {
				var n int
				if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_tables WHERE schemaname = $1", schema).Scan(&n); err != nil || n != 0 {
					t.Errorf("the schema holds %d tables after close (%v)", n, err)
				}
			}
		})
	}
}

// TestBadInput: a bad request gets an error reply and the client stays usable; a bad command line
// exits 2; the end of input with a store open still cleans up.
func TestBadInput(t *testing.T) {
	tmp := t.TempDir()
	open := func(options map[string]any) map[string]any {
		return map[string]any{"op": "open", "options": options, "temp_dir": tmp, "dataset": personFile}
	}
	tests := []struct {
		library string
		req     map[string]any
		want    string
	}{
		{"sqlite", open(map[string]any{"driver": "postgres"}), `unknown option "driver" (modernc.org/sqlite takes: storage, path)`},
		{"sqlite", open(map[string]any{"nope": 1}), `unknown option "nope"`},
		{"lmdb", open(map[string]any{"map_size": "lots"}), `option "map_size"`},
		{"postgres", open(map[string]any{}), "no postgres server given"},
		{"postgres", open(map[string]any{"dsn": "postgres://x"}), `unknown option "dsn" (github.com/jackc/pgx/v5 takes: none)`},
		{"lmdb", map[string]any{"op": "open", "options": map[string]any{}, "temp_dir": tmp, "dataset": "/nonexistent"}, "no such file"},
		{"lmdb", map[string]any{"op": "open", "options": map[string]any{}, "size": 999, "temp_dir": tmp, "dataset": personFile}, "size 999, but the person file holds 1000 persons"},
		{"lmdb", map[string]any{"op": "scan", "rows": 1}, "no store is open"},
	}
	for _, tt := range tests {
		s := start(t, tt.library)
		if r := s.do(tt.req); !strings.Contains(fmt.Sprint(r["error"]), tt.want) {
			t.Errorf("%s %v: %v, want an error containing %q", tt.library, tt.req, r, tt.want)
		}
		s.ok(map[string]any{"op": "ping"})
		s.end()
	}

	s := start(t, "lmdb")
	s.ok(open(map[string]any{}))
	s.ok(map[string]any{"op": "load"})
	s.end() // without close
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("temp_dir holds %d entries after the end of input", len(entries))
	}

	for _, args := range [][]string{{}, {"mysql"}, {"lmdb", "extra"}} {
		out, err := exec.Command(client, args...).CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "usage: dbbench-client LIBRARY") {
			t.Errorf("dbbench-client %v: %v, %q; want exit 2 and the usage line", args, err, out)
		}
	}
}

package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/exec/exectest"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

func TestMain(m *testing.M) {
	exectest.Main()
	os.Exit(pgtest.Main(m))
}

const testSize = 1000

// fakeLog collects a fake client's stderr lines.
type fakeLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *fakeLog) logf(f string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(f, a...))
}

// pgid returns the process group the fake announced on stderr (waiting a little for the line).
func (l *fakeLog) pgid(t *testing.T) int {
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		l.mu.Lock()
		for _, s := range l.lines {
			if n, ok := strings.CutPrefix(s, exectest.PGIDLine); ok {
				l.mu.Unlock()
				id, _ := strconv.Atoi(n)
				return id
			}
		}
		l.mu.Unlock()
	}
	t.Fatal("the fake never said its process group")
	return 0
}

// open opens an exec target on a fake client with the given behaviour and extra options.
func open(t *testing.T, ds *dataset.Persons, behaviour, at string, extra map[string]any) (adapters.Target, *Client, error) {
	tg, c, _, err := openLogged(t, ds, behaviour, at, extra)
	return tg, c, err
}

func openLogged(t *testing.T, ds *dataset.Persons, behaviour, at string, extra map[string]any) (adapters.Target, *Client, *fakeLog, error) {
	t.Helper()
	raw := map[string]any{"command": toAny(exectest.Command()), "env": exectest.Env(behaviour, at), "timeout": "3s", "startup_timeout": "3s"}
	for k, v := range extra {
		if k != "pg" && k != "workloads" && k != "profile" {
			raw[k] = v
		}
	}
	opts, err := adapters.ParseOptions(New().Info().Options, raw)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := &fakeLog{}
	workloads := []string{"scan", "lookup", "insert", "concurrent"}
	if w, ok := extra["workloads"].([]string); ok {
		workloads = w
	}
	env := adapters.Env{
		TempDir: dir, Size: ds.Len(), Seed: 1, Workloads: workloads,
		Logf:        log.logf,
		DatasetFile: func() (string, error) { p := filepath.Join(dir, "persons.bin"); return p, ds.WriteFile(p) },
	}
	env.Profile, _ = extra["profile"].(bool)
	if dsn, ok := extra["pg"].(string); ok {
		env.PostgreSQL = func(context.Context) (string, error) { return dsn, nil }
	}
	tg, err := New().Open(context.Background(), opts, env)
	if err != nil {
		return nil, nil, log, err
	}
	return tg, tg.(*target).c, log, nil
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// exercise runs every workload once, stopping at the first error.
func exercise(tg adapters.Target, ds *dataset.Persons) error {
	ctx := context.Background()
	if err := tg.Load(ctx, ds); err != nil {
		return err
	}
	if _, _, err := tg.(adapters.TimedScanner).TimedScan(ctx, 10); err != nil {
		return err
	}
	keys := ds.Sample(20, 1)
	if _, err := tg.(adapters.TimedPointReader).TimedLookups(ctx, ds, keys, make([]time.Duration, len(keys))); err != nil {
		return err
	}
	if _, _, err := tg.(adapters.TimedInserter).TimedInsert(ctx, ds, 10); err != nil {
		return err
	}
	if _, _, err := tg.(adapters.TimedConcurrentScanner).TimedScanConcurrently(ctx, 2, 10, make([]time.Duration, 2)); err != nil {
		return err
	}
	_, err := tg.(adapters.TimedCustomRunner).TimedRun(ctx, "echo", nil, make([]time.Duration, 5))
	return err
}

func TestCorrectClient(t *testing.T) {
	ds, _ := dataset.Generate(testSize, 1)
	tg, c, err := open(t, ds, exectest.OK, "", map[string]any{"client": map[string]any{"flavour": "x", "password": "hunter2"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := exercise(tg, ds); err != nil {
		t.Fatal(err)
	}
	if !tg.(adapters.OrderedScanner).ScansInKeyOrder() {
		t.Error("scans_in_key_order lost")
	}
	info := tg.Info()
	proto := info["protocol"].(map[string]any)
	if proto["ping_p50_ns"].(int64) <= 0 || len(c.RoundTrips["ping"]) != pings {
		t.Errorf("protocol facts: %v (%d pings)", proto, len(c.RoundTrips["ping"]))
	}
	for _, op := range []string{"scan", "lookup", "insert", "concurrent", "run"} {
		if _, ok := proto["round_trip_minus_reported_p50_ns"].(map[string]any)[op]; !ok {
			t.Errorf("no protocol cost for %s: %v", op, proto)
		}
	}
	if info["library"] != "dataset" || info["language"] != "Go" {
		t.Errorf("handshake facts: %v", info)
	}
	if !GroupAlive(c.PGID()) {
		t.Error("GroupAlive does not see the running client and its child")
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if GroupAlive(c.PGID()) {
		t.Error("process group alive after Close")
	}
}

// TestRequestsOnTheWire records what dbbench sends a client (through tee) in a whole session: every
// request in the order and form of docs/protocol.md, the form the Go client's transcripts replay.
func TestRequestsOnTheWire(t *testing.T) {
	ds, _ := dataset.Generate(testSize, 1)
	file := filepath.Join(t.TempDir(), "requests")
	command := append([]string{"sh", "-c", `tee "$0" | "$@"`, file}, exectest.Command()...)
	tg, _, err := open(t, ds, exectest.OK, "", map[string]any{"command": toAny(command)})
	if err != nil {
		t.Fatal(err)
	}
	err = exercise(tg, ds)
	if cerr := tg.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	dir := regexp.MustCompile(`"temp_dir":"([^"]*)"`).FindStringSubmatch(string(b))
	if len(dir) < 2 || len(got) < 3+pingWarmup+pings {
		t.Fatalf("%d requests:\n%s", len(got), b)
	}
	keys, _ := json.Marshal(ds.Sample(20, 1))
	want := []string{
		fmt.Sprintf(`{"id":1,"op":"hello","protocol":2,"dbbench":%q}`, DBBenchVersion()),
		fmt.Sprintf(`{"id":2,"op":"open","options":{},"size":1000,"seed":1,"temp_dir":%q,"dataset":%q}`, dir[1], filepath.Join(dir[1], "persons.bin")),
		`{"id":3,"op":"load"}`,
	}
	for i := range pingWarmup + pings + coldPings {
		want = append(want, fmt.Sprintf(`{"id":%d,"op":"ping"}`, 4+i))
	}
	id := 4 + pingWarmup + pings + coldPings
	// The fake's store is kind other: after the pings, the challenge (persons drawn at run time).
	person := `\{"email":"challenge\.[0-9a-f]{16}@challenge\.invalid","name":"Challenge [0-9a-f]{8}","age":[0-9]+\}`
	email := `"challenge\.[0-9a-f]{16}@challenge\.invalid"`
	for _, r := range []string{
		`"op":"challenge","persons":\[` + person + `(,` + person + `){15}\]\}`,
		`"op":"lookup","emails":\[` + email + `(,` + email + `){15}\]\}`,
		`"op":"scan","rows":1016\}`,
		`"op":"challenge","remove":true\}`,
		`"op":"scan","rows":1016\}`,
	} {
		want = append(want, fmt.Sprintf(`^\{"id":%d,%s$`, id, r))
		id++
	}
	for i, r := range []string{
		`"op":"scan","rows":10}`,
		`"op":"lookup","keys":` + string(keys) + `}`,
		`"op":"insert","rows":10}`,
		`"op":"concurrent","readers":2,"rows":10}`,
		`"op":"run","workload":"echo","params":{},"ops":5}`,
		`"op":"close"}`,
	} {
		want = append(want, fmt.Sprintf(`{"id":%d,%s`, id+i, r))
	}
	// After the calibration, a reply that looks short under load is judged again with recheckPings
	// pings sent right after it (verify.go): those come in threes, and every later id moves by 3.
	got = withoutRechecks(got, 4+pingWarmup+pings+coldPings)
	if len(got) != len(want) {
		t.Fatalf("%d requests, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] && !(strings.HasPrefix(want[i], "^") && regexp.MustCompile(want[i]).MatchString(got[i])) {
			t.Errorf("request %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}

// withoutRechecks drops the recheck pings sent after request calibrated (the last calibration
// ping's id) and numbers the requests after them as if they had not been sent.
func withoutRechecks(got []string, calibrated int) []string {
	idRe := regexp.MustCompile(`^\{"id":([0-9]+),`)
	var out []string
	skipped := 0
	for _, l := range got {
		m := idRe.FindStringSubmatch(l)
		if m == nil {
			out = append(out, l)
			continue
		}
		id, _ := strconv.Atoi(m[1])
		if id > calibrated && strings.HasSuffix(l, `"op":"ping"}`) {
			skipped++
			continue
		}
		out = append(out, fmt.Sprintf(`{"id":%d,`, id-skipped)+l[len(m[0]):])
	}
	return out
}

// TestBrokenClients: each broken client fails in one line naming the client, with the documented
// exit code, and leaves no process of its group behind.
func TestBrokenClients(t *testing.T) {
	ds, _ := dataset.Generate(testSize, 1)
	tests := []struct {
		behaviour, at string
		code          int
		want          string
	}{
		{exectest.ExitStart, "", exitcode.Infra, "exited before replying to hello (exit status 1)"},
		{exectest.ExitMid, "", exitcode.Infra, "exited before replying to scan (exit status 3)"},
		{exectest.ExitMid, "lookup", exitcode.Infra, "exited before replying to lookup"},
		{exectest.ExitAfter, "load", exitcode.Infra, "ping (exit status 0)"},
		{exectest.NonJSON, "", exitcode.Infra, `printed "loading the store..." on stdout, which is not a protocol reply`},
		// hello, open, load and the pings come first
		{exectest.WrongID, "", exitcode.Infra, fmt.Sprintf("replied with id %d to request %d (scan)", 4+pingWarmup+pings+coldPings+6, 4+pingWarmup+pings+coldPings+5)}, // after the challenge's 5
		{exectest.Missing, "", exitcode.Infra, "scan reply lacks checksum"},
		{exectest.Missing, "hello", exitcode.Infra, "hello reply lacks library"},
		{exectest.Missing, "open", exitcode.Infra, "open reply lacks scans_in_key_order"},
		{exectest.Missing, "concurrent", exitcode.Infra, "concurrent reply lacks readers[1].checksum"},
		{exectest.Version, "hello", exitcode.Infra, "speaks protocol version 3; dbbench asked for 2 (it speaks 1 to 2)"},
		{exectest.Hang, "", exitcode.Infra, "no reply to scan within 3s (timeout)"},
		{exectest.Hang, "hello", exitcode.Infra, "no reply to hello within 3s (timeout)"},
		{exectest.Huge, "", exitcode.Infra, "scan reply: a reply line longer than 64 MiB"},
		{exectest.Slow, "", exitcode.Infra, "scan reply: elapsed_ns 10s is longer than the"},
		{exectest.Slow, "lookup", exitcode.Infra, "lookup reply: sum of latencies_ns 10.0"}, // plus the real latencies: up to 100 ms of them under load
		{exectest.Slow, "concurrent", exitcode.Infra, "concurrent reply: wall_ns 10s is longer"},
		{exectest.Negative, "", exitcode.Infra, "scan reply: negative elapsed_ns -1"},
		{exectest.WrongCount, "lookup", exitcode.Infra, "lookup reply: 19 latencies for 20 operations"},
		{exectest.WrongCount, "concurrent", exitcode.Infra, "concurrent reply: 1 readers for 2"},
		{exectest.ErrorReply, "", exitcode.Infra, "scan failed: the fake fails scan"},
		{exectest.ErrorReply, "open", exitcode.Infra, "open failed: the fake fails open"},
		{exectest.IgnoreEOF, "", exitcode.Infra, "did not exit within 5s of the end of its input"},
	}
	for _, tt := range tests {
		t.Run(tt.behaviour+"@"+tt.at, func(t *testing.T) {
			t.Parallel()
			var extra map[string]any
			if tt.behaviour == exectest.Huge {
				extra = map[string]any{"timeout": "1m"} // 65 MiB take a while on a loaded machine
			}
			tg, c, log, err := openLogged(t, ds, tt.behaviour, tt.at, extra)
			if err == nil {
				err = exercise(tg, ds)
				if cerr := tg.Close(); err == nil {
					err = cerr
				}
			}
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) || !strings.HasPrefix(msg, "client ") || strings.Contains(msg, "\n") {
				t.Errorf("error %q, want one line with %q", msg, tt.want)
			}
			if got := exitcode.Of(err); got != tt.code {
				t.Errorf("exit code %d, want %d", got, tt.code)
			}
			if c != nil {
				tg.Close()
			}
			if GroupAlive(log.pgid(t)) {
				t.Error("process group alive after Close")
			}
		})
	}
}

func TestStartAndConfigErrors(t *testing.T) {
	ds, _ := dataset.Generate(testSize, 1)
	notExec := filepath.Join(t.TempDir(), "client.sh")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	tests := []struct {
		name  string
		extra map[string]any
		want  string
	}{
		{"not found", map[string]any{"command": []any{"no-such-dbbench-client"}}, "cannot start no-such-dbbench-client: executable file not found in $PATH"},
		{"not executable", map[string]any{"command": []any{notExec}}, "permission denied"},
		{"no command", map[string]any{"command": []any{}}, "option command is required"},
		{"undeclared option", map[string]any{"client": map[string]any{"colour": "red"}}, "client fake does not support option colour (it lists workloads: scan, lookup, insert, concurrent, echo; options: flavour, password)"},
		{"undeclared workload", map[string]any{"workloads": []string{"scan", "range_read", "delete"}}, "client fake does not support workload delete, workload range_read (it lists workloads"},
		{"both servers", map[string]any{"postgres": true, "dsn": "postgres://x@localhost/db"}, "give postgres: true or a dsn, not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c, err := open(t, ds, exectest.OK, "", tt.extra)
			if err == nil || !strings.Contains(err.Error(), tt.want) || exitcode.Of(err) != exitcode.Usage {
				t.Fatalf("got %v (exit %d), want %q (exit 2)", err, exitcode.Of(err), tt.want)
			}
			if c != nil {
				t.Error("a client was returned")
			}
		})
	}
}

// TestCancel: Ctrl-C during a request ends the client's process group at once.
func TestCancel(t *testing.T) {
	ds, _ := dataset.Generate(testSize, 1)
	tg, c, err := open(t, ds, exectest.Hang, "run", map[string]any{"timeout": "1m"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if err := tg.Load(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = tg.(adapters.TimedCustomRunner).TimedRun(ctx, "echo", nil, make([]time.Duration, 3))
	if err != context.DeadlineExceeded || time.Since(start) > 5*time.Second {
		t.Fatalf("got %v after %s", err, time.Since(start))
	}
	if GroupAlive(c.PGID()) {
		t.Error("process group alive after cancellation")
	}
	if err := tg.Close(); err != nil {
		t.Errorf("close after cancellation: %v", err) // nothing left to fail: the group is gone
	}
}

// TestStderrIsForwarded: the client's stderr lines reach the progress log, one by one.
func TestStderrIsForwarded(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	c, err := Start(Config{
		Command: []string{"sh", "-c", `echo one >&2; printf 'two\nthree\n' >&2; read x`},
		Timeout: time.Second, StartupTimeout: time.Second,
		Logf: func(f string, a ...any) { mu.Lock(); lines = append(lines, fmt.Sprintf(f, a...)); mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !c.EndInput() {
		t.Error("sh did not exit at the end of its input")
	}
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(lines)
		mu.Unlock()
		if n == 3 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(lines, ",") != "one,two,three" {
		t.Errorf("forwarded %q", lines)
	}
}

// TestPostgresSchema: a target with a server gets a schema of its own, dropped at Close; nothing else
// on the server is touched.
func TestPostgresSchema(t *testing.T) {
	ds, _ := dataset.Generate(testSize, 1)
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	conn := pgtest.Connect(t, dsn)
	pgtest.Exec(t, conn, "CREATE TABLE mine (x int)")
	schemas := func() []string {
		return pgtest.Strings(t, conn, "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'dbbench_exec_%'")
	}
	for _, extra := range []map[string]any{{"dsn": dsn}, {"postgres": true, "pg": dsn}} {
		tg, _, err := open(t, ds, exectest.OK, "", extra)
		if err != nil {
			t.Fatal(err)
		}
		s := schemas()
		if len(s) != 1 || tg.Info()["postgres_schema"] != s[0] {
			t.Errorf("schemas %v, info %v", s, tg.Info()["postgres_schema"])
		}
		if err := tg.Close(); err != nil {
			t.Fatal(err)
		}
		if s := schemas(); len(s) != 0 {
			t.Errorf("schemas left: %v", s)
		}
	}
	if _, err := conn.Exec(ctx, "SELECT * FROM mine"); err != nil {
		t.Errorf("the user's table: %v", err)
	}
}

// TestUnavailableAtStart: a client that cannot start here (no such program, or it dies before its
// handshake: a missing runtime or module) lets an optional target be skipped; other failures do not.
func TestUnavailableAtStart(t *testing.T) {
	ds, _ := dataset.Generate(testSize, 1)
	tests := []struct {
		behaviour, at string
		extra         map[string]any
		unavailable   bool
	}{
		{exectest.OK, "", map[string]any{"command": []any{"no-such-dbbench-client"}}, true},
		{exectest.ExitStart, "", nil, true},
		{exectest.ErrorReply, "hello", nil, true},
		{exectest.Version, "hello", nil, false},
		{exectest.Hang, "hello", map[string]any{"startup_timeout": "1s"}, false},
		{exectest.ErrorReply, "open", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.behaviour+"@"+tt.at, func(t *testing.T) {
			_, _, err := open(t, ds, tt.behaviour, tt.at, tt.extra)
			if err == nil || errors.Is(err, adapters.ErrUnavailable) != tt.unavailable {
				t.Errorf("got %v, want unavailable %v", err, tt.unavailable)
			}
			if strings.Contains(err.Error(), "unavailable on this machine") {
				t.Errorf("message changed: %v", err)
			}
		})
	}
}

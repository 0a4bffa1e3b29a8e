package typedb_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/adapters/typedb"
	"github.com/dbbench/dbbench/adapters/typedb/client"
	"github.com/dbbench/dbbench/adapters/typedb/typedbtest"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

func open(t *testing.T, raw map[string]any) (adapters.Target, error) {
	t.Helper()
	opts, err := adapters.ParseOptions(typedb.New().Info().Options, raw)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return typedb.New().Open(ctx, opts, adapters.Env{Logf: t.Logf, Seed: 1})
}

func mustOpen(t *testing.T, raw map[string]any) adapters.Target {
	t.Helper()
	tg, err := open(t, raw)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Close() })
	return tg
}

// TestConforms runs the conformance kit against the fake server, with both lookup modes and both
// concurrency strategies; the server's databases are what a target must remove.
func TestConforms(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts map[string]any
	}{
		{"defaults", nil},
		{"explicit transactions", map[string]any{"lookup_mode": "transaction", "concurrent_mode": "oneshot"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := typedbtest.NewServer(typedbtest.Config{})
			defer srv.Close()
			raw := map[string]any{"address": srv.URL}
			for k, v := range tc.opts {
				raw[k] = v
			}
			adaptertest.Run(t, adaptertest.Target{
				Open:      adaptertest.Opener(typedb.New(), raw),
				Remains:   func(testing.TB) []string { return srv.Databases() },
				Workloads: typedb.New().Info().Builtin,
			})
		})
	}
}

// TestInfoAndTransactions: the report's facts, a database of the name given, and no transaction
// left open once a target is closed.
func TestInfoAndTransactions(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{})
	defer srv.Close()
	ds, _ := dataset.Generate(100, 3)
	tg := mustOpen(t, map[string]any{"address": srv.URL, "database": "bench-x"})
	if got := srv.Databases(); len(got) != 1 || got[0] != "bench-x" {
		t.Errorf("databases while open: %v, want [bench-x]", got)
	}
	if err := tg.Load(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.(adapters.Scanner).Scan(context.Background(), 100); err != nil {
		t.Fatal(err)
	}
	info := tg.Info()
	if info["server_version"] != "3.14.0" || info["protocol"] != "http /v1" || info["lookup_mode"] == "" {
		t.Errorf("info: %v", info)
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if got := srv.Databases(); len(got) != 0 || srv.OpenTransactions() != 0 {
		t.Errorf("after close: databases %v, %d open transactions", got, srv.OpenTransactions())
	}
}

// The lookup modes must really differ on the wire: one request, or open/query/close.
func TestLookupModes(t *testing.T) {
	ds, _ := dataset.Generate(20, 1)
	for mode, want := range map[string][3]int{"oneshot": {1, 0, 0}, "transaction": {0, 1, 1}} {
		srv := typedbtest.NewServer(typedbtest.Config{})
		tg := mustOpen(t, map[string]any{"address": srv.URL, "lookup_mode": mode})
		if err := tg.Load(context.Background(), ds); err != nil {
			t.Fatal(err)
		}
		before := [3]int{srv.Requests("oneshot"), srv.Requests("open"), srv.Requests("close")}
		if _, err := tg.(adapters.PointReader).Lookup(context.Background(), ds.Email(3)); err != nil {
			t.Fatal(err)
		}
		got := [3]int{srv.Requests("oneshot") - before[0], srv.Requests("open") - before[1], srv.Requests("close") - before[2]}
		if got != want {
			t.Errorf("%s: one-shot/open/close requests %v, want %v", mode, got, want)
		}
		_ = tg.Close()
		srv.Close()
	}
}

func TestReSignInMidRun(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{})
	defer srv.Close()
	ds, _ := dataset.Generate(200, 1)
	tg := mustOpen(t, map[string]any{"address": srv.URL})
	if err := tg.Load(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	srv.ExpireTokens()
	tl, err := tg.(adapters.Scanner).Scan(context.Background(), 200)
	if err != nil || tl.Sum != ds.SumFirst(200) {
		t.Fatalf("scan after token expiry: %+v, %v", tl, err)
	}
	if srv.SignIns() != 2 {
		t.Fatalf("%d sign-ins, want 2", srv.SignIns())
	}
}

func TestQueryErrorsSurfaceTypeDBCodes(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{})
	defer srv.Close()
	ds, _ := dataset.Generate(50, 1)
	ctx := context.Background()

	// A duplicate key inside the insert transaction.
	tg := mustOpen(t, map[string]any{"address": srv.URL})
	if err := tg.Load(ctx, ds); err != nil {
		t.Fatal(err)
	}
	s, err := tg.(adapters.Inserter).NewInsertSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := ds.Person(0)
	if err := s.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(ctx, &p); err != nil {
		t.Fatal(err)
	}
	err = s.Insert(ctx, &p)
	if !client.HasCode(err, "CNT9") || exitcode.Of(err) != exitcode.Infra || !strings.Contains(err.Error(), "[CNT9]") {
		t.Fatalf("duplicate insert: %v (exit %d), want CNT9 and exit 3", err, exitcode.Of(err))
	}

	// A schema that conflicts with the person schema, in a database the user lets dbbench reuse.
	c, _ := client.New(client.Config{Address: srv.URL, Username: "admin", Password: "password"})
	if err := c.CreateDatabase(ctx, "mine"); err != nil {
		t.Fatal(err)
	}
	if err := c.Define(ctx, "mine", "define attribute age, value string;"); err != nil {
		t.Fatal(err)
	}
	tg2 := mustOpen(t, map[string]any{"address": srv.URL, "database": "mine", "reuse_database": true})
	err = tg2.Load(ctx, ds)
	var e *client.Error
	if !errors.As(err, &e) || e.Code == "" || exitcode.Of(err) != exitcode.Infra || strings.Contains(err.Error(), "\n") {
		t.Fatalf("conflicting schema: %v, want a TypeDB code on one line, exit 3", err)
	}
	_ = tg2.Close()
	if !contains(srv.Databases(), "mine") {
		t.Fatal("the user's database was dropped")
	}
}

func TestTruncatedAnswerFails(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{})
	defer srv.Close()
	ds, _ := dataset.Generate(300, 1)
	tg := mustOpen(t, map[string]any{"address": srv.URL, "answer_limit": 100})
	if err := tg.Load(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	_, err := tg.(adapters.Scanner).Scan(context.Background(), 300)
	if err == nil || exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "answer cut by the limit") || !strings.Contains(err.Error(), "206") {
		t.Fatalf("scan over the limit: %v (exit %d)", err, exitcode.Of(err))
	}
	lat := make([]time.Duration, 2)
	if _, _, err := tg.(adapters.ConcurrentScanner).ScanConcurrently(context.Background(), 2, 200, lat); err == nil {
		t.Fatal("concurrent readers over the limit succeeded")
	}
	if tl, err := tg.(adapters.Scanner).Scan(context.Background(), 100); err != nil || tl.Rows != 100 {
		t.Fatalf("a scan at the limit must pass: %+v, %v", tl, err)
	}
}

func TestServerDiesMidScan(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{})
	defer srv.Close()
	ds, _ := dataset.Generate(3000, 1)
	tg, err := open(t, map[string]any{"address": srv.URL, "request_timeout": "20s"})
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Load(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	srv.DieMidAnswer(200 << 10)
	done := make(chan error, 1)
	go func() {
		_, err := tg.(adapters.Scanner).Scan(context.Background(), 3000)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || exitcode.Of(err) != exitcode.Infra || !strings.Contains(err.Error(), "mid-answer") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("scan when the server dies: %v (exit %d)", err, exitcode.Of(err))
		}
	case <-time.After(time.Minute):
		t.Fatal("the scan hung after the server died")
	}
	closed := make(chan error, 1)
	go func() { closed <- tg.Close() }()
	select {
	case err := <-closed:
		if err == nil {
			t.Error("close could not drop the database of a dead server, yet reported no error")
		}
	case <-time.After(time.Minute):
		t.Fatal("close hung on a dead server")
	}
}

func TestBadInput(t *testing.T) {
	plain := typedbtest.NewServer(typedbtest.Config{})
	defer plain.Close()
	tlsSrv := typedbtest.NewServer(typedbtest.Config{TLS: true})
	defer tlsSrv.Close()
	noAPI := typedbtest.NewServer(typedbtest.Config{NoHTTPAPI: true})
	defer noAPI.Close()
	old := typedbtest.NewServer(typedbtest.Config{Version: "3.1.0"})
	defer old.Close()
	c, _ := client.New(client.Config{Address: plain.URL, Username: "admin", Password: "password"})
	if err := c.CreateDatabase(context.Background(), "taken"); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name string
		opts map[string]any
		code int
		want string
	}{
		{"unreachable address", map[string]any{"address": "127.0.0.1:1"}, exitcode.Infra, "cannot reach"},
		{"wrong credentials", map[string]any{"address": plain.URL, "password": "nope"}, exitcode.Usage, "rejected the credentials"},
		{"TLS required but not configured", map[string]any{"address": strings.Replace(tlsSrv.URL, "https", "http", 1)}, exitcode.Usage, "requires TLS"},
		{"TLS with an untrusted certificate", map[string]any{"address": tlsSrv.URL}, exitcode.Usage, "tls_ca"},
		{"existing database", map[string]any{"address": plain.URL, "database": "taken"}, exitcode.Usage, "already exists"},
		{"bad database name", map[string]any{"address": plain.URL, "database": "no/slash"}, exitcode.Usage, "database name"},
		{"server without the HTTP API", map[string]any{"address": noAPI.URL}, exitcode.Infra, "3.2 or later"},
		{"server older than 3.2", map[string]any{"address": old.URL}, exitcode.Infra, "3.2 or later"},
		{"bad address", map[string]any{"address": "ftp://x"}, exitcode.Usage, "scheme"},
	}
	for _, tc := range cases {
		tg, err := open(t, tc.opts)
		if err == nil {
			_ = tg.Close()
			t.Errorf("%s: opened", tc.name)
			continue
		}
		t.Logf("%s: exit %d: %v", tc.name, exitcode.Of(err), err)
		if exitcode.Of(err) != tc.code || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %q (exit %d), want one line with %q and exit %d", tc.name, err, exitcode.Of(err), tc.want, tc.code)
		}
		if strings.Contains(err.Error(), "password") && tc.name == "wrong credentials" && strings.Contains(err.Error(), "nope") {
			t.Errorf("%s: the error shows the password", tc.name)
		}
	}
	if !contains(plain.Databases(), "taken") {
		t.Fatal("an existing database was dropped")
	}
}

func TestReusedDatabase(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{})
	defer srv.Close()
	ds, _ := dataset.Generate(120, 1)
	other, _ := dataset.Generate(120, 2)
	ctx := context.Background()
	c, _ := client.New(client.Config{Address: srv.URL, Username: "admin", Password: "password"})
	if err := c.CreateDatabase(ctx, "keep"); err != nil {
		t.Fatal(err)
	}
	reuse := map[string]any{"address": srv.URL, "database": "keep", "reuse_database": true}
	for round := range 2 { // an empty database is loaded; the second time the data is already there
		tg := mustOpen(t, reuse)
		if err := tg.Load(ctx, ds); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if tl, err := tg.(adapters.Scanner).Scan(ctx, 120); err != nil || tl.Sum != ds.SumFirst(120) {
			t.Fatalf("round %d: scan %+v, %v", round, tl, err)
		}
		if err := tg.Close(); err != nil {
			t.Fatal(err)
		}
		if got := len(srv.Persons("keep")); got != 120 {
			t.Fatalf("round %d: the reused database holds %d persons, want 120", round, got)
		}
	}
	tg := mustOpen(t, reuse)
	err := tg.Load(ctx, other)
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "not this dataset") {
		t.Fatalf("reusing a database holding other data: %v", err)
	}
	_ = tg.Close()
	if !contains(srv.Databases(), "keep") {
		t.Fatal("a database the user created was dropped")
	}
}

func TestNoDockerNoAddress(t *testing.T) {
	t.Setenv("TYPEDB_ADDRESS", "")
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	start := time.Now()
	_, err := open(t, nil)
	if !errors.Is(err, adapters.ErrUnavailable) || !strings.Contains(err.Error(), "no TypeDB server: set TYPEDB_ADDRESS or install Docker") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v, want ErrUnavailable naming TYPEDB_ADDRESS and Docker", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("detecting that Docker is missing took %v", time.Since(start))
	}
}

func TestInfoHoldsNoSecrets(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{Users: map[string]string{"bench": "s3cret-pw"}})
	defer srv.Close()
	tg := mustOpen(t, map[string]any{"address": srv.URL, "username": "bench", "password": "s3cret-pw"})
	b, _ := json.Marshal(tg.Info())
	if strings.Contains(string(b), "s3cret-pw") {
		t.Fatalf("info shows the password: %s", b)
	}
	opts, _ := adapters.ParseOptions(typedb.New().Info().Options, map[string]any{"password": "s3cret-pw"})
	if b, _ := json.Marshal(opts.Redacted()); strings.Contains(string(b), "s3cret-pw") {
		t.Fatalf("redacted options show the password: %s", b)
	}
}

// TestRealServer runs the conformance kit against the server at TYPEDB_ADDRESS.
func TestRealServer(t *testing.T) {
	if os.Getenv("TYPEDB_ADDRESS") == "" {
		t.Skip("TYPEDB_ADDRESS is not set")
	}
	adaptertest.Run(t, adaptertest.Target{
		Open: adaptertest.Opener(typedb.New(), nil), Workloads: typedb.New().Info().Builtin, Size: 2000,
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestSilentServer: an address that accepts connections and never answers fails the start-up
// within its deadline, with one line saying so, instead of waiting for the request timeout.
func TestSilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	defer typedb.SetStartupTimeout(300 * time.Millisecond)()
	start := time.Now()
	_, err = open(t, map[string]any{"address": ln.Addr().String()})
	if exitcode.Of(err) != exitcode.Infra || !strings.Contains(err.Error(), "did not answer within 300ms") {
		t.Fatalf("silent server: %v (exit %d)", err, exitcode.Of(err))
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("gave up after %v", d)
	}
}

// TestInsertSessionDropsOnce: the engine closes an insert session twice; its database is dropped
// once.
func TestInsertSessionDropsOnce(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{})
	defer srv.Close()
	tg := mustOpen(t, map[string]any{"address": srv.URL})
	s, err := tg.(adapters.Inserter).NewInsertSession(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	before := srv.Requests("databases")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := srv.Requests("databases") - before; n != 1 {
		t.Errorf("closing twice made %d database requests, want one drop", n)
	}
}

// TestProgressLinesNotPrefixed: the engine prefixes progress lines with the target's name (usually
// "typedb"), so the adapter's own lines must not say "typedb:" again.
func TestProgressLinesNotPrefixed(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{})
	defer srv.Close()
	var lines []string
	opts, err := adapters.ParseOptions(typedb.New().Info().Options, map[string]any{"address": srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	logf := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	tg, err := typedb.New().Open(context.Background(), opts, adapters.Env{Logf: logf, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ds, _ := dataset.Generate(20, 1)
	if err := tg.Load(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 {
		t.Fatal("no progress line")
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "typedb:") {
			t.Errorf("progress line %q repeats the prefix the engine adds", l)
		}
	}
}

// TestReusedDatabaseHoldingMore: a reused database holding more persons than the dataset answers the
// check with more rows than the answer limit (HTTP 206); that is the user's mistake (exit 2, said
// plainly), not a server error.
func TestReusedDatabaseHoldingMore(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{})
	defer srv.Close()
	ctx := context.Background()
	big, _ := dataset.Generate(120, 1)
	small, _ := dataset.Generate(50, 1)
	reuse := map[string]any{"address": srv.URL, "database": "keep", "reuse_database": true}
	c, _ := client.New(client.Config{Address: srv.URL, Username: "admin", Password: "password"})
	if err := c.CreateDatabase(ctx, "keep"); err != nil {
		t.Fatal(err)
	}
	tg := mustOpen(t, reuse)
	if err := tg.Load(ctx, big); err != nil {
		t.Fatal(err)
	}
	tg.Close()
	tg = mustOpen(t, reuse)
	err := tg.Load(ctx, small)
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "holds data that is not this dataset") {
		t.Fatalf("reusing a database holding more persons: %v (exit %d)", err, exitcode.Of(err))
	}
}

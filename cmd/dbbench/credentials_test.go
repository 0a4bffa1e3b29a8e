package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters/typedb/typedbtest"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

// TestRejectedCredentials: a server that refuses the configured credentials is the user's
// configuration to fix, so PostgreSQL (through Triplex and the sql adapter) and TypeDB answer it the
// same way: exit 2, one line on stderr saying the credentials were rejected, and the password
// nowhere in the output. The TypeDB fake answers a wrong user or password at sign-in as the real
// server does: 401 with root code AUT1 ("[AUT1] Invalid credential supplied." under "[HSR9]
// Authentication error."). The test PostgreSQL trusts every password, so the rejected credential
// there is a role that does not exist (SQLSTATE 28000, the same class as a wrong password's 28P01).
func TestRejectedCredentials(t *testing.T) {
	tdb := typedbtest.NewServer(typedbtest.Config{})
	defer tdb.Close()
	pgUser := url.UserPassword("no_such_role", "pg_pw_Secret9")
	cases := []struct {
		name, target, secret, want string
	}{
		{"typedb wrong password", `{name: t, adapter: typedb, options: {address: "` + tdb.URL + `", password: "tdb_pw_Secret7"}}`,
			"tdb_pw_Secret7", "rejected the credentials"},
		{"typedb unknown user", `{name: t, adapter: typedb, options: {address: "` + tdb.URL + `", username: nobody, password: "tdb_pw_Secret8"}}`,
			"tdb_pw_Secret8", "rejected the credentials"},
		{"postgres through triplex", `{name: t, adapter: triplex, options: {backend: postgres, dsn: "DSN"}}`, "pg_pw_Secret9", "authentication failed"},
		{"postgres through sql", `{name: t, adapter: sql, options: {driver: postgres, dsn: "DSN"}}`, "pg_pw_Secret9", "authentication failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			target := tc.target
			if strings.Contains(target, "DSN") {
				u, err := url.Parse(pgtest.NewDatabase(t))
				if err != nil {
					t.Fatal(err)
				}
				u.User = pgUser
				target = strings.Replace(target, "DSN", u.String(), 1)
			}
			dir := t.TempDir()
			cfg := filepath.Join(dir, "c.yaml")
			os.WriteFile(cfg, []byte("name: c\ndataset: {persons: 100}\nrepeats: 1\nworkloads: [scan]\ntargets:\n  - "+target+"\n"), 0o644)
			code, out, errOut := dbbench(t, t.TempDir(), "run", "-c", cfg, "--out", filepath.Join(dir, "r.json"))
			t.Logf("exit %d: %s", code, strings.TrimSpace(errOut))
			if code != 2 {
				t.Errorf("exit %d, want 2 (the configuration is wrong)", code)
			}
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "dbbench: ") || !strings.Contains(last, tc.want) {
				t.Errorf("last line %q, want one saying %q", last, tc.want)
			}
			if strings.Contains(out+errOut, tc.secret) {
				t.Errorf("the password is on the output:\n%s%s", out, errOut)
			}
		})
	}
}

// TestReceivedTokenNeverShown: a TypeDB server whose error quotes the request's Authorization header
// hands dbbench its own bearer token back. The token came from the sign-in, not from the config, and
// is masked all the same: in stderr (the error line and every progress line), stdout and the report,
// also when the target runs in a worker process (whose error line the run passes on).
func TestReceivedTokenNeverShown(t *testing.T) {
	for _, isolation := range []string{"none", "process"} {
		t.Run(isolation, func(t *testing.T) {
			srv := typedbtest.NewServer(typedbtest.Config{})
			defer srv.Close()
			srv.EchoAuthorization("open", "read") // the scan opens a read transaction; the load only writes
			dir := t.TempDir()
			cfg := filepath.Join(dir, "c.yaml")
			os.WriteFile(cfg, []byte("name: c\ndataset: {persons: 100}\nrepeats: 1\nisolation: "+isolation+
				"\nworkloads: [scan, {name: lookup, ops: 10}]\ntargets:\n  - {name: m, adapter: memory}\n"+
				`  - {name: t, adapter: typedb, options: {address: "`+srv.URL+`"}}`+"\n"), 0o644)
			out := filepath.Join(dir, "r.json")
			code, stdout, stderr := dbbench(t, t.TempDir(), "run", "-c", cfg, "--out", out)
			rep, _ := os.ReadFile(out)
			echoed := srv.Echoed()
			if len(echoed) == 0 {
				t.Fatalf("the server echoed no token (exit %d)\n%s", code, stderr)
			}
			if code != 3 {
				t.Errorf("exit %d, want 3 (the lookup failed)\n%s", code, stderr)
			}
			// The echo reached the outputs, masked (a failed worker stops a run with isolation:
			// process before it writes a report).
			shown := map[string]string{"stderr": stderr}
			if isolation == "none" {
				shown["report"] = string(rep)
			}
			for name, text := range shown {
				if !strings.Contains(text, "authorization: Bearer ***") {
					t.Errorf("%s does not show the masked echo:\n%s\n%s", name, text, stderr)
				}
			}
			for _, auth := range echoed {
				token := strings.TrimPrefix(auth, "Bearer ")
				if len(token) < 32 {
					t.Fatalf("echoed %q: not a token", auth)
				}
				for name, text := range map[string]string{"stderr": stderr, "stdout": stdout, "report": string(rep)} {
					if strings.Contains(text, token) || strings.Contains(text, token[:16]) {
						t.Errorf("the bearer token is in %s:\n%s", name, text)
					}
				}
			}
		})
	}
}

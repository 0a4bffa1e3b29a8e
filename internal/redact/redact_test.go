package redact

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// passwords are the shapes a password takes that have leaked before: quotes, escapes, '@', '/',
// spaces, '%', non-ASCII, and ones that look like parts of a DSN.
var passwords = []string{
	"hunter22",
	"a' b",
	`a\' b`,
	"p@ss@wrd9",
	"pa/ss:wd",
	"with space",
	"100%sure",
	"pässwörd",
	"x=y z=w",
	`back\slash`,
	"host=evil",
	"'quoted'",
	"sEcReT?&#",
}

// shapes embed a password in the connection strings and addresses users write.
func shapes(pw string) map[string]string {
	kvQuoted := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw)
	return map[string]string{
		"url raw":         "postgres://bob:" + pw + "@db.example:5432/app?sslmode=disable",
		"url escaped":     "postgres://bob:" + url.PathEscape(pw) + "@db.example:5432/app",
		"url query":       "postgres://db.example/app?user=bob&password=" + url.QueryEscape(pw),
		"kv quoted":       "host=db.example user=bob password='" + kvQuoted + "' dbname=app",
		"kv unterminated": "host=db.example password='" + kvQuoted,
		"http address":    "http://admin:" + pw + "@typedb.example:8000",
	}
}

func TestDSNHidesEveryShape(t *testing.T) {
	for _, pw := range passwords {
		for name, dsn := range shapes(pw) {
			got := DSN(dsn)
			if leaks(got, pw) {
				t.Errorf("%s with %q: %q leaks", name, pw, got)
			}
			if !strings.Contains(got, Mask) {
				t.Errorf("%s with %q: %q has no mask", name, pw, got)
			}
			if !strings.Contains(got, "example") {
				t.Errorf("%s with %q: %q lost the host", name, pw, got)
			}
		}
	}
	if got := DSN("host=db user=bob password=hunter22 dbname=app"); got != "host=db user=bob password=*** dbname=app" {
		t.Errorf("plain key=value: %q", got)
	}
	if got := DSN("postgres://bob@db/app"); got != "postgres://bob@db/app" {
		t.Errorf("no password changed: %q", got)
	}
}

// TestSetHidesDriverErrors: a driver error quoting the password in a form of its own (part of it as a
// host name, JSON-escaped in a report) is masked once the set knows the DSN.
func TestSetHidesDriverErrors(t *testing.T) {
	for _, pw := range passwords {
		for name, dsn := range shapes(pw) {
			var s Set
			s.Add(dsn)
			tail := pw
			if i := strings.LastIndexByte(pw, '@'); i >= 0 {
				tail = pw[i+1:]
			}
			j, _ := json.Marshal(pw)
			msgs := []string{
				fmt.Sprintf("failed to connect to `%s`: hostname resolving error: lookup %s@db.example: no such host", dsn, tail),
				"report: " + string(j),
				"cannot parse `" + dsn + "`: failed to parse as URL",
			}
			for _, m := range msgs {
				got := s.String(m)
				if leaks(got, pw) || (len(tail) >= minSecret && strings.Contains(got, tail) && tail != "example") {
					t.Errorf("%s with %q: %q leaks", name, pw, got)
				}
			}
		}
	}
	var s Set
	s.AddSecret("typedb-password")
	if got := s.String(`sign-in failed for {"password":"typedb-password"}`); strings.Contains(got, "typedb-password") {
		t.Errorf("a secret option leaked: %q", got)
	}
}

// leaks says whether text shows pw or a distinctive part of it (the tail after an escaped quote or
// an '@', the part after a space).
func leaks(text, pw string) bool {
	for _, part := range []string{pw, url.PathEscape(pw), url.QueryEscape(pw)} {
		if len(part) >= minSecret && strings.Contains(text, part) {
			return true
		}
	}
	for _, sep := range []string{"' ", "@", " ", "/"} {
		if i := strings.LastIndex(pw, sep); i >= 0 {
			if tail := pw[i+len(sep):]; len(tail) >= minSecret && strings.Contains(text, tail) && !strings.Contains("example", tail) {
				return true
			}
		}
	}
	return false
}

// TestSetTakesSecretsDuringARun: a token registered while other goroutines redact (progress lines,
// the summary) is masked from then on, without a data race (go test -race).
func TestSetTakesSecretsDuringARun(t *testing.T) {
	var s Set
	s.AddSecret("config-password")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 1000; i++ {
			if got := s.String("config-password"); got != Mask {
				t.Errorf("the config's secret leaked: %q", got)
				return
			}
		}
	}()
	for i := 0; i < 100; i++ {
		s.AddSecret(fmt.Sprintf("token-%03d-received", i))
	}
	<-done
	if got := s.String("Bearer token-042-received"); got != "Bearer "+Mask {
		t.Errorf("a received token leaked: %q", got)
	}
}

// Package redact removes secrets from everything dbbench shows or stores: reports, stderr, progress
// lines and the errors drivers return. It has one entry point per kind of input: DSN for a
// connection string or address whose shape is known, Secrets for any text when the secret values are
// known (a driver error may quote a password in a form no pattern expects), and a Set that does both
// for a run.
package redact

import (
	"encoding/json"
	"io"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Mask replaces every secret.
const Mask = "***"

var (
	// userinfo is the password of a URL: from "scheme://user:" up to the last '@' on the line, so
	// that a raw '@', '/' or space inside the password does not leave its tail behind (at worst more
	// than the password is masked).
	userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)[^\n]*@`)
	// queryPassword is password=... in a URL query.
	queryPassword = regexp.MustCompile(`(?i)([?&](?:ssl)?password=)[^&#\s]*`)
	// kvPassword is password=... in a key=value connection string: a single-quoted value with
	// backslash escapes (unterminated: to the end), or a bare value with backslash escapes.
	kvPassword = regexp.MustCompile(`(?i)((?:^|[^?&\w])(?:ssl)?password\s*=\s*)(?:'((?:[^'\\]|\\.)*)(?:'|\\?$)|((?:[^\s'\\]|\\.)+))`)
)

// DSN returns s with the passwords of URLs (userinfo and password= query parameters) and of
// key=value connection strings replaced by Mask. Anything else in s is kept.
func DSN(s string) string {
	s = userinfo.ReplaceAllString(s, "${1}"+Mask+"@")
	s = queryPassword.ReplaceAllString(s, "${1}"+Mask)
	return kvPassword.ReplaceAllString(s, "${1}"+Mask)
}

// Passwords returns the password values a connection string or address holds (URL userinfo,
// password= in a query or a key=value string), decoded, for Secrets.
func Passwords(s string) []string {
	var out []string
	for _, m := range userinfo.FindAllString(s, -1) {
		i := strings.Index(m, "://")
		rest := m[i+3 : len(m)-1] // user:password
		if j := strings.IndexByte(rest, ':'); j >= 0 {
			out = append(out, decoded(rest[j+1:])...)
		}
	}
	for _, m := range queryPassword.FindAllStringSubmatch(s, -1) {
		out = append(out, decoded(strings.SplitN(m[0], "=", 2)[1])...)
	}
	for _, m := range kvPassword.FindAllStringSubmatch(s, -1) {
		v := m[2] + m[3] // quoted content or bare value
		out = append(out, v, unescape(v))
	}
	// A URL parser splits a password with a raw '@' there and shows the rest as the host name.
	for _, pw := range out {
		for i := strings.IndexByte(pw, '@'); i >= 0; i = strings.IndexByte(pw, '@') {
			pw = pw[i+1:]
			out = append(out, pw)
		}
	}
	return out
}

func decoded(v string) []string {
	out := []string{v}
	if d, err := url.PathUnescape(v); err == nil && d != v {
		out = append(out, d)
	}
	if d, err := url.QueryUnescape(v); err == nil && d != v {
		out = append(out, d)
	}
	return out
}

// unescape undoes the backslash escapes of a key=value connection string value.
func unescape(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// minSecret is the shortest secret replaced wherever it appears: shorter ones would mask ordinary
// words; patterns (DSN) still hide them where their shape is known.
const minSecret = 3

// Secrets returns s with every occurrence of each secret replaced by Mask, in the forms a secret
// takes in messages and files: as is, URL-escaped, JSON-escaped and backslash-escaped.
func Secrets(s string, secrets ...string) string {
	forms := map[string]bool{}
	for _, sec := range secrets {
		if len(sec) < minSecret {
			continue
		}
		j, _ := json.Marshal(sec)
		for _, f := range []string{sec, url.QueryEscape(sec), url.PathEscape(sec), string(j[1 : len(j)-1]),
			strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(sec)} {
			if len(f) >= minSecret {
				forms[f] = true
			}
		}
	}
	if len(forms) == 0 {
		return s
	}
	// Longest first, so that a secret containing another is masked whole.
	list := make([]string, 0, len(forms))
	for f := range forms {
		list = append(list, f)
	}
	sort.Slice(list, func(i, j int) bool { return len(list[i]) > len(list[j]) })
	for _, f := range list {
		s = strings.ReplaceAll(s, f, Mask)
	}
	return s
}

// Set is the secrets of one run: every value of a secret option and every password in a connection
// string or address the config holds, and every secret the run receives on the way (a session
// token). It is safe for concurrent use: a target registers a token while progress lines are
// redacted.
type Set struct {
	mu      sync.RWMutex
	secrets []string
}

// Add records secret values, and the passwords inside any connection strings among them.
func (s *Set) Add(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range values {
		if v == "" {
			continue
		}
		s.secrets = append(s.secrets, Passwords(v)...)
	}
}

// AddSecret records a value that is secret as a whole (a password option, a token received).
func (s *Set) AddSecret(v string) {
	if v == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secrets = append(s.secrets, v)
}

// String redacts a text: the known secrets, then any password a connection string in it shows.
func (s *Set) String(text string) string {
	if s == nil {
		return DSN(text)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return DSN(Secrets(text, s.secrets...))
}

// Writer returns a writer that redacts what it passes on to w (progress lines, the summary). Each
// Write is redacted on its own: callers write whole lines.
func (s *Set) Writer(w io.Writer) io.Writer {
	if w == nil {
		return nil
	}
	return &writer{w: w, s: s}
}

type writer struct {
	w io.Writer
	s *Set
}

// Unwrap is the writer underneath, for asking whether it is a terminal (term.IsTerminal): what is
// written still goes through the scrubber.
func (w *writer) Unwrap() io.Writer { return w.w }

func (w *writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.w, w.s.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbbench/dbbench/adapters/phase"
)

// Config configures a Client. Zero values get the defaults documented on each field.
type Config struct {
	// Address is the server's HTTP endpoint: "host:port" (plain HTTP), "http://host:port" or
	// "https://host:port".
	Address string
	// Username and Password are the TypeDB credentials (the server's defaults are admin/password).
	Username string
	Password string
	// TLS configures https addresses; nil uses the system roots.
	TLS *tls.Config
	// RequestTimeout bounds every request, including reading its whole answer (default 5m).
	RequestTimeout time.Duration
	// ConnectTimeout bounds establishing a connection (default 5s).
	ConnectTimeout time.Duration
	// MaxConns is how many idle keep-alive connections are kept for reuse (default 64): size it at
	// least at the number of concurrent callers so none of them reconnects.
	MaxConns int
	// OnToken, if set, is given every bearer token a sign-in returns, before the token is used, so
	// that the caller can keep it out of everything it shows (a server may echo it in an error).
	OnToken func(token string)
}

// Client talks to one TypeDB server over its HTTP API (/v1). It is safe for concurrent use; it signs
// in lazily, keeps the bearer token, and signs in again once when the server rejects the token.
type Client struct {
	base    string // scheme://host:port
	cfg     Config
	http    *http.Client
	tr      *http.Transport
	signIns atomic.Int64

	mu    sync.Mutex // guards token and gen; held while signing in
	token string
	gen   uint64 // incremented on every sign-in

	// decoders keeps up to MaxConns idle decoders, each with its 256 KiB scan buffer, for the next
	// queries. Unlike a sync.Pool it is not emptied by the garbage collector, so a query does not
	// allocate a new buffer after a collection.
	decoders chan *decoder
}

// New validates cfg and returns a client. It does not contact the server.
func New(cfg Config) (*Client, error) {
	base, err := normalizeAddress(cfg.Address)
	if err != nil {
		return nil, err
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 5 * time.Minute
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = 5 * time.Second
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 64
	}
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		DialContext:         dialer.DialContext,
		TLSClientConfig:     cfg.TLS,
		TLSHandshakeTimeout: cfg.ConnectTimeout,
		MaxIdleConns:        cfg.MaxConns,
		MaxIdleConnsPerHost: cfg.MaxConns,
		IdleConnTimeout:     90 * time.Second,
		// Answers are measured as the server sends them: no gzip negotiation, HTTP/1.1 only, so
		// that each concurrent reader has its own connection.
		DisableCompression: true,
		TLSNextProto:       map[string]func(string, *tls.Conn) http.RoundTripper{},
		// Small, so that the scanner's reads (at least this much buffer space each, see
		// scanBufSize) go past it straight into the scanner's buffer: an answer is copied once,
		// from the socket, and not again out of a second buffer.
		ReadBufferSize:  8 << 10,
		WriteBufferSize: 32 << 10,
	}
	c := &Client{base: base, cfg: cfg, tr: tr, http: &http.Client{Transport: tr}}
	c.decoders = make(chan *decoder, cfg.MaxConns)
	return c, nil
}

func normalizeAddress(addr string) (string, error) {
	a := strings.TrimSpace(addr)
	if a == "" {
		return "", errors.New("empty TypeDB address")
	}
	if !strings.Contains(a, "://") {
		a = "http://" + a
	}
	u, err := url.Parse(a)
	if err != nil {
		return "", fmt.Errorf("bad TypeDB address %q: %v", addr, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("bad TypeDB address %q: the scheme must be http or https", addr)
	}
	if u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", fmt.Errorf("bad TypeDB address %q: want host:port, http://host:port or https://host:port", addr)
	}
	if u.Port() == "" {
		u.Host = net.JoinHostPort(u.Hostname(), "8000")
	}
	return u.Scheme + "://" + u.Host, nil
}

// Address is the server's base URL, e.g. "http://127.0.0.1:8000".
func (c *Client) Address() string { return c.base }

// SignIns counts the sign-ins made so far (the first one and any renewals).
func (c *Client) SignIns() int64 { return c.signIns.Load() }

// Close releases idle connections.
func (c *Client) Close() { c.tr.CloseIdleConnections() }

// ServerVersion is the answer of GET /v1/version.
type ServerVersion struct {
	Distribution string `json:"distribution"`
	Version      string `json:"version"`
}

// AtLeast reports whether the version is major.minor or later. An unparsable version is false.
func (v ServerVersion) AtLeast(major, minor int) bool {
	parts := strings.SplitN(v.Version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(strings.TrimLeftFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// Version asks the server for its distribution and version. A server without the HTTP API gives an
// error wrapping ErrNoHTTPAPI.
func (c *Client) Version(ctx context.Context) (ServerVersion, error) {
	var v ServerVersion
	resp, done, err := c.call(ctx, "version", http.MethodGet, "/v1/version", nil, false)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Status == http.StatusNotFound {
			return v, fmt.Errorf("typedb: %s answers 404 for /v1/version: %w", c.base, ErrNoHTTPAPI)
		}
		return v, err
	}
	defer done()
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v); err != nil || v.Version == "" {
		return v, fmt.Errorf("typedb: %s answers /v1/version with something other than a TypeDB version: %w", c.base, ErrNoHTTPAPI)
	}
	return v, nil
}

// Health checks GET /health, which answers 204 without authentication.
func (c *Client) Health(ctx context.Context) error {
	resp, done, err := c.call(ctx, "health", http.MethodGet, "/health", nil, false)
	if err != nil {
		return err
	}
	defer done()
	if resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("typedb health: unexpected HTTP %d", resp.StatusCode)
	}
	return nil
}

// SignIn exchanges the credentials for a bearer token now (requests also sign in lazily).
func (c *Client) SignIn(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.signInLocked(ctx)
}

func (c *Client) signInLocked(ctx context.Context) error {
	body := struct {
		Username string `json:"username"`
		Password string `json:"password"`
	}{c.cfg.Username, c.cfg.Password}
	resp, done, err := c.call(ctx, "sign-in", http.MethodPost, "/v1/signin", body, false)
	if err != nil {
		return err
	}
	defer done()
	var tok struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&tok); err != nil || tok.Token == "" {
		return fmt.Errorf("typedb sign-in: the answer holds no token")
	}
	if c.cfg.OnToken != nil {
		c.cfg.OnToken(tok.Token)
	}
	c.token = tok.Token
	c.gen++
	c.signIns.Add(1)
	return nil
}

// currentToken returns a token, signing in first if there is none.
func (c *Client) currentToken(ctx context.Context) (string, uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token == "" {
		if err := c.signInLocked(ctx); err != nil {
			return "", 0, err
		}
	}
	return c.token, c.gen, nil
}

// renewToken signs in again unless another caller already did since gen was handed out.
func (c *Client) renewToken(ctx context.Context, gen uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return nil
	}
	c.token = ""
	return c.signInLocked(ctx)
}

// call sends one request bounded by the request timeout. body is nil, a []byte of JSON, or a value
// to marshal. With auth it sends the bearer token and, if the server rejects the token, signs in
// again and retries once (a rejected request was not executed). On success the caller reads and
// closes resp.Body, then calls done; on error there is nothing to release.
func (c *Client) call(ctx context.Context, op, method, path string, body any, auth bool) (resp *http.Response, done func(), err error) {
	var l *laps
	signCtx := ctx // a sign-in inside this request stays out of its phases
	if r := phasesFrom(ctx); r != nil {
		l = startLaps(r)
		signCtx = withoutPhases(ctx)
	}
	payload, err := encodeBody(op, body)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	for attempt := 0; ; attempt++ {
		var token string
		var gen uint64
		if auth {
			if token, gen, err = c.currentToken(signCtx); err != nil {
				cancel()
				return nil, nil, err
			}
		}
		rctx := ctx
		if l != nil {
			rctx = l.trace(ctx)
		}
		req, err := c.newRequest(rctx, op, method, path, payload, auth, token)
		if err != nil {
			cancel()
			return nil, nil, err
		}
		resp, err := c.http.Do(req)
		if err != nil {
			cancel()
			return nil, nil, c.transportError(ctx, op, err)
		}
		if resp.StatusCode < 400 {
			return resp, answered(resp, l, cancel), nil
		}
		err = readError(op, resp)
		resp.Body.Close()
		var e *Error
		if errors.As(err, &e) && e.Code == "" && strings.Contains(e.Message, "HTTP request to an HTTPS server") {
			err = fmt.Errorf("typedb %s: %s: %w", op, c.base, ErrTLSRequired)
		}
		if auth && attempt == 0 && resp.StatusCode == http.StatusUnauthorized && e != nil && (e.Has(CodeInvalidToken) || e.Has(CodeMissingToken)) {
			if rerr := c.renewToken(signCtx, gen); rerr != nil {
				cancel()
				return nil, nil, rerr
			}
			continue
		}
		cancel()
		return nil, nil, err
	}
}

// encodeBody is a request's body: nothing for nil, a []byte as it is, any other value as JSON.
func encodeBody(op string, body any) ([]byte, error) {
	switch b := body.(type) {
	case nil:
		return nil, nil
	case []byte:
		return b, nil
	default:
		payload, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("typedb %s: encoding the request: %w", op, err)
		}
		return payload, nil
	}
}

// newRequest is one attempt's request: a fresh reader over payload (a retry sends it again), JSON
// headers, and the bearer token when auth.
func (c *Client) newRequest(ctx context.Context, op, method, path string, payload []byte, auth bool, token string) (*http.Request, error) {
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, fmt.Errorf("typedb %s: %w", op, err)
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if auth {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req, nil
}

// answered starts the reading of a successful response (its header ends the drain phase, its body is
// timed when phases are) and returns the caller's done: close the lap, drain what is left (normally
// nothing) so the connection can be reused, close, and release the request's timeout.
func answered(resp *http.Response, l *laps, cancel context.CancelFunc) func() {
	if l != nil {
		l.lap(phase.Drain) // the header
		resp.Body = &timedBody{resp.Body, l}
	}
	return func() {
		if l != nil {
			l.lap(phase.Decode)
		}
		_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
		resp.Body.Close()
		cancel()
	}
}

// transportError explains a request that got no HTTP answer.
func (c *Client) transportError(ctx context.Context, op string, err error) error {
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("typedb %s: no answer from %s within %v: %w", op, c.base, c.cfg.RequestTimeout, context.DeadlineExceeded)
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("typedb %s: %w", op, context.Canceled)
	}
	var rh tls.RecordHeaderError
	if errors.As(err, &rh) || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") {
		return fmt.Errorf("typedb %s: %s: %w", op, c.base, ErrNotTLS)
	}
	msg := err.Error()
	if strings.Contains(msg, "malformed HTTP") {
		// A TLS record (handshake 0x16 or alert 0x15, version 3.x) where an HTTP status line was due.
		if strings.Contains(msg, `"\x15\x03`) || strings.Contains(msg, `"\x16\x03`) {
			return fmt.Errorf("typedb %s: %s: %w", op, c.base, ErrTLSRequired)
		}
		return fmt.Errorf("typedb %s: %s does not answer HTTP/1.1 (is it TypeDB's gRPC port? the HTTP API listens on port 8000): %w", op, c.base, ErrNoHTTPAPI)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("typedb %s: cannot reach %s: %w", op, c.base, err)
}

// query sends a request whose success answer is a query answer, and streams its rows to h.
func (c *Client) query(ctx context.Context, op, path string, body any, h RowHandler) (Answer, error) {
	a := Answer{}
	resp, done, err := c.call(ctx, op, http.MethodPost, path, body, true)
	if err != nil {
		return a, err
	}
	defer done()
	a.Status = resp.StatusCode
	var d *decoder
	select {
	case d = <-c.decoders:
	default:
		d = newDecoder()
	}
	d.s.reset(resp.Body)
	err = d.answer(&a, h)
	d.s.reset(nil)
	select {
	case c.decoders <- d:
	default:
	}
	if err != nil {
		var he handlerError
		if errors.As(err, &he) {
			return a, he.err
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("the connection closed mid-answer: %w", err)
		}
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("not complete within the request timeout %v: %w", c.cfg.RequestTimeout, err)
		}
		return a, fmt.Errorf("typedb %s: reading the answer after %d rows: %w", op, a.Rows, err)
	}
	return a, nil
}

// handlerError carries an error returned by a RowHandler through the decoder unchanged.
type handlerError struct{ err error }

func (h handlerError) Error() string { return h.err.Error() }
func (h handlerError) Unwrap() error { return h.err }

// simple sends a request whose success answer carries nothing the caller needs.
func (c *Client) simple(ctx context.Context, op, method, path string, body any) error {
	_, done, err := c.call(ctx, op, method, path, body, true)
	if err != nil {
		return err
	}
	done()
	return nil
}

// Package typedb is the dbbench adapter for TypeDB 3.x. It talks to the server over TypeDB's HTTP
// API (/v1, TypeDB 3.2 and later) through the client package, and runs the four common workloads
// the way the TypeDB client benchmark defines them:
//
//   - scan: one read transaction, one match query with `limit N` and an answer limit raised to N,
//     every row decoded into a dataset.Person; a 206 or a warning fails the run;
//   - lookup: one read transaction per lookup, either a one-shot POST /v1/query (default) or an
//     explicit open, query, close (option lookup_mode);
//   - insert: a fresh database, one write transaction with a raised timeout, one insert query per
//     person, then commit;
//   - concurrent: all read transactions are opened before a barrier releases the readers, so that
//     the server's transaction-table lock (an open waits for every running query) is not measured.
//
// # Why HTTP and not gRPC
//
// The HTTP API has stayed /v1 and only grown since 3.2, needs nothing but net/http, and a faithful
// fake of it fits in a test package. TypeDB's gRPC protocol version must match the server's minor
// release exactly and changes between minors, and a client for it needs generated code and
// stream flow control. The price: the server buffers a whole answer before sending it and encodes it
// as JSON, so figures are those of TypeDB's HTTP path, not of its official drivers.
//
// # Where the server comes from
//
// Option address, or TYPEDB_ADDRESS, names a running server (host:port, http:// or https://). Without
// one the adapter starts typedb/typedb:<version> with testcontainers-go, waits for /health, and
// removes the container on Close. Credentials come from the username and password options or
// TYPEDB_USERNAME and TYPEDB_PASSWORD (default admin/password, the server's default user).
package typedb

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/adapters/typedb/client"
	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/randhex"
	"github.com/dbbench/dbbench/internal/redact"
	"github.com/dbbench/dbbench/workloads"
)

// Lookup modes.
const (
	LookupOneShot     = "oneshot"     // POST /v1/query: the server opens, queries and closes
	LookupTransaction = "transaction" // open, query, close: three requests
)

// Concurrency strategies.
const (
	ConcurrentOpenFirst = "open-first" // open every read transaction, then release all readers
	ConcurrentOneShot   = "oneshot"    // each reader sends one one-shot query at the barrier
)

// personsPerLoadQuery is how many persons one loader insert query carries.
const personsPerLoadQuery = 100

type adapter struct{}

// New returns the TypeDB adapter.
func New() adapters.Adapter { return adapter{} }

func (adapter) Info() adapters.Info {
	return adapters.Info{
		Name:    "typedb",
		Summary: "TypeDB 3.x over its HTTP API (/v1): a running server (address, TYPEDB_ADDRESS) or a container",
		Builtin: []string{workloads.Scan, workloads.Lookup, workloads.Insert, workloads.Concurrent},
		Options: []adapters.OptionSpec{
			{Name: "address", Kind: adapters.String, Help: "server HTTP address (host:port, http:// or https://); default $TYPEDB_ADDRESS, else a container is started"},
			{Name: "username", Kind: adapters.String, Help: "TypeDB user (default $TYPEDB_USERNAME, else admin)"},
			{Name: "password", Kind: adapters.String, Secret: true, Help: "TypeDB password (default $TYPEDB_PASSWORD, else password)"},
			{Name: "tls_ca", Kind: adapters.String, Help: "PEM file of the CA that signed an https server's certificate (default: system roots)"},
			{Name: "version", Kind: adapters.String, Default: "3.14.0", Help: "typedb/typedb image tag when a container is started"},
			{Name: "image", Kind: adapters.String, Default: "typedb/typedb", Help: "image repository when a container is started"},
			{Name: "start_timeout", Kind: adapters.Duration, Default: "3m", Help: "how long a started container may take to answer /health"},
			{Name: "database", Kind: adapters.String, Help: "database name (default dbbench_<random>); an existing one is refused unless reuse_database"},
			{Name: "reuse_database", Kind: adapters.Bool, Default: "false", Help: "use an existing database as it is (it must be empty or hold exactly this dataset); it is never dropped"},
			{Name: "lookup_mode", Kind: adapters.Enum, Default: LookupOneShot, Choices: []string{LookupOneShot, LookupTransaction},
				Help: "lookup read transaction: oneshot (POST /v1/query) or transaction (open, query, close)"},
			{Name: "concurrent_mode", Kind: adapters.Enum, Default: ConcurrentOpenFirst, Choices: []string{ConcurrentOpenFirst, ConcurrentOneShot},
				Help: "concurrent readers: open-first (open every read transaction, then release all) or oneshot"},
			{Name: "answer_limit", Kind: adapters.Int, Default: "0", Min: 0, HasMin: true,
				Help: "answerCountLimit sent with reads; 0 sends the number of rows asked for (the server default is 10000)"},
			{Name: "transaction_timeout", Kind: adapters.Duration, Default: "1h", Help: "transactionTimeoutMillis of every transaction (the server default is 5m, counted from open)"},
			{Name: "request_timeout", Kind: adapters.Duration, Default: "10m", Help: "bound on every HTTP request, including reading its whole answer"},
			{Name: "max_conns", Kind: adapters.Int, Default: "64", Min: 1, HasMin: true, Help: "keep-alive connections kept for reuse (at least the number of concurrent readers)"},
		},
	}
}

// settings are the resolved options of a target.
type settings struct {
	address, username, password, tlsCA string
	image, database                    string
	reuse                              bool
	lookupMode, concurrentMode         string
	answerLimit                        int
	txTimeout, requestTimeout, startTO time.Duration
	maxConns                           int
}

// dbNameRE is what TypeDB accepts as a database name: it refuses a leading digit, '_' or '-'.
var dbNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,62}$`)

var _ adapters.Checker = adapter{}

// Check reports the option mistakes Open would find before connecting (see adapters.Checker).
func (adapter) Check(o adapters.Options, _ adapters.DatasetSpec, _ map[string]adapters.Options) error {
	_, err := resolve(o)
	return err
}

func resolve(opts adapters.Options) (settings, error) {
	s := settings{
		address:        firstSet(opts.String("address"), os.Getenv("TYPEDB_ADDRESS")),
		username:       firstSet(opts.String("username"), os.Getenv("TYPEDB_USERNAME"), "admin"),
		password:       firstSet(opts.String("password"), os.Getenv("TYPEDB_PASSWORD"), "password"),
		tlsCA:          opts.String("tls_ca"),
		image:          firstSet(opts.String("image"), "typedb/typedb") + ":" + firstSet(opts.String("version"), "3.14.0"),
		database:       opts.String("database"),
		reuse:          opts.Bool("reuse_database"),
		lookupMode:     firstSet(opts.String("lookup_mode"), LookupOneShot),
		concurrentMode: firstSet(opts.String("concurrent_mode"), ConcurrentOpenFirst),
		answerLimit:    int(opts.Int("answer_limit")),
		txTimeout:      opts.Duration("transaction_timeout"),
		requestTimeout: opts.Duration("request_timeout"),
		startTO:        opts.Duration("start_timeout"),
		maxConns:       int(opts.Int("max_conns")),
	}
	if s.database != "" && !dbNameRE.MatchString(s.database) {
		return s, exitcode.Usagef("typedb: database name %q: use letters, digits, '_' and '-', starting with a letter (at most 63)", s.database)
	}
	if u, err := url.Parse(s.address); err == nil && u.User != nil || strings.Contains(s.address, "@") {
		return s, exitcode.Usagef("typedb: address %s holds credentials: give them as the username and password options (or TYPEDB_USERNAME and TYPEDB_PASSWORD)", redact.DSN(s.address))
	}
	if s.maxConns > 4096 {
		return s, exitcode.Usagef("typedb: max_conns must be at most 4096, got %d", s.maxConns)
	}
	if s.txTimeout <= 0 {
		s.txTimeout = time.Hour
	}
	if s.requestTimeout <= 0 {
		s.requestTimeout = 10 * time.Minute
	}
	if s.startTO <= 0 {
		s.startTO = 3 * time.Minute
	}
	return s, nil
}

func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func (adapter) Open(ctx context.Context, opts adapters.Options, env adapters.Env) (adapters.Target, error) {
	s, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	logf := env.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	t := &target{set: s, env: env, logf: logf, source: "external (address)"}
	var tlsCfg *tls.Config
	if s.tlsCA != "" {
		pem, err := os.ReadFile(s.tlsCA)
		if err != nil {
			return nil, exitcode.Usagef("typedb: tls_ca: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, exitcode.Usagef("typedb: tls_ca %s holds no PEM certificate", s.tlsCA)
		}
		tlsCfg = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	addr := s.address
	if addr == "" {
		t.ctr, addr, err = startContainer(ctx, s.image, s.startTO, logf)
		if err != nil {
			return nil, err
		}
		t.source = "container " + s.image
	}
	ok := false
	defer func() {
		if !ok {
			_ = t.Close()
		}
	}()
	t.c, err = client.New(client.Config{Address: addr, Username: s.username, Password: s.password, TLS: tlsCfg,
		RequestTimeout: s.requestTimeout, MaxConns: s.maxConns, OnToken: env.SecretFunc()})
	if err != nil {
		return nil, exitcode.Usagef("typedb: %v", err)
	}
	// The version check, sign-in and database set-up get a deadline of their own: a server that
	// accepts connections but never answers must not hold the run for the per-request timeout.
	t.runCtx = ctx
	sctx, cancel := context.WithTimeout(ctx, startupTimeout)
	defer cancel()
	err = t.connect(sctx)
	if err == nil {
		err = t.claimDatabase(sctx)
	}
	if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		return nil, exitcode.Infraf("typedb: %s accepted the connection but did not answer within %v", t.c.Address(), startupTimeout)
	}
	if err != nil {
		return nil, err
	}
	ok = true
	return t, nil
}

// startupTimeout bounds connecting to a server: version, sign-in (a bcrypt check) and creating the
// database. cleanupTimeout bounds dropping what the target created at the end, and
// interruptedCleanupTimeout after Ctrl-C.
const (
	cleanupTimeout            = 30 * time.Second
	interruptedCleanupTimeout = 500 * time.Millisecond
)

var startupTimeout = 30 * time.Second // a variable for tests

// cleanupContext bounds a cleanup step, briefly when the run was interrupted.
func (t *target) cleanupContext() (context.Context, context.CancelFunc) {
	if t.runCtx != nil && t.runCtx.Err() != nil {
		return context.WithTimeout(context.Background(), interruptedCleanupTimeout)
	}
	return context.WithTimeout(context.Background(), cleanupTimeout)
}

// connect checks the server's version and signs in, turning every failure into one clear line.
func (t *target) connect(ctx context.Context) error {
	addr := t.c.Address()
	v, err := t.c.Version(ctx)
	if err == nil && !v.AtLeast(3, 2) {
		return exitcode.Infraf("typedb: %s reports TypeDB %s, which has no HTTP API: TypeDB 3.2 or later is needed", addr, v.Version)
	}
	if err == nil {
		err = t.c.SignIn(ctx)
	}
	if err != nil {
		return classify(addr, err)
	}
	t.version = v
	return nil
}

// classify turns a connection-time error into an exit-coded error naming what to do.
func classify(addr string, err error) error {
	switch {
	case errors.Is(err, client.ErrTLSRequired):
		return exitcode.Usagef("typedb: %s requires TLS: use an https:// address (and tls_ca if its certificate is not trusted)", addr)
	case errors.Is(err, client.ErrNotTLS):
		return exitcode.Usagef("typedb: %s does not speak TLS: use an http:// address", addr)
	case errors.Is(err, client.ErrNoHTTPAPI):
		return exitcode.Infraf("%s", exitcode.OneLine(err.Error()))
	case client.HasCode(err, client.CodeInvalidCredential) || isSignInRefused(err):
		return exitcode.Usagef("typedb: %s rejected the credentials [AUT1]: set the username and password options or TYPEDB_USERNAME and TYPEDB_PASSWORD", addr)
	case strings.Contains(err.Error(), "x509:"):
		msg := err.Error()
		return exitcode.Usagef("typedb: cannot verify the TLS certificate of %s (%s): set tls_ca to the PEM file of its CA", addr, exitcode.OneLine(msg[strings.Index(msg, "x509:"):]))
	}
	return exitcode.Infraf("%s", exitcode.OneLine(err.Error()))
}

// isSignInRefused is a 401 answer to the sign-in itself, whatever its code: the credentials are the
// user's to fix (exit 2, as for PostgreSQL).
func isSignInRefused(err error) bool {
	var e *client.Error
	return errors.As(err, &e) && e.Status == http.StatusUnauthorized && e.Op == "sign-in"
}

// claimDatabase creates the target's database, or takes an existing one when allowed.
func (t *target) claimDatabase(ctx context.Context) error {
	name := t.set.database
	generated := name == ""
	for attempt := 0; ; attempt++ {
		if generated {
			name = "dbbench_" + randhex.String(6)
		}
		exists, err := t.c.DatabaseExists(ctx, name)
		if err != nil {
			return exitcode.AsInfra(err)
		}
		switch {
		case exists && generated && attempt < 3:
			continue
		case exists && t.set.reuse:
			t.db, t.createdDB = name, false
			t.logf("reusing the existing database %s (it will not be dropped)", name)
			return nil
		case exists:
			return exitcode.Usagef("typedb: database %q already exists on %s: choose another name, or set reuse_database: true to use it as it is (dbbench only drops databases it created)", name, t.c.Address())
		}
		if err := t.c.CreateDatabase(ctx, name); err != nil {
			if client.HasCode(err, client.CodeDatabaseExists) {
				return exitcode.Usagef("typedb: database %q was created by someone else meanwhile: %v", name, err)
			}
			return exitcode.AsInfra(err)
		}
		t.db, t.createdDB = name, true
		t.pending = cleanup.Register(fmt.Sprintf("delete the TypeDB database %s on %s (DELETE /v1/databases/%s)", name, t.c.Address(), name))
		return nil
	}
}

// target is one opened TypeDB instance.
type target struct {
	set     settings
	env     adapters.Env
	logf    func(string, ...any)
	c       *client.Client
	ctr     *container
	source  string
	version client.ServerVersion

	db        string
	createdDB bool
	runCtx    context.Context // the run's context: cleaning up after Ctrl-C gets a short deadline
	pending   func()          // marks the manual cleanup of the database done
	rows      int             // persons in the database after Load
	prof      *phase.Recorder // the profiled repeat's recorder (Profile), nil otherwise

	mu       sync.Mutex
	insertDB []string // insert-workload databases not yet dropped
	closed   bool
}

func (t *target) Info() map[string]any {
	limit := any("rows requested")
	if t.set.answerLimit > 0 {
		limit = t.set.answerLimit
	}
	strategy := "open-first: all read transactions are opened, then a barrier releases every reader; a reader's latency is its query, decoding and close"
	if t.set.concurrentMode == ConcurrentOneShot {
		strategy = "oneshot: at the barrier every reader sends one POST /v1/query (no transaction table); a reader's latency is that request"
	}
	return map[string]any{
		"server_version":       t.version.Version,
		"server_distribution":  t.version.Distribution,
		"protocol":             "http /v1",
		"server":               t.source,
		"address":              t.c.Address(),
		"database":             t.db,
		"database_created":     t.createdDB,
		"client":               "dbbench adapters/typedb/client (net/http, streaming JSON decoder)",
		"client_options":       map[string]any{"max_conns": t.set.maxConns, "request_timeout": t.set.requestTimeout.String(), "http": "HTTP/1.1 keep-alive, no compression", "include_instance_types": false, "include_query_structure": false},
		"lookup_mode":          t.set.lookupMode,
		"concurrency_strategy": strategy,
		"answer_limit":         limit,
		"transaction_timeout":  t.set.txTimeout.String(),
		"load":                 fmt.Sprintf("%d persons per insert query, one write transaction per %d queries", personsPerLoadQuery, loadQueriesPerTx),
		"insert":               "one insert query per person in one write transaction, then commit",
	}
}

// Close drops the databases this target created, then removes a container it started. It works
// after a cancelled run: it uses its own bounded context.
func (t *target) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	drop := append([]string(nil), t.insertDB...)
	t.mu.Unlock()
	if t.createdDB {
		drop = append(drop, t.db)
	}
	ctx, cancel := t.cleanupContext()
	defer cancel()
	var errs []error
	if t.c != nil && t.ctr == nil { // a container goes away with its databases
		for _, db := range drop {
			if err := t.dropDatabase(ctx, db); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) == 0 && t.pending != nil {
		t.pending()
	}
	if t.c != nil {
		t.c.Close()
	}
	if err := t.ctr.stop(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return exitcode.AsInfra(errors.Join(errs...))
	}
	return nil
}

// dropDatabase deletes a database this target created, retrying while transactions still use it.
func (t *target) dropDatabase(ctx context.Context, db string) error {
	delay := 50 * time.Millisecond
	for {
		err := t.c.DeleteDatabase(ctx, db)
		if err == nil || client.HasCode(err, client.CodeDatabaseMissing) {
			return nil
		}
		var e *client.Error
		if !errors.As(err, &e) || !e.Has(client.CodeDatabaseInUse) {
			return fmt.Errorf("typedb: drop database %s: %w", db, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("typedb: drop database %s: still in use: %w", db, err)
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Second)
	}
}

// Package exec is the dbbench adapter for clients in other processes (adapter "exec"): a program in
// any language that speaks the protocol of docs/protocol.md on its stdin and stdout and times its own
// work. The Client type drives one such process and is shared with `dbbench client-test`.
package exec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/postgres"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/workloads"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// Name is the adapter's name in configs.
const Name = "exec"

// pings is how many empty round trips measure the protocol's own cost after the load, after
// pingWarmup unmeasured ones: right after a load a client's runtime is still busy with it (a JIT
// compiling the request path, a collector sweeping the load's garbage), which is not the protocol.
const (
	pingWarmup = 500
	pings      = 1000
)

// schemaDropTimeout bounds dropping a target's PostgreSQL schema at Close.
const schemaDropTimeout = 10 * time.Second

// Adapter opens exec targets.
type Adapter struct{}

// New returns the exec adapter.
func New() adapters.Adapter { return Adapter{} }

// Info describes the adapter and its options.
func (Adapter) Info() adapters.Info {
	return adapters.Info{
		Name:    Name,
		Summary: "a client in another process, in any language, speaking docs/protocol.md and timing its own work",
		Options: []adapters.OptionSpec{
			{Name: "command", Kind: adapters.List, Help: "the program and its arguments, e.g. [node, clients/node/bin/dbbench-client.js, lmdb] (required)"},
			{Name: "dir", Kind: adapters.String, Help: "working directory of the client (default: dbbench's)"},
			{Name: "env", Kind: adapters.Map, Secret: true, Help: "environment variables added for the client; values are redacted in reports"},
			{Name: "timeout", Kind: adapters.Duration, Default: "2m", Help: "longest wait for the reply to one request"},
			{Name: "startup_timeout", Kind: adapters.Duration, Default: "60s", Help: "longest wait for the reply to hello"},
			{Name: "client", Kind: adapters.Map, Help: "options passed verbatim to the client in open; values of keys that look secret (password, token, key, dsn) are redacted in reports"},
			{Name: "postgres", Kind: adapters.Bool, Default: "false", Help: "give the client a new schema on the run's throwaway PostgreSQL server"},
			{Name: "dsn", Kind: adapters.DSN, Help: "give the client a new schema on this PostgreSQL server (dropped at the end; nothing else is touched)"},
		},
		Builtin: workloads.Builtins,
		// Every record operation, for validation before any client is started: a target serves
		// them only when its client lists capability ops (records.go), and adapters.RecordOps of
		// the opened target says which.
		Records:         ycsb.Ops(),
		ClientWorkloads: true,
	}
}

// Open starts the client, checks the config against what it declares, and opens its store.
func (Adapter) Open(ctx context.Context, opts adapters.Options, env adapters.Env) (t adapters.Target, err error) {
	argv := opts.List("command")
	if len(argv) == 0 {
		return nil, exitcode.Usagef("option command is required: the client program and its arguments, as a list")
	}
	if opts.Bool("postgres") && opts.String("dsn") != "" {
		return nil, exitcode.Usagef("give postgres: true or a dsn, not both")
	}
	var envv []string
	for k, v := range opts.Map("env") {
		envv = append(envv, k+"="+fmt.Sprint(v))
	}
	sort.Strings(envv)
	c, err := Start(Config{
		Command: argv, Dir: opts.String("dir"), Env: envv,
		Timeout: opts.Duration("timeout"), StartupTimeout: opts.Duration("startup_timeout"), Logf: env.Logf,
	})
	if err != nil {
		return nil, unavailable{err}
	}
	tg := &target{c: c, logf: env.Logf}
	defer func() {
		if err != nil {
			tg.Close()
		}
	}()
	if tg.hello, err = c.Negotiate(ctx, DBBenchVersion()); err != nil {
		if c.exited || errors.As(err, new(*ReplyError)) {
			err = unavailable{err} // it could not start: a runtime or module missing here, most often
		}
		return nil, err
	}
	if err := checkDeclared(tg.hello, env.Workloads, opts.Map("client")); err != nil {
		return nil, err
	}
	// A client times its phases only when asked, and only one that offers them is.
	tg.profile = env.Profile
	req := protocol.Open{Options: opts.Map("client"), Size: env.Size, Seed: env.Seed, TempDir: env.TempDir,
		Profile: env.Profile && c.Has(protocol.CapPhases)}
	if env.DatasetFile == nil {
		return nil, fmt.Errorf("no person file outside the engine")
	}
	if req.Dataset, err = env.DatasetFile(); err != nil {
		return nil, err
	}
	if dsn, err := serverDSN(ctx, opts, env); err != nil {
		return nil, err
	} else if dsn != "" {
		if tg.pg, tg.dropSchema, err = PostgresSchema(ctx, dsn); err != nil {
			return nil, err
		}
		req.Postgres = tg.pg
	}
	if tg.open, err = c.Open(ctx, req); err != nil {
		return nil, err
	}
	if c.Has(protocol.CapOps) {
		return &recordTarget{target: tg, tempDir: env.TempDir}, nil // YCSB's records (records.go)
	}
	return tg, nil
}

// unavailable marks a client that could not be started or did not get through hello as missing
// infrastructure (adapters.ErrUnavailable), so that an optional target is skipped with the reason;
// the message and the exit code of a required one stay as they are.
type unavailable struct{ err error }

func (u unavailable) Error() string   { return u.err.Error() }
func (u unavailable) Unwrap() []error { return []error{u.err, adapters.ErrUnavailable} }

// checkDeclared refuses (exit 2) a config that needs a workload or option the client does not list.
func checkDeclared(h *protocol.HelloReply, workloads []string, client map[string]any) error {
	var missing []string
	for _, w := range workloads {
		if !slices.Contains(h.Workloads, w) {
			missing = append(missing, "workload "+w)
		}
	}
	for k := range client {
		if !slices.Contains(h.Options, k) {
			missing = append(missing, "option "+k)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Strings(missing)
	return exitcode.Usagef("client %s does not support %s (it lists workloads: %s; options: %s)", h.Client,
		strings.Join(missing, ", "), strings.Join(h.Workloads, ", "), listOrNone(h.Options))
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// serverDSN returns the PostgreSQL server the client gets a schema on ("" for none).
func serverDSN(ctx context.Context, opts adapters.Options, env adapters.Env) (string, error) {
	if dsn := opts.String("dsn"); dsn != "" {
		return dsn, nil
	}
	if !opts.Bool("postgres") {
		return "", nil
	}
	if env.PostgreSQL == nil {
		return "", adapters.Unavailable("no throwaway PostgreSQL server outside the engine")
	}
	return env.PostgreSQL(ctx)
}

// PostgresSchema makes a new schema for a client on the server at dsn (dbbench_exec_<random>, after
// dropping those that dead runs left there) and returns the postgres part of open that hands it to
// the client, and the function that drops it, under a deadline of its own.
func PostgresSchema(ctx context.Context, dsn string) (*protocol.Postgres, func() error, error) {
	s, err := postgres.OpenSchema(ctx, dsn, postgres.SchemaOptions{Prefix: schemaPrefix})
	if err != nil {
		return nil, nil, err
	}
	drop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), schemaDropTimeout)
		defer cancel()
		return s.Drop(ctx)
	}
	return &protocol.Postgres{DSN: dsn, Schema: s.Name}, drop, nil
}

// schemaPrefix names the schemas exec targets get on a server.
const schemaPrefix = "dbbench_exec_"

// The capabilities an exec target offers (docs/adapters.md): removing a method fails the build. The
// client times its own work, so every common workload is a Timed* one; Scan is there so that the
// target is an OrderedScanner.
var (
	_ adapters.SelfTimed         = (*target)(nil)
	_ adapters.TimedCustomRunner = (*target)(nil)
	_ adapters.ProcessOwner      = (*target)(nil)
	_ adapters.Profiler          = (*target)(nil)
)

// Profile hands the client's phases (phases_ns, when it offers them) of the next repeat's requests,
// with dbbench's round trips of those requests, to r; nil after it.
func (t *target) Profile(r *phase.Recorder) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.c.Profile(r)
}

// Processes is the client's process (with whatever it started: the engine reads the tree).
func (t *target) Processes() []adapters.Process {
	return []adapters.Process{{Role: adapters.RoleClient, PID: t.c.pid()}}
}

// target is one running client with its store open. Its requests go one at a time through one pipe,
// so mu makes it safe for concurrent use (a Scanner must be); the engine sends one at a time anyway.
type target struct {
	mu    sync.Mutex
	c     *Client
	logf  func(string, ...any)
	hello *protocol.HelloReply
	open  *protocol.Opened
	pg    *protocol.Postgres // the server and schema open gave the client, if any
	// dropSchema drops that schema, created by dbbench, at Close.
	dropSchema func() error
	closed     bool
	profile    bool // the run profiles (Env.Profile)
}

func (t *target) Load(ctx context.Context, ds *dataset.Persons) error {
	rows, err := t.c.Load(ctx)
	if err != nil {
		return err
	}
	if rows != int64(ds.Len()) {
		return t.c.fail("load stored %d persons, the dataset has %d", rows, ds.Len())
	}
	if err := t.measurePings(ctx); err != nil {
		return err
	}
	// What the client loaded, checked by a path it does not control: read back by dbbench, or the
	// challenge (protocol 2).
	return t.c.VerifyLoaded(ctx, ds, t.ScansInKeyOrder())
}

// measurePings measures the protocol's own round trip, once the client is warm (after a load).
func (t *target) measurePings(ctx context.Context) error {
	for i := 0; i < pingWarmup+pings; i++ {
		if i == pingWarmup {
			delete(t.c.RoundTrips, protocol.OpPing)
		}
		if _, err := t.c.Ping(ctx); err != nil {
			return err
		}
	}
	if err := t.c.Calibrate(ctx); err != nil {
		return err
	}
	if t.logf != nil {
		t.logf("protocol round trip (ping) p50 %s", median(t.c.RoundTrips[protocol.OpPing]))
	}
	return nil
}

// Info returns the client's handshake, its own facts and the protocol's measured cost.
func (t *target) Info() map[string]any {
	info := map[string]any{}
	if t.hello != nil {
		for k, v := range helloFacts(t.hello) {
			info[k] = v
		}
	}
	if t.open != nil && len(t.open.Info) > 0 {
		info["client_info"] = t.open.Info
	}
	proto := map[string]any{"version": t.c.Version()}
	info["verification"] = t.c.Verification()
	if p := t.c.RoundTrips[protocol.OpPing]; len(p) > 0 {
		proto["ping_p50_ns"] = median(p).Nanoseconds()
		proto["ping_p99_ns"] = quantile(p, 0.99).Nanoseconds()
	}
	cost := map[string]any{}
	for op, d := range t.c.Cost {
		cost[op] = median(d).Nanoseconds()
	}
	if len(cost) > 0 {
		// Per request kind: the protocol's cost plus whatever the client does outside its timed
		// region (an insert's fresh store and read-back, a scan's reply encoding).
		proto["round_trip_minus_reported_p50_ns"] = cost
	}
	if j, n := t.c.Judged(); n > 0 {
		// How many timed replies showed enough work beyond the protocol's cost for their times to be
		// judged (verify.go): the rest were let through unjudged, not found plausible.
		proto["replies_judged"] = j
		proto["replies_timed"] = n
	}
	if t.profile {
		proto["phases"] = "none: the client does not offer capability phases"
		if t.c.askedPhases {
			proto["phases"] = "the client's own (phases_ns), asked for in open"
		}
	}
	info["protocol"] = proto
	if t.pg != nil {
		info["postgres_schema"] = t.pg.Schema
	}
	return info
}

// Close closes the client and drops its schema.
func (t *target) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	err := t.c.Close(context.Background())
	if t.dropSchema != nil {
		if derr := t.dropSchema(); derr != nil && err == nil {
			err = derr
		}
	}
	return err
}

// ScansInKeyOrder is what the client said in open.
func (t *target) ScansInKeyOrder() bool { return t.open != nil && t.open.ScansInKeyOrder }

// Scan is TimedScan without the time; it is here so that the target is an OrderedScanner (the engine
// times the client through TimedScan).
func (t *target) Scan(ctx context.Context, n int) (adapters.Tally, error) {
	return adapters.Untimed(t.TimedScan(ctx, n))
}

func (t *target) TimedScan(ctx context.Context, n int) (adapters.Tally, time.Duration, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.c.Scan(ctx, n)
}

func (t *target) TimedLookups(ctx context.Context, _ *dataset.Persons, idx []int32, lat []time.Duration) (adapters.Tally, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.c.Lookup(ctx, idx, lat)
}

func (t *target) TimedInsert(ctx context.Context, _ *dataset.Persons, n int) (adapters.Tally, time.Duration, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.c.Insert(ctx, n)
}

func (t *target) TimedScanConcurrently(ctx context.Context, readers, rows int, lat []time.Duration) ([]adapters.Tally, time.Duration, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.c.Concurrent(ctx, readers, rows, lat)
}

func (t *target) TimedRun(ctx context.Context, name string, params map[string]any, lat []time.Duration) (adapters.Tally, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.c.Run(ctx, name, params, lat)
}

func median(d []time.Duration) time.Duration { return quantile(d, 0.5) }

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	h := report.NewHistogram()
	for _, x := range d {
		report.Record(h, x)
	}
	return time.Duration(h.ValueAtQuantile(q * 100))
}

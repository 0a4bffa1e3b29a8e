// Package adapters is the contract between the dbbench engine and a database adapter: a small
// required interface (Adapter opens a Target; a Target loads the dataset, describes itself and closes),
// plus optional capability interfaces, one per workload, that the engine detects by type assertion.
// A target supports exactly the workloads whose interfaces it implements.
//
// Timing belongs to the engine: it wraps every call of a capability in its own clock. A target that
// must time its own work inside native code (the C baselines) implements the Timed* variants instead;
// the engine then records the durations the target reports.
package adapters

import (
	"context"
	"io"
	"time"

	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// Adapter creates targets of one kind. Implementations must be safe to Open several times in one run
// (a size sweep opens a fresh target per size).
type Adapter interface {
	Info() Info
	// Open prepares a target from validated options. A bad option value is an exitcode.Usage error;
	// a server that cannot be reached is an exitcode.Infra error; missing infrastructure that makes the
	// target impossible on this machine (no Docker, no PostgreSQL binaries) wraps ErrUnavailable, so an
	// optional target can be skipped with the reason.
	Open(ctx context.Context, opts Options, env Env) (Target, error)
}

// Checker is an optional Adapter interface: Check reports, without opening or starting anything,
// every mistake in a target's options (and in the params of its adapter workloads, keyed by workload
// name) that Open, Load or PrepareWorkload would report for the given dataset. Config resolution
// calls it for every target and size (the --ci sizes too), so that `dbbench validate` refuses what
// `dbbench run` would.
type Checker interface {
	Check(opts Options, ds DatasetSpec, params map[string]Options) error
}

// DatasetSpec is the dataset a target is checked against: one size of the run (a point of a size
// sweep) and the run's seed, which together fix every byte of it (dataset.PackedBytes knows its size
// without generating it).
type DatasetSpec struct {
	Size int
	Seed int64
}

// Info describes an adapter for `dbbench list`, config validation and the report.
type Info struct {
	Name    string
	Summary string
	Options []OptionSpec
	// Workloads lists the adapter-specific workloads (beyond scan, lookup, insert and concurrent) that
	// its targets run through CustomRunner.
	Workloads []WorkloadSpec
	// Builtin lists which of the four common workloads its targets implement, for validation without
	// opening a target.
	Builtin []string
	// Records lists the YCSB record operations its targets serve (adapters.RecordOps of an opened
	// target, in ycsb.Ops order), for validation of a mix without opening a target: see
	// Info.MissingRecordOps. Nil: none.
	Records []ycsb.Op
	// SQL marks an adapter whose targets run sql workloads (they implement SQLRunner), for
	// validation without opening a target.
	SQL bool
	// ClientWorkloads marks an adapter whose targets learn their own workloads only once started (a
	// client in another process): configs may give it custom workloads with any params, and the
	// target refuses at Open what it cannot run. Its targets implement TimedCustomRunner.
	ClientWorkloads bool
}

// WorkloadSpec documents an adapter-specific workload and the parameters it accepts.
type WorkloadSpec struct {
	Name   string
	Help   string
	Params []OptionSpec
}

// ErrUnavailable marks an error caused by infrastructure this machine does not have. It is
// exitcode.ErrUnavailable, the same value, so that the ground packages below the adapters
// (internal/postgres) can say it too.
var ErrUnavailable = exitcode.ErrUnavailable

// Unavailable returns an error wrapping ErrUnavailable with a reason a user can act on.
func Unavailable(format string, args ...any) error { return exitcode.Unavailable(format, args...) }

// Env is what the engine gives every target.
type Env struct {
	// TempDir is a directory private to this target instance, removed by the engine after Close.
	// Stores an adapter creates by default belong here.
	TempDir string
	// Logf prints a progress line for the user (stderr); never pass secrets to it.
	Logf func(format string, args ...any)
	// Seed is the run's seed, for any randomness an adapter needs.
	Seed int64
	// Size is the dataset size of this instance (one point of a size sweep).
	Size int
	// Workloads lists the workloads this target will run, so that a target which learns what it can
	// do only once started (a client in another process) can refuse a config it cannot serve.
	Workloads []string
	// DatasetFile returns the path of this size's dataset as a person file (docs/protocol.md), written
	// once per run on first use, for clients in other processes. Nil outside the engine.
	DatasetFile func() (string, error)
	// PostgreSQL returns the DSN of a throwaway PostgreSQL server shared by every target of the run,
	// started on first use and stopped by the engine at the end of the run. The error wraps
	// ErrUnavailable when this machine can run no server. Nil outside the engine.
	PostgreSQL func(ctx context.Context) (dsn string, err error)
	// Progress tells the engine that Load is still getting somewhere. An adapter that loads over a
	// network (a server, a client in another process) should call it once as its load starts, before
	// the first request, and then as the load goes on: per row or per batch (it costs an atomic add;
	// Load is never timed). Once it has been called, the engine
	// gives up on a load that reports no progress for the config's stall_timeout: it cancels the
	// target's context with a stall as the cause, and the run stops with exit 3. A load that never
	// calls it (a local store) is not watched and may take as long as it needs. Nil outside the
	// engine: call it through ProgressFunc.
	Progress func()
	// Secret registers a secret the target received rather than was given (the session token of a
	// sign-in): from then on the run masks it in everything it prints, logs or stores, as it masks the
	// config's passwords. Call it as soon as the secret arrives, before it is sent anywhere, so that
	// no error quoting it (a server echoing a request's Authorization header) can get out first. Nil
	// outside the engine: call it through SecretFunc.
	Secret func(value string)
	// Store says whose store this is (docs/shards.md, "One store on a server"): the target's own
	// (the zero value), one loaded once for the shards that follow (StoreKeep), or one a load-only
	// run left, which the target only attaches to (StoreAttach). Only an adapter whose SharedStore
	// accepts the options is given anything but StoreOwn.
	Store StoreUse
	// Profile says the run profiles phases (dbbench run --profile): a target whose client in another
	// process times its phases only when asked asks it at Open. The recorder itself comes through
	// Profiler.
	Profile bool
}

// StoreUse is how a target treats its store: made, loaded and dropped by it (StoreOwn); made and
// loaded, then left in place on Close (StoreKeep: dbbench run --load-only); or left by such a load,
// so that Open makes nothing, Load and LoadRecords check what is there instead of loading, and
// Close drops nothing (StoreAttach: a shard of a run against one shared server).
type StoreUse int

const (
	StoreOwn StoreUse = iota
	StoreKeep
	StoreAttach
)

// StoreSharer is an optional Adapter interface: SharedStore says whether targets with these options
// work on one store that several processes can reach and name alike (a server's schema the user
// gives), so that shards can share it loaded once; the error says what is missing.
type StoreSharer interface {
	SharedStore(opts Options) error
}

// SecretFunc returns Secret, or a function that does nothing when Secret is nil (outside the
// engine).
func (e Env) SecretFunc() func(string) {
	if e.Secret == nil {
		return func(string) {}
	}
	return e.Secret
}

// ProgressFunc returns Progress, or a function that does nothing when Progress is nil (outside the
// engine), so that a load can call it unconditionally.
func (e Env) ProgressFunc() func() {
	if e.Progress == nil {
		return func() {}
	}
	return e.Progress
}

// Target is one opened instance of an adapter. The engine calls Load once, then workloads, then Info
// and Close. Close must release everything the target created (temp stores, containers, servers),
// including after a cancelled context. The context given to Open stays the target's: the engine
// cancels it on Ctrl-C and when the target stalls (no operation finished within stall_timeout), and
// Close should then give what it still asks of the server a short deadline.
type Target interface {
	// Load stores the dataset with the adapter's fastest bulk path. It is never timed as a workload
	// (the engine reports its duration separately as load throughput).
	Load(ctx context.Context, ds *dataset.Persons) error
	// Info returns facts for the report: versions, resolved settings, server details, sizes. It must
	// not contain secrets.
	Info() map[string]any
	io.Closer
}

// Tally is what a read produced: rows decoded and the sum of dataset.RowSum over them.
type Tally struct {
	Rows int64
	Sum  uint64
}

// Add accumulates another tally.
func (t *Tally) Add(o Tally) { t.Rows += o.Rows; t.Sum += o.Sum }

// Scanner reads n persons in one read transaction, decoding every row into a dataset.Person.
// It must be safe for concurrent use: the default concurrent workload calls it from many goroutines.
type Scanner interface {
	Scan(ctx context.Context, n int) (Tally, error)
}

// OrderedScanner is implemented by scanners that return the first n persons in email byte order,
// which lets the engine verify the checksum of a partial scan exactly.
type OrderedScanner interface {
	Scanner
	ScansInKeyOrder() bool
}

// PointReader looks up one person by email in its own read transaction (opening and closing it is
// part of the timed work). A missing person is Tally{} with a nil error.
type PointReader interface {
	Lookup(ctx context.Context, email []byte) (Tally, error)
}

// Inserter creates a fresh, empty store for the insert workload.
type Inserter interface {
	NewInsertSession(ctx context.Context) (InsertSession, error)
}

// InsertSession is one fresh store. The engine calls Begin, Insert (N times) and Commit on one
// goroutine and times them together; an adapter may lock the OS thread in Begin and unlock it in
// Commit or Close. Verify and Close are not timed.
type InsertSession interface {
	Begin(ctx context.Context) error
	Insert(ctx context.Context, p *dataset.Person) error
	Commit(ctx context.Context) error
	// Verify reads back everything committed and returns its tally.
	Verify(ctx context.Context) (Tally, error)
	// Close drops the fresh store.
	io.Closer
}

// ConcurrentScanner runs the concurrent workload itself, for adapters that need a particular strategy
// (for example opening every read transaction before any query starts). It starts readers at once,
// each scanning rows persons in its own read transaction, fills lat[i] with reader i's latency and
// returns each reader's tally and the wall time of the whole batch.
type ConcurrentScanner interface {
	ScanConcurrently(ctx context.Context, readers, rows int, lat []time.Duration) (tallies []Tally, wall time.Duration, err error)
}

// TimedScanner is a Scanner variant that times itself (inside native code).
type TimedScanner interface {
	TimedScan(ctx context.Context, n int) (Tally, time.Duration, error)
}

// TimedPointReader performs the lookups of the given dataset indices, each in its own read
// transaction, timing each one itself into lat (len(lat) == len(idx)).
type TimedPointReader interface {
	TimedLookups(ctx context.Context, ds *dataset.Persons, idx []int32, lat []time.Duration) (Tally, error)
}

// TimedInserter performs the whole insert workload itself: a fresh store, one write transaction with
// the first n persons of ds inserted one by one, commit. It returns the time from begin to commit and
// the tally of reading the store back afterwards (untimed), and drops the store.
type TimedInserter interface {
	TimedInsert(ctx context.Context, ds *dataset.Persons, n int) (verify Tally, elapsed time.Duration, err error)
}

// TimedConcurrentScanner is the self-timed ConcurrentScanner.
type TimedConcurrentScanner interface {
	TimedScanConcurrently(ctx context.Context, readers, rows int, lat []time.Duration) (tallies []Tally, wall time.Duration, err error)
}

// SelfTimed is a target that times every common workload itself (the C baselines, a client in
// another process), and also scans in key order untimed, so that the engine can check the exact
// checksum of a partial scan. Its Scan is usually Untimed(t.TimedScan(ctx, n)).
type SelfTimed interface {
	OrderedScanner
	TimedScanner
	TimedPointReader
	TimedInserter
	TimedConcurrentScanner
}

// Untimed drops the duration from a self-timed call's results: TimedScan without the time is Scan.
func Untimed(t Tally, _ time.Duration, err error) (Tally, error) { return t, err }

// CustomRunner runs adapter-specific workloads (listed in Info.Workloads).
type CustomRunner interface {
	// PrepareWorkload readies the named workload (untimed: building statements, picking keys) and
	// returns the operation the engine will time. params has been validated against the spec.
	PrepareWorkload(ctx context.Context, name string, params Options) (Op, error)
}

// TimedCustomRunner runs an adapter-specific workload whose operations the target times itself (a
// client in another process): len(lat) operations, lat[i] the latency of operation i; the tally
// covers them all. params are passed on as validated.
type TimedCustomRunner interface {
	TimedRun(ctx context.Context, name string, params map[string]any, lat []time.Duration) (Tally, error)
}

// Op is one timed operation of an adapter-specific workload. The engine calls Do with i = 0, 1, ...
// for the configured number of operations. Its result must be checked (a page has the rows it
// should): by Do itself, inside the timed region, or better by a Verifier outside it. An Op may also
// implement io.Closer (called after the workload) and Describer (its Info goes into the report, e.g.
// the query plan).
type Op interface {
	Do(ctx context.Context, i int) (Tally, error)
}

// Verifier is an Op whose result is checked outside the timed region, so that the time recorded is
// the operation's alone. Do only keeps what the check needs (the rows a client would hold anyway);
// right after each Do that succeeded, with the clock stopped, the engine calls Verify(ctx, i),
// which checks it (a write op reads back what it wrote) and returns the operation's tally, used in
// place of the one Do returned. An error fails the workload as a failed verification.
type Verifier interface {
	Op
	Verify(ctx context.Context, i int) (Tally, error)
}

// Describer adds facts to the report entry of a workload; the key "warnings" (a []string) is lifted
// into the report's warnings for that workload.
type Describer interface {
	Info() map[string]any
}

// Process is a process that does a target's work outside dbbench: a client (exec) or a server
// dbbench started for it.
type Process struct {
	Role string // RoleClient or RoleServer
	PID  int
}

// The roles of a target's processes.
const (
	RoleClient = "client"
	RoleServer = "server"
)

// Profiler is a target (or an Op) that can split its timed operations into phases (dbbench run
// --profile, docs/profile.md). Before each timed repeat the engine profiles, it calls Profile with a
// fresh recorder, and after it Profile(nil); the target marks its phases' boundaries on whatever
// it was last given (phase.Recorder's methods do nothing on nil, so an unprofiled run reads no extra
// clock). Profile is never called during a repeat.
type Profiler interface {
	Profile(r *phase.Recorder)
}

// ProcessOwner is a target whose work runs in processes of its own (a client: RoleClient) or on a
// server it started for itself (RoleServer): the engine reads their resident sets (memory figures,
// docs/memory.md) and what they read from storage from /proc around each timed repeat. A target
// with no RoleClient process does its work in dbbench's process.
type ProcessOwner interface {
	Processes() []Process
}

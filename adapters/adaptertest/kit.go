// Package adaptertest is the conformance kit every adapter runs in its tests. It opens targets the
// way the engine does (a private temp dir, the run's size and seed, a person file for clients in
// other processes) and checks, for each capability a target has, what a correct one does: scans and
// lookups return the dataset's rows and checksums, an insert session writes a fresh store that reads
// back exactly, readers run at once, YCSB records read, update, insert and scan as they should,
// Close removes what the target made and nothing else, a cancelled context ends a call promptly,
// and self-timed calls report times they could have taken.
//
//	func TestKit(t *testing.T) {
//		adaptertest.Run(t, adaptertest.Target{
//			Open:      adaptertest.Opener(mystore.New(), map[string]any{"cache": "64MiB"}),
//			Workloads: mystore.New().Info().Builtin,
//		})
//	}
//
// Each check is also an exported function taking a testing.TB (CheckScan, CheckLookup, ...), so
// that a test can run one alone, and the kit's own tests can run them against broken targets.
package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/workloads"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// Target describes the targets of one adapter configuration.
type Target struct {
	// Open opens a fresh, empty target. env is what the engine gives a target: a new empty TempDir,
	// Size, Seed, Workloads, Logf and DatasetFile; Open may fill in the rest (PostgreSQL). ctx is the
	// target's context for its whole life, as the engine's is: the cancellation check cancels it.
	// Opener builds one from an adapter and its options.
	Open func(ctx context.Context, env adapters.Env) (adapters.Target, error)
	// OpenAt, when set, opens a target whose store lives at path (the adapter's path option): a path
	// that does not exist yet, in a directory of the user's that holds a file of theirs. The close
	// check then requires the target to store something there and Close to remove it, and only it.
	OpenAt func(ctx context.Context, env adapters.Env, path string) (adapters.Target, error)
	// Remains, when set, lists what a target may create outside its temp dir (the schemas of a
	// PostgreSQL database, the databases of a server). The close check requires the same list after
	// Close as before Open; the cancellation check accepts more only when the target registered it
	// for removal by hand (cleanup.Register), as Close after an interrupted run may have to.
	Remains func(t testing.TB) []string
	// Workloads lists the common workloads the target offers, usually the adapter's Info().Builtin;
	// the target must implement the capability of each and of no other (default workloads.Builtins).
	Workloads []string
	// RecordOps lists the YCSB operation types the target serves through the record capabilities
	// (adapters/records.go), as adapters.RecordOps names them: the record check requires exactly
	// these and checks each. Nil: none (a target that holds no records).
	RecordOps []ycsb.Op
	// SQL says the target runs sql workloads (adapters.SQLRunner, usually the adapter's Info().SQL):
	// CheckSQL checks it then, and that the target does not claim it otherwise.
	SQL bool
	// Size is the number of persons loaded, and of records (default 300); Seed the dataset's seed
	// (default 1).
	Size int
	Seed int64
	// ScanSizes adds partial scan sizes to the kit's own (an adapter's batch boundaries, say).
	ScanSizes []int
	// Uninterruptible names the common workloads whose calls do not look at their context, each with
	// the reason (a local call that never blocks, between which the engine's loop checks the context
	// itself). For those the cancellation check accepts a call that completes correctly after the
	// cancellation; it still must return within CancelWait.
	Uninterruptible map[string]string
	// CancelWait bounds how long a call may take to return once its context is cancelled (default
	// 5s).
	CancelWait time.Duration
	// LeavesTempDir, when set, says why the target may leave what it made in its temp dir for the
	// engine to remove (a client in another process: docs/protocol.md lets it). The close check then
	// only requires the file placed there beforehand to stay, unchanged.
	LeavesTempDir string

	// shared is the loaded target Run gives the checks that leave it as they found it (capabilities,
	// scan, lookup, insert, concurrent), as the engine runs every workload on one target; a check
	// called alone opens its own.
	shared *instance
	// sharedRecordOps is what the shared target served of the record operations, set by Run, so
	// that the record check of a target without records needs no target of its own.
	sharedRecordOps *[]ycsb.Op
}

// Default sizes of the kit's targets.
const (
	defaultSize       = 300
	defaultCancelWait = 5 * time.Second
	// closeWait bounds Close: a target that cannot drop what it made within it hangs the run.
	closeWait = time.Minute
	// readers is how many readers the concurrent check starts at once.
	readers = 4
)

func (tg Target) size() int {
	if tg.Size > 0 {
		return tg.Size
	}
	return defaultSize
}

func (tg Target) seed() int64 {
	if tg.Seed != 0 {
		return tg.Seed
	}
	return 1
}

func (tg Target) workloads() []string {
	if tg.Workloads == nil {
		return workloads.Builtins
	}
	return tg.Workloads
}

func (tg Target) offers(w string) bool { return slices.Contains(tg.workloads(), w) }

func (tg Target) cancelWait() time.Duration {
	if tg.CancelWait > 0 {
		return tg.CancelWait
	}
	return defaultCancelWait
}

// Run runs every check on targets of tg, each in a subtest named after it. The checks that leave a
// target as they found it share one; the close and cancellation checks open their own.
func Run(t *testing.T, tg Target) {
	t.Helper()
	if tg.Open == nil {
		t.Fatal("adaptertest: Target.Open is required")
	}
	tg.shared = tg.open(t, true)
	for _, c := range []struct {
		name  string
		check func(testing.TB, Target)
	}{
		{"capabilities", CheckCapabilities},
		{"scan", CheckScan},
		{"lookup", CheckLookup},
		{"insert", CheckInsert},
		{"concurrent", CheckConcurrent},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, tg) })
	}
	recordOps := adapters.RecordOps(tg.shared.Target)
	tg.sharedRecordOps = &recordOps
	// Closed before the checks that open their own: a target may be alone in its store (a schema
	// of the user's holds one person table).
	if err := tg.shared.close(); err != nil {
		t.Errorf("close: %v", err)
	}
	tg.shared = nil
	t.Run("records", func(t *testing.T) { CheckRecords(t, tg) })
	t.Run("sql", func(t *testing.T) { CheckSQL(t, tg) })
	t.Run("close", func(t *testing.T) { CheckClose(t, tg) })
	t.Run("cancel", func(t *testing.T) { CheckCancel(t, tg) })
}

// Opener returns an Open function for a Target: it parses raw against the adapter's option specs
// and opens a target with them.
func Opener(a adapters.Adapter, raw map[string]any) func(context.Context, adapters.Env) (adapters.Target, error) {
	return func(ctx context.Context, env adapters.Env) (adapters.Target, error) {
		opts, err := adapters.ParseOptions(a.Info().Options, raw)
		if err != nil {
			return nil, err
		}
		return a.Open(ctx, opts, env)
	}
}

// OpenerAt returns an OpenAt function for a Target: Opener with the path in option pathOption.
func OpenerAt(a adapters.Adapter, raw map[string]any, pathOption string) func(context.Context, adapters.Env, string) (adapters.Target, error) {
	return func(ctx context.Context, env adapters.Env, path string) (adapters.Target, error) {
		withPath := map[string]any{pathOption: path}
		for k, v := range raw {
			if k != pathOption {
				withPath[k] = v
			}
		}
		return Opener(a, withPath)(ctx, env)
	}
}

// Capabilities returns the common workloads a target implements, in workloads.Builtins order, as
// the engine runs them: scan through a Scanner or TimedScanner, lookup through a PointReader or
// TimedPointReader, insert through an Inserter or TimedInserter, and concurrent through a
// ConcurrentScanner, a TimedConcurrentScanner, or a Scanner (the engine's default starts readers
// that call Scan).
func Capabilities(target adapters.Target) []string {
	has := map[string]bool{}
	switch target.(type) {
	case adapters.Scanner, adapters.TimedScanner:
		has[workloads.Scan] = true
	}
	switch target.(type) {
	case adapters.PointReader, adapters.TimedPointReader:
		has[workloads.Lookup] = true
	}
	switch target.(type) {
	case adapters.Inserter, adapters.TimedInserter:
		has[workloads.Insert] = true
	}
	switch target.(type) {
	case adapters.Scanner, adapters.ConcurrentScanner, adapters.TimedConcurrentScanner:
		has[workloads.Concurrent] = true
	}
	var out []string
	for _, w := range workloads.Builtins {
		if has[w] {
			out = append(out, w)
		}
	}
	return out
}

// CheckBuiltin checks that an adapter's Info agrees with what its (opened) target implements: the
// common workloads of Info().Builtin are exactly the target's Capabilities, the record operations
// of Info().Records exactly adapters.RecordOps of the target (at most, for an adapter whose targets
// learn their capabilities from a client: ClientWorkloads), and a target runs
// adapter-specific workloads (CustomRunner or TimedCustomRunner) exactly when Info lists some or
// takes the client's (ClientWorkloads).
func CheckBuiltin(t testing.TB, info adapters.Info, target adapters.Target) {
	t.Helper()
	sameWorkloads(t, fmt.Sprintf("adapter %s declares (Info().Builtin)", info.Name), info.Builtin, Capabilities(target))
	var custom bool
	switch target.(type) {
	case adapters.CustomRunner, adapters.TimedCustomRunner:
		custom = true
	}
	declared, implemented := sortedOps(info.Records), adapters.RecordOps(target)
	if info.ClientWorkloads {
		// A client says what it serves only once started: Info().Records is what any client may
		// offer, and a target serves a part of it.
		for _, op := range implemented {
			if !slices.Contains(declared, op) {
				t.Errorf("adapter %s declares the record operations (Info().Records) %v, but its target implements %s", info.Name, declared, op)
			}
		}
	} else if !slices.Equal(declared, implemented) {
		t.Errorf("adapter %s declares the record operations (Info().Records) %v, but its target implements those of %v (adapters.RecordOps)",
			info.Name, declared, implemented)
	}
	if _, ok := target.(adapters.SQLRunner); ok != info.SQL {
		t.Errorf("adapter %s: Info().SQL is %v, but its target implements adapters.SQLRunner: %v", info.Name, info.SQL, ok)
	}
	if declared := len(info.Workloads) > 0 || info.ClientWorkloads; declared != custom {
		t.Errorf("adapter %s: Info lists adapter-specific workloads: %v, but its target implements CustomRunner or TimedCustomRunner: %v",
			info.Name, declared, custom)
	}
}

// CheckCapabilities checks that a target implements the capability of every workload tg.Workloads
// lists, and of no other.
func CheckCapabilities(t testing.TB, tg Target) {
	in := tg.shared
	if in == nil {
		in = tg.open(t, false)
	}
	sameWorkloads(t, "the test says the target offers (Target.Workloads)", tg.workloads(), Capabilities(in.Target))
}

func sameWorkloads(t testing.TB, what string, declared, implemented []string) {
	t.Helper()
	d := slices.Clone(declared)
	slices.Sort(d)
	d = slices.Compact(d)
	i := slices.Clone(implemented)
	slices.Sort(i)
	if !slices.Equal(d, i) {
		t.Errorf("%s %v, but its target implements the capabilities of %v (docs/adapters.md: one interface per workload)",
			what, declared, implemented)
	}
}

// openFor opens and loads a target for the check of workload w: the check is skipped when the
// target does not offer w, and fails when it offers w without implementing its capability.
func (tg Target) openFor(t testing.TB, w string) *instance {
	t.Helper()
	if !tg.offers(w) {
		t.Skipf("the target does not offer %s", w)
	}
	in := tg.shared
	if in == nil {
		in = tg.open(t, true)
	}
	if !slices.Contains(Capabilities(in.Target), w) {
		t.Fatalf("the target offers %s but implements none of its interfaces (docs/adapters.md)", w)
	}
	return in
}

// instance is one target the kit opened, with its dataset and its context.
type instance struct {
	adapters.Target
	ds     *dataset.Persons
	env    adapters.Env
	ctx    context.Context
	cancel context.CancelFunc
	// closed is set once the kit closed it; abandoned, once a call of it never returned (closing
	// it then would race with that call).
	closed, abandoned bool
}

// open opens a target of tg in a new temp dir and, when load is set, loads the dataset; it is
// closed at the end of the test.
func (tg Target) open(t testing.TB, load bool) *instance {
	t.Helper()
	return tg.openWith(t, load, t.TempDir(), tg.Open)
}

func (tg Target) openWith(t testing.TB, load bool, dir string, open func(context.Context, adapters.Env) (adapters.Target, error)) *instance {
	t.Helper()
	ds := tg.dataset(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	env := tg.env(t, ds, dir)
	target, err := open(ctx, env)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	in := &instance{Target: target, ds: ds, env: env, ctx: ctx, cancel: cancel}
	t.Cleanup(func() {
		if !in.closed && !in.abandoned {
			if err := in.close(); err != nil {
				t.Errorf("close: %v", err)
			}
		}
	})
	if load {
		if err := target.Load(ctx, ds); err != nil {
			t.Fatalf("load %d persons: %v", ds.Len(), err)
		}
	}
	return in
}

// close closes the target, giving up after closeWait.
func (in *instance) close() error {
	in.closed = true
	done := make(chan error, 1)
	go func() { done <- in.Close() }()
	select {
	case err := <-done:
		return err
	case <-time.After(closeWait):
		return fmt.Errorf("Close did not return within %v", closeWait)
	}
}

// env is the Env the engine would give a target of tg.
func (tg Target) env(t testing.TB, ds *dataset.Persons, dir string) adapters.Env {
	var once sync.Once
	var path string
	var err error
	fileDir := t.TempDir() // the engine's person file lives outside the target's temp dir too
	return adapters.Env{
		TempDir: dir, Logf: logf(t), Seed: tg.seed(), Size: ds.Len(), Workloads: tg.workloads(),
		DatasetFile: func() (string, error) {
			once.Do(func() {
				path = filepath.Join(fileDir, "persons.bin")
				err = ds.WriteFile(path)
			})
			return path, err
		},
	}
}

// logf sends a target's progress lines to the test log until the test ends (a client's stderr
// may still be forwarded from another goroutine after that).
func logf(t testing.TB) func(string, ...any) {
	var mu sync.Mutex
	over := false
	t.Cleanup(func() { mu.Lock(); over = true; mu.Unlock() })
	return func(format string, args ...any) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if !over {
			t.Logf(format, args...)
		}
	}
}

var datasets sync.Map // [2]int64{size, seed} -> *dataset.Persons

func (tg Target) dataset(t testing.TB) *dataset.Persons {
	t.Helper()
	key := [2]int64{int64(tg.size()), tg.seed()}
	if ds, ok := datasets.Load(key); ok {
		return ds.(*dataset.Persons)
	}
	ds, err := dataset.Generate(tg.size(), tg.seed())
	if err != nil {
		t.Fatalf("dataset of %d persons: %v", tg.size(), err)
	}
	got, _ := datasets.LoadOrStore(key, ds)
	return got.(*dataset.Persons)
}

// remains returns tg.Remains, sorted (nil without it).
func (tg Target) remains(t testing.TB) []string {
	t.Helper()
	if tg.Remains == nil {
		return nil
	}
	r := slices.Clone(tg.Remains(t))
	slices.Sort(r)
	return r
}

// outside is what exists outside a target's temp dir: what Remains lists, and the cleanups
// registered for removal by hand (internal/cleanup) and not yet done.
type outside struct{ remains, pending []string }

func (tg Target) outside(t testing.TB) outside {
	t.Helper()
	return outside{tg.remains(t), cleanup.Pending()}
}

// checkClosed checks that what exists outside the temp dir is what existed before the target was
// opened: Close removed what the target made, and only it, and marked its cleanups done.
func (tg Target) checkClosed(t testing.TB, before outside, when string) {
	t.Helper()
	after := tg.outside(t)
	if !slices.Equal(before.remains, after.remains) {
		t.Errorf("%s: outside its temp dir there is %v, before it was opened %v: Close must remove what the target made, and only it",
			when, after.remains, before.remains)
	}
	if !slices.Equal(before.pending, after.pending) {
		t.Errorf("%s: the cleanups pending are %q, before it was opened %q: a target marks what it removed done (cleanup.Register)",
			when, after.pending, before.pending)
	}
}

// checkInterrupted checks what a target closed after its context was cancelled left outside its
// temp dir: nothing, or only what it registered for removal by hand (cleanup.Register), as a run
// cut short lists it for the user.
func (tg Target) checkInterrupted(t testing.TB, before outside, when string) {
	t.Helper()
	after := tg.outside(t)
	switch {
	case slices.Equal(before.remains, after.remains):
	case len(after.pending) > len(before.pending):
		t.Logf("%s: left %v outside its temp dir (before it was opened: %v), registered for removal by hand: %q",
			when, after.remains, before.remains, after.pending[len(before.pending):])
	default:
		t.Errorf("%s: left %v outside its temp dir (before it was opened: %v) without registering it for removal by hand (cleanup.Register)",
			when, after.remains, before.remains)
	}
}

// files lists the files and directories under dir, relative to it, with each file's content.
func files(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case rel == ".":
		case d.IsDir():
			out[rel+"/"] = ""
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("list %s: %v", dir, err)
	}
	return out
}

// describe lists the names of a files map, for messages.
func describe(m map[string]string) string {
	names := slices.Sorted(maps.Keys(m))
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, ", ")
}

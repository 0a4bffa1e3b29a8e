package adaptertest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/adapters/memory"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/workloads"
)

// record runs one check of the kit on a target with a Recorder.
func record(t *testing.T, check func(testing.TB, adaptertest.Target), tg adaptertest.Target) *adaptertest.Recorder {
	return adaptertest.Record(t, func(tb testing.TB) { check(tb, tg) })
}

// store is a memory target that can be broken in one named way (breaks), as a real adapter might be.
type store struct {
	adapters.Target
	sc     adapters.OrderedScanner
	pr     adapters.PointReader
	in     adapters.Inserter
	breaks string
	env    adapters.Env
	ds     *dataset.Persons
	path   string // OpenAt's
	schema string // its entry on the server
	done   func() // marks the schema's cleanup done
	// inflight counts scans running now; stale is what the previous insert session read back.
	inflight atomic.Int32
	stale    adapters.Tally
	closes   int
}

// release ends the calls of "hang" targets once the test is over.
var release = make(chan struct{})

func TestMain(m *testing.M) {
	code := m.Run()
	close(release)
	os.Exit(code)
}

// server stands for what targets create outside their temp dir (a server's schemas), registered for
// removal by hand until dropped; "leave-remains" targets forget to drop theirs but say they did,
// "leave-registered" ones leave theirs registered, "forget-done" ones drop theirs and leave it
// registered.
var server sync.Map

func serverRemains(testing.TB) []string {
	var out []string
	server.Range(func(k, _ any) bool { out = append(out, k.(string)); return true })
	return out
}

var opened atomic.Int64

func open(breaks string) func(context.Context, adapters.Env) (adapters.Target, error) {
	return func(ctx context.Context, env adapters.Env) (adapters.Target, error) {
		return openAt(breaks)(ctx, env, "")
	}
}

func openAt(breaks string) func(context.Context, adapters.Env, string) (adapters.Target, error) {
	return func(ctx context.Context, env adapters.Env, path string) (adapters.Target, error) {
		inner, err := memory.New().Open(ctx, adapters.Options{}, env)
		if err != nil {
			return nil, err
		}
		s := &store{Target: inner, breaks: breaks, env: env, path: path}
		s.sc, _ = inner.(adapters.OrderedScanner)
		s.pr, _ = inner.(adapters.PointReader)
		s.in, _ = inner.(adapters.Inserter)
		// What a store of files does: a file in its temp dir (or at its path), a schema on a server.
		file := filepath.Join(env.TempDir, "store.db")
		if path != "" && breaks != "ignore-path" {
			file = path
		}
		if err := os.WriteFile(file, []byte("rows"), 0o600); err != nil {
			return nil, err
		}
		s.schema = fmt.Sprintf("schema_%d", opened.Add(1))
		server.Store(s.schema, true)
		s.done = cleanup.Register("DROP SCHEMA " + s.schema)
		switch breaks {
		case "timed", "timed-too-long", "timed-zero":
			return &timed{Target: s, s: s}, nil
		case "no-insert":
			return struct {
				adapters.Target
				adapters.OrderedScanner
				adapters.PointReader
			}{s, s, s}, nil
		}
		return s, nil
	}
}

func (s *store) Load(ctx context.Context, ds *dataset.Persons) error {
	s.ds = ds
	return s.Target.Load(ctx, ds)
}

func (s *store) ScansInKeyOrder() bool { return true }

func (s *store) Scan(ctx context.Context, n int) (adapters.Tally, error) {
	switch s.breaks {
	case "skip-row": // reads one row more and leaves out the second
		tl, err := s.sc.Scan(ctx, n+1)
		tl.Rows--
		tl.Sum -= s.ds.Sum(int(s.ds.Sorted()[1]))
		return tl, err
	case "claims-order": // the first n in generation order, not key order
		return adapters.Tally{Rows: int64(min(n, s.ds.Len())), Sum: s.ds.SumFirst(n)}, nil
	case "ignore-cancel":
		return s.sc.Scan(context.Background(), n)
	case "hang":
		if ctx.Err() != nil { // a server that stopped answering, with a call that ignores the context
			<-release
		}
	case "unsafe-for-readers": // shares one buffer between calls: wrong when they overlap
		defer s.inflight.Add(-1)
		if s.inflight.Add(1) > 1 {
			return adapters.Tally{Rows: int64(n)}, nil
		}
		time.Sleep(time.Millisecond)
	}
	return s.sc.Scan(ctx, n)
}

func (s *store) Lookup(ctx context.Context, email []byte) (adapters.Tally, error) {
	tl, err := s.pr.Lookup(ctx, email)
	switch {
	case s.breaks == "wrong-sum" && s.ds.Find(email) == 5:
		tl.Sum++
	case s.breaks == "finds-missing" && tl.Rows == 0:
		tl.Rows = 1
	}
	return tl, err
}

func (s *store) NewInsertSession(ctx context.Context) (adapters.InsertSession, error) {
	in, err := s.in.NewInsertSession(ctx)
	return &session{InsertSession: in, s: s}, err
}

func (s *store) Close() error {
	s.closes++
	switch {
	case s.breaks == "close-twice-fails" && s.closes > 1:
		return errors.New("already closed")
	case s.breaks == "remove-neighbour":
		entries, _ := os.ReadDir(s.env.TempDir)
		for _, e := range entries {
			os.RemoveAll(filepath.Join(s.env.TempDir, e.Name()))
		}
		return nil
	case s.breaks == "remove-user-dir" && s.path != "":
		return os.RemoveAll(filepath.Dir(s.path))
	}
	if s.breaks != "leave-file" {
		os.Remove(filepath.Join(s.env.TempDir, "store.db"))
		if s.path != "" {
			os.Remove(s.path)
		}
	}
	if s.breaks != "leave-remains" && s.breaks != "leave-registered" {
		server.Delete(s.schema)
	}
	if s.breaks != "leave-registered" && s.breaks != "forget-done" {
		s.done()
	}
	return s.Target.Close()
}

type session struct {
	adapters.InsertSession
	s      *store
	n      int
	closes int
}

func (x *session) Insert(ctx context.Context, p *dataset.Person) error {
	if x.n++; x.s.breaks == "lose-write" && x.n == 7 {
		return nil
	}
	return x.InsertSession.Insert(ctx, p)
}

func (x *session) Verify(ctx context.Context) (adapters.Tally, error) {
	tl, err := x.InsertSession.Verify(ctx)
	if x.s.breaks == "not-fresh" { // the previous session's rows are still there
		tl, x.s.stale = adapters.Tally{Rows: tl.Rows + x.s.stale.Rows, Sum: tl.Sum + x.s.stale.Sum}, tl
	}
	return tl, err
}

func (x *session) Close() error {
	if x.closes++; x.s.breaks == "session-close-twice-fails" && x.closes > 1 {
		return errors.New("store already dropped")
	}
	return x.InsertSession.Close()
}

// timed is a store that times itself, as the C baselines and clients in other processes do, and
// has only the Timed* capabilities; "timed-too-long" reports more time than the call took,
// "timed-zero" none.
type timed struct {
	adapters.Target
	s *store
}

func (t *timed) report(d time.Duration) time.Duration {
	switch t.s.breaks {
	case "timed-too-long":
		return d + time.Second
	case "timed-zero":
		return 0
	}
	return d
}

func (t *timed) TimedScan(ctx context.Context, n int) (adapters.Tally, time.Duration, error) {
	start := time.Now()
	tl, err := t.s.Scan(ctx, n)
	return tl, t.report(time.Since(start)), err
}

func (t *timed) TimedLookups(ctx context.Context, ds *dataset.Persons, idx []int32, lat []time.Duration) (adapters.Tally, error) {
	var sum adapters.Tally
	for i, k := range idx {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		start := time.Now()
		tl, err := t.s.Lookup(ctx, ds.Email(int(k)))
		lat[i] = max(time.Since(start), 1)
		if err != nil {
			return sum, err
		}
		sum.Add(tl)
	}
	return sum, nil
}

func (t *timed) TimedInsert(ctx context.Context, ds *dataset.Persons, n int) (adapters.Tally, time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return adapters.Tally{}, 0, err
	}
	sess, err := t.s.NewInsertSession(ctx)
	if err != nil {
		return adapters.Tally{}, 0, err
	}
	defer sess.Close()
	start := time.Now()
	sess.Begin(ctx)
	for i := range n {
		p := ds.Person(i)
		sess.Insert(ctx, &p)
	}
	sess.Commit(ctx)
	d := time.Since(start)
	tl, err := sess.Verify(ctx)
	return tl, t.report(d), err
}

func (t *timed) TimedScanConcurrently(ctx context.Context, readers, rows int, lat []time.Duration) ([]adapters.Tally, time.Duration, error) {
	tallies, errs := make([]adapters.Tally, readers), make([]error, readers)
	start := time.Now()
	var wg sync.WaitGroup
	for r := range readers {
		wg.Go(func() {
			t0 := time.Now()
			tallies[r], errs[r] = t.s.Scan(ctx, rows)
			lat[r] = time.Since(t0)
		})
	}
	wg.Wait()
	return tallies, t.report(time.Since(start)), errors.Join(errs...)
}

// uninterruptible is what the memory store declares: its lookups and inserts never block.
var uninterruptible = map[string]string{
	workloads.Lookup: "a map read under a read lock: it never blocks",
	workloads.Insert: "appends to a slice: it never blocks",
}

func target(breaks string) adaptertest.Target {
	return adaptertest.Target{
		Open: open(breaks), OpenAt: openAt(breaks), Remains: serverRemains,
		Size: 200, Uninterruptible: uninterruptible, CancelWait: time.Second,
	}
}

var checks = map[string]func(testing.TB, adaptertest.Target){
	"capabilities": adaptertest.CheckCapabilities,
	"scan":         adaptertest.CheckScan,
	"lookup":       adaptertest.CheckLookup,
	"insert":       adaptertest.CheckInsert,
	"concurrent":   adaptertest.CheckConcurrent,
	"close":        adaptertest.CheckClose,
	"cancel":       adaptertest.CheckCancel,
}

// TestCorrectTargetsPass: a correct store, and a correct self-timed one, pass every check, so that
// the failures below are the breakages' alone; a target that, cut short, leaves its schema
// registered for removal by hand passes the cancellation check, and one that leaves its files in
// its temp dir for the engine, saying so, the close check.
func TestCorrectTargetsPass(t *testing.T) {
	if r := record(t, adaptertest.CheckCancel, target("leave-registered")); r.Failed() {
		t.Errorf("a target leaving its schema registered, cancel: failures %q", r.Failures())
	}
	leaves := target("leave-file")
	leaves.LeavesTempDir, leaves.OpenAt = "the engine removes it", nil // it leaves the user's path too
	if r := record(t, adaptertest.CheckClose, leaves); r.Failed() {
		t.Errorf("a target leaving its file to the engine, as declared, close: failures %q", r.Failures())
	}
	for _, breaks := range []string{"", "timed"} {
		for name, check := range checks {
			r := record(t, check, target(breaks))
			if r.Failed() || r.Skipped() {
				t.Errorf("%q target, %s: skipped %v, failures %q", breaks, name, r.Skipped(), r.Failures())
			}
		}
	}
}

// TestKitCatchesBrokenTargets runs each check against a target broken in one way, and requires the
// check to fail with a message saying what is wrong.
func TestKitCatchesBrokenTargets(t *testing.T) {
	tests := []struct {
		breaks, check, want string
		tweak               func(*adaptertest.Target)
	}{
		{"skip-row", "scan", "scan of 2: checksum", nil},
		{"skip-row", "concurrent", "reader 1 read 199 rows", nil},
		{"claims-order", "scan", "the first 66 persons in email order", nil},
		{"wrong-sum", "lookup", "want 1, ", nil},
		{"finds-missing", "lookup", "of a missing person: {Rows:1", nil},
		{"lose-write", "insert", "read back 99 rows", nil},
		{"not-fresh", "insert", "persons 50 to 115 read back 166 rows", nil},
		{"session-close-twice-fails", "insert", "insert session Close, again: store already dropped", nil},
		{"remove-neighbour", "close", "temp dir holds nothing; want only neighbour.txt", nil},
		{"remove-neighbour", "close", "neighbour.txt, placed there before, is gone or changed", func(tg *adaptertest.Target) { tg.LeavesTempDir = "the engine removes it" }},
		{"leave-file", "close", "temp dir holds neighbour.txt, store.db", nil},
		{"leave-remains", "close", "outside its temp dir there is [schema_", nil},
		{"leave-registered", "close", "outside its temp dir there is [schema_", nil},
		{"forget-done", "close", `the cleanups pending are ["DROP SCHEMA schema_`, nil},
		{"leave-remains", "cancel", "left [schema_", nil},
		{"close-twice-fails", "close", "Close, again: already closed", nil},
		{"ignore-path", "close", "stored nothing there", nil},
		{"remove-user-dir", "close", "the user's directory holds nothing", nil},
		{"ignore-cancel", "cancel", "scan: a call that started after its context was cancelled succeeded", nil},
		{"hang", "cancel", "scan: a call did not return within 200ms", func(tg *adaptertest.Target) { tg.CancelWait = 200 * time.Millisecond }},
		{"", "cancel", "lookup: a call that started after its context was cancelled succeeded", func(tg *adaptertest.Target) { tg.Uninterruptible = nil }},
		{"", "cancel", "insert: after its context was cancelled halfway", func(tg *adaptertest.Target) { tg.Uninterruptible = nil }},
		{"unsafe-for-readers", "concurrent", "4 goroutines calling Scan at once, 200 rows: reader", nil},
		{"timed-too-long", "scan", "TimedScan(1): the target reported", nil},
		{"timed-too-long", "insert", "TimedInsert of 100 persons: the target reported", nil},
		{"timed-too-long", "concurrent", "TimedScanConcurrently: wall: the target reported", nil},
		{"timed-zero", "scan", "reported 0s, want more than 0", nil},
		{"no-insert", "capabilities", "offers (Target.Workloads) [scan lookup insert concurrent], but its target implements the capabilities of [scan lookup concurrent]", nil},
		{"no-insert", "insert", "offers insert but implements none of its interfaces", nil},
		{"", "capabilities", "implements the capabilities of [scan lookup insert concurrent]", func(tg *adaptertest.Target) {
			tg.Workloads = []string{workloads.Scan, workloads.Lookup}
		}},
	}
	for _, tt := range tests {
		name := tt.breaks
		if name == "" {
			name = "correct-store"
		}
		t.Run(name+"/"+tt.check, func(t *testing.T) {
			tg := target(tt.breaks)
			if tt.tweak != nil {
				tt.tweak(&tg)
			}
			r := record(t, checks[tt.check], tg)
			if !slices.ContainsFunc(r.Failures(), func(f string) bool { return strings.Contains(f, tt.want) }) {
				t.Errorf("the %s check of a %q target: failures %q; want one containing %q", tt.check, tt.breaks, r.Failures(), tt.want)
			}
		})
	}
}

// TestBuiltin: an adapter's declared workloads are compared with what its target implements.
func TestBuiltin(t *testing.T) {
	ctx := context.Background()
	tg, err := open("no-insert")(ctx, adapters.Env{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	info := memory.New().Info()
	info.Records = nil // the wrapped store has no records: TestBuiltinRecords checks those
	r := record(t, func(tb testing.TB, _ adaptertest.Target) { adaptertest.CheckBuiltin(tb, info, tg) }, adaptertest.Target{})
	if len(r.Failures()) != 1 || !strings.Contains(r.Failures()[0], "adapter memory declares (Info().Builtin) [scan lookup insert concurrent], but its target implements the capabilities of [scan lookup concurrent]") {
		t.Errorf("failures %q", r.Failures())
	}
	info.Workloads = []adapters.WorkloadSpec{{Name: "echo"}}
	info.Builtin = adaptertest.Capabilities(tg)
	r = record(t, func(tb testing.TB, _ adaptertest.Target) { adaptertest.CheckBuiltin(tb, info, tg) }, adaptertest.Target{})
	if len(r.Failures()) != 1 || !strings.Contains(r.Failures()[0], "lists adapter-specific workloads: true, but its target implements CustomRunner or TimedCustomRunner: false") {
		t.Errorf("failures %q", r.Failures())
	}
}

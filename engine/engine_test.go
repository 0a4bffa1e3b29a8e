package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/memory"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/callgrind"
	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/workloads"
)

// fake is a test adapter: a memory store whose behaviour options break it in controlled ways, so the
// tests can prove that the engine notices work that was not done.
type fake struct {
	log *callLog
}

type callLog struct {
	mu    sync.Mutex
	calls []string
	open  int
	close int
}

func (l *callLog) add(s string) { l.mu.Lock(); l.calls = append(l.calls, s); l.mu.Unlock() }

func (f fake) Info() adapters.Info {
	return adapters.Info{
		Name:    "fake",
		Builtin: workloads.Builtins,
		Options: []adapters.OptionSpec{
			{Name: "label", Kind: adapters.String},
			{Name: "drop_row", Kind: adapters.Bool},
			{Name: "bad_sum", Kind: adapters.Bool},
			{Name: "lose_lookup", Kind: adapters.Bool},
			{Name: "unavailable", Kind: adapters.Bool},
			{Name: "max_size", Kind: adapters.Int},
			{Name: "fail_load", Kind: adapters.Bool},
			{Name: "load_stall", Kind: adapters.Bool},
			{Name: "load_sleep", Kind: adapters.Duration, Default: "0s"},
			{Name: "op_sum", Kind: adapters.Int, Default: "7"},
			{Name: "op_sleep", Kind: adapters.Duration, Default: "0s"},
			{Name: "fail_op", Kind: adapters.Int, Default: "-1"},
			{Name: "cancel_at", Kind: adapters.Int, Default: "-1"},
			{Name: "stall_at", Kind: adapters.Int, Default: "-1"},
			{Name: "fail_close", Kind: adapters.Bool},
			{Name: "verified", Kind: adapters.Bool},
			{Name: "verify_sleep", Kind: adapters.Duration, Default: "0s"},
			{Name: "fail_verify", Kind: adapters.Int, Default: "-1"},
			{Name: "log_ops", Kind: adapters.Bool},
			{Name: "cold_read", Kind: adapters.Int, Default: "0"},
		},
		Workloads: []adapters.WorkloadSpec{{Name: "echo", Help: "returns op_sum"}},
	}
}

func (f fake) Open(ctx context.Context, o adapters.Options, env adapters.Env) (adapters.Target, error) {
	if o.Bool("unavailable") {
		return nil, adapters.Unavailable("no such server here")
	}
	if m := o.Int("max_size"); m > 0 && int64(env.Size) > m {
		return nil, adapters.Unavailable("too big for this layout")
	}
	inner, _ := memory.New().Open(ctx, o, env)
	f.log.mu.Lock()
	f.log.open++
	f.log.mu.Unlock()
	// Leave a file in the target's temp dir, to check the engine removes it.
	os.WriteFile(env.TempDir+"/store", []byte("x"), 0o644)
	return &fakeTarget{Target: inner, o: o, log: f.log, openCtx: ctx, env: env}, nil
}

type fakeTarget struct {
	adapters.Target
	o      adapters.Options
	log    *callLog
	cancel context.CancelFunc
	// openCtx is the context Open was given; closedDone records whether it was done at Close.
	openCtx    context.Context
	closedDone bool
	env        adapters.Env
}

func (t *fakeTarget) Load(ctx context.Context, ds *dataset.Persons) error {
	if t.o.Bool("fail_load") {
		return errors.New("disk on fire")
	}
	if t.o.Bool("load_stall") {
		// A load over a network whose server stops answering: a few batches, then a blocked read.
		progress := t.env.ProgressFunc()
		for i := 0; i < 5; i++ {
			progress()
			time.Sleep(20 * time.Millisecond)
		}
		<-ctx.Done()
		return fmt.Errorf("copy: %w", ctx.Err())
	}
	if d := t.o.Duration("load_sleep"); d > 0 {
		// A long local load that reports no progress.
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return t.Target.Load(ctx, ds)
}

func (t *fakeTarget) Close() error {
	t.log.mu.Lock()
	t.log.close++
	t.closedDone = t.openCtx.Err() != nil
	if t.closedDone {
		t.log.calls = append(t.log.calls, t.o.String("label")+":close-after-cancel")
	}
	t.log.mu.Unlock()
	if t.o.Bool("fail_close") {
		return errors.New("server gone")
	}
	return nil
}

func (t *fakeTarget) Scan(ctx context.Context, n int) (adapters.Tally, error) {
	t.log.add(t.o.String("label") + ":scan")
	if size := t.o.Int("cold_read"); size > 0 {
		if err := t.readCold(int(size)); err != nil {
			return adapters.Tally{}, err
		}
	}
	tl, err := t.Target.(adapters.Scanner).Scan(ctx, n)
	if t.o.Bool("drop_row") {
		tl.Rows--
	}
	if t.o.Bool("bad_sum") {
		tl.Sum++
	}
	return tl, err
}

func (t *fakeTarget) readCold(size int) error {
	return readCold(filepath.Join(t.env.TempDir, "cold"), size)
}

// readCold reads a file of size bytes at path that it first drops from the page cache (made at the
// first call, which is a warm-up's), as a store read from disk would be.
func readCold(path string, size int) error {
	if _, err := os.Stat(path); err != nil {
		if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
			return err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return err
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, f)
	return err
}

func (t *fakeTarget) ScansInKeyOrder() bool { return true }

func (t *fakeTarget) Lookup(ctx context.Context, email []byte) (adapters.Tally, error) {
	if t.o.Bool("log_ops") {
		t.log.add(t.o.String("label") + ":lookup")
	}
	if t.o.Bool("lose_lookup") && email[0] == 'a' {
		return adapters.Tally{}, nil
	}
	return t.Target.(adapters.PointReader).Lookup(ctx, email)
}

func (t *fakeTarget) NewInsertSession(ctx context.Context) (adapters.InsertSession, error) {
	return t.Target.(adapters.Inserter).NewInsertSession(ctx)
}

func (t *fakeTarget) PrepareWorkload(ctx context.Context, name string, _ adapters.Options) (adapters.Op, error) {
	if t.o.Bool("verified") {
		return &checkedOp{echoOp{t: t}}, nil
	}
	return &echoOp{t: t}, nil
}

// checkedOp is an echo op checked outside the timed region: Do returns nothing, Verify the tally.
type checkedOp struct{ echoOp }

func (c *checkedOp) Do(ctx context.Context, i int) (adapters.Tally, error) {
	_, err := c.echoOp.Do(ctx, i)
	return adapters.Tally{}, err
}

func (c *checkedOp) Verify(_ context.Context, i int) (adapters.Tally, error) {
	o := c.t.o
	time.Sleep(o.Duration("verify_sleep"))
	if int64(i) == o.Int("fail_verify") {
		return adapters.Tally{}, errors.New("page 3 lost a row")
	}
	return adapters.Tally{Rows: 1, Sum: uint64(o.Int("op_sum"))}, nil
}

type echoOp struct{ t *fakeTarget }

func (e *echoOp) Do(ctx context.Context, i int) (adapters.Tally, error) {
	o := e.t.o
	if o.Bool("log_ops") {
		e.t.log.add(fmt.Sprintf("%s:%d", o.String("label"), i))
	}
	if d := o.Duration("op_sleep"); d > 0 {
		time.Sleep(d)
	}
	if int64(i) == o.Int("fail_op") {
		return adapters.Tally{}, errors.New("boom")
	}
	if int64(i) == o.Int("stall_at") {
		<-ctx.Done() // a server that stopped answering: only the context ends the wait
		return adapters.Tally{}, ctx.Err()
	}
	if int64(i) == o.Int("cancel_at") && e.t.cancel != nil {
		e.t.cancel()
	}
	return adapters.Tally{Rows: 1, Sum: uint64(o.Int("op_sum"))}, nil
}

func (e *echoOp) Info() map[string]any {
	return map[string]any{"plan": "SCAN facts", "warnings": []string{"plan sorts"}}
}

// resolvePlan parses a config from YAML and resolves it against the memory adapter and others.
func resolvePlan(t *testing.T, name, y string, others ...adapters.Adapter) (*config.Config, *config.Plan) {
	t.Helper()
	reg, err := adapters.NewRegistry(append([]adapters.Adapter{memory.New()}, others...)...)
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse(name, []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Resolve(reg, false)
	if err != nil {
		t.Fatal(err)
	}
	return c, p
}

// plan builds a plan from YAML against the memory and fake adapters.
func plan(t *testing.T, log *callLog, y string) *config.Plan {
	t.Helper()
	c, p := resolvePlan(t, "test.yaml", y, fake{log: log})
	if c.Verdict.Runs == 0 {
		p.Verdict.Runs = 1 // measured in this process; runs in workers are runs_test.go's
	}
	return p
}

func run(t *testing.T, p *config.Plan) (*report.Report, error) {
	t.Helper()
	dir := t.TempDir()
	r := &Runner{Plan: p, TempDir: dir, Environment: func() report.Environment { return report.Environment{} }}
	rep, err := r.Run(context.Background())
	left, _ := os.ReadDir(dir)
	if len(left) != 0 {
		t.Errorf("the run left %d entries in its temp dir", len(left))
	}
	return rep, err
}

func TestRunVerifiesAndMeasures(t *testing.T) {
	p := plan(t, &callLog{}, `name: t
dataset: {persons: 500}
warmup: 1
repeats: 3
workloads:
  - scan
  - {name: lookup, ops: 40}
  - {name: insert, ops: 60}
  - {name: concurrent, readers: 3, rows: 50}
targets:
  - {name: a, adapter: memory}
  - {name: b, adapter: memory}
assertions:
  - scan.rows_per_s[a] >= 0.0001 * scan.rows_per_s[b]
  - lookup.p50[a] <= 1000000 * lookup.p50[b]
`)
	rep, err := run(t, p)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != "pass" {
		t.Fatalf("verdict %s: %+v", rep.Verdict, rep.Results)
	}
	if len(rep.Results) != 8 {
		t.Fatalf("%d results, want 4 workloads x 2 targets", len(rep.Results))
	}
	ds, _ := dataset.Generate(500, 1)
	for _, x := range rep.Results {
		if x.Status != "ok" || !x.Verification.OK || len(x.Repeats) != 3 {
			t.Errorf("%s/%s: status %s, %d repeats, %s", x.Target, x.Workload, x.Status, len(x.Repeats), x.Error)
		}
		h, err := report.DecodeHistogram(x.Histogram)
		if err != nil {
			t.Fatal(err)
		}
		var wantCount int64
		switch x.Workload {
		case "scan", "insert":
			wantCount = 3 // one value per repeat
		case "lookup":
			wantCount = 3 * 40
		case "concurrent":
			wantCount = 3 * 3
		}
		if h.TotalCount() != wantCount {
			t.Errorf("%s/%s: histogram holds %d values, want %d", x.Target, x.Workload, h.TotalCount(), wantCount)
		}
		for _, f := range []string{"p50", "p99", "max", "elapsed", "ops_per_s"} {
			if x.Figures[f] <= 0 {
				t.Errorf("%s/%s: figure %s = %v", x.Target, x.Workload, f, x.Figures[f])
			}
		}
	}
	scan := rep.Find("a", "scan", 500)
	if scan.Verification.Expected != fmt.Sprintf("%016x", ds.SumFirst(500)) || scan.Repeats[0].Checksum != scan.Verification.Expected {
		t.Errorf("scan verification: %+v, repeat checksum %s", scan.Verification, scan.Repeats[0].Checksum)
	}
	if ins := rep.Find("b", "insert", 500); ins.Figures["rows"] != 60 {
		t.Errorf("insert rows = %v", ins.Figures["rows"])
	}
	if len(rep.Assertions) != 2 || rep.Assertions[0].Verdict != "pass" || len(rep.Assertions[0].PerRepeat) != 3 {
		t.Errorf("assertions: %+v", rep.Assertions)
	}
	if rep.Run.Harness.TimerNs <= 0 || rep.Run.PeakRSSBytes <= 0 {
		t.Errorf("harness %+v rss %d", rep.Run.Harness, rep.Run.PeakRSSBytes)
	}
	if len(rep.Targets[0].Instances) != 1 || rep.Targets[0].Instances[0].LoadRowsS <= 0 {
		t.Errorf("instances: %+v", rep.Targets[0].Instances)
	}
}

func TestVerificationCatchesMissingWork(t *testing.T) {
	tests := []struct {
		name, workload, option, want string
	}{
		{"scan drops a row", "scan", "drop_row", "499 rows, want 500"},
		{"scan wrong checksum", "scan", "bad_sum", "checksum"},
		{"concurrent drops a row", "{name: concurrent, readers: 2, rows: 100}", "drop_row", "reader 1 read 99 rows, want 100"},
		{"lookup misses keys", "{name: lookup, ops: 200}", "lose_lookup", "persons found, want 200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plan(t, &callLog{}, fmt.Sprintf(`name: t
dataset: {persons: 500}
repeats: 2
workloads: [%s]
targets:
  - {name: good, adapter: fake}
  - {name: bad, adapter: fake, options: {%s: true}}
`, tt.workload, tt.option))
			rep, err := run(t, p)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != "error" {
				t.Fatalf("verdict %s, want error", rep.Verdict)
			}
			bad := rep.Results[1]
			if bad.Target != "bad" || bad.Status != "failed" || !strings.Contains(bad.Error, tt.want) || bad.Verification.OK {
				t.Errorf("bad result: %s %q", bad.Status, bad.Error)
			}
			if good := rep.Results[0]; good.Status != "ok" {
				t.Errorf("good target failed: %s", good.Error)
			}
			if rep.TargetByName("bad").Status != "failed" {
				t.Errorf("target status %s", rep.TargetByName("bad").Status)
			}
		})
	}
}

func TestCrossCheck(t *testing.T) {
	tests := []struct {
		name   string
		sums   []int
		failed []bool
	}{
		{"agree", []int{7, 7, 7}, []bool{false, false, false}},
		{"one odd out", []int{7, 8, 7}, []bool{false, true, false}},
		{"no majority", []int{7, 8}, []bool{true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			y := "name: t\ndataset: {persons: 10}\nrepeats: 2\nworkloads: [{name: echo, ops: 5}]\ntargets:\n"
			for i, s := range tt.sums {
				y += fmt.Sprintf("  - {name: t%d, adapter: fake, options: {op_sum: %d}}\n", i, s)
			}
			rep, err := run(t, plan(t, &callLog{}, y))
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range rep.Results {
				if (x.Status == "failed") != tt.failed[i] {
					t.Errorf("%s: status %s (%s)", x.Target, x.Status, x.Error)
				}
			}
			// Describer info and warnings reach the report.
			if x := rep.Results[0]; x.Info["plan"] != "SCAN facts" || len(x.Warnings) != 1 {
				t.Errorf("info %v warnings %v", x.Info, x.Warnings)
			}
		})
	}
	// cross_check: false turns it off.
	rep, err := run(t, plan(t, &callLog{}, `name: t
dataset: {persons: 10}
workloads: [{name: echo, ops: 5, cross_check: false}]
targets:
  - {name: a, adapter: fake, options: {op_sum: 1}}
  - {name: b, adapter: fake, options: {op_sum: 2}}
`))
	if err != nil || rep.Verdict != "pass" {
		t.Errorf("cross_check false: %v %s", err, rep.Verdict)
	}
}

func TestFailedOperationsAreCountedSeparately(t *testing.T) {
	rep, err := run(t, plan(t, &callLog{}, `name: t
dataset: {persons: 10}
warmup: 0
repeats: 1
workloads: [{name: echo, ops: 20}]
targets:
  - {name: a, adapter: fake, options: {fail_op: 3}}
`))
	if err != nil {
		t.Fatal(err)
	}
	x := rep.Results[0]
	if x.Status != "failed" || !strings.Contains(x.Error, "1 of 20 operations failed, first: boom") {
		t.Fatalf("%s %q", x.Status, x.Error)
	}
	eh, _ := report.DecodeHistogram(x.ErrorHistogram)
	h, _ := report.DecodeHistogram(x.Histogram)
	if eh.TotalCount() != 1 || h.TotalCount() != 19 || x.Repeats[0].Errors != 1 {
		t.Errorf("error histogram %d, latency histogram %d, errors %d", eh.TotalCount(), h.TotalCount(), x.Repeats[0].Errors)
	}
}

// TestVerifierOutsideTimedRegion checks that an op's Verify runs after each operation with the
// clock stopped (its 30 ms never reach the latencies), that its tally is the one recorded, and that
// a failed verification fails the result.
func TestVerifierOutsideTimedRegion(t *testing.T) {
	rep, err := run(t, plan(t, &callLog{}, `name: t
dataset: {persons: 10}
warmup: 0
repeats: 1
workloads: [{name: echo, ops: 4}]
targets:
  - {name: a, adapter: fake, options: {verified: true, verify_sleep: 30ms, op_sum: 5}}
  - {name: b, adapter: fake, options: {verified: true, fail_verify: 2}}
`))
	if err != nil {
		t.Fatal(err)
	}
	a, b := rep.Results[0], rep.Results[1]
	h, _ := report.DecodeHistogram(a.Histogram)
	if a.Status == "failed" || h.TotalCount() != 4 || h.Max() >= int64(30*time.Millisecond) {
		t.Errorf("a: %s %q, %d latencies, max %v", a.Status, a.Error, h.TotalCount(), time.Duration(h.Max()))
	}
	if r := a.Repeats[0]; r.Rows != 4 || r.Checksum != fmt.Sprintf("%016x", 4*5) {
		t.Errorf("a: tally %d rows, checksum %s; want Verify's: 4, %016x", r.Rows, r.Checksum, 4*5)
	}
	if b.Status != "failed" || !strings.Contains(b.Error, "verification failed, operation 2: page 3 lost a row") {
		t.Errorf("b: %s %q", b.Status, b.Error)
	}
	if rep.Verdict != "error" {
		t.Errorf("verdict %s, want error", rep.Verdict)
	}
}

// TestColdRepeatsWarn: a target whose timed scans read its store from disk gets a warning naming each
// repeat and what it read; one that reads from memory gets none.
func TestColdRepeatsWarn(t *testing.T) {
	skipInMemoryTemp(t)
	rep, err := run(t, plan(t, &callLog{}, `name: t
dataset: {persons: 100}
warmup: 1
repeats: 2
workloads: [scan]
targets:
  - {name: cold, adapter: fake, options: {cold_read: 4194304}}
  - {name: warm, adapter: fake}
`))
	if err != nil {
		t.Fatal(err)
	}
	cold, warm := rep.Find("cold", "scan", 0), rep.Find("warm", "scan", 0)
	if cold == nil || warm == nil || cold.Status != report.StatusOK {
		t.Fatalf("results: %+v", rep.Results)
	}
	want := regexp.MustCompile(`^timed repeats read from storage \(repeat 1 [4-9]\.\d MiB, repeat 2 [4-9]\.\d MiB\): the store was not all in memory`)
	if len(cold.Warnings) != 1 || !want.MatchString(cold.Warnings[0]) {
		t.Errorf("cold: warnings %q, want one matching %s", cold.Warnings, want)
	}
	if len(warm.Warnings) != 0 {
		t.Errorf("warm: warnings %q, want none", warm.Warnings)
	}
}

// skipInMemoryTemp skips a test whose temp files must be read from storage when they are in memory.
func skipInMemoryTemp(t *testing.T) {
	t.Helper()
	var fs unix.Statfs_t
	if err := unix.Statfs(os.TempDir(), &fs); err != nil {
		t.Fatal(err)
	}
	if fs.Type == unix.TMPFS_MAGIC || fs.Type == unix.RAMFS_MAGIC {
		t.Skipf("the temp dir %s is in memory: nothing is read from storage there", os.TempDir())
	}
}

func TestInterleavedOrder(t *testing.T) {
	log := &callLog{}
	_, err := run(t, plan(t, log, `name: t
dataset: {persons: 20}
warmup: 1
repeats: 3
workloads: [scan]
targets:
  - {name: a, adapter: fake, options: {label: A}}
  - {name: b, adapter: fake, options: {label: B}}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(log.calls, " ")
	if want := "A:scan B:scan A:scan B:scan A:scan B:scan A:scan B:scan"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	if log.open != 2 || log.close != 2 {
		t.Errorf("opened %d, closed %d", log.open, log.close)
	}
}

// With isolation: rewarm every timed repeat of a target directly follows an untimed run of the same
// workload on that target, so no other target's work comes between them; warm-ups are not doubled.
func TestRewarmIsolation(t *testing.T) {
	log := &callLog{}
	rep, err := run(t, plan(t, log, `name: t
dataset: {persons: 20}
warmup: 1
repeats: 2
isolation: rewarm
workloads: [scan]
targets:
  - {name: a, adapter: fake, options: {label: A}}
  - {name: b, adapter: fake, options: {label: B}}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(log.calls, " ")
	// Warm-up, then per repeat and target: config.DefaultRewarm (2) untimed runs and the timed one.
	if want := "A:scan B:scan A:scan A:scan A:scan B:scan B:scan B:scan A:scan A:scan A:scan B:scan B:scan B:scan"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	if rep.Run.Isolation != config.IsolationRewarm || rep.Run.Rewarm != 2 {
		t.Errorf("report isolation %q rewarm %d, want %q 2", rep.Run.Isolation, rep.Run.Rewarm, config.IsolationRewarm)
	}
	for _, x := range rep.Results {
		if len(x.Repeats) != 2 {
			t.Errorf("%s %s: %d repeats recorded, want 2 (re-warm runs are not timed)", x.Target, x.Workload, len(x.Repeats))
		}
	}
}

// A re-warm run is verified like a warm-up: work it did not do fails the result.
func TestRewarmIsVerified(t *testing.T) {
	rep, err := run(t, plan(t, &callLog{}, `name: t
dataset: {persons: 20}
warmup: 0
repeats: 2
isolation: rewarm
workloads: [scan]
targets:
  - {name: a, adapter: fake, options: {drop_row: true}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if x := rep.Results[0]; x.Status != "failed" || !strings.Contains(x.Error, "re-warm before repeat 1") {
		t.Errorf("status %q, error %q: want a failed re-warm", x.Status, x.Error)
	}
}

func TestUnavailableTargets(t *testing.T) {
	y := `name: t
dataset: {persons: 10}
workloads: [scan]
targets:
  - {name: a, adapter: memory}
  - {name: b, adapter: fake, options: {unavailable: true}, optional: %s}
assertions:
  - scan.p50[a] <= 1000000 * scan.p50[b]
`
	rep, err := run(t, plan(t, &callLog{}, fmt.Sprintf(y, "true")))
	if err != nil {
		t.Fatal(err)
	}
	if b := rep.TargetByName("b"); b.Status != "skipped" || !strings.Contains(b.Reason, "no such server") {
		t.Errorf("optional target: %+v", b)
	}
	if rep.Assertions[0].Verdict != "left_out" || rep.Verdict != "pass" {
		t.Errorf("assertion %s, verdict %s", rep.Assertions[0].Verdict, rep.Verdict)
	}

	// Every target optional and skipped: nothing was measured, and that is not a pass.
	rep, err = run(t, plan(t, &callLog{}, `name: t
dataset: {persons: 10}
workloads: [scan]
targets:
  - {name: b, adapter: fake, options: {unavailable: true}, optional: true}
`))
	if err != nil || rep.Verdict != "error" || rep.Targets[0].Status != "skipped" {
		t.Errorf("all skipped: %v, verdict %s", err, rep.Verdict)
	}

	_, err = run(t, plan(t, &callLog{}, fmt.Sprintf(y, "false")))
	if err == nil || exitcode.Of(err) != exitcode.Infra || !strings.Contains(err.Error(), "target b: unavailable on this machine: no such server here") {
		t.Errorf("required target: %v (exit %d)", err, exitcode.Of(err))
	}
}

func TestLoadFailureStopsTheRun(t *testing.T) {
	log := &callLog{}
	_, err := run(t, plan(t, log, `name: t
dataset: {persons: 10}
workloads: [scan]
targets:
  - {name: a, adapter: fake}
  - {name: b, adapter: fake, options: {fail_load: true}}
`))
	if err == nil || exitcode.Of(err) != exitcode.Infra || !strings.Contains(err.Error(), "target b: load 10 persons: disk on fire") {
		t.Errorf("%v", err)
	}
	if log.close != log.open {
		t.Errorf("opened %d targets, closed %d", log.open, log.close)
	}
}

func TestCancelCleansUp(t *testing.T) {
	log := &callLog{}
	p := plan(t, log, `name: t
dataset: {persons: 10}
warmup: 0
repeats: 2
workloads: [{name: echo, ops: 1000}]
targets:
  - {name: a, adapter: fake, options: {cancel_at: 500}}
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	r := &Runner{Plan: p, TempDir: dir}
	// The op cancels the run mid-workload, as Ctrl-C would.
	p.Targets[0].Adapter = cancelling{fake: fake{log: log}, cancel: cancel}
	rep, err := r.Run(ctx)
	if rep == nil || err == nil || !strings.Contains(err.Error(), "interrupted") || exitcode.Of(err) != exitcode.Infra {
		t.Fatalf("report %v, err %v", rep != nil, err)
	}
	// The report keeps what was measured, marked as interrupted.
	if !rep.Run.Interrupted || rep.Verdict != "error" || len(rep.Run.Errors) != 1 || len(rep.Results) != 1 {
		t.Errorf("interrupted %v, verdict %s, errors %q, %d results", rep.Run.Interrupted, rep.Verdict, rep.Run.Errors, len(rep.Results))
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 0 || log.close != 1 {
		t.Errorf("left %d entries, closed %d targets", len(left), log.close)
	}
}

// TestCleanupErrorKeepsResults: a failure to clean up (the server died after the workloads) is
// reported after the run's own outcome and never loses the results; the first failure comes first.
func TestCleanupErrorKeepsResults(t *testing.T) {
	for _, tt := range []struct {
		name, options string
		wantErr       string
	}{
		{"only cleanup fails", "{fail_close: true}", "cleaning up: close a: server gone"},
		{"a workload and the cleanup fail", "{fail_close: true, fail_load: true}", "target a: load 10 persons: disk on fire; then cleaning up: close a: server gone"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			log := &callLog{}
			p := plan(t, log, `name: t
dataset: {persons: 10}
warmup: 0
repeats: 2
workloads: [scan]
targets:
  - {name: b, adapter: fake}
  - {name: a, adapter: fake, options: `+tt.options+`}
`)
			rep, err := (&Runner{Plan: p, TempDir: t.TempDir()}).Run(context.Background())
			if err == nil || err.Error() != tt.wantErr || exitcode.Of(err) != exitcode.Infra {
				t.Fatalf("err %v (exit %d), want %q", err, exitcode.Of(err), tt.wantErr)
			}
			if rep == nil || rep.Verdict != "error" || len(rep.Run.Errors) != len(strings.Split(tt.wantErr, "; then ")) {
				t.Fatalf("report %+v", rep)
			}
		})
	}
}

type cancelling struct {
	fake
	cancel context.CancelFunc
}

func (c cancelling) Open(ctx context.Context, o adapters.Options, env adapters.Env) (adapters.Target, error) {
	t, err := c.fake.Open(ctx, o, env)
	if err == nil {
		t.(*fakeTarget).cancel = c.cancel
	}
	return t, err
}

func TestSlowdownAddsWork(t *testing.T) {
	rep, err := run(t, plan(t, &callLog{}, `name: t
dataset: {persons: 10}
warmup: 0
repeats: 1
workloads: [{name: echo, ops: 5}]
targets:
  - {name: a, adapter: fake, options: {op_sleep: 2ms}, slowdown: 50%}
`))
	if err != nil {
		t.Fatal(err)
	}
	// Every op sleeps at least 2ms and then spins for half its measured time (calibrated, so allow for
	// a faster clock than at calibration): well over 2.5ms recorded.
	if min := rep.Results[0].Figures["min"]; min < 2.5e6 {
		t.Errorf("fastest op %v ns, want about 3ms with a 50%% slowdown", min)
	}
	if got := rep.Targets[0].Slowdown; got != 0.5 {
		t.Errorf("slowdown not reported: %v", got)
	}
}

func TestSweep(t *testing.T) {
	log := &callLog{}
	rep, err := run(t, plan(t, log, `name: t
dataset: {sizes: [50, 200]}
repeats: 2
workloads: [scan, {name: lookup, ops: 50}]
targets:
  - {name: a, adapter: fake}
assertions:
  - scan.elapsed[a@max] <= 1000 * scan.elapsed[a@min]
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 4 || rep.Find("a", "scan", 200).Figures["rows"] != 200 || rep.Find("a", "scan", 50).Figures["rows"] != 50 {
		t.Errorf("results: %d", len(rep.Results))
	}
	if len(rep.Targets[0].Instances) != 2 || log.open != 2 || log.close != 2 {
		t.Errorf("instances %d, opened %d, closed %d", len(rep.Targets[0].Instances), log.open, log.close)
	}
	if rep.Assertions[0].Verdict != "pass" {
		t.Errorf("growth assertion: %+v", rep.Assertions[0])
	}
}

func TestOptionalTargetSkippedAtOneSize(t *testing.T) {
	rep, err := run(t, plan(t, &callLog{}, `name: t
dataset: {sizes: [50, 200]}
repeats: 2
workloads: [scan]
targets:
  - {name: ix, adapter: fake}
  - {name: small, adapter: fake, optional: true, options: {max_size: 100}}
assertions:
  - scan.p50[small@min] <= 1000000 * scan.p50[ix@min]
  - scan.p50[small@max] <= 1000000 * scan.p50[ix@max]
`))
	if err != nil {
		t.Fatal(err)
	}
	small := rep.TargetByName("small")
	if small.Status != "ok" || len(small.Instances) != 2 || small.Instances[0].Skipped != "" || !strings.Contains(small.Instances[1].Skipped, "too big") {
		t.Fatalf("target: %+v", small)
	}
	if rep.Find("small", "scan", 50) == nil || rep.Find("small", "scan", 200) != nil {
		t.Error("results at the wrong sizes")
	}
	if rep.Assertions[0].Verdict != "pass" {
		t.Errorf("@min: %+v", rep.Assertions[0])
	}
	if a := rep.Assertions[1]; a.Verdict != "left_out" || !strings.Contains(a.Reason, "skipped at size 200: unavailable on this machine: too big") {
		t.Errorf("@max: %+v", a)
	}
	if rep.Verdict != "pass" {
		t.Errorf("verdict %s", rep.Verdict)
	}
}

func TestSlowdownAmount(t *testing.T) {
	if newSlowdown(0) != nil {
		t.Error("a zero slowdown is calibrated")
	}
	var none *slowdown
	if none.add(time.Millisecond, 0) != 0 {
		t.Error("a nil slowdown adds time")
	}
	s := newSlowdown(0.2)
	if s.itersPerNs <= 0 || s.clockNs <= 0 {
		t.Fatalf("calibration: %+v", s)
	}
	if got := s.add(500*time.Nanosecond, 1); got != 100*time.Nanosecond {
		t.Errorf("20%% of 500ns = %v, want 100ns", got)
	}
}

// TestStaleRunDirsRemoved: run directories left by a dead run (SIGKILL) are removed by the next run;
// anything without a dead owner's mark stays.
func TestStaleRunDirsRemoved(t *testing.T) {
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	stale := filepath.Join(dir, "dbbench-run-111")
	os.MkdirAll(filepath.Join(stale, "lmdb-go-1"), 0o755)
	os.WriteFile(filepath.Join(stale, cleanup.OwnerFile), []byte(fmt.Sprintf("dbbench pid=%d host=%s\n", dead.Process.Pid, host)), 0o644)
	unmarked := filepath.Join(dir, "dbbench-run-222")
	os.MkdirAll(unmarked, 0o755)
	live := filepath.Join(dir, "dbbench-run-333")
	os.MkdirAll(live, 0o755)
	os.WriteFile(filepath.Join(live, cleanup.OwnerFile), []byte(cleanup.Owner()), 0o644)

	log := &callLog{}
	p := plan(t, log, "name: t\ndataset: {persons: 10}\nrepeats: 1\nworkloads: [scan]\ntargets: [{name: a, adapter: fake}]\n")
	if _, err := (&Runner{Plan: p, TempDir: dir}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a dead run's directory was not removed")
	}
	for _, d := range []string{unmarked, live} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed", d)
		}
	}
}

// TestStalledTargetGivesUp: a target whose operation never returns (its server stopped answering)
// is given up after stall_timeout: its workload fails with an error naming the setting, it runs
// nothing more, its cleanup sees a cancelled context (adapters then keep it short), and the other
// target runs every workload. A target whose operations keep finishing, each well under
// stall_timeout but together longer, is never taken for stalled.
func TestStalledTargetGivesUp(t *testing.T) {
	log := &callLog{}
	p := plan(t, log, `name: t
dataset: {persons: 50}
warmup: 0
repeats: 1
stall_timeout: 1s
workloads: [{name: echo, ops: 6}, scan]
targets:
  - {name: a, adapter: fake, options: {label: a, stall_at: 3}}
  - {name: slow, adapter: fake, options: {label: slow, op_sleep: 300ms}}
`)
	t0 := time.Now()
	rep, err := run(t, p)
	took := time.Since(t0)
	if err != nil {
		t.Fatalf("run error %v: a stalled target is a failed result, not a stopped run", err)
	}
	if took > 1500*time.Millisecond+2*6*300*time.Millisecond {
		t.Errorf("the run took %v", took)
	}
	got := map[string]report.Result{}
	for _, x := range rep.Results {
		got[x.Target+"/"+x.Workload] = x
	}
	if x := got["a/echo"]; x.Status == "ok" || !strings.Contains(x.Error, "stalled: no operation finished within stall_timeout 1s") {
		t.Errorf("a/echo: %s %q", x.Status, x.Error)
	}
	if _, ok := got["a/scan"]; ok {
		t.Errorf("the stalled target ran its next workload")
	}
	for _, k := range []string{"slow/echo", "slow/scan"} {
		if got[k].Status != "ok" {
			t.Errorf("%s: %s %q: the other target must run every workload, and slow operations are not a stall", k, got[k].Status, got[k].Error)
		}
	}
	if rep.Verdict != "error" || rep.Targets[0].Status != "failed" || !strings.Contains(rep.Targets[0].Reason, "stall_timeout") {
		t.Errorf("verdict %s, target a %s %q", rep.Verdict, rep.Targets[0].Status, rep.Targets[0].Reason)
	}
	if !slices.Contains(log.calls, "a:close-after-cancel") || slices.Contains(log.calls, "slow:close-after-cancel") {
		t.Errorf("cleanup contexts: %v; want only the stalled target's cancelled at Close", log.calls)
	}
	if log.close != 2 {
		t.Errorf("closed %d targets, want 2", log.close)
	}
}

// TestStalledLoadGivesUp: a target whose load reported progress and then stopped (its server stopped
// answering in the middle of a COPY) is given up after stall_timeout: the run stops with exit 3 and
// an error naming the target, the load and the setting, its Close sees a cancelled context, and every
// target is closed. A load that never reports progress is not watched: one that takes longer than
// stall_timeout completes, and its target runs its workload.
func TestStalledLoadGivesUp(t *testing.T) {
	log := &callLog{}
	p := plan(t, log, `name: t
dataset: {persons: 50}
warmup: 0
repeats: 1
stall_timeout: 1s
workloads: [scan]
targets:
  - {name: slow, adapter: fake, options: {label: slow, load_sleep: 1500ms}}
  - {name: a, adapter: fake, options: {label: a, load_stall: true}}
`)
	before := runtime.NumGoroutine()
	t0 := time.Now()
	rep, err := run(t, p)
	took := time.Since(t0)
	if err == nil || exitcode.Of(err) != exitcode.Infra {
		t.Fatalf("run error %v: want an infrastructure error (exit 3)", err)
	}
	want := "target a: load 50 persons: stalled: the load made no progress within stall_timeout 1s"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q\nwant it to start %q", err, want)
	}
	if strings.Contains(err.Error(), "slow") {
		t.Errorf("error %q: the load without progress reports was cut off", err)
	}
	// 1.5 s for the slow load, then the stall: 1 s and a tick or two after the last report.
	if took < 2500*time.Millisecond || took > 4*time.Second {
		t.Errorf("the run took %v, want the slow load (1.5s) and then the stall (about 1s)", took)
	}
	if rep == nil || rep.Verdict != "error" || len(rep.Run.Errors) == 0 || !strings.Contains(rep.Run.Errors[0], "stall_timeout") {
		t.Errorf("report: %+v", rep)
	}
	if !slices.Contains(log.calls, "a:close-after-cancel") || slices.Contains(log.calls, "slow:close-after-cancel") {
		t.Errorf("cleanup contexts: %v; want only the stalled target's cancelled at Close", log.calls)
	}
	if log.close != log.open || log.open != 2 {
		t.Errorf("opened %d targets, closed %d", log.open, log.close)
	}
	// The watchdogs are gone (a few goroutines of the runtime may come and go).
	for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the run, %d before", n, before)
	}
}

// TestUnwatchedLoadIsNotCutOff: a load that reports no progress and takes longer than stall_timeout
// (a local store) completes, and its target runs its workloads.
func TestUnwatchedLoadIsNotCutOff(t *testing.T) {
	log := &callLog{}
	rep, err := run(t, plan(t, log, `name: t
dataset: {persons: 50}
warmup: 0
repeats: 1
stall_timeout: 1s
workloads: [scan]
targets:
  - {name: slow, adapter: fake, options: {label: slow, load_sleep: 1600ms}}
`))
	if err != nil {
		t.Fatalf("run error %v", err)
	}
	if rep.Verdict != "pass" || len(rep.Results) != 1 || rep.Results[0].Status != "ok" {
		t.Errorf("verdict %s, results %+v", rep.Verdict, rep.Results)
	}
	if slices.Contains(log.calls, "slow:close-after-cancel") {
		t.Errorf("the unwatched load's target was cancelled")
	}
}

// Counting instructions turns the stall watchdog off: no goroutine wakes beside the counted thread.
func TestNoStallWatchdogWithoutALimit(t *testing.T) {
	var done atomic.Int64
	cancelled := false
	stop := watch(0, &done, func(error) { cancelled = true }, &StallError{}, true)
	time.Sleep(30 * time.Millisecond)
	stop()
	if cancelled {
		t.Error("a watch with no limit cancelled its context")
	}
	r := &Runner{Plan: &config.Plan{StallTimeout: time.Second}, Instructions: &callgrind.Counter{}}
	if got := r.stallLimit(); got != 0 {
		t.Errorf("stall limit while counting instructions = %v, want 0 (off)", got)
	}
	r.Instructions = nil
	if got := r.stallLimit(); got != time.Second {
		t.Errorf("stall limit = %v, want the plan's 1s", got)
	}
}

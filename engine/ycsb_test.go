package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/engine/load"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/schema"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// recAdapter is a tiny record store for the engine's YCSB tests: a map under a RWMutex, scanned in
// key byte order by sorting. Its options break it in controlled ways.
type recAdapter struct{}

func (recAdapter) Info() adapters.Info {
	return adapters.Info{Name: "records", Records: ycsb.Ops(), Options: []adapters.OptionSpec{
		{Name: "lie", Kind: adapters.Bool},                    // a read of a record updated at least once returns version 0's fields
		{Name: "lie_from", Kind: adapters.Int, Default: "-1"}, // the same, from the read with this number on
		{Name: "bad_scan", Kind: adapters.Bool},               // scans skip their first record
		{Name: "no_scan", Kind: adapters.Bool},                // the store has no RecordScanner
		{Name: "lose_update", Kind: adapters.Bool},
		{Name: "refuse_updates", Kind: adapters.Bool},                // every update fails (as a PostgreSQL trigger that raises would)
		{Name: "read_sleep", Kind: adapters.Duration, Default: "0s"}, // each read takes this long (honouring its context)
		{Name: "stall_at", Kind: adapters.Int, Default: "-1"},        // the read with this number holds the whole store for stall_for
		{Name: "stall_for", Kind: adapters.Duration, Default: "0s"},
		{Name: "self_time", Kind: adapters.Duration, Default: "0s"}, // reads and updates report this as their own time (SetRecordTime)
		{Name: "cold_read", Kind: adapters.Int, Default: "0"},       // every 50th read also reads this many bytes from disk
	}}
}

func (recAdapter) Open(_ context.Context, o adapters.Options, env adapters.Env) (adapters.Target, error) {
	s := &recStore{o: o, dir: env.TempDir}
	if o.Bool("no_scan") {
		return &noScan{s}, nil
	}
	return s, nil
}

type recStore struct {
	o       adapters.Options
	dir     string
	reads   atomic.Int64
	mu      sync.RWMutex
	recs    map[string][][]byte
	y       dataset.YCSB
	updated map[string]bool
}

// noScan hides recStore's ScanRecords.
type noScan struct{ s *recStore }

func (n *noScan) Info() map[string]any                         { return nil }
func (n *noScan) Close() error                                 { return nil }
func (n *noScan) Load(context.Context, *dataset.Persons) error { return nil }
func (n *noScan) LoadRecords(ctx context.Context, y dataset.YCSB, k int64) error {
	return n.s.LoadRecords(ctx, y, k)
}
func (n *noScan) InsertRecord(ctx context.Context, key []byte, fields [][]byte) error {
	return n.s.InsertRecord(ctx, key, fields)
}
func (n *noScan) ReadRecord(ctx context.Context, key []byte, dst [][]byte) ([][]byte, bool, error) {
	return n.s.ReadRecord(ctx, key, dst)
}

var (
	_ adapters.RecordLoader   = (*recStore)(nil)
	_ adapters.RecordReader   = (*recStore)(nil)
	_ adapters.RecordUpdater  = (*recStore)(nil)
	_ adapters.RecordInserter = (*recStore)(nil)
	_ adapters.RecordScanner  = (*recStore)(nil)
)

func (s *recStore) Info() map[string]any                         { return nil }
func (s *recStore) Close() error                                 { return nil }
func (s *recStore) Load(context.Context, *dataset.Persons) error { return nil }

func (s *recStore) TimesRecords() bool { return s.o.Duration("self_time") > 0 }

func (s *recStore) LoadRecords(_ context.Context, y dataset.YCSB, n int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.y, s.recs, s.updated = y, map[string][][]byte{}, map[string]bool{}
	for i := range n {
		s.recs[string(y.Key(i))] = y.Fields(i)
	}
	return nil
}

func (s *recStore) ReadRecord(ctx context.Context, key []byte, dst [][]byte) ([][]byte, bool, error) {
	if d := s.o.Duration("self_time"); d > 0 {
		adapters.SetRecordTime(ctx, d)
	}
	if d := s.o.Duration("read_sleep"); d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
	n := s.reads.Add(1) - 1
	if size := s.o.Int("cold_read"); size > 0 && n%50 == 0 {
		if err := readCold(filepath.Join(s.dir, "cold"), int(size)); err != nil {
			return nil, false, err
		}
	}
	if n == s.o.Int("stall_at") { // a stall of the whole store: every operation waits
		s.mu.Lock()
		time.Sleep(s.o.Duration("stall_for"))
		s.mu.Unlock()
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.recs[string(key)]
	if !ok {
		return nil, false, nil
	}
	lie := s.o.Bool("lie") || s.o.Int("lie_from") >= 0 && n >= s.o.Int("lie_from")
	if lie && s.updated[string(key)] {
		// The record as loaded: which record it is comes from its key.
		for i := int64(0); ; i++ {
			if string(s.y.Key(i)) == string(key) {
				r = s.y.Fields(i)
				break
			}
		}
	}
	for f := range dst {
		dst[f] = append(dst[f][:0], r[f]...)
	}
	return dst, true, nil
}

func (s *recStore) UpdateRecord(ctx context.Context, key []byte, field int, value []byte) error {
	if d := s.o.Duration("self_time"); d > 0 {
		adapters.SetRecordTime(ctx, d)
	}
	if s.o.Bool("refuse_updates") {
		return errors.New("update refused")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[string(key)]
	if !ok {
		return errors.New("no such record")
	}
	s.updated[string(key)] = true
	if !s.o.Bool("lose_update") {
		r[field] = append([]byte(nil), value...)
	}
	return nil
}

func (s *recStore) InsertRecord(_ context.Context, key []byte, fields [][]byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.recs[string(key)]; ok {
		return errors.New("duplicate key")
	}
	cp := make([][]byte, len(fields))
	for i, f := range fields {
		cp[i] = append([]byte(nil), f...)
	}
	s.recs[string(key)] = cp
	return nil
}

func (s *recStore) ScanRecords(_ context.Context, start []byte, n int) (adapters.Tally, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	keys := make([]string, 0, len(s.recs))
	for k := range s.recs {
		if k >= string(start) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if s.o.Bool("bad_scan") && len(keys) > 0 {
		keys = keys[1:]
	}
	var t adapters.Tally
	for _, k := range keys[:min(n, len(keys))] {
		t.Rows++
		t.Sum += dataset.RecordSum([]byte(k), s.recs[k])
	}
	return t, nil
}

// ycsbPlan builds a plan of YCSB workloads on the records adapter.
func ycsbPlan(t *testing.T, y string) *config.Plan {
	t.Helper()
	_, p := resolvePlan(t, "test.yaml", y, recAdapter{})
	p.Verdict.Runs = 1
	return p
}

// TestYCSBOpenLoop: ycsb-a at 1,000 ops/s for 1 s on the test's record store and the memory adapter: every operation intended is
// done, the figures say so per clock and per type, the reads were checked, the writes read back,
// and the interval log decodes with hdrhistogram-go's reader into the same counts.
func TestYCSBOpenLoop(t *testing.T) {
	p := ycsbPlan(t, `name: y
warmup: 0
repeats: 1
workloads: [ycsb-a]
ycsb: {recordcount: 500, fieldcount: 4, fieldlength: 16}
load: {rate: 1000, duration: 1s, workers: 4}
assertions:
  - ycsb-a.achieved_rate[rec] >= 900
targets: [{name: rec, adapter: records}, {name: mem, adapter: memory}]
`)
	dir := t.TempDir()
	r := &Runner{Plan: p, TempDir: dir, HlogPath: filepath.Join(dir, "r.hlog"), Environment: func() report.Environment { return report.Environment{} }}
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"rec", "mem"} { // the test's store and the memory adapter's
		checkOpenLoop(t, rep, target)
	}
	checkHlog(t, filepath.Join(dir, "r.hlog"), 2000)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(schema.Report, b); err != nil {
		t.Errorf("the report does not match its schema: %v", err)
	}
}

func checkOpenLoop(t *testing.T, rep *report.Report, target string) {
	t.Helper()
	res := rep.Find(target, "ycsb-a", 0)
	if res == nil || res.Status != report.StatusOK || res.Load == nil {
		t.Fatalf("%s: result %+v", target, res)
	}
	l := res.Load
	if l.Loop != "open" || l.Scheduled != 1000 || l.Completed != 1000 || l.Errors != 0 || l.TargetRate != 1000 {
		t.Errorf("load: %+v", l)
	}
	f := res.Figures
	if math.Abs(f["achieved_rate"]-1000) > 100 || f["target_rate"] != 1000 || f["read.count"]+f["update.count"] != 1000 {
		t.Errorf("figures: achieved %v target %v reads %v updates %v", f["achieved_rate"], f["target_rate"], f["read.count"], f["update.count"])
	}
	if f["read.count"] < 400 || f["update.count"] < 400 {
		t.Errorf("mix: %v reads, %v updates of 1000, want about half each", f["read.count"], f["update.count"])
	}
	for _, k := range []string{"response_p50", "response_p99", "response_p999", "service_p50", "service_p99", "start_lag_p99", "read.response_p99", "update.service_p99", "late", "dropped", "errors"} {
		if _, ok := f[k]; !ok {
			t.Errorf("figure %s missing", k)
		}
	}
	if f["response_p99"] < f["service_p99"] {
		t.Errorf("response p99 %v below service p99 %v: response time counts from the earlier, intended start", f["response_p99"], f["service_p99"])
	}
	if c := l.Checks; c.Reads != int64(f["read.count"]) || c.ReadBack == 0 || l.LoadPhase == nil || l.LoadPhase.Records != 500 {
		t.Errorf("checks %+v (reads %v), load phase %+v", c, f["read.count"], l.LoadPhase)
	}
	if len(rep.Assertions) != 1 || rep.Assertions[0].Verdict != report.VerdictPass {
		t.Errorf("assertions %+v", rep.Assertions)
	}
	if l.Hlog != "r.hlog" {
		t.Errorf("hlog %q", l.Hlog)
	}
}

// checkHlog decodes an interval log with hdrhistogram-go's reader: the response-time series hold
// every operation.
func checkHlog(t *testing.T, path string, want int64) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rd := hdrhistogram.NewHistogramLogReader(fh)
	var got int64
	for {
		h, err := rd.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		if strings.HasSuffix(h.Tag(), "/response") {
			if !strings.HasPrefix(h.Tag(), "rec:ycsb-a/") && !strings.HasPrefix(h.Tag(), "mem:ycsb-a/") {
				t.Errorf("tag %q", h.Tag())
			}
			got += h.TotalCount()
		}
	}
	if got != want {
		t.Errorf("the interval log's response series hold %d operations, want %d", got, want)
	}
}

// TestYCSBVerification: a store that reads stale fields, loses updates or scans the wrong records
// fails its result; the honest store passes the same workloads, closed loop and open.
func TestYCSBVerification(t *testing.T) {
	tests := []struct {
		name, workload, opt, load, want string
	}{
		{"honest, closed loop", "ycsb-a", "{}", "{workers: 4, ops: 3000}", ""},
		{"honest scans and inserts", "ycsb-e", "{}", "{workers: 4, ops: 2000}", ""},
		{"honest latest with inserts, open loop", "ycsb-d", "{}", "{rate: 4000, duration: 500ms, workers: 4}", ""},
		{"honest read-modify-write", "ycsb-f", "{}", "{workers: 4, ops: 2000}", ""},
		{"stale reads", "ycsb-a", "{lie: true}", "{workers: 4, ops: 3000}", "verification failed: a read: record user"},
		{"stale read-modify-write", "ycsb-f", "{lie: true}", "{workers: 2, ops: 2000}", "verification failed"},
		{"lost updates", "ycsb-a", "{lose_update: true}", "{workers: 4, ops: 3000}", "verification failed"},
		{"wrong scans", "ycsb-e", "{bad_scan: true}", "{workers: 1, ops: 500}", "verification failed: a scan of"},
		// Updates only: no read during the run sees the loss, the read-back after it does.
		{"lost updates, no reads", "ycsb", "{lose_update: true}", "{workers: 4, ops: 500}", "verification failed: read back after the run: record user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ycsbPlan(t, "name: y\nwarmup: 0\nrepeats: 2\nworkloads: ["+tt.workload+"]\nycsb: {recordcount: 300, fieldcount: 3, fieldlength: 8, mix: {update: 1}}\nload: "+tt.load+"\ntargets: [{name: rec, adapter: records, options: "+tt.opt+"}]\n")
			rep, _ := run(t, p)
			res := rep.Find("rec", tt.workload, 0)
			if res == nil {
				t.Fatal("no result")
			}
			if tt.want == "" {
				if res.Status != report.StatusOK || len(res.Repeats) != 2 || res.Load.Checks.Reads+res.Load.Checks.Scans == 0 {
					t.Errorf("status %s %s, %d repeats, checks %+v", res.Status, res.Error, len(res.Repeats), res.Load.Checks)
				}
				return
			}
			if res.Status != report.StatusFailed || !strings.Contains(res.Error, tt.want) {
				t.Errorf("status %s, error %q; want failed with %q", res.Status, res.Error, tt.want)
			}
		})
	}
}

// TestYCSBMissingOperationRefused: a mix needing scans on a store without RecordScanner (although
// its adapter declares scans: config refuses an undeclared one) stops the run before anything is
// loaded, as a usage error naming what is missing.
func TestYCSBMissingOperationRefused(t *testing.T) {
	p := ycsbPlan(t, "name: y\nworkloads: [ycsb-e]\ntargets: [{name: rec, adapter: records, options: {no_scan: true}}]\n")
	start := time.Now()
	_, err := run(t, p)
	if err == nil || exitcode.Of(err) != exitcode.Usage || !strings.HasSuffix(err.Error(), "cannot run workload ycsb-e (insert=0.05 scan=0.95): it cannot serve scan (no adapters.RecordScanner) (reads verify every write)") {
		t.Fatalf("got %v (exit %d)", err, exitcode.Of(err))
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("refusing took %v", time.Since(start))
	}
	// The same store serves a mix without scans.
	p = ycsbPlan(t, "name: y\nwarmup: 0\nrepeats: 1\nworkloads: [ycsb-c]\nycsb: {recordcount: 100}\nload: {ops: 200}\ntargets: [{name: rec, adapter: records, options: {no_scan: true}}]\n")
	if rep, err := run(t, p); err != nil || rep.Results[0].Status != report.StatusOK {
		t.Fatalf("ycsb-c: %v", err)
	}
}

// TestYCSBTimeout: an operation that outlasts load.timeout is cancelled through its context and
// counted as an error and timed out, per type too, never a completion nor a clock's sample; the
// run goes on, and the result fails on its error rate (every read timed out: more than 1%).
func TestYCSBTimeout(t *testing.T) {
	p := ycsbPlan(t, "name: y\nwarmup: 0\nrepeats: 1\nworkloads: [ycsb-c]\nycsb: {recordcount: 50}\nload: {rate: 200, duration: 250ms, workers: 64, timeout: 5ms}\ntargets: [{name: rec, adapter: records, options: {read_sleep: 50ms}}]\n")
	rep, _ := run(t, p)
	res := rep.Find("rec", "ycsb-c", 0)
	if res == nil || res.Load == nil || res.Status != report.StatusFailed || !strings.Contains(res.Error, "failed 100.0% of its operations (50 of 50 reads), more than load.max_error_rate 1% allows") {
		t.Fatalf("result %+v", res)
	}
	f := res.Figures
	if res.Load.Completed != 0 || res.Load.Errors != 50 || f["ops"] != 0 || f["timed_out"] != 50 || f["errors"] != 50 || f["read.errors"] != 50 || f["error_rate"] != 1 {
		t.Errorf("completed %d, errors %d, ops %v, timed out %v, errors %v, read errors %v, error rate %v; want 0, then 50 each, and 1",
			res.Load.Completed, res.Load.Errors, f["ops"], f["timed_out"], f["errors"], f["read.errors"], f["error_rate"])
	}
	if _, ok := f["service_p50"]; ok {
		t.Errorf("service p50 %v: no operation succeeded, so there is no service time", f["service_p50"])
	}
	if failed := res.Load.Types[0].Failed["p50"]; failed < 4e6 || failed > 40e6 {
		t.Errorf("failed reads' response p50 %v ns: they should end at their 5ms timeout, not after 50ms", failed)
	}
}

// TestYCSBSelfTimed: a target that times its own operations (a client in another process) has them
// on the service clock at that time, not at the worker's clock around the call (which holds the
// process boundary: here a 2 ms sleep); a read-modify-write's two calls add up.
func TestYCSBSelfTimed(t *testing.T) {
	for _, tt := range []struct {
		workload string
		figure   string
		want     float64
	}{
		{"ycsb-c", "read.service_p50", 30e3},
		{"ycsb-f", "readmodifywrite.service_p50", 60e3},
	} {
		t.Run(tt.workload, func(t *testing.T) {
			p := ycsbPlan(t, "name: y\nwarmup: 0\nrepeats: 1\nworkloads: ["+tt.workload+"]\nycsb: {recordcount: 50}\nload: {rate: 200, duration: 250ms, workers: 16}\ntargets: [{name: rec, adapter: records, options: {read_sleep: 2ms, self_time: 30us}}]\n")
			rep, _ := run(t, p)
			res := rep.Find("rec", tt.workload, 0)
			if res == nil || res.Status != report.StatusOK {
				t.Fatalf("result %+v", res)
			}
			got := res.Figures[tt.figure]
			if got < tt.want*0.99 || got > tt.want*1.01 {
				t.Errorf("%s %v ns, want the target's own %v ns (the call took 2 ms)", tt.figure, got, tt.want)
			}
		})
	}
}

// TestYCSBColdRunWarns: a run phase whose reads came partly from disk warns, as a repeat does; the
// same store reading from memory does not.
func TestYCSBColdRunWarns(t *testing.T) {
	skipInMemoryTemp(t)
	p := ycsbPlan(t, `name: y
warmup: 1
repeats: 2
workloads: [ycsb-c]
ycsb: {recordcount: 100}
load: {rate: 400, duration: 500ms, workers: 4}
targets:
  - {name: cold, adapter: records, options: {cold_read: 1048576}}
  - {name: warm, adapter: records}
`)
	rep, err := run(t, p)
	if err != nil {
		t.Fatal(err)
	}
	cold, warm := rep.Find("cold", "ycsb-c", 0), rep.Find("warm", "ycsb-c", 0)
	if cold == nil || warm == nil || cold.Status != report.StatusOK {
		t.Fatalf("results: %+v", rep.Results)
	}
	want := regexp.MustCompile(`^timed repeats read from storage \(repeat 1 [3-9]\.\d MiB, repeat 2 [3-9]\.\d MiB\)`)
	if !slices.ContainsFunc(cold.Warnings, want.MatchString) {
		t.Errorf("cold: warnings %q, want one matching %s", cold.Warnings, want)
	}
	if slices.ContainsFunc(warm.Warnings, func(w string) bool { return strings.Contains(w, "read from storage") }) {
		t.Errorf("warm: warnings %q, want none about storage", warm.Warnings)
	}
}

// TestMergeHlogs: the interval logs of two worker processes merge into one that hdrhistogram-go
// reads, every interval kept, the later worker's intervals moved by the time between their starts.
func TestMergeHlogs(t *testing.T) {
	dir := t.TempDir()
	p := &config.Plan{Name: "m"}
	var parts []string
	base := time.Now().Truncate(time.Second)
	for k, target := range []string{"rec", "rec"} {
		res, err := load.RunClosed(context.Background(), load.Config{Workers: 1, Schedule: load.Schedule{Ops: 10 * int64(k+1)}, OpTypes: []string{"read"}},
			func(int64) (int, int) { return 0, 0 }, func(context.Context, load.Op[int]) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		part := filepath.Join(dir, fmt.Sprintf("run-%d.json", k))
		w := &Runner{Plan: p, HlogPath: HlogPath(part)}
		if err := w.writeHlog(target, "ycsb-c", base.Add(time.Duration(k)*3*time.Second), res, load.Config{}); err != nil {
			t.Fatal(err)
		}
		w.closeHlog()
		parts = append(parts, part)
	}
	r := &Runner{Plan: p, HlogPath: filepath.Join(dir, "all.hlog")}
	for _, part := range parts {
		rep := &report.Report{Results: []report.Result{{Load: &report.Load{Hlog: filepath.Base(HlogPath(part))}}}}
		r.takeHlog(part, rep)
		if rep.Results[0].Load.Hlog != "all.hlog" {
			t.Errorf("a worker's result names %q", rep.Results[0].Load.Hlog)
		}
	}
	if err := r.mergeHlogs(); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(r.HlogPath)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rd := hdrhistogram.NewHistogramLogReader(fh)
	var counts []int64
	var starts []int64
	for {
		h, err := rd.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		if strings.HasSuffix(h.Tag(), "/response") {
			counts = append(counts, h.TotalCount())
			starts = append(starts, h.StartTimeMs())
		}
	}
	if len(counts) != 2 || counts[0] != 10 || counts[1] != 20 || starts[1]-starts[0] != 3000 {
		t.Errorf("response intervals: counts %v, starts %v ms; want 10 and 20, 3000 ms apart", counts, starts)
	}
}

// TestYCSBCoordinatedOmission: the store stalls once for 300 ms. In the open loop at 1,000 ops/s the
// operations intended during the stall wait for it, and response time (from the intended start)
// shows it at p99, while service time (from the actual start) does not; the closed loop over the
// same operations and stall sees it in a handful of samples only.
func TestYCSBCoordinatedOmission(t *testing.T) {
	cfg := func(load string) *config.Plan {
		return ycsbPlan(t, "name: y\nwarmup: 0\nrepeats: 1\nworkloads: [ycsb-c]\nycsb: {recordcount: 200, fieldcount: 2, fieldlength: 8}\nload: "+load+
			"\ntargets: [{name: rec, adapter: records, options: {stall_at: 300, stall_for: 300ms}}]\n")
	}
	figures := func(p *config.Plan) map[string]float64 {
		rep, err := run(t, p)
		if err != nil {
			t.Fatal(err)
		}
		res := rep.Find("rec", "ycsb-c", 0)
		if res.Status != report.StatusOK {
			t.Fatalf("%s: %s", res.Status, res.Error)
		}
		return res.Figures
	}
	open := figures(cfg("{rate: 1000, duration: 1s, workers: 4}"))
	closed := figures(cfg("{workers: 4, ops: 1000}"))
	t.Logf("open: response p99 %.1f ms, service p99 %.1f ms; closed: p99 %.1f ms, max %.1f ms",
		open["response_p99"]/1e6, open["service_p99"]/1e6, closed["response_p99"]/1e6, closed["max"]/1e6)
	if open["response_p99"] < 100e6 {
		t.Errorf("open loop response p99 %.1f ms: the 300 operations intended during the 300 ms stall should show", open["response_p99"]/1e6)
	}
	if open["service_p99"] > 50e6 || closed["response_p99"] > 50e6 {
		t.Errorf("service p99 %.1f ms, closed-loop p99 %.1f ms: a few operations met the stall, not 1%%", open["service_p99"]/1e6, closed["response_p99"]/1e6)
	}
	if closed["max"] < 250e6 {
		t.Errorf("closed-loop max %.1f ms: the stall happened in the closed loop too", closed["max"]/1e6)
	}
}

// TestYCSBErrorsApart: a store that refuses every update, under ycsb-a (half reads, half updates),
// open and closed loop: the errors are a count and a rate of their own (about half the operations),
// never a completion or a clock's sample; the achieved rate is the reads that succeeded over the
// span; the result fails on its error rate (exit 3), and with a budget that allows half, it does
// not. The sequence of operations is the seed's, so the counts are the same on any machine.
func TestYCSBErrorsApart(t *testing.T) {
	for _, tt := range []struct{ name, load string }{
		{"open loop", "{rate: 4000, ops: 4000, workers: 8"},
		{"closed loop", "{ops: 4000, workers: 4"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, budget := range []string{"", ", max_error_rate: 60%"} {
				p := ycsbPlan(t, "name: y\nwarmup: 0\nrepeats: 1\nworkloads: [ycsb-a]\nycsb: {recordcount: 200, fieldcount: 2, fieldlength: 8}\nload: "+
					tt.load+budget+"}\ntargets: [{name: rec, adapter: records, options: {refuse_updates: true}}]\n")
				rep, err := run(t, p)
				if err != nil {
					t.Fatal(err)
				}
				res := rep.Find("rec", "ycsb-a", 0)
				f, l := res.Figures, res.Load
				if rate := f["error_rate"]; math.Abs(rate-0.5) > 0.02 || f["errors"] != f["update.errors"] || f["update.count"] != 0 || f["update.error_rate"] != 1 {
					t.Errorf("error rate %v, errors %v (updates %v), update count %v: want about half, every one an update", rate, f["errors"], f["update.errors"], f["update.count"])
				}
				if f["ops"] != f["read.count"] || f["ops"]+f["errors"] != 4000 || l.Completed != int64(f["ops"]) || l.Errors != int64(f["errors"]) {
					t.Errorf("ops %v (reads %v), errors %v, load completed %d errors %d: want the reads completed and 4000 in all", f["ops"], f["read.count"], f["errors"], l.Completed, l.Errors)
				}
				if want := f["ops"] / (f["elapsed"] / 1e9); math.Abs(f["achieved_rate"]-want) > 0.02*want {
					t.Errorf("achieved %v/s, want the %v reads that succeeded over the span: %v/s", f["achieved_rate"], f["ops"], want)
				}
				if _, ok := f["update.response_p50"]; ok || l.Types[1].Op != "update" || l.Types[1].Failed == nil || l.Types[1].Response["p50"] != 0 {
					t.Errorf("the failed updates have a clock: figures %v, load type %+v", f, l.Types[1])
				}
				failed := res.Status == report.StatusFailed && strings.Contains(res.Error, "more than load.max_error_rate 1% allows; the first: update refused")
				if budget == "" && (!failed || rep.Verdict != report.VerdictError) {
					t.Errorf("status %s (%s), verdict %s: want the result failed on its error rate, exit 3", res.Status, res.Error, rep.Verdict)
				}
				if budget != "" && (res.Status != report.StatusOK || rep.Verdict == report.VerdictError) {
					t.Errorf("with max_error_rate 60%%: status %s (%s), verdict %s", res.Status, res.Error, rep.Verdict)
				}
			}
		})
	}
}

// TestYCSBClosedLoopMeasuresNoSchedule: a closed loop has no schedule, so its report has no start
// lag, late, waited, dropped or target rate (absent, not 0), and an assertion on one is an error
// (exit 3): nothing unmeasured passes.
func TestYCSBClosedLoopMeasuresNoSchedule(t *testing.T) {
	p := ycsbPlan(t, `name: y
warmup: 0
repeats: 1
workloads: [ycsb-c]
ycsb: {recordcount: 100}
load: {ops: 300, workers: 2}
assertions:
  - ycsb-c.start_lag_p99[rec] <= 1us
  - ycsb-c.late[rec] <= 0
  - ycsb-c.read.service_p99[rec] <= 1s
targets: [{name: rec, adapter: records}]
`)
	rep, err := run(t, p)
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Find("rec", "ycsb-c", 0)
	for _, k := range []string{"start_lag_p99", "read.start_lag_p99", "late", "waited", "dropped", "target_rate", "generator_late", "generator_work_per_op"} {
		if v, ok := res.Figures[k]; ok {
			t.Errorf("a closed loop reports %s = %v", k, v)
		}
	}
	if res.Load.Types[0].StartLag != nil || res.Load.Loop != "closed" {
		t.Errorf("load %+v", res.Load)
	}
	whole, _ := json.Marshal(rep)
	if err := schema.Validate(schema.Report, whole); err != nil {
		t.Errorf("the report does not match its schema: %v", err)
	}
	b, _ := json.Marshal(res.Load)
	for _, k := range []string{`"late"`, `"waited"`, `"dropped"`, `"target_rate"`, `"start_lag"`, `"generator"`, `"late_after_ns"`} {
		if strings.Contains(string(b), k+":") {
			t.Errorf("a closed loop's load section has %s: %s", k, b)
		}
	}
	verdicts := []report.Verdict{report.VerdictError, report.VerdictError, report.VerdictPass}
	for i, a := range rep.Assertions {
		if a.Verdict != verdicts[i] {
			t.Errorf("%s: %s (%s), want %s", a.Expr, a.Verdict, a.Reason, verdicts[i])
		}
	}
	if rep.Verdict != report.VerdictError || !strings.Contains(rep.Assertions[0].Reason, "closed") {
		t.Errorf("verdict %s, reason %q: want error (exit 3), naming the closed loop", rep.Verdict, rep.Assertions[0].Reason)
	}
}

// TestYCSBEveryReadChecked: reads of 10 fields of 10,000 bytes pass the verification's 64 MiB
// budget a run phase (about 1,000 reads of 100 kB, the budget 671): every one is still checked, as the run goes, and a
// store that starts lying past the budget is caught; under ycsb.check_sample the reads past it are
// counted unchecked, the result stays ok, and the method says so.
func TestYCSBEveryReadChecked(t *testing.T) {
	const base = "name: y\nwarmup: 0\nrepeats: 1\nworkloads: [ycsb-a]\nload: {ops: 2000, workers: 4}\n"
	for _, tt := range []struct {
		name, ycsb, options string
		failed, sampled     bool
	}{
		{"every read checked", "{recordcount: 20, fieldlength: 10000}", "{}", false, false},
		{"a lie past the budget caught", "{recordcount: 20, fieldlength: 10000}", "{lie_from: 800}", true, false},
		{"sampled", "{recordcount: 20, fieldlength: 10000, check_sample: true}", "{}", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := run(t, ycsbPlan(t, base+"ycsb: "+tt.ycsb+"\ntargets: [{name: rec, adapter: records, options: "+tt.options+"}]\n"))
			if err != nil {
				t.Fatal(err)
			}
			res := rep.Find("rec", "ycsb-a", 0)
			if failed := res.Status == report.StatusFailed; failed != tt.failed || failed && !strings.Contains(res.Error, "verification failed: a read: record") {
				t.Fatalf("status %s (%s), want failed %v", res.Status, res.Error, tt.failed)
			}
			if tt.failed {
				return
			}
			c, reads := res.Load.Checks, int64(res.Figures["read.count"])
			if reads < 900 {
				t.Fatalf("%d reads: too few to pass the budget", reads)
			}
			if !tt.sampled && (c.Reads != reads || c.ReadsUnchecked != 0 || !strings.HasPrefix(res.Verification.Method, "every read's fields")) {
				t.Errorf("checked %d of %d reads, %d unchecked, method %q", c.Reads, reads, c.ReadsUnchecked, res.Verification.Method)
			}
			if tt.sampled && (c.ReadsUnchecked == 0 || c.Reads+c.ReadsUnchecked != reads || !strings.Contains(res.Verification.Method, "check_sample")) {
				t.Errorf("checked %d of %d reads, %d unchecked, method %q", c.Reads, reads, c.ReadsUnchecked, res.Verification.Method)
			}
		})
	}
}

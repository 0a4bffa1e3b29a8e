package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// opLog records every operation a store was asked to do, as "op key" lines, per target name.
type opLog struct {
	mu  sync.Mutex
	ops map[string][]string
}

func (l *opLog) add(target, op string, key []byte) {
	l.mu.Lock()
	l.ops[target] = append(l.ops[target], op+" "+string(key))
	l.mu.Unlock()
}

// loggedRecords is the test's record store (recAdapter) with every operation logged.
type loggedRecords struct{ log *opLog }

func (a loggedRecords) Info() adapters.Info {
	i := recAdapter{}.Info()
	i.Name = "logged-records"
	i.Options = append(i.Options, adapters.OptionSpec{Name: "name", Kind: adapters.String})
	return i
}

func (a loggedRecords) Open(ctx context.Context, o adapters.Options, env adapters.Env) (adapters.Target, error) {
	t, _ := recAdapter{}.Open(ctx, o, env)
	return &loggedStore{recStore: t.(*recStore), name: o.String("name"), log: a.log}, nil
}

type loggedStore struct {
	*recStore
	name string
	log  *opLog
}

func (s *loggedStore) ReadRecord(ctx context.Context, key []byte, dst [][]byte) ([][]byte, bool, error) {
	s.log.add(s.name, "read", key)
	return s.recStore.ReadRecord(ctx, key, dst)
}

func (s *loggedStore) UpdateRecord(ctx context.Context, key []byte, field int, value []byte) error {
	s.log.add(s.name, "update", key)
	return s.recStore.UpdateRecord(ctx, key, field, value)
}

func (s *loggedStore) InsertRecord(ctx context.Context, key []byte, fields [][]byte) error {
	s.log.add(s.name, "insert", key)
	return s.recStore.InsertRecord(ctx, key, fields)
}

func (s *loggedStore) ScanRecords(ctx context.Context, start []byte, n int) (adapters.Tally, error) {
	s.log.add(s.name, fmt.Sprintf("scan/%d", n), start)
	return s.recStore.ScanRecords(ctx, start, n)
}

// shardRuns runs the config once whole and as each of n shards, and returns each run's operation
// log (the whole run's first) with the reports.
func shardRuns(t *testing.T, y string, n int) ([][]string, []*report.Report) {
	t.Helper()
	var logs [][]string
	var reps []*report.Report
	for i := -1; i < n; i++ {
		log := &opLog{ops: map[string][]string{}}
		_, p := resolvePlan(t, "test.yaml", y, loggedRecords{log})
		p.Verdict.Runs = 1
		if i >= 0 {
			p.Shard = &config.ShardPlan{Index: i, Total: n}
		}
		rep, err := run(t, p)
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
		logs, reps = append(logs, log.ops["rec"]), append(reps, rep)
	}
	return logs, reps
}

// counts is a multiset of lines.
func counts(lines []string) map[string]int {
	m := map[string]int{}
	for _, l := range lines {
		m[l]++
	}
	return m
}

// TestStripingUnion: the shards' operations are the one process's, each exactly once. Without
// inserts the union of the shards' operations (type and key) equals the whole run's as multisets
// and no operation is done twice; with inserts the keys inserted are the whole run's (which are the
// generator's sequence's) and no two shards insert the same (their reads of each other's records
// address their own, so only the inserts are compared). A lie that would pass: every shard doing the whole sequence (the union
// would be N times it), or shards taking the same stripe.
func TestStripingUnion(t *testing.T) {
	const head = "name: s\nseed: 7\nwarmup: 1\nrepeats: 2\ntargets: [{name: rec, adapter: logged-records, options: {name: rec}}]\n" +
		"ycsb: {recordcount: 300, fieldcount: 2, fieldlength: 8}\n"
	cases := []struct {
		name, y     string
		shards      int
		insertsOnly bool
	}{
		{"closed loop, ops not a multiple of the shards", "workloads: [ycsb-a]\nload: {ops: 203, workers: 3}\n", 4, false},
		{"open loop, constant", "workloads: [ycsb-b]\nload: {rate: 4000, ops: 400, workers: 4}\n", 4, false},
		{"open loop, poisson, 3 shards", "workloads: [ycsb-f]\nload: {rate: 4000, arrivals: poisson, duration: 100ms, workers: 4}\n", 3, false},
		{"inserts and latest", "workloads: [ycsb-d]\nload: {ops: 400, workers: 2}\n", 4, true},
		{"inserts and scans", "workloads: [ycsb-e]\nload: {ops: 200, workers: 2}\n", 2, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			logs, reps := shardRuns(t, head+c.y, c.shards)
			// A run phase's operations: the log less the read-back after the last run phase, which
			// reads every record the process wrote once. With inserts, a shard's read of another's
			// record addresses one of its own: then the inserts (keys) and each type's count compare.
			keep := func(lines []string) []string {
				written := map[string]bool{}
				for _, l := range lines {
					if op, key, _ := strings.Cut(l, " "); op == "insert" || op == "update" {
						written[key] = true
					}
				}
				var out []string
				for _, l := range slices.Backward(lines) {
					op, key, _ := strings.Cut(l, " ")
					if op == "read" && written[key] {
						delete(written, key) // the read-back: the last read of a written record
						continue
					}
					if c.insertsOnly && op != "insert" {
						continue
					}
					out = append(out, l)
				}
				return out
			}
			whole := counts(keep(logs[0]))
			if c.insertsOnly && !maps.Equal(whole, sequenceInserts(t, head+c.y)) {
				// One process redraws a read of a record whose insert is in flight: that must
				// change the read's record only, never the inserts that follow.
				t.Errorf("one process inserted %d keys, not the sequence's %d", total(whole), total(sequenceInserts(t, head+c.y)))
			}
			union := map[string]int{}
			for i, l := range logs[1:] {
				if len(l) == 0 {
					t.Errorf("shard %d did nothing", i)
				}
				for k, v := range counts(keep(l)) {
					union[k] += v
				}
			}
			if len(whole) == 0 {
				t.Fatal("the whole run did nothing")
			}
			if !maps.Equal(whole, union) {
				t.Errorf("the shards' operations are not the whole run's: %d distinct against %d (whole %d ops, union %d)",
					len(union), len(whole), total(whole), total(union))
			}
			for i, rep := range reps[1:] {
				s := rep.Run.Shard
				if s == nil || s.Index != i || s.Total != c.shards || s.StartedAt.IsZero() {
					t.Errorf("shard %d's record: %+v", i, s)
				}
				if c.insertsOnly && len(s.Notes) == 0 {
					t.Errorf("shard %d: a workload with inserts must say how its reads differ", i)
				}
			}
		})
	}
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// TestStripingLookupAndReaders: a lookup's keys are split (every key looked up once over the
// shards), concurrent readers too, and a scan runs whole on every shard.
func TestStripingLookupAndReaders(t *testing.T) {
	y := `name: s
seed: 3
dataset: {persons: 300}
warmup: 0
repeats: 1
workloads: [scan, {name: lookup, ops: 50}, {name: concurrent, readers: 5, rows: 100}]
targets: [{name: f, adapter: fake, options: {label: f, log_ops: true}}]
`
	const n = 4
	var lookups, readers, scans int64
	for i := range n {
		p := plan(t, &callLog{}, y)
		p.Shard = &config.ShardPlan{Index: i, Total: n}
		rep, err := run(t, p)
		if err != nil {
			t.Fatal(err)
		}
		lookups += rep.Find("f", "lookup", 0).Repeats[0].Ops
		readers += rep.Find("f", "concurrent", 0).Repeats[0].Ops
		scans += rep.Find("f", "scan", 0).Repeats[0].Ops
	}
	if lookups != 50 || readers != 5 || scans != n {
		t.Errorf("over %d shards: %d lookups (want 50), %d readers (want 5), %d scans (want %d)", n, lookups, readers, scans, n)
	}
}

// TestShardStartsTogether: a shard waits for --start-at after loading and records when it
// started; one that comes to it late records how late.
func TestShardStartsTogether(t *testing.T) {
	y := "name: s\nwarmup: 0\nrepeats: 1\nworkloads: [ycsb-c]\nycsb: {recordcount: 50, fieldcount: 2, fieldlength: 8}\nload: {ops: 20}\n" +
		"targets: [{name: rec, adapter: logged-records, options: {name: rec}}]\n"
	for _, c := range []struct {
		name     string
		at       time.Duration // from now
		wantLate bool
	}{{"ahead", 300 * time.Millisecond, false}, {"passed", -2 * time.Second, true}} {
		t.Run(c.name, func(t *testing.T) {
			_, p := resolvePlan(t, "test.yaml", y, loggedRecords{&opLog{ops: map[string][]string{}}})
			p.Verdict.Runs = 1
			at := time.Now().Add(c.at)
			p.Shard = &config.ShardPlan{Index: 0, Total: 2, StartAt: at, LateBound: config.DefaultLateBound}
			rep, err := run(t, p)
			if err != nil {
				t.Fatal(err)
			}
			s := rep.Run.Shard
			if s.StartedAt.Before(at) {
				t.Errorf("started at %v, before the start %v", s.StartedAt, at)
			}
			if s.Late != c.wantLate || (c.wantLate && time.Duration(s.LateNs) < -c.at) {
				t.Errorf("late %v by %v, want late %v", s.Late, time.Duration(s.LateNs), c.wantLate)
			}
			if s.Host == "" || s.Clock.Source == "" {
				t.Errorf("record lacks host or clock: %+v", s)
			}
		})
	}
}

// sequenceInserts are the keys the one-process sequence of the config's only YCSB workload
// inserts over its warm-up and repeats (ops each), as "insert KEY" lines.
func sequenceInserts(t *testing.T, y string) map[string]int {
	t.Helper()
	_, p := resolvePlan(t, "test.yaml", y, loggedRecords{&opLog{ops: map[string][]string{}}})
	r := &Runner{Plan: p}
	yr, err := r.newYCSBRun(p.Workloads[0], int(p.YCSB.RecordCount))
	if err != nil {
		t.Fatal(err)
	}
	reps := int64(p.Warmup + p.Repeats)
	gen, err := ycsb.NewGenerator(yr.def, p.YCSB.RecordCount, yr.perRun*reps, yr.y.Seed)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for range yr.cfg.Schedule.Ops * reps {
		if op := gen.Next(); op.Type == ycsb.Insert {
			want["insert "+string(yr.y.Key(op.Record))]++
		}
	}
	return want
}

// TestOneProcessRedraws: one process draws a read's record again while the record's insert is in
// flight; the operations that follow are the generator's sequence all the same (types, inserts'
// records, scan lengths), which is what a shard stripes. Here no insert is ever acknowledged, so
// every read beyond the loaded records is drawn again. A lie that would pass: no redraw at all
// (checked: reads beyond the loaded records are drawn again, and some change).
func TestOneProcessRedraws(t *testing.T) {
	for _, wl := range []string{"ycsb-d", "ycsb-e"} {
		t.Run(wl, func(t *testing.T) {
			y := "name: s\nseed: 7\nworkloads: [" + wl + "]\ntargets: [{name: rec, adapter: logged-records, options: {name: rec}}]\n" +
				"ycsb: {recordcount: 50, fieldcount: 2, fieldlength: 8}\nload: {ops: 2000, workers: 1}\n"
			_, p := resolvePlan(t, "test.yaml", y, loggedRecords{&opLog{ops: map[string][]string{}}})
			yr, err := (&Runner{Plan: p}).newYCSBRun(p.Workloads[0], int(p.YCSB.RecordCount))
			if err != nil {
				t.Fatal(err)
			}
			n := p.YCSB.RecordCount
			gen := func() *ycsb.Generator {
				g, err := ycsb.NewGenerator(yr.def, n, yr.perRun, yr.y.Seed)
				if err != nil {
					t.Fatal(err)
				}
				return g
			}
			tg := &ycsbTarget{gen: gen(), log: newRecordLog(yr.y, n, false)}
			next, seq := yr.next(tg), gen()
			var beyond, moved int
			for i := range yr.perRun {
				_, got := next(i)
				want := seq.Next()
				if got.Type != ycsb.Insert && got.Record >= n {
					t.Fatalf("op %d addresses record %d, not acknowledged (%d are)", i, got.Record, n)
				}
				if want.Type != ycsb.Insert && want.Record >= n {
					beyond++
					if got.Record != want.Record {
						moved++
					}
					got.Record = want.Record
				}
				if got != want {
					t.Fatalf("op %d: %+v, the sequence's %+v", i, got, want)
				}
			}
			if beyond == 0 || moved == 0 {
				t.Errorf("%d reads beyond the acknowledged records, %d drawn again: nothing tested", beyond, moved)
			}
		})
	}
}

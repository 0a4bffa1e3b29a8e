package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/report"
)

// rounds checks that calls are rounds of one operation on every target (each round holds exactly
// labels, each with the same suffix, in any order), and returns each round's order.
func rounds(t *testing.T, calls []string, labels ...string) [][]string {
	t.Helper()
	n := len(labels)
	if len(calls)%n != 0 {
		t.Fatalf("%d calls for %d targets: %v", len(calls), n, calls)
	}
	var out [][]string
	for i := 0; i < len(calls); i += n {
		round := calls[i : i+n]
		var who []string
		for _, c := range round {
			label, op, _ := strings.Cut(c, ":")
			if _, first, _ := strings.Cut(round[0], ":"); op != first {
				t.Errorf("round %d mixes operations: %v", i/n, round)
			}
			who = append(who, label)
		}
		sorted := slices.Clone(who)
		slices.Sort(sorted)
		if !slices.Equal(sorted, labels) {
			t.Errorf("round %d is %v, want one operation of each of %v", i/n, round, labels)
		}
		out = append(out, who)
	}
	return out
}

// TestInterleaveOrder: with interleave: ops the workloads the engine times per operation (a custom
// workload through Op.Do, lookup through a PointReader) alternate single operations across the
// targets, in warm-up and timed repeats alike: op 0 of every target, then op 1, ..., the targets in
// a shuffled order for each operation, so that every target sometimes goes first; scan keeps the
// per-repeat order; and interleave: repeats (the default) keeps each target's repeat whole.
func TestInterleaveOrder(t *testing.T) {
	repeat := func(s string, n int) string { return strings.TrimSpace(strings.Repeat(s+" ", n)) }
	cases := []struct {
		interleave, workload string
		want                 string // "": rounds of one operation on each target
		ops                  []string
	}{
		{"ops", "{name: echo, ops: 6}", "", []string{"0", "1", "2", "3", "4", "5"}},
		{"ops", "{name: lookup, ops: 6}", "", []string{"lookup", "lookup", "lookup", "lookup", "lookup", "lookup"}},
		{"ops", "scan", repeat("A:scan B:scan C:scan", 3), nil},
		{"repeats", "{name: echo, ops: 3}", repeat("A:0 A:1 A:2 B:0 B:1 B:2 C:0 C:1 C:2", 3), nil},
		{"repeats", "{name: lookup, ops: 2}", repeat("A:lookup A:lookup B:lookup B:lookup C:lookup C:lookup", 3), nil},
	}
	for _, c := range cases {
		t.Run(c.interleave+"/"+c.workload, func(t *testing.T) {
			log := &callLog{}
			rep, err := run(t, plan(t, log, fmt.Sprintf(`name: t
dataset: {persons: 20}
warmup: 1
repeats: 2
interleave: %s
workloads: [%s]
targets:
  - {name: a, adapter: fake, options: {label: A, log_ops: true}}
  - {name: b, adapter: fake, options: {label: B, log_ops: true}}
  - {name: c, adapter: fake, options: {label: C, log_ops: true}}
`, c.interleave, c.workload)))
			if err != nil {
				t.Fatal(err)
			}
			if c.want != "" {
				if got := strings.Join(log.calls, " "); got != c.want {
					t.Errorf("order\n %s\nwant\n %s", got, c.want)
				}
			} else {
				rs := rounds(t, log.calls, "A", "B", "C")
				if len(rs) != 3*len(c.ops) {
					t.Errorf("%d rounds, want %d (3 repeats of %d operations)", len(rs), 3*len(c.ops), len(c.ops))
				}
				first := map[string]bool{}
				for i, r := range rs {
					first[r[0]] = true
					if _, op, _ := strings.Cut(log.calls[3*i], ":"); op != c.ops[i%len(c.ops)] {
						t.Errorf("round %d is operation %s, want %s", i, op, c.ops[i%len(c.ops)])
					}
				}
				if len(first) != 3 {
					t.Errorf("only %v went first in %d rounds: the order must vary", first, len(rs))
				}
			}
			for _, x := range rep.Results {
				if x.Status != "ok" || len(x.Repeats) != 2 {
					t.Errorf("%s: %s %q, %d repeats", x.Target, x.Status, x.Error, len(x.Repeats))
				}
			}
			perOp := strings.Contains(rep.Run.Order, "per operation")
			if perOp != (c.interleave == "ops") {
				t.Errorf("run.order %q with interleave: %s", rep.Run.Order, c.interleave)
			}
		})
	}
}

// TestInterleaveOpsSameMeasurements: each target's measurements hold the same operations, rows,
// checksums and latency counts whether its operations alternate with the others' or not.
func TestInterleaveOpsSameMeasurements(t *testing.T) {
	results := map[string]map[string]report.Result{}
	for _, mode := range config.InterleaveModes {
		rep, err := run(t, plan(t, &callLog{}, `name: t
dataset: {persons: 200}
warmup: 1
repeats: 3
interleave: `+mode+`
workloads: [{name: echo, ops: 50}, {name: lookup, ops: 40}, scan]
targets:
  - {name: a, adapter: fake, options: {op_sum: 3}}
  - {name: b, adapter: fake, options: {verified: true, op_sum: 3}}
  - {name: m, adapter: memory}
`))
		if err != nil {
			t.Fatal(err)
		}
		results[mode] = map[string]report.Result{}
		for _, x := range rep.Results {
			results[mode][x.Target+"/"+x.Workload] = x
		}
	}
	seq, ops := results[config.InterleaveRepeats], results[config.InterleaveOps]
	if len(seq) != len(ops) || len(seq) != 8 {
		t.Fatalf("%d results per repeat, %d per operation", len(seq), len(ops))
	}
	for k, a := range seq {
		b := ops[k]
		if a.Status != "ok" || b.Status != "ok" {
			t.Errorf("%s: %s %q / %s %q", k, a.Status, a.Error, b.Status, b.Error)
			continue
		}
		if len(a.Repeats) != len(b.Repeats) {
			t.Errorf("%s: %d repeats vs %d", k, len(a.Repeats), len(b.Repeats))
			continue
		}
		for i := range a.Repeats {
			ra, rb := a.Repeats[i], b.Repeats[i]
			if ra.Ops != rb.Ops || ra.Rows != rb.Rows || ra.Checksum != rb.Checksum || ra.Errors != rb.Errors {
				t.Errorf("%s repeat %d: ops %d/%d rows %d/%d checksum %s/%s errors %d/%d", k, i, ra.Ops, rb.Ops, ra.Rows, rb.Rows, ra.Checksum, rb.Checksum, ra.Errors, rb.Errors)
			}
		}
		ha, _ := report.DecodeHistogram(a.Histogram)
		hb, _ := report.DecodeHistogram(b.Histogram)
		if ha.TotalCount() != hb.TotalCount() {
			t.Errorf("%s: %d latencies vs %d", k, ha.TotalCount(), hb.TotalCount())
		}
	}
}

// TestInterleaveOpsOneTargetFails: a target whose loop ends early (a failed verification, a stall)
// stops stepping; the others run all their operations and repeats.
func TestInterleaveOpsOneTargetFails(t *testing.T) {
	cases := []struct {
		name, options, want string
	}{
		{"verification", "{label: A, log_ops: true, verified: true, fail_verify: 1}", "verification failed, operation 1"},
		{"stall", "{label: A, log_ops: true, stall_at: 1}", "stalled: no operation finished within stall_timeout 1s"},
		{"errors", "{label: A, log_ops: true, fail_op: 2}", "1 of 4 operations failed, first: boom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			log := &callLog{}
			t0 := time.Now()
			rep, err := run(t, plan(t, log, `name: t
dataset: {persons: 20}
warmup: 0
repeats: 2
interleave: ops
stall_timeout: 1s
workloads: [{name: echo, ops: 4}]
targets:
  - {name: a, adapter: fake, options: `+c.options+`}
  - {name: b, adapter: fake, options: {label: B, log_ops: true}}
`))
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(t0); took > 5*time.Second {
				t.Errorf("the run took %v", took)
			}
			a, b := rep.Results[0], rep.Results[1]
			if a.Status != "failed" || !strings.Contains(a.Error, c.want) {
				t.Errorf("a: %s %q, want failed with %q", a.Status, a.Error, c.want)
			}
			if b.Status != "ok" || len(b.Repeats) != 2 || b.Repeats[0].Ops != 4 || b.Repeats[0].Rows != 4 {
				t.Errorf("b: %s %q, %d repeats", b.Status, b.Error, len(b.Repeats))
			}
			var lastA int
			nb := 0
			calls := slices.DeleteFunc(slices.Clone(log.calls), func(c string) bool { return strings.Contains(c, "close") })
			for i, c := range calls {
				if strings.HasPrefix(c, "A:") {
					lastA = i
				} else {
					nb++
				}
			}
			if nb != 8 || lastA == len(calls)-1 {
				t.Errorf("order %v: b must run all its 8 operations, going on alone once a stops", log.calls)
			}
		})
	}
}

// TestInterleaveOpsRewarm: with isolation: rewarm every target is re-warmed on its own, then the
// timed repeat alternates the operations of all of them.
func TestInterleaveOpsRewarm(t *testing.T) {
	log := &callLog{}
	rep, err := run(t, plan(t, log, `name: t
dataset: {persons: 20}
warmup: 0
repeats: 1
isolation: rewarm
rewarm: 1
interleave: ops
workloads: [{name: echo, ops: 2}]
targets:
  - {name: a, adapter: fake, options: {label: A, log_ops: true}}
  - {name: b, adapter: fake, options: {label: B, log_ops: true}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(log.calls[:4], " "), "A:0 A:1 B:0 B:1"; got != want {
		t.Errorf("re-warm order %q, want %q", got, want)
	}
	rounds(t, log.calls[4:], "A", "B")
	for _, x := range rep.Results {
		if x.Status != "ok" || len(x.Repeats) != 1 {
			t.Errorf("%s: %s %q", x.Target, x.Status, x.Error)
		}
	}
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/report"
)

// runsPlan has two targets and two workloads; the one assertion reads only lookup's p50 on both.
const runsPlan = `name: t
dataset: {persons: 10}
repeats: 3
workloads: [scan, {name: lookup, ops: 5}]
targets:
  - {name: a, adapter: memory}
  - {name: b, adapter: memory}
assertions:
  - name: overhead
    check: lookup.p50[a] - lookup.p50[b] <= THRESHOLD
`

// fakeRuns is a run source for runMany: run k gives target a's lookup p50 1000 + diff(k) in each of
// its repeats and b's 1000 (every other figure 1), and records what each run was asked to measure.
type fakeRuns struct {
	diff  func(run int) float64
	drop  string // a figure left out of every repeat (a measurement that did not happen)
	sleep time.Duration
	specs []RunSpec
	// cancelAt cancels the run's context during that run (Ctrl-C), which then returns nothing.
	cancelAt int
	cancel   context.CancelFunc
}

func (f *fakeRuns) run(ctx context.Context, spec RunSpec) (*report.Report, error) {
	f.specs = append(f.specs, spec)
	time.Sleep(f.sleep)
	if spec.Index == f.cancelAt {
		f.cancel()
		return nil, errors.New("interrupted")
	}
	rep := &report.Report{Run: report.Run{Sizes: []int{10}}}
	for _, t := range spec.Targets {
		rep.Targets = append(rep.Targets, report.Target{Name: t, Adapter: "memory", Status: report.StatusOK})
		for _, w := range spec.Workloads {
			v := 1.0
			if w == "lookup" {
				v = 1000
				if t == "a" {
					v += f.diff(spec.Index)
				}
			}
			x := report.Result{Target: t, Workload: w, Size: 10, Status: report.StatusOK, Figures: map[string]float64{"p50": v, "rows_per_s": 1},
				Verification: report.Verification{OK: true}}
			for i := range 3 {
				figs := map[string]float64{"p50": v, "rows_per_s": 1}
				delete(figs, f.drop)
				x.Repeats = append(x.Repeats, report.Repeat{Index: i, Figures: figs})
			}
			rep.Results = append(rep.Results, x)
		}
	}
	return rep, nil
}

func runMany(t *testing.T, threshold string, f *fakeRuns, budget time.Duration) (*report.Report, error) {
	t.Helper()
	p := plan(t, &callLog{}, strings.Replace(runsPlan, "THRESHOLD", threshold, 1))
	p.Verdict.Runs, p.Verdict.Budget = 3, budget
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.cancel = cancel
	r := &Runner{Plan: p, TempDir: t.TempDir(), Environment: func() report.Environment { return report.Environment{} }, runOne: f.run}
	return r.Run(ctx)
}

// TestRunsDecideOnAnInterval: runs are the samples; far from the threshold the first look decides,
// near it more runs of just what the assertion reads are taken until it does, and what the budget
// cannot decide is inconclusive, saying what would.
func TestRunsDecideOnAnInterval(t *testing.T) {
	// 60, 100, 80, 60, 100, 80, ...: mean 80, spread 20
	wobbly := func(k int) float64 { return []float64{60, 100, 80}[(k-1)%3] }
	tests := []struct {
		name      string
		threshold string
		diff      func(int) float64
		budget    time.Duration
		sleep     time.Duration
		verdict   report.Verdict
		runs      int    // runs made
		why       string // in the assertion's why
	}{
		{"far below: pass at the first look", "1000", wobbly, time.Minute, 0, report.VerdictPass, 3, "lies within the threshold"},
		{"far above: fail at the first look", "-1000", wobbly, time.Minute, 0, report.VerdictFail, 3, "lies beyond the threshold"},
		{"near: more runs decide", "110", wobbly, time.Minute, 0, report.VerdictPass, 0, "lies within the threshold"},
		{"on the line: inconclusive after the most looks", "80", wobbly, time.Minute, 0, report.VerdictInconclusive, 12, "looks taken, the most allowed"},
		{"no budget left: inconclusive", "110", wobbly, 10 * time.Millisecond, 30 * time.Millisecond, report.VerdictInconclusive, 3, "the run's budget (10ms in all"},
		// The budget caps the whole run: 3 runs of 30 ms leave 70 ms of a 160 ms budget, room for 2 more.
		{"the budget caps the whole run", "80", wobbly, 160 * time.Millisecond, 30 * time.Millisecond, report.VerdictInconclusive, 5, "the run's budget (160ms in all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeRuns{diff: tt.diff, sleep: tt.sleep}
			rep, err := runMany(t, tt.threshold, f, tt.budget)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Assertions) != 1 {
				t.Fatalf("assertions %+v", rep.Assertions)
			}
			a := rep.Assertions[0]
			if a.Verdict != tt.verdict || !strings.Contains(a.Why, tt.why) {
				t.Errorf("verdict %s (%s), want %s (%q)", a.Verdict, a.Why, tt.verdict, tt.why)
			}
			if rep.Verdict != tt.verdict {
				t.Errorf("run verdict %s, want %s", rep.Verdict, tt.verdict)
			}
			if tt.runs > 0 && len(f.specs) != tt.runs {
				t.Errorf("%d runs, want %d", len(f.specs), tt.runs)
			}
			if tt.runs == 0 && (len(f.specs) <= 3 || a.Looks < 2) {
				t.Errorf("decided after %d runs at look %d, want more runs than the first 3", len(f.specs), a.Looks)
			}
			if len(rep.Run.Runs) != len(f.specs) || a.Runs != len(f.specs) || len(a.RunValues) != len(f.specs) {
				t.Errorf("run.runs %d, assertion runs %d, run values %v; want one per run (%d)", len(rep.Run.Runs), a.Runs, a.RunValues, len(f.specs))
			}
			for i, v := range a.RunValues {
				if want := tt.diff(i + 1); v != want {
					t.Errorf("run %d value %g, want %g", i+1, v, want)
				}
			}
			if a.Interval == nil || a.Interval.Method != "t" || a.Interval.Lo > 80 || a.Interval.Hi < 80 {
				t.Errorf("interval %+v, want a t interval around 80", a.Interval)
			}
			// The first runs measure everything; a later one only what the undecided assertion reads.
			for i, s := range f.specs {
				if i < 3 {
					if s.Why != "initial" || len(s.Workloads) != 2 || len(s.Targets) != 2 {
						t.Errorf("run %d: %+v, want the whole plan", i+1, s)
					}
					continue
				}
				if s.Why != "to decide: overhead" || !slices.Equal(s.Workloads, []string{"lookup"}) || !slices.Equal(s.Targets, []string{"a", "b"}) {
					t.Errorf("run %d: %+v, want lookup on a and b to decide overhead", i+1, s)
				}
			}
			if a.Verdict == report.VerdictInconclusive && a.MoreRuns == 0 && tt.threshold != "80" {
				t.Errorf("inconclusive without an estimate of the runs that would decide: %+v", a)
			}
			// Each repeat carries its run; the headline figure is the median over runs.
			x := rep.Find("a", "lookup", 10)
			if x == nil || len(x.Runs) != len(f.specs) || x.Repeats[len(x.Repeats)-1].Run != len(f.specs) {
				t.Fatalf("a lookup: %+v", x)
			}
		})
	}
}

// TestRunsNothingUnmeasuredPasses: a figure missing from the runs is an error naming the assertion's
// figure, not a pass, and no more runs are taken for it.
func TestRunsNothingUnmeasuredPasses(t *testing.T) {
	f := &fakeRuns{diff: func(int) float64 { return 0 }, drop: "p50"}
	rep, _ := runMany(t, "1000", f, time.Minute)
	a := rep.Assertions[0]
	if a.Verdict != report.VerdictError || !strings.Contains(a.Reason, "figure p50 is missing") || rep.Verdict != report.VerdictError {
		t.Errorf("assertion %s (%s), run %s; want error naming the figure", a.Verdict, a.Reason, rep.Verdict)
	}
	if len(f.specs) != 3 {
		t.Errorf("%d runs, want the first 3 only", len(f.specs))
	}
}

// TestRunsCtrlCKeepsEarlierRuns: Ctrl-C during the second run ends the runs; the report keeps the
// first run's results, marked interrupted.
func TestRunsCtrlCKeepsEarlierRuns(t *testing.T) {
	f := &fakeRuns{diff: func(int) float64 { return 10 }, cancelAt: 2}
	rep, err := runMany(t, "1000", f, time.Minute)
	if err == nil || !rep.Run.Interrupted || rep.Verdict != report.VerdictError {
		t.Fatalf("err %v, interrupted %v, verdict %s", err, rep.Run.Interrupted, rep.Verdict)
	}
	if len(f.specs) != 2 || len(rep.Run.Runs) != 2 || !rep.Run.Runs[1].Interrupted {
		t.Errorf("runs %+v, want run 1 and the interrupted run 2", rep.Run.Runs)
	}
	x := rep.Find("a", "lookup", 10)
	if x == nil || len(x.Repeats) != 3 || x.Repeats[0].Run != 1 {
		t.Errorf("a lookup %+v, want run 1's 3 repeats", x)
	}
}

// TestRunsDirSwept: a run of several runs marks its directory with its owner and, before making it,
// removes the runs' and the worker processes' directories whose owner died (a SIGKILLed run), and
// only those: not one whose owner lives, nor one without a mark.
func TestRunsDirSwept(t *testing.T) {
	tmp := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	mk := func(name, mark string) string {
		d := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(d, "run-1.json"), 0o755); err != nil {
			t.Fatal(err)
		}
		if mark != "" {
			os.WriteFile(filepath.Join(d, cleanup.OwnerFile), []byte(mark), 0o644)
		}
		return d
	}
	deadMark := fmt.Sprintf("dbbench pid=%d host=%s\n", dead.Process.Pid, host)
	staleRuns, staleWorkers := mk(runsDirPrefix+"111", deadMark), mk(workersDirPrefix+"222", deadMark)
	live, unmarked := mk(runsDirPrefix+"333", cleanup.Owner()), mk(runsDirPrefix+"444", "")

	p := plan(t, &callLog{}, strings.Replace(runsPlan, "THRESHOLD", "1000", 1))
	p.Verdict.Runs = 2
	var marked bool
	f := &fakeRuns{diff: func(int) float64 { return 0 }}
	r := &Runner{Plan: p, TempDir: tmp, Environment: func() report.Environment { return report.Environment{} }}
	r.runOne = func(ctx context.Context, spec RunSpec) (*report.Report, error) {
		b, err := os.ReadFile(filepath.Join(r.runsDir, cleanup.OwnerFile))
		marked = err == nil && !cleanup.Dead(string(b)) && strings.HasPrefix(filepath.Base(r.runsDir), runsDirPrefix)
		return f.run(ctx, spec)
	}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !marked {
		t.Error("the runs' directory carried no owner mark naming this process")
	}
	for _, d := range []string{staleRuns, staleWorkers} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s, left by a dead run, was not removed", d)
		}
	}
	for _, d := range []string{live, unmarked} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed", d)
		}
	}
	if _, err := os.Stat(r.runsDir); err == nil {
		t.Errorf("the run left its own directory %s", r.runsDir)
	}
}

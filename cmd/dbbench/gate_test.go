package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/compare"
	"github.com/dbbench/dbbench/compare/comparetest"
	"github.com/dbbench/dbbench/report"
)

// The gate's script (.ci/gate) run for real on a throw-away git repository whose "dbbench" is a stub:
// its `run` copies a prepared report (the OLD or NEW pool, by a constant that differs between the
// base commit and HEAD) and logs which side ran; everything else (compare, version) is the real
// dbbench. So the script's own work is what is tested: finding and building the base revision in a
// worktree, alternating the runs, adding pairs while undecided, the fallback to a committed baseline
// of this machine's class, and the exit codes; the decisions are real compare's.

// stubMain is the stub dbbench; %s is its side.
const stubMain = `package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

const side = %q

func main() {
	out := ""
	for i, a := range os.Args {
		if a == "--out" && i+1 < len(os.Args) {
			out = os.Args[i+1]
		}
	}
	if len(os.Args) < 2 || os.Args[1] != "run" || out == "" {
		cmd := exec.Command(os.Getenv("DBBENCH_REAL"), os.Args[1:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			os.Exit(cmd.ProcessState.ExitCode())
		}
		return
	}
	dir := os.Getenv("STUB_DIR")
	n, _ := strconv.Atoi(read(filepath.Join(dir, side+".n")))
	pool, _ := filepath.Glob(filepath.Join(dir, side, "*.json"))
	if len(pool) == 0 {
		fmt.Fprintln(os.Stderr, "stub: no reports for", side)
		os.Exit(3)
	}
	must(os.WriteFile(filepath.Join(dir, side+".n"), []byte(strconv.Itoa(n+1)), 0o644))
	must(os.WriteFile(out, []byte(read(pool[n%%len(pool)])), 0o644))
	f, err := os.OpenFile(filepath.Join(dir, "log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	must(err)
	fmt.Fprintln(f, side)
	must(f.Close())
}

func read(p string) string { b, _ := os.ReadFile(p); return string(b) }

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "stub:", err)
		os.Exit(3)
	}
}
`

// gatePool writes n reports of the gate's shape (lmdb-go against lmdb-c: scan ns_per_row, lookup
// ns_per_row and p50) into dir, lmdb-go `factor` times slower than 1.5x lmdb-c, with a run-to-run
// and a repeat-to-repeat spread of 0.3%, on this machine's class.
func gatePool(t *testing.T, dir string, n int, factor float64, seed uint64) {
	t.Helper()
	env := report.CollectEnvironment()
	rng := rand.New(rand.NewPCG(seed, 7))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= n; k++ {
		run := 1 + 0.003*rng.NormFloat64()
		vals := func(center float64) []float64 {
			v := make([]float64, 5)
			for i := range v {
				v[i] = center * (1 + 0.003*rng.NormFloat64())
			}
			return v
		}
		var res []comparetest.Result
		for _, w := range []struct{ name, unit string }{{"scan", "scan"}, {"lookup", "lookup"}} {
			res = append(res,
				comparetest.Result{Target: "lmdb-c", Workload: w.name, Unit: w.unit, Figures: map[string][]float64{"ns_per_row": vals(100), "p50": vals(100)}},
				comparetest.Result{Target: "lmdb-go", Workload: w.name, Unit: w.unit, Figures: map[string][]float64{"ns_per_row": vals(150 * factor * run), "p50": vals(150 * factor * run)}})
		}
		r := comparetest.Report("gate", res...)
		r.Environment.CPUModel, r.Environment.Cores = env.CPUModel, env.Cores
		if err := report.Write(filepath.Join(dir, fmt.Sprintf("run-%d.json", k)), r); err != nil {
			t.Fatal(err)
		}
	}
}

type gateRepo struct {
	dir, stub    string
	tmp          string // the gate's TMPDIR: where a gate that did not pass keeps its runs
	empty, bases string // commits: one without a dbbench, the base (OLD's stub)
}

// newGateRepo makes the repository: .ci/gate and .ci/base.sh, go.mod and configs/gate.yaml (commit "empty"), the stub
// as OLD (the base), then as NEW (HEAD), on branch main.
func newGateRepo(t *testing.T) gateRepo {
	t.Helper()
	g := gateRepo{dir: t.TempDir(), stub: t.TempDir(), tmp: t.TempDir()}
	script, err := os.ReadFile(filepath.Join("..", "..", ".ci", "gate"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.ReadFile(filepath.Join("..", "..", ".ci", "base.sh")) // the base revision's finding and build
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, content string, mode os.FileMode) {
		p := filepath.Join(g.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = g.dir
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
		return strings.TrimSpace(string(b))
	}
	git("init", "-q", "-b", "main")
	write(".ci/gate", string(script), 0o755)
	write(".ci/base.sh", string(base), 0o644)
	write("go.mod", "module stub\n\ngo 1.22\n", 0o644)
	write("configs/gate.yaml", "name: gate\n", 0o644)
	git("add", ".")
	git("commit", "-qm", "empty")
	g.empty = git("rev-parse", "HEAD")
	write("cmd/dbbench/main.go", fmt.Sprintf(stubMain, "old"), 0o644)
	git("add", ".")
	git("commit", "-qm", "base")
	g.bases = git("rev-parse", "HEAD")
	write("cmd/dbbench/main.go", fmt.Sprintf(stubMain, "new"), 0o644)
	git("commit", "-qam", "change")
	return g
}

// run runs the repository's .ci/gate in time mode; it returns the exit code, the output, and the
// sides of the runs in order.
func (g gateRepo) run(t *testing.T, env ...string) (int, string, []string) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(g.dir, ".ci", "gate"))
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "DBBENCH") && !strings.HasPrefix(e, "GITHUB_") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, "DBBENCH_REAL="+binary, "STUB_DIR="+g.stub, "GOWORK=off", "GOFLAGS=", "DBBENCH_GATE_MODE=time", "TMPDIR="+g.tmp)
	cmd.Env = append(cmd.Env, env...)
	b, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	t.Logf(".ci/gate %v:\n%s", env, b)
	log, _ := os.ReadFile(filepath.Join(g.stub, "log"))
	return cmd.ProcessState.ExitCode(), string(b), strings.Fields(string(log))
}

func alternating(n int) []string {
	var s []string
	for range n {
		s = append(s, "old", "new")
	}
	return s
}

// countSide is how many of runs are one side's.
func countSide(runs []string, side string) int {
	n := 0
	for _, r := range runs {
		if r == side {
			n++
		}
	}
	return n
}

// pairwise is runs with each pair's order forgotten (the gate runs a pair in a random order).
func pairwise(runs []string) string {
	var pairs []string
	for i := 0; i < len(runs); i += 2 {
		p := runs[i:min(i+2, len(runs))]
		if len(p) == 2 && p[0] > p[1] {
			p = []string{p[1], p[0]}
		}
		pairs = append(pairs, strings.Join(p, "+"))
	}
	return strings.Join(pairs, " ")
}

// saidOrder is the order of the runs as the gate's last look line gives it ("(order ONNO: ..."), as
// sides; nil when no line gives one.
func saidOrder(out string) []string {
	i := strings.LastIndex(out, "(order ")
	if i < 0 {
		return nil
	}
	var sides []string
	for _, c := range out[i+len("(order "):] {
		switch c {
		case 'O':
			sides = append(sides, "old")
		case 'N':
			sides = append(sides, "new")
		default:
			return sides
		}
	}
	return sides
}

// servedInOrder writes NEW's pool as the stub serves it, in name order: first `slow` runs `factor`
// times slower, then `same` runs unchanged.
func servedInOrder(slow int, factor float64, same int) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		tmp := t.TempDir()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, part := range []struct {
			name   string
			n      int
			factor float64
			seed   uint64
		}{{"a", slow, factor, 2}, {"b", same, 1, 3}} {
			gatePool(t, filepath.Join(tmp, part.name), part.n, part.factor, part.seed)
			for k := 1; k <= part.n; k++ {
				name := fmt.Sprintf("run-%s%02d.json", part.name, k)
				if err := os.Rename(filepath.Join(tmp, part.name, fmt.Sprintf("run-%d.json", k)), filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func TestGateScript(t *testing.T) {
	for _, tool := range []string{"bash", "git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	slug := compare.MachineSlug(report.CollectEnvironment().MachineClass())
	// Over all cases (some 30 pairs alongside) both orders of a pair must occur: a gate that always
	// ran OLD first would fail this but for a chance of 2^-29.
	orders := map[string]int{}
	defer func() {
		if !t.Failed() && (orders["old"] == 0 || orders["new"] == 0) {
			t.Errorf("pairs with old first: %d, with new first: %d; want both", orders["old"], orders["new"])
		}
	}()
	committed := filepath.Join("baselines", "gate", slug, "time")
	for _, tt := range []struct {
		name      string
		newFactor float64
		env       []string
		committed func(t *testing.T, dir string) // writes a committed baseline under dir, if any
		change    func(t *testing.T, g gateRepo)
		newPool   func(t *testing.T, dir string) // NEW's reports, instead of 12 at newFactor
		code      int
		ran       func(g gateRepo) []string
		say       []string
	}{
		{name: "alongside, no change", newFactor: 1, code: 0, ran: func(gateRepo) []string { return alternating(4) },
			say: []string{"baseline alongside: the base revision", "gate: PASS: all 2 gated figures within the threshold", "gate: PASS (modes: time)"}},
		{name: "alongside, 20% slower: the FAIL confirmed at the next look", newFactor: 1.2, code: 1, ran: func(gateRepo) []string { return alternating(6) },
			say: []string{"lies beyond the 5% threshold, on the worse side", "FAIL at look 1; a FAIL is final when a later look confirms it", "-- look 2 of at most 4: 6 new runs", "gate: FAIL"}},
		{name: "alongside, 20% slower, no budget to confirm: inconclusive", newFactor: 1.2, env: []string{"DBBENCH_GATE_BUDGET=0"}, code: 4,
			ran: func(gateRepo) []string { return alternating(4) },
			say: []string{"FAIL at look 1", "not within the budget of 0s", "the FAIL at look 1 was not confirmed by a later look", "gate: INCONCLUSIVE"}},
		{name: "alongside, a FAIL the later looks do not confirm: inconclusive", env: []string{"DBBENCH_GATE_LOOKS=3"}, code: 4,
			newPool: servedInOrder(4, 1.2, 8), ran: func(gateRepo) []string { return alternating(8) },
			say: []string{"FAIL at look 1", "-- look 3 of at most 3: 8 new runs", "the FAIL at look 1 was not confirmed by a later look", "gate: INCONCLUSIVE"}},
		{name: "alongside, on the threshold: pairs added until the last look", newFactor: 1.05, env: []string{"DBBENCH_GATE_LOOKS=3"}, code: 4,
			ran: func(gateRepo) []string { return alternating(8) },
			say: []string{"-- look 3 of at most 3: 8 new runs", "straddles the 5% threshold; to decide: about", "undecided after the last look (3)", "gate: INCONCLUSIVE"}},
		{name: "alongside, on the threshold: the budget stops it", newFactor: 1.05, env: []string{"DBBENCH_GATE_BUDGET=0"}, code: 4,
			ran: func(gateRepo) []string { return alternating(4) }, say: []string{"not within the budget of 0s", "gate: INCONCLUSIVE"}},
		{name: "the base does not build: the committed baseline of this class", newFactor: 1,
			env:       []string{"DBBENCH_GATE_BASE=EMPTY"},
			committed: func(t *testing.T, dir string) { gatePool(t, dir, 7, 1, 99) },
			code:      0, ran: func(gateRepo) []string { return []string{"new", "new", "new", "new"} },
			say: []string{"does not build", "against the committed " + committed, "gate: PASS"}},
		{name: "the committed baseline catches a regression", newFactor: 1.2,
			env:       []string{"DBBENCH_GATE_BASE=EMPTY"},
			committed: func(t *testing.T, dir string) { gatePool(t, dir, 7, 1, 99) },
			code:      1, ran: func(gateRepo) []string { return []string{"new", "new", "new", "new", "new", "new"} }, say: []string{"FAIL at look 1", "gate: FAIL"}},
		{name: "configs/gate.yaml changed and no committed baseline: inconclusive", newFactor: 1,
			change: func(t *testing.T, g gateRepo) {
				if err := os.WriteFile(filepath.Join(g.dir, "configs", "gate.yaml"), []byte("name: gate\nrepeats: 3\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			code: 4, ran: func(gateRepo) []string { return nil },
			say: []string{"configs/gate.yaml differs from the base revision", "no committed baseline for this machine class", "gate: INCONCLUSIVE"}},
		{name: "no git and no committed baseline: inconclusive", newFactor: 1,
			change: func(t *testing.T, g gateRepo) {
				if err := os.RemoveAll(filepath.Join(g.dir, ".git")); err != nil {
					t.Fatal(err)
				}
			},
			code: 4, ran: func(gateRepo) []string { return nil }, say: []string{"no git repository", "gate: INCONCLUSIVE"}},
		{name: "a committed baseline that failed is refused", newFactor: 1,
			env: []string{"DBBENCH_GATE_BASE=EMPTY"},
			committed: func(t *testing.T, dir string) {
				gatePool(t, dir, 7, 1, 99)
				p := filepath.Join(dir, "run-2.json")
				r, err := report.Read(p)
				if err != nil {
					t.Fatal(err)
				}
				r.Results[1].Status, r.Results[1].Error = report.StatusFailed, "verification failed"
				if err := report.Write(p, r); err != nil {
					t.Fatal(err)
				}
			},
			code: 2, ran: func(gateRepo) []string { return []string{"new", "new", "new", "new"} },
			say: []string{"a baseline whose own results failed is refused"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := newGateRepo(t)
			gatePool(t, filepath.Join(g.stub, "old"), 12, 1, 1)
			if tt.newPool != nil {
				tt.newPool(t, filepath.Join(g.stub, "new"))
			} else {
				gatePool(t, filepath.Join(g.stub, "new"), 12, tt.newFactor, 2)
			}
			if tt.committed != nil {
				tt.committed(t, filepath.Join(g.dir, committed))
			}
			if tt.change != nil {
				tt.change(t, g)
			}
			env := replaceIn(tt.env, "EMPTY", g.empty)
			code, out, ran := g.run(t, env...)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if want := tt.ran(g); pairwise(ran) != pairwise(want) {
				t.Errorf("runs %q, want %q (each pair in either order)", ran, want)
			}
			for i := 0; i+1 < len(ran); i += 2 {
				if ran[i] != ran[i+1] {
					orders[ran[i]]++
				}
			}
			if said := saidOrder(out); said != nil && strings.Join(said, " ") != strings.Join(ran, " ") {
				t.Errorf("the gate says the order was %q; the runs were %q", said, ran)
			}
			for _, s := range tt.say {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q", s)
				}
			}
			// A gate that failed or did not decide keeps its runs (NEW's, when it took any); one that
			// passed keeps nothing.
			kept, _ := filepath.Glob(filepath.Join(g.tmp, "dbbench-gate.*"))
			if tt.code == 1 || tt.code == 4 {
				if len(kept) != 1 || !strings.Contains(out, "are kept in "+kept[0]) {
					t.Errorf("kept %q; want one dbbench-gate.* directory, named in the output", kept)
				} else if runs, _ := filepath.Glob(filepath.Join(kept[0], "gate-ci", "run-*.json")); len(runs) != countSide(tt.ran(g), "new") {
					t.Errorf("kept %d of NEW's runs, want %d", len(runs), countSide(tt.ran(g), "new"))
				}
			} else if len(kept) != 0 {
				t.Errorf("a gate that exited %d kept %q", code, kept)
			}
			// The base's worktree is gone, whatever happened.
			if b, err := exec.Command("git", "-C", g.dir, "worktree", "list").Output(); err == nil && strings.Count(string(b), "\n") > 1 {
				t.Errorf("worktrees left behind:\n%s", b)
			}
		})
	}
}

// replaceIn returns env with every old replaced by new inside each entry.
func replaceIn(env []string, old, new string) []string {
	out := make([]string, len(env))
	for i, e := range env {
		out[i] = strings.ReplaceAll(e, old, new)
	}
	return out
}

// TestGateRefusesMissingEvidence: the case, through the binary: two reports of one run, the
// gated lookup of lmdb-go removed from NEW. The gate fails naming it (it passed, exit 0, before);
// with --allow-missing it passes and says what it did not hold against it.
func TestGateRefusesMissingEvidence(t *testing.T) {
	dir := t.TempDir()
	gatePool(t, filepath.Join(dir, "old"), 1, 1, 1)
	oldPath := filepath.Join(dir, "old", "run-1.json")
	r, err := report.Read(oldPath)
	if err != nil {
		t.Fatal(err)
	}
	r.Results = slices.DeleteFunc(r.Results, func(x report.Result) bool { return x.Target == "lmdb-go" && x.Workload == "lookup" })
	newPath := filepath.Join(dir, "new.json")
	if err := report.Write(newPath, r); err != nil {
		t.Fatal(err)
	}
	args := []string{"compare", oldPath, newPath, "--per-repeat", "--threshold", "200%", "--figures", "p50", "--normalize-by", "none"}
	code, stdout, stderr := dbbench(t, dir, args...)
	if code != 1 || !strings.Contains(stderr, "gate failed: lmdb-go lookup p50: missing in "+newPath+": only in "+oldPath) ||
		!strings.Contains(stderr, "(1 of 2 gated figures failed)") || !strings.Contains(stdout, "missing in "+newPath+": lmdb-go lookup p50") {
		t.Errorf("a gated result missing in NEW: exit %d\n%s%s\nwant 1, naming lmdb-go lookup", code, stdout, stderr)
	}
	code, stdout, stderr = dbbench(t, dir, append(args, "--allow-missing")...)
	if code != 0 || !strings.Contains(stdout, "gate: PASS") ||
		!strings.Contains(strings.Join(strings.Fields(stdout), " "), "note: --allow-missing: 1 gated figure with values on one side only not held against the gate: lmdb-go lookup p50") {
		t.Errorf("--allow-missing: exit %d\n%s%s\nwant 0 and a note naming lmdb-go lookup", code, stdout, stderr)
	}
}

// benchRuns is a report of 5 runs of sut's scan, 10 repeats each: each run's repeats spread by
// 0.5% around the run's own level (levels[k] x 1 ms x factor), as runs on a shared machine do.
func benchRuns(levels []float64, factor float64, seed uint64) *report.Report {
	var runs [][]comparetest.Result
	for k, l := range levels {
		runs = append(runs, []comparetest.Result{{Target: "sut", Workload: "scan", Unit: "scan",
			Figures: map[string][]float64{"ns_per_op": comparetest.Noisy(1e6*l*factor, 0.005, 10, seed+uint64(k))}}})
	}
	return comparetest.Runs("bench", runs...)
}

// TestBenchstatAgreesWithCompare: benchstat (golang.org/x/perf's, built from go.mod's version) on
// two exports of the same runs says what compare says: ~ for identical code whose runs differ by the
// machine's state (each side 5 runs spread by a few percent, NEW's a little higher on the whole), and
// a change for a 2x slowdown. The export's unit is the run; with --per-repeat, the old form, benchstat
// takes the 50 repeats a side as samples and calls the identical code different, as it did.
func TestBenchstatAgreesWithCompare(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go to build benchstat")
	}
	dir := t.TempDir()
	benchstat := filepath.Join(dir, "benchstat")
	build := exec.Command("go", "build", "-o", benchstat, "golang.org/x/perf/cmd/benchstat")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build benchstat: %v\n%s", err, out)
	}
	write := func(name string, r *report.Report) string {
		p := filepath.Join(dir, name+".json")
		if err := report.Write(p, r); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := write("old", benchRuns([]float64{0.95, 0.97, 1.00, 1.03, 1.06}, 1, 1))
	same := write("same", benchRuns([]float64{0.98, 1.00, 1.02, 1.05, 1.07}, 1, 11))
	slow := write("slow", benchRuns([]float64{0.98, 1.00, 1.02, 1.05, 1.07}, 2, 11))
	export := func(p string, flags ...string) string {
		code, out, errb := dbbench(t, dir, append([]string{"report", p, "--format", "benchstat"}, flags...)...)
		if code != 0 {
			t.Fatalf("export %s: exit %d: %s", p, code, errb)
		}
		txt := strings.TrimSuffix(p, ".json") + strings.Join(flags, "") + ".txt"
		if err := os.WriteFile(txt, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return txt
	}
	// benchstat's verdict on the scan: "~" or the change, from its "vs base" column
	verdict := func(a, b string) string {
		cmd := exec.Command(benchstat, a, b)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("benchstat: %v\n%s", err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "Scan/target=sut/size=1000") {
				f := strings.Fields(l)
				for i, w := range f {
					if strings.HasPrefix(w, "(p=") {
						return f[i-1] + " " + w
					}
				}
			}
		}
		t.Fatalf("benchstat's output has no comparison of the scan:\n%s", out)
		return ""
	}
	compared := func(a, b string) string {
		code, out, errb := dbbench(t, dir, "compare", a, b, "--figures", "ns_per_op", "--format", "json")
		var c compare.Comparison
		if code != 0 || json.Unmarshal([]byte(out), &c) != nil || len(c.Rows) != 1 {
			t.Fatalf("compare: exit %d %s%s", code, out, errb)
		}
		return string(c.Rows[0].Verdict)
	}
	if v, c := verdict(export(old), export(same)), compared(old, same); !strings.HasPrefix(v, "~ ") || c != string(compare.Same) {
		t.Errorf("identical code: benchstat %q, compare %q; want both ~", v, c)
	}
	if v, c := verdict(export(old), export(slow)), compared(old, slow); !strings.HasPrefix(v, "+") || c != string(compare.Worse) {
		t.Errorf("2x slower: benchstat %q, compare %q; want both to flag it", v, c)
	}
	if v := verdict(export(old, "--per-repeat"), export(same, "--per-repeat")); strings.HasPrefix(v, "~ ") {
		t.Errorf("--per-repeat: benchstat %q over the repeats of identical code; the data should show why runs are the unit", v)
	}
}

package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/compare/comparetest"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
)

// dbbench runs the real command tree in-process with its output in buffers.
func dbbench(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	f := &Factory{
		Out: &out, Err: &errb, TempDir: t.TempDir(),
		Registry: func() (*adapters.Registry, error) { return adapters.NewRegistry(builtinAdapters()...) },
	}
	code = Execute(context.Background(), f, args)
	validateOutputs(t, args, out.Bytes())
	return code, out.String(), errb.String()
}

// compareFixtures writes synthetic reports with known samples and returns their paths by name.
func compareFixtures(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	const n = 8
	mk := func(sutRatio float64, repeats int, seed uint64) *report.Report {
		ref := comparetest.Noisy(1e6, 0.05, repeats, seed)
		own := comparetest.Noisy(1, 0.01, repeats, seed+10)
		sut := make([]float64, repeats)
		for i := range ref {
			sut[i] = ref[i] * sutRatio * own[i]
		}
		return comparetest.Report("gate",
			comparetest.Result{Target: "ref", Workload: "scan", Unit: "scan", Figures: map[string][]float64{"rows_per_s": ref}},
			comparetest.Result{Target: "sut", Workload: "scan", Unit: "scan", Figures: map[string][]float64{"rows_per_s": sut}},
		)
	}
	paths := map[string]string{}
	write := func(name string, r *report.Report) {
		p := filepath.Join(dir, name+".json")
		if err := report.Write(p, r); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	write("base", mk(0.5, n, 1))
	write("same", mk(0.5, n, 2))
	write("slower", mk(0.5/1.25, n, 3))
	write("faster", mk(0.5*1.25, n, 4))
	write("few-old", mk(0.5, 3, 5))
	write("few", mk(0.5/1.25, 3, 6))
	write("few-near", mk(0.5/1.115, 3, 8))
	write("other", comparetest.Report("gate", comparetest.Result{Target: "x", Workload: "scan", Unit: "scan", Figures: map[string][]float64{"rows_per_s": {1, 2, 3, 4}}}))
	big := mk(0.5, n, 6)
	for i := range big.Results {
		big.Results[i].Size = 5000
	}
	big.Run.Sizes = []int{5000}
	write("big", big)

	raw := func(name, body string) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	b, _ := os.ReadFile(paths["base"])
	raw("newer.json", strings.Replace(string(b), fmt.Sprintf(`"schema_version": %d`, report.SchemaVersion), `"schema_version": 9`, 1))
	raw("corrupt.json", `{"schema_version": 1, "results": [}`)
	raw("thresholds.yaml", "default: 10%\nrows_per_s: 25%\n")
	raw("bad-thresholds.yaml", "rows_per_s: fast\n")
	paths["missing"] = filepath.Join(dir, "missing.json")

	other := func(name string, change func(*report.Report)) {
		r := mk(0.5, n, 7)
		change(r)
		write(name, r)
	}
	other("seed2", func(r *report.Report) { r.Run.Seed = 2 })
	other("adapter", func(r *report.Report) { r.Targets[1].Adapter = "lmdb" })
	other("config", func(r *report.Report) { r.Run.ConfigName = "lmdb" })
	other("failed", func(r *report.Report) {
		r.Results[1].Status, r.Results[1].Error = report.StatusFailed, "verification failed: 99 rows, want 100"
		r.Verdict = report.VerdictError
	})

	// Five runs per side, each at its own machine speed (±8%, the same for ref and sut), naming ref
	// as their baseline; a directory per side as well.
	for _, side := range []struct {
		name  string
		ratio float64
	}{{"old", 0.5}, {"same", 0.5}, {"slower", 0.5 / 1.25}} {
		d := filepath.Join(dir, "runs-"+side.name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 5; i++ {
			r := mk(side.ratio, n, uint64(100*i)+uint64(len(side.name)))
			speed := 1 + 0.08*float64(i-3)/2
			for j := range r.Results {
				for k := range r.Results[j].Repeats {
					r.Results[j].Repeats[k].Figures["rows_per_s"] *= speed
				}
			}
			r.Run.Baseline = "ref"
			name := fmt.Sprintf("run-%s-%d", side.name, i)
			write(name, r)
			if err := report.Write(filepath.Join(d, name+".json"), r); err != nil {
				t.Fatal(err)
			}
		}
		paths["run-"+side.name+"-dir"] = d
	}
	// The same five slower runs as one report of schema 2's shape; and five runs of another machine.
	var slower [][]comparetest.Result
	for i := 1; i <= 5; i++ {
		r, err := report.Read(paths[fmt.Sprintf("run-slower-%d", i)])
		if err != nil {
			t.Fatal(err)
		}
		var res []comparetest.Result
		for _, x := range r.Results {
			var vals []float64
			for _, rep := range x.Repeats {
				vals = append(vals, rep.Figures["rows_per_s"])
			}
			res = append(res, comparetest.Result{Target: x.Target, Workload: x.Workload, Unit: x.Unit, Figures: map[string][]float64{"rows_per_s": vals}})
		}
		slower = append(slower, res)
	}
	multi := comparetest.Runs("gate", slower...)
	multi.Run.Baseline = "ref"
	write("runs-slower-v2", multi)
	d := filepath.Join(dir, "runs-other-machine")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		r, err := report.Read(paths[fmt.Sprintf("run-same-%d", i)])
		if err != nil {
			t.Fatal(err)
		}
		r.Environment.CPUModel = "Intel(R) Xeon(R) Processor"
		if err := report.Write(filepath.Join(d, fmt.Sprintf("run-%d.json", i)), r); err != nil {
			t.Fatal(err)
		}
	}
	paths["run-other-machine-dir"] = d
	paths["empty-dir"] = t.TempDir()
	return paths
}

func TestCompareCommand(t *testing.T) {
	p := compareFixtures(t)
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    []string
		wantErr    string // the one stderr line, prefix "dbbench: " included; "" = no stderr
		wantNotOut []string
	}{
		{"unchanged", []string{p["base"], p["same"], "--normalize-by", "ref"}, exitcode.OK, []string{"sut     scan      rows_per_s  ", "? one run"}, "", []string{"gate:"}},
		{"regression without gate", []string{p["base"], p["slower"], "--normalize-by", "ref", "--per-repeat"}, exitcode.OK, []string{"worse"}, "", []string{"gate:"}},
		{"one run a side decides nothing", []string{p["base"], p["slower"], "--normalize-by", "ref", "--threshold", "10%"}, exitcode.Inconclusive, []string{"? 10%", "gate: INCONCLUSIVE"}, "dbbench: INCONCLUSIVE: 1 of 1 gated figure undecided (thresholds 10%); first: sut scan rows_per_s/ref: one run a side: the spread between runs is not measured, so there is no interval (give 5 or more runs a side)", nil},
		{"regression fails the gate over repeats", []string{p["base"], p["slower"], "--normalize-by", "ref", "--threshold", "10%", "--per-repeat"}, exitcode.Failed, []string{"FAIL >10%", "gate: FAIL", "sut scan rows_per_s/ref: -19.7%: interval [-20.3%, -19.3%] lies beyond the 10% threshold"}, "dbbench: gate failed: sut scan rows_per_s/ref: -19.7%: interval [-20.3%, -19.3%] lies beyond the 10% threshold, on the worse side (1 of 1 gated figure failed)", nil},
		{"regression within a per-figure threshold", []string{p["base"], p["slower"], "--normalize-by", "ref", "--threshold", "10%", "--threshold", "rows_per_s=25%", "--per-repeat"}, exitcode.OK, []string{"gate: PASS"}, "", nil},
		{"threshold file", []string{p["base"], p["slower"], "--normalize-by", "ref", "--threshold-file", p["thresholds.yaml"], "--per-repeat"}, exitcode.OK, []string{"ok ≤25%", "gate: PASS"}, "", nil},
		{"improvement passes", []string{p["base"], p["faster"], "--normalize-by", "ref", "--threshold", "10%", "--per-repeat"}, exitcode.OK, []string{"better", "gate: PASS"}, "", nil},
		{"too few repeats for the U test, not for the interval", []string{p["few-old"], p["few"], "--normalize-by", "ref", "--threshold", "10%", "--per-repeat"}, exitcode.Failed, []string{"too few samples", "gate: FAIL"}, "dbbench: gate failed: sut scan rows_per_s/ref: -20.0%: interval [-21.0%, -19.3%] lies beyond the 10% threshold, on the worse side (1 of 1 gated figure failed)", nil},
		{"straddling the threshold", []string{p["few-old"], p["few-near"], "--normalize-by", "ref", "--threshold", "10%", "--per-repeat"}, exitcode.Inconclusive, []string{"gate: INCONCLUSIVE: 1 of 1 gated figure undecided (thresholds 10%); to decide them all: about 9 repeats a side", "straddles the 10%"}, "dbbench: INCONCLUSIVE: 1 of 1 gated figure undecided (thresholds 10%); to decide them all: about 9 repeats a side; first: sut scan rows_per_s/ref: interval [-10.3%, -9.3%] straddles the 10% threshold", nil},
		{"markdown", []string{p["base"], p["slower"], "--normalize-by", "ref", "--threshold", "10%", "--format", "markdown", "--per-repeat"}, exitcode.Failed, []string{"### dbbench compare: FAIL", "| sut | scan | rows\\_per\\_s/ref |"}, "dbbench: gate failed: sut scan rows_per_s/ref: -19.7%: interval [-20.3%, -19.3%] lies beyond the 10% threshold, on the worse side (1 of 1 gated figure failed)", nil},
		{"absolute figures", []string{p["base"], p["same"], "--figures", "rows_per_s"}, exitcode.OK, []string{"ref     scan      rows_per_s", "sut     scan      rows_per_s"}, "", nil},

		{"missing report", []string{p["missing"], p["base"]}, exitcode.Usage, nil, "dbbench: cannot read report " + p["missing"] + ": no such file or directory", nil},
		{"corrupt report", []string{p["base"], p["corrupt.json"]}, exitcode.Usage, nil, "dbbench: " + p["corrupt.json"] + " is not a dbbench report: invalid character '}' looking for beginning of value (at byte 35)", nil},
		{"newer schema", []string{p["newer.json"], p["base"]}, exitcode.Usage, nil, "dbbench: " + p["newer.json"] + fmt.Sprintf(" has schema version 9, newer than this dbbench understands (%d): upgrade dbbench", report.SchemaVersion), nil},
		{"unknown reference", []string{p["base"], p["same"], "--normalize-by", "lmdb-c"}, exitcode.Usage, nil, "dbbench: --normalize-by lmdb-c: " + p["base"] + " has no target lmdb-c (targets: ref, sut)", nil},
		{"threshold that does not parse", []string{p["base"], p["same"], "--threshold", "ten"}, exitcode.Usage, nil, `dbbench: invalid argument "ten" for "--threshold" flag: threshold "ten": want a percentage like 10% or a fraction like 0.1 (see 'dbbench compare --help')`, nil},
		{"ambiguous threshold", []string{p["base"], p["same"], "--threshold", "10"}, exitcode.Usage, nil, `dbbench: invalid argument "10" for "--threshold" flag: threshold "10" is ambiguous: write 10% for a percentage or a fraction of at most 1 (see 'dbbench compare --help')`, nil},
		{"bad thresholds file", []string{p["base"], p["same"], "--threshold-file", p["bad-thresholds.yaml"]}, exitcode.Usage, nil, "dbbench: thresholds file " + p["bad-thresholds.yaml"] + `:1: threshold rows_per_s: threshold "fast": want a percentage like 10% or a fraction like 0.1`, nil},
		{"no common targets", []string{p["base"], p["other"]}, exitcode.Usage, nil, "dbbench: no common targets: " + p["base"] + " has ref, sut; " + p["other"] + " has x", nil},
		{"dataset sizes differ", []string{p["base"], p["big"]}, exitcode.Usage, nil, "dbbench: dataset sizes differ: " + p["base"] + " has 1000, " + p["big"] + " has 5000 (pass --allow-size-mismatch to compare them anyway)", nil},
		{"sizes allowed to differ", []string{p["base"], p["big"], "--allow-size-mismatch"}, exitcode.OK, []string{"rows_per_s"}, "", nil},
		{"unknown figure", []string{p["base"], p["same"], "--figures", "speed"}, exitcode.Usage, nil, `dbbench: unknown figure "speed" (see dbbench list figures)`, nil},
		{"unknown format", []string{p["base"], p["same"], "--format", "pdf"}, exitcode.Usage, nil, `dbbench: --format: unknown format "pdf" (formats: text, markdown, json, html)`, nil},
		{"thresholds file is a device", []string{p["base"], p["same"], "--threshold-file", "/dev/zero"}, exitcode.Usage, nil, "dbbench: thresholds file /dev/zero is not a small YAML file", nil},
		{"alpha zero", []string{p["base"], p["same"], "--alpha", "0"}, exitcode.Usage, nil, "dbbench: --alpha must lie strictly between 0 and 1, got 0", nil},
		{"empty normalize-by", []string{p["base"], p["same"], "--normalize-by", ""}, exitcode.Usage, nil, "dbbench: --normalize-by: empty value (leave the flag out for the default) (see 'dbbench compare --help')", nil},
		{"one argument", []string{p["base"]}, exitcode.Usage, nil, "dbbench: want OLD and NEW (or OLD... -- NEW...), got 1 arguments (see 'dbbench compare --help')", nil},
		{"one run per side", []string{p["base"], p["slower"], "--normalize-by", "ref"}, exitcode.OK, []string{"? one run", "note: one run per side: the run-to-run variation is not measured"}, "", []string{"worse"}},
		{"runs on both sides", []string{"--threshold", "10%", p["run-old-1"], p["run-old-2"], p["run-old-3"], p["run-old-4"], p["run-old-5"], "--", p["run-slower-dir"]}, exitcode.Failed, []string{"(5 reports)", "5 runs from", "normalized: every figure is the target's divided by ref's in the same repeat (by default: the baseline both sides name)", "worse", "gate: FAIL"}, "dbbench: gate failed: sut scan rows_per_s/ref: -20.1%: interval [-20.5%, -19.8%] lies beyond the 10% threshold, on the worse side (1 of 1 gated figure failed)", nil},
		{"one report holding five runs", []string{"--threshold", "10%", p["run-old-dir"], p["runs-slower-v2"]}, exitcode.Failed, []string{"5 runs from", "worse", "gate: FAIL"}, "dbbench: gate failed: sut scan rows_per_s/ref: -20.1%: interval [-20.5%, -19.8%] lies beyond the 10% threshold, on the worse side (1 of 1 gated figure failed)", nil},
		{"another machine class decides nothing", []string{"--threshold", "10%", p["run-other-machine-dir"], p["run-slower-dir"], "--force"}, exitcode.Inconclusive, []string{"? machines", "? 10%", "gate: INCONCLUSIVE: none of 1 gated figure decided"}, "dbbench: INCONCLUSIVE: none of 1 gated figure decided: the sides ran on different machine classes (thresholds 10%)", []string{"worse", "FAIL"}},
		{"another machine class without a gate", []string{p["run-other-machine-dir"], p["run-same-dir"]}, exitcode.Inconclusive, []string{"? machines", "INCONCLUSIVE: different machine classes"}, "dbbench: INCONCLUSIVE: different machine classes (" + p["run-other-machine-dir"] + " (5 reports): Intel(R) Xeon(R) Processor, 2 cores; " + p["run-same-dir"] + " (5 reports): Test CPU @ 3.00GHz, 2 cores): nothing is decided across machine classes, normalized or not (a ratio to an in-run baseline cancels a machine's speed, not its microarchitecture); measure the baseline on a machine of the same class, or alongside", nil},
		{"a baseline that failed is refused", []string{p["failed"], p["base"], "--threshold", "10%"}, exitcode.Usage, nil, "dbbench: " + p["failed"] + " " + p["failed"] + ": sut scan failed (verification failed: 99 rows, want 100): a baseline whose own results failed is refused; measure it again", nil},
		{"directories of runs, unchanged", []string{p["run-old-dir"], p["run-same-dir"], "--threshold", "10%"}, exitcode.OK, []string{"Mann-Whitney U test over runs", "gate: PASS"}, "", nil},
		{"raw figures on request", []string{p["run-old-dir"], p["run-same-dir"], "--normalize-by", "none"}, exitcode.OK, []string{"ref     scan      rows_per_s"}, "", []string{"normalized"}},
		{"empty side of --", []string{p["base"], "--"}, exitcode.Usage, nil, "dbbench: give reports on both sides of --: OLD... -- NEW...", nil},
		{"empty directory", []string{p["empty-dir"], p["base"]}, exitcode.Usage, nil, "dbbench: " + p["empty-dir"] + ": a directory without reports (*.json)", nil},
		{"different seeds refused", []string{p["base"], p["seed2"]}, exitcode.Usage, nil, "dbbench: different seeds, so different datasets and key samples (" + p["base"] + " has 1, " + p["seed2"] + " has 2) (pass --force to compare them anyway)", nil},
		{"different adapter refused", []string{p["base"], p["adapter"]}, exitcode.Usage, nil, "dbbench: target sut is adapter memory in " + p["base"] + " but lmdb in " + p["adapter"] + " (pass --force to compare them anyway)", nil},
		{"different config refused", []string{p["base"], p["config"]}, exitcode.Usage, nil, `dbbench: different configs (` + p["base"] + ` ran "gate", ` + p["config"] + ` ran "lmdb") (pass --force to compare them anyway)`, nil},
		{"forced", []string{p["base"], p["seed2"], "--force"}, exitcode.OK, []string{"note: compared despite different seeds", "(--force)"}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := dbbench(t, append([]string{"compare"}, tt.args...)...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out, errOut)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.wantNotOut {
				if strings.Contains(out, w) {
					t.Errorf("stdout has %q:\n%s", w, out)
				}
			}
			if got := strings.TrimSuffix(errOut, "\n"); got != tt.wantErr {
				t.Errorf("stderr\n%q\nwant\n%q", got, tt.wantErr)
			}
			if tt.wantErr != "" && out != "" && tt.wantCode != exitcode.Failed && tt.wantCode != exitcode.Inconclusive {
				t.Errorf("unusable input still printed to stdout:\n%s", out)
			}
		})
	}
}

func TestCompareJSONOutput(t *testing.T) {
	p := compareFixtures(t)
	code, out, _ := dbbench(t, "compare", p["base"], p["slower"], "--normalize-by", "ref", "--threshold", "10%", "--format", "json", "--per-repeat")
	if code != exitcode.Failed {
		t.Fatalf("exit %d, want 1", code)
	}
	var c struct {
		NormalizeBy string `json:"normalize_by"`
		Rows        []struct {
			Target  string  `json:"target"`
			Figure  string  `json:"figure"`
			Unit    string  `json:"unit"`
			Change  float64 `json:"change"`
			Verdict string  `json:"verdict"`
			Gate    string  `json:"gate"`
		} `json:"rows"`
		Gate struct {
			Verdict string `json:"verdict"`
		} `json:"gate"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if c.NormalizeBy != "ref" || len(c.Rows) != 1 || c.Rows[0].Target != "sut" || c.Rows[0].Unit != "ratio" ||
		c.Rows[0].Verdict != "worse" || c.Rows[0].Gate != "fail" || c.Gate.Verdict != "fail" {
		t.Errorf("decoded %+v", c)
	}
	if ch := c.Rows[0].Change; ch > -0.18 || ch < -0.22 {
		t.Errorf("change %.3f, want about -0.2 (throughput 1/1.25)", ch)
	}
}

// TestCompareFlagParsing checks the options the flags produce, without running the comparison.
func TestCompareFlagParsing(t *testing.T) {
	var got *CompareOptions
	cmd := NewCompareCmd(&Factory{}, func(o *CompareOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"a.json", "b.json", "--threshold", "10%", "--threshold", "p99=20%,lookup.p50=5%", "--figures", "p50,p99", "--normalize-by", "lmdb-c", "-f", "markdown", "--alpha", "0.01"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.OldPath != "a.json" || got.NewPath != "b.json" || got.NormalizeBy != "lmdb-c" || got.Format != "markdown" || got.Alpha != 0.01 ||
		strings.Join(got.Figures, ",") != "p50,p99" || got.Thresholds.String() != "10%,lookup.p50=5%,p99=20%" {
		t.Errorf("options %+v (thresholds %q)", got, got.Thresholds.String())
	}
}

func TestReportCommand(t *testing.T) {
	p := compareFixtures(t)
	lat := filepath.Join(t.TempDir(), "lat.json")
	r := comparetest.Report("lat",
		comparetest.Result{Target: "a", Workload: "lookup", Latencies: comparetest.Latencies(500, 0.2, 3, 100, 1), Figures: map[string][]float64{"ns_per_op": {500, 510, 490}}},
		comparetest.Result{Target: "b", Workload: "lookup", Latencies: comparetest.Latencies(700, 0.2, 3, 100, 2), Figures: map[string][]float64{"ns_per_op": {700, 710, 690}}},
	)
	if err := report.Write(lat, r); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(t.TempDir(), "hgrm")
	// Target a_b with workload lookup and target a with workload b_lookup share a file name.
	clash := filepath.Join(t.TempDir(), "clash.json")
	cr := comparetest.Report("clash",
		comparetest.Result{Target: "a_b", Workload: "lookup", Latencies: comparetest.Latencies(500, 0.2, 3, 100, 1), Figures: map[string][]float64{"ns_per_op": {500, 510, 490}}},
		comparetest.Result{Target: "a", Workload: "b_lookup", Latencies: comparetest.Latencies(700, 0.2, 3, 100, 2), Figures: map[string][]float64{"ns_per_op": {700, 710, 690}}},
	)
	if err := report.Write(clash, cr); err != nil {
		t.Fatal(err)
	}
	clashDir := filepath.Join(t.TempDir(), "clash")
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("not an export"), 0o644)
	linkDir := t.TempDir()
	os.Symlink(victim, filepath.Join(linkDir, "a_lookup.hgrm"))
	garbage := filepath.Join(t.TempDir(), "garbage.json")
	os.WriteFile(garbage, []byte(`{"schema_version": 1, "verdict": "pass"}`), 0o644)

	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
		wantErr  string
	}{
		{"text", []string{p["base"]}, exitcode.OK, []string{"TARGET", "verdict: PASS"}, ""},
		// the page shows a size option in bytes: the adapters' specs say map_size is one (txn_size is not)
		{"html", []string{filepath.Join("..", "report", "render", "testdata", "lmdb.json"), "--format", "html"}, exitcode.OK, []string{"map_size=1 GiB max_readers=126 txn_size=0;", "<td>100,000 persons</td>"}, ""},
		// a profiled report: its phases as a table and as bars, the memory figures in the results table
		{"text with phases", []string{filepath.Join("..", "report", "render", "testdata", "profile.json")}, exitcode.OK, []string{"PHASE          NS/OP  SHARE  HOW", "get~", "sampled 1 in 64", "txn*", "round trip", "not profiled"}, ""},
		{"html with phases", []string{filepath.Join("..", "report", "render", "testdata", "profile.json"), "--format", "html"}, exitcode.OK, []string{`<figure class="bars" id="phases-lookup-10000"`, `<rect class="seg" data-phase="wait"`, `<span class="phase" data-phase="decode">`, "<th class=n>retained/op</th>"}, ""},
		{"benchstat", []string{p["base"], "--format", "benchstat"}, exitcode.OK, []string{"pkg: dbbench/gate", "BenchmarkScan/target=sut/size=1000\t1\t"}, ""},
		{"hgrm needs a directory", []string{lat, "--format", "hgrm"}, exitcode.Usage, nil, "dbbench: --format hgrm writes one file per result: give the directory with --out-dir"},
		{"hgrm", []string{lat, "--format", "hgrm", "--out-dir", outDir}, exitcode.OK, []string{filepath.Join(outDir, "a_lookup.hgrm"), filepath.Join(outDir, "b_lookup.hgrm")}, ""},
		{"hgrm never overwrites", []string{lat, "--format", "hgrm", "--out-dir", outDir, "--unit", "ns"}, exitcode.Usage, nil, "dbbench: " + filepath.Join(outDir, "a_lookup.hgrm") + " already exists (pass --force to overwrite)"},
		{"hgrm names never clash", []string{clash, "--format", "hgrm", "--out-dir", clashDir}, exitcode.OK, []string{filepath.Join(clashDir, "a_b_lookup.hgrm"), filepath.Join(clashDir, "a_b_lookup_2.hgrm")}, ""},
		{"hgrm --force never follows a symlink", []string{lat, "--format", "hgrm", "--out-dir", linkDir, "--force"}, exitcode.Usage, nil, "dbbench: " + filepath.Join(linkDir, "a_lookup.hgrm") + " exists and is not a regular file: refusing to replace it"},
		{"a report without results is no PASS", []string{garbage}, exitcode.Usage, nil, "dbbench: " + garbage + " is not a valid dbbench report: it has no results"},
		{"hgrm bad unit", []string{lat, "--format", "hgrm", "--out-dir", outDir, "--unit", "s"}, exitcode.Usage, nil, `dbbench: --unit: unknown unit "s" (units: ms, ns, us)`},
		{"out-dir without hgrm", []string{lat, "--out-dir", outDir}, exitcode.Usage, nil, "dbbench: --out-dir is for --format hgrm; other formats go to standard output"},
		{"unknown format", []string{lat, "--format", "xlsx"}, exitcode.Usage, nil, `dbbench: --format: unknown format "xlsx" (see dbbench report --help)`},
		{"a misspelt format", []string{lat, "--format", "cvs"}, exitcode.Usage, nil, `dbbench: --format: unknown format "cvs": did you mean csv?`},
		{"missing report", []string{p["missing"]}, exitcode.Usage, nil, "dbbench: cannot read report " + p["missing"] + ": no such file or directory"},
		{"corrupt report", []string{p["corrupt.json"], "--format", "benchstat"}, exitcode.Usage, nil, "dbbench: " + p["corrupt.json"] + " is not a dbbench report: invalid character '}' looking for beginning of value (at byte 35)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := dbbench(t, append([]string{"report"}, tt.args...)...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out, errOut)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if got := strings.TrimSuffix(errOut, "\n"); got != tt.wantErr {
				t.Errorf("stderr\n%q\nwant\n%q", got, tt.wantErr)
			}
		})
	}

	if b, _ := os.ReadFile(victim); string(b) != "not an export" {
		t.Error("an export wrote through a symlink")
	}
	// The refused second export left the first files alone; --force rewrites them in another unit.
	before, err := os.ReadFile(filepath.Join(outDir, "a_lookup.hgrm"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(before), "Percentile") || !strings.Contains(string(before), "#[Max") {
		t.Errorf("a_lookup.hgrm is not a percentile distribution:\n%s", before)
	}
	if code, _, errOut := dbbench(t, "report", lat, "--format", "hgrm", "--out-dir", outDir, "--unit", "ns", "--force"); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, errOut)
	}
	after, _ := os.ReadFile(filepath.Join(outDir, "a_lookup.hgrm"))
	if bytes.Equal(before, after) {
		t.Error("--force with another unit left the file unchanged")
	}

	code, out, _ := dbbench(t, "report", p["base"], "--format", "json")
	if code != 0 {
		t.Fatalf("json: exit %d", code)
	}
	if _, err := report.Parse("stdout", []byte(out)); err != nil {
		t.Errorf("json output is not a report: %v", err)
	}
}

// TestCompareRealRuns runs the real engine twice on the in-memory adapter, then compares and
// exports the reports: the whole path a user takes, with measured (noisy) samples.
func TestCompareRealRuns(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "two.yaml")
	if err := os.WriteFile(cfg, []byte(`name: two
dataset: {persons: 500}
warmup: 0
repeats: 5
workloads:
  - scan
  - {name: lookup, ops: 100}
targets:
  - {name: ref, adapter: memory}
  - {name: sut, adapter: memory}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, out := range []string{a, b} {
		if code, _, errOut := dbbench(t, "run", "-q", "-c", cfg, "--out", out); code != 0 {
			t.Fatalf("run: exit %d: %s", code, errOut)
		}
	}
	code, out, errOut := dbbench(t, "compare", a, b, "--normalize-by", "ref", "--format", "json")
	if code != 0 || errOut != "" {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	var c struct {
		Rows []struct{ Target, Workload, Figure string } `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range c.Rows {
		got = append(got, r.Target+" "+r.Workload+" "+r.Figure)
	}
	want := "sut scan rows_per_s,sut lookup rows_per_s,sut lookup p50,sut lookup p99"
	if strings.Join(got, ",") != want {
		t.Errorf("rows %q, want %q", got, want)
	}
	if code, out, errOut := dbbench(t, "report", a, "--format", "hgrm", "--out-dir", filepath.Join(dir, "h")); code != 0 || strings.Count(out, ".hgrm") != 4 {
		t.Errorf("hgrm export: exit %d, %q %s", code, out, errOut)
	}
}

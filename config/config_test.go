package config

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/memory"
	"github.com/dbbench/dbbench/configs"
	"github.com/dbbench/dbbench/workloads"
)

// pagesAdapter is a stand-in with options and an adapter-specific workload, to validate against.
type pagesAdapter struct{}

func (pagesAdapter) Info() adapters.Info {
	return adapters.Info{
		Name:    "pages",
		Builtin: []string{workloads.Scan},
		Options: []adapters.OptionSpec{
			{Name: "path", Kind: adapters.String},
			{Name: "map_size", Kind: adapters.Bytes, Default: "1GiB"},
			{Name: "dsn", Kind: adapters.DSN},
			{Name: "password", Kind: adapters.String, Secret: true},
		},
		Workloads: []adapters.WorkloadSpec{{Name: "page_all", Params: []adapters.OptionSpec{
			{Name: "page", Kind: adapters.Int, Default: "100", HasMin: true, Min: 1},
		}}},
	}
}

func (pagesAdapter) Open(context.Context, adapters.Options, adapters.Env) (adapters.Target, error) {
	return nil, nil
}

func registry(t *testing.T) *adapters.Registry {
	t.Helper()
	reg, err := adapters.NewRegistry(memory.New(), pagesAdapter{})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

const good = `name: t
seed: 7
dataset:
  persons: 1000
warmup: 0
repeats: 3
workloads:
  - scan
  - name: lookup
    ops: 100
  - name: page_all
    ops: 5
    params: {page: 10}
targets:
  - name: mem
    adapter: memory
  - name: pg
    adapter: pages
    options:
      password: hunter2
      dsn: postgres://u:secret@localhost/db
    workloads: [scan, page_all]
assertions:
  - scan.rows_per_s[mem] >= 0.5 * scan.rows_per_s[pg]
  - name: pages
    check: page_all.p50[pg] <= 1000000
ci:
  dataset: {persons: 200}
  repeats: 2
  workloads:
    lookup: {ops: 20}
  relax: 10%
`

func TestResolveGood(t *testing.T) {
	c, err := Parse("good.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Resolve(registry(t), false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Seed != 7 || p.Warmup != 0 || p.Repeats != 3 || p.Sizes[0] != 1000 || len(p.Assertions) != 2 {
		t.Errorf("plan: %+v", p)
	}
	if p.Isolation != IsolationNone || p.Rewarm != DefaultRewarm {
		t.Errorf("isolation %q rewarm %d by default, want %q %d", p.Isolation, p.Rewarm, IsolationNone, DefaultRewarm)
	}
	if p.StallTimeout != DefaultStallTimeout || p.AsRun["stall_timeout"] != nil {
		t.Errorf("stall_timeout %v by default (as run: %v), want %v", p.StallTimeout, p.AsRun["stall_timeout"], DefaultStallTimeout)
	}
	if p.Interleave != InterleaveRepeats || p.AsRun["interleave"] != nil {
		t.Errorf("interleave %q by default (as run: %v), want %q", p.Interleave, p.AsRun["interleave"], InterleaveRepeats)
	}
	c2, err := Parse("good.yaml", []byte(strings.Replace(good, "repeats: 3", "repeats: 3\nisolation: rewarm\nstall_timeout: 90s\ninterleave: ops", 1)))
	if err != nil {
		t.Fatal(err)
	}
	p2, err := c2.Resolve(registry(t), false)
	if err != nil {
		t.Fatal(err)
	}
	if p2.Isolation != IsolationRewarm || p2.AsRun["isolation"] != IsolationRewarm {
		t.Errorf("isolation: rewarm resolved to %q (as run: %v)", p2.Isolation, p2.AsRun["isolation"])
	}
	if p2.Interleave != InterleaveOps || p2.AsRun["interleave"] != InterleaveOps {
		t.Errorf("interleave: ops resolved to %q (as run: %v)", p2.Interleave, p2.AsRun["interleave"])
	}
	if p2.StallTimeout != 90*time.Second || p2.AsRun["stall_timeout"] != "1m30s" {
		t.Errorf("stall_timeout: 90s resolved to %v (as run: %v)", p2.StallTimeout, p2.AsRun["stall_timeout"])
	}
	if p.Memory || p.AsRun["memory"] != nil {
		t.Errorf("memory %v by default (as run: %v), want off", p.Memory, p.AsRun["memory"])
	}
	c3, err := Parse("good.yaml", []byte(strings.Replace(good, "repeats: 3", "repeats: 3\nmemory: true", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if p3, err := c3.Resolve(registry(t), false); err != nil || !p3.Memory || p3.AsRun["memory"] != true {
		t.Errorf("memory: true resolved to %v (as run: %v, error %v)", p3 != nil && p3.Memory, p3 != nil && p3.AsRun["memory"] == true, err)
	}
	if p.Profile || p.AsRun["profile"] != nil {
		t.Errorf("profile %v by default (as run: %v), want off", p.Profile, p.AsRun["profile"])
	}
	c4, err := Parse("good.yaml", []byte(strings.Replace(good, "repeats: 3", "repeats: 3\nprofile: true\ninterleave: ops", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if p4, err := c4.Resolve(registry(t), false); err != nil || !p4.Profile || p4.AsRun["profile"] != true {
		t.Errorf("profile: true resolved to %v (as run: %v, error %v)", p4 != nil && p4.Profile, p4 != nil && p4.AsRun["profile"] == true, err)
	}
	if got := p.Targets[0].Workloads; strings.Join(got, ",") != "scan,lookup" {
		t.Errorf("mem workloads = %v", got)
	}
	if got := p.Targets[1].Workloads; strings.Join(got, ",") != "scan,page_all" {
		t.Errorf("pg workloads = %v", got)
	}
	if p.Targets[1].Params["page_all"].Int("page") != 10 {
		t.Errorf("page param not parsed")
	}
	if p.Targets[1].Options.Int("map_size") != 1<<30 {
		t.Errorf("default map_size not applied")
	}
	red := p.Targets[1].Options.Redacted()
	if red["password"] != "***" || strings.Contains(red["dsn"].(string), "secret") {
		t.Errorf("secrets leak into the report: %v", red)
	}
	if _, _, readers := p.Workloads[0].Params(1000); readers != 0 {
		t.Errorf("scan has readers")
	}
	if rows, _, _ := p.Workloads[0].Params(1000); rows != 1000 {
		t.Errorf("scan rows default = %d, want the dataset size", rows)
	}

	ci, err := c.Resolve(registry(t), true)
	if err != nil {
		t.Fatal(err)
	}
	if ci.Sizes[0] != 200 || ci.Repeats != 2 || ci.Relax != 0.1 || ci.Warmup != 0 {
		t.Errorf("ci plan: sizes %v repeats %d relax %v", ci.Sizes, ci.Repeats, ci.Relax)
	}
	if _, ops, _ := ci.Workloads[1].Params(200); ops != 20 {
		t.Errorf("ci lookup ops = %d", ops)
	}
}

// TestVerdictSettings: `verdict:` sets how assertions are decided over runs; `ci.verdict:` replaces
// the fields it gives under --ci only; what neither gives takes the defaults; the report's config as
// run records settings other than the defaults.
func TestVerdictSettings(t *testing.T) {
	y := strings.Replace(good, "repeats: 3", "repeats: 3\nverdict: {runs: 5, confidence: 99%, budget: 3m}", 1)
	y = strings.Replace(y, "relax: 10%", "relax: 10%\n  verdict: {runs: 2, max_looks: 6}", 1)
	c, err := Parse("v.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Resolve(registry(t), false)
	if err != nil {
		t.Fatal(err)
	}
	if want := (VerdictPlan{Runs: 5, Confidence: 0.99, Budget: 3 * time.Minute, MaxLooks: DefaultMaxLooks}); p.Verdict != want {
		t.Errorf("verdict %+v, want %+v", p.Verdict, want)
	}
	if v, _ := p.AsRun["verdict"].(map[string]any); v["runs"] != 5 || v["budget"] != "3m0s" {
		t.Errorf("as run: %v", p.AsRun["verdict"])
	}
	ci, err := c.Resolve(registry(t), true)
	if err != nil {
		t.Fatal(err)
	}
	if want := (VerdictPlan{Runs: 2, Confidence: 0.99, Budget: 3 * time.Minute, MaxLooks: 6}); ci.Verdict != want {
		t.Errorf("ci verdict %+v, want %+v", ci.Verdict, want)
	}
	plain, _ := Parse("good.yaml", []byte(good))
	dp, err := plain.Resolve(registry(t), true)
	if err != nil {
		t.Fatal(err)
	}
	if want := (VerdictPlan{Runs: DefaultRuns, Confidence: DefaultConfidence, MaxLooks: DefaultMaxLooks}); dp.Verdict != want || dp.AsRun["verdict"] != nil {
		t.Errorf("defaults: %+v (as run %v), want %+v", dp.Verdict, dp.AsRun["verdict"], want)
	}
}

// TestNarrowing: --targets leaves out the assertions naming other targets, with the reason, for the
// report; a run narrowed to some workloads (the extra runs that decide) drops the targets left with
// nothing to run, the CI overrides of the others, and every assertion.
func TestNarrowing(t *testing.T) {
	c, err := Parse("good.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	dropped, err := c.KeepTargets([]string{"pg"})
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 1 || len(c.LeftOut) != 1 || c.LeftOut[0].Reason != "--targets left out target mem" || len(c.Assertions) != 1 {
		t.Errorf("dropped %v, left out %+v, kept %+v", dropped, c.LeftOut, c.Assertions)
	}
	p, err := c.Resolve(registry(t), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.LeftOut) != 1 || p.LeftOut[0].Assertion.Expr != "scan.rows_per_s[mem] >= 0.5 * scan.rows_per_s[pg]" || p.LeftOut[0].Assertion.Line != 24 || len(p.Assertions) != 1 {
		t.Errorf("plan left out %+v", p.LeftOut)
	}

	c, _ = Parse("good.yaml", []byte(good))
	if err := c.KeepWorkloads([]string{"page_all"}); err != nil {
		t.Fatal(err)
	}
	if len(c.Targets) != 2 || strings.Join(c.Targets[1].Workloads, ",") != "page_all" || len(c.Assertions) != 0 || len(c.CI.Workloads) != 0 {
		t.Errorf("narrowed to page_all: targets %+v, assertions %d, ci workloads %v", c.Targets, len(c.Assertions), c.CI.Workloads)
	}
	if _, err := c.Resolve(registry(t), true); err != nil {
		t.Errorf("the narrowed config does not resolve: %v", err)
	}
	c, _ = Parse("good.yaml", []byte(good))
	if err := c.KeepWorkloads([]string{"lookup"}); err != nil {
		t.Fatal(err)
	}
	// pg listed scan and page_all only: it has nothing left to run
	if len(c.Targets) != 1 || c.Targets[0].Name != "mem" || len(c.Workloads) != 1 {
		t.Errorf("narrowed to lookup: targets %+v, workloads %+v", c.Targets, c.Workloads)
	}
	if err := c.KeepWorkloads([]string{"scna"}); err == nil || !strings.Contains(err.Error(), `no workload "scna"`) {
		t.Errorf("unknown workload: %v", err)
	}
}

// aliasBomb is a key whose value is ten levels of aliases, each referring ten times to the one
// before: 10^10 values once expanded, in a dozen lines. key is replaced by a valid first key.
func aliasBomb(indent, key string) string {
	pad := strings.Repeat(" ", len(indent)-len(strings.TrimLeft(indent, " ")))
	var b strings.Builder
	b.WriteString(indent + ":\n" + pad + "  " + key + ": &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "%s  l%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", pad, i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		ci      bool
		wantErr string
	}{
		{"syntax", "name: x\ndataset: [\n", false, "x.yaml:2: YAML syntax error"},
		{"tab indentation", "name: x\n\tdataset: 1\n", false, "x.yaml:2: YAML syntax error"},
		{"empty", "", false, "the config is empty"},
		{"not a mapping", "- a\n- b\n", false, "x.yaml:1: the config must be a mapping"},
		{"unknown key", strings.Replace(good, "seed: 7", "sead: 7", 1), false, `x.yaml:2: unknown key "sead"`},
		{"missing name", strings.Replace(good, "name: t\n", "", 1), false, "missing name"},
		{"zero persons", strings.Replace(good, "persons: 1000", "persons: 0", 1), false, "x.yaml:4: dataset.persons must be positive, got 0"},
		{"negative persons", strings.Replace(good, "persons: 1000", "persons: -5", 1), false, "x.yaml:4: dataset.persons must be positive"},
		{"words for size", strings.Replace(good, "persons: 1000", "persons: many", 1), false, `x.yaml:4: dataset.persons must be a whole number, got "many"`},
		{"zero repeats", strings.Replace(good, "repeats: 3", "repeats: 0", 1), false, "x.yaml:6: repeats must be positive"},
		{"negative ops", strings.Replace(good, "ops: 100", "ops: -1", 1), false, "x.yaml:10: lookup.ops must be positive"},
		{"unknown workload", strings.Replace(good, "  - scan\n", "  - scna\n", 1), false, `x.yaml:8: unknown workload "scna"`},
		{"unknown adapter", strings.Replace(good, "adapter: memory", "adapter: mongo", 1), false, `x.yaml:15: unknown adapter "mongo" (known: memory, pages)`},
		{"unknown option", strings.Replace(good, "password: hunter2", "pasword: hunter2", 1), false, `x.yaml:20: target pg (pages): unknown option "pasword": did you mean password?`},
		{"bad option value", strings.Replace(good, "password: hunter2", "map_size: lots", 1), false, `option "map_size": want a size`},
		{"unknown param", strings.Replace(good, "params: {page: 10}", "params: {pg: 10}", 1), false, `x.yaml:13: workload page_all on target pg: unknown option "pg" (known: page)`},
		{"bad param", strings.Replace(good, "params: {page: 10}", "params: {page: 0}", 1), false, `option "page": must be at least 1`},
		{"unsupported workload", strings.Replace(good, "workloads: [scan, page_all]", "workloads: [scan, lookup]", 1), false, `target pg (pages) does not support workload "lookup"`},
		{"duplicate target", strings.Replace(good, "name: pg", "name: mem", 1), false, `target "mem" appears twice`},
		{"unknown target in assertion", strings.Replace(good, "0.5 * scan.rows_per_s[pg]", "0.5 * scan.rows_per_s[pq]", 1), false, `x.yaml:24: assertion names unknown target "pq"`},
		{"unknown figure", strings.Replace(good, "page_all.p50[pg]", "page_all.p42[pg]", 1), false, `x.yaml:26: unknown figure "p42"`},
		{"workload not run by target", strings.Replace(good, "page_all.p50[pg]", "lookup.p50[pg]", 1), false, "target pg does not run lookup"},
		{"bad assertion", strings.Replace(good, "0.5 * scan", "0.5 ** scan", 1), false, "x.yaml:24: cannot read"},
		{"bad run value", strings.Replace(good, "check: page_all.p50[pg] <= 1000000", "check: page_all.p50[pg] <= 1000000\n    run_value: fastest", 1), false, `run_value is median or best, got "fastest"`},
		{"scan more rows than loaded", strings.Replace(good, "  - scan\n", "  - name: scan\n    rows: 5000\n", 1), false, "scan reads 5000 rows but the dataset has only 1000 persons"},
		{"ci without section", strings.Replace(good, good[strings.Index(good, "ci:"):], "", 1), true, "--ci needs a ci: section"},
		{"ci names unknown workload", strings.Replace(good, "lookup: {ops: 20}", "lokup: {ops: 20}", 1), true, `ci.workloads names "lokup"`},
		{"ci too small for scan rows", strings.Replace(good, "  - scan\n", "  - name: scan\n    rows: 500\n", 1), true, "scan reads 500 rows but the dataset has only 200 persons"},
		{"relax out of range", strings.Replace(good, "relax: 10%", "relax: 150%", 1), true, "ci.relax must be between 0 and 1"},
		{"relax above 10%", strings.Replace(good, "relax: 10%", "relax: 40%", 1), false, "x.yaml:32: ci.relax 40%: at most 10%: a wider line hides the noise instead of measuring it (docs/verdicts.md)"},
		{"relax just above 10%", strings.Replace(good, "relax: 10%", "relax: 0.11", 1), false, "ci.relax 0.11: at most 10%"},
		{"verdict runs", strings.Replace(good, "repeats: 3", "repeats: 3\nverdict: {runs: 0}", 1), false, "x.yaml:7: verdict.runs must be positive, got 0"},
		{"verdict runs without bound", strings.Replace(good, "repeats: 3", "repeats: 3\nverdict: {runs: 1000}", 1), false, "verdict.runs must be at most 100"},
		{"verdict confidence", strings.Replace(good, "repeats: 3", "repeats: 3\nverdict: {confidence: 1.5}", 1), false, `x.yaml:7: verdict.confidence must be between 0.5 and 0.9999 (or 50%-99.99%), got "1.5"`},
		{"verdict budget", strings.Replace(good, "repeats: 3", "repeats: 3\nverdict: {budget: soon}", 1), false, `verdict.budget "soon": want a positive duration`},
		{"verdict zero budget", strings.Replace(good, "repeats: 3", "repeats: 3\nverdict: {budget: 0s}", 1), false, "max_looks: 1 takes no extra runs"},
		{"verdict looks", strings.Replace(good, "repeats: 3", "repeats: 3\nverdict: {max_looks: 11}", 1), false, "verdict.max_looks must be at most 10"},
		{"verdict unknown key", strings.Replace(good, "repeats: 3", "repeats: 3\nverdict: {alpha: 0.05}", 1), false, `unknown key "alpha"`},
		{"ci verdict", strings.Replace(good, "relax: 10%", "relax: 10%\n  verdict: {runs: -2}", 1), false, "ci.verdict.runs must be positive, got -2"},
		{"sizes and persons", strings.Replace(good, "persons: 1000", "persons: 1000\n  sizes: [1, 2]", 1), false, "give either persons or sizes"},
		{"duplicate size", strings.Replace(good, "persons: 1000", "sizes: [1000, 1000]", 1), false, "dataset size 1000 appears twice"},
		{"assertion size not run", strings.Replace(good, "page_all.p50[pg]", "page_all.p50[pg@5]", 1), false, "names size 5, which this run does not load"},
		{"two documents", good + "---\nname: y\n", false, "only one YAML document"},
		{"slowdown", strings.Replace(good, "adapter: memory", "adapter: memory\n    slowdown: lots", 1), false, "slowdown must be a fraction"},
		{"not a config", "root:$6$saltsalt$secrethash:20228:0:99999:7:::\n", false, "x.yaml:1: the config: this is not a key dbbench knows, nor a word"},
		{"alias bomb in params", strings.Replace(good, "    params: {page: 10}", aliasBomb("    params", "page"), 1), false, "expands to more than 10000 values"},
		{"alias bomb in options", strings.Replace(good, "      password: hunter2", aliasBomb("      x_bomb", "password"), 1), false, "expands to more than 10000 values"},
		{"readers without bound", strings.Replace(good, "  - scan\n", "  - scan\n  - {name: concurrent, readers: 10000000}\n", 1), false, "concurrent.readers must be at most 1024"},
		{"lookup ops without bound", strings.Replace(good, "ops: 100", "ops: 2000000000", 1), false, "lookup.ops must be at most 10000000"},
		{"warmup without bound", strings.Replace(good, "warmup: 0", "warmup: 2000000000", 1), false, "warmup must be at most 1000"},
		{"ci repeats without bound", strings.Replace(good, "repeats: 2", "repeats: 5000", 1), true, "ci.repeats must be at most 1000"},
		{"ci ops without bound", strings.Replace(good, "lookup: {ops: 20}", "lookup: {ops: 20000000}", 1), true, "ci.workloads.lookup.ops must be at most 10000000"},
		{"unset variable in a dsn", strings.Replace(good, "postgres://u:secret@localhost/db", "${DBBENCH_TEST_UNSET_DSN}", 1), false, "${DBBENCH_TEST_UNSET_DSN} is not set"},
		{"unset variable in slowdown", strings.Replace(good, "adapter: memory", "adapter: memory\n    slowdown: ${DBBENCH_TEST_UNSET_SLOW}", 1), false, "${DBBENCH_TEST_UNSET_SLOW} is not set"},
		{"baseline", strings.Replace(good, "repeats: 3", "repeats: 3\nbaseline: nobody", 1), false, `x.yaml:7: baseline "nobody" is not one of the targets`},
		{"rewarm", strings.Replace(good, "repeats: 3", "repeats: 3\nrewarm: 0", 1), false, `x.yaml:7: rewarm must be positive`},
		{"isolation", strings.Replace(good, "repeats: 3", "repeats: 3\nisolation: vm", 1), false, `x.yaml:7: isolation "vm": want one of none, rewarm, process`},
		{"interleave", strings.Replace(good, "repeats: 3", "repeats: 3\ninterleave: rows", 1), false, `x.yaml:7: interleave "rows": want one of repeats, ops`},
		{"interleave ops with process isolation", strings.Replace(good, "repeats: 3", "repeats: 3\ninterleave: ops\nisolation: process", 1), false, `x.yaml:7: interleave: ops does not combine with isolation: process`},
		{"memory not a bool", strings.Replace(good, "repeats: 3", "repeats: 3\nmemory: lots", 1), false, `x.yaml:7: memory must be true or false, got "lots"`},
		{"profile not a bool", strings.Replace(good, "repeats: 3", "repeats: 3\nprofile: yes please", 1), false, `x.yaml:7: profile must be true or false, got "yes please"`},
		{"profile with a YCSB workload", "name: y\nprofile: true\nworkloads: [ycsb-a]\ntargets:\n  - {name: mem, adapter: memory}\n", false, "x.yaml:2: profile: true does not split the operations of YCSB workloads (ycsb-a)"},
		{"memory with interleave ops", strings.Replace(good, "repeats: 3", "repeats: 3\nmemory: true\ninterleave: ops", 1), false, `x.yaml:8: memory: true measures each target's repeat on its own: it does not combine with interleave: ops`},
		{"interleave not a scalar", strings.Replace(good, "repeats: 3", "repeats: 3\ninterleave: [ops]", 1), false, `x.yaml:7: interleave must be a single value`},
		{"stall_timeout not a duration", strings.Replace(good, "repeats: 3", "repeats: 3\nstall_timeout: 60", 1), false, `x.yaml:7: stall_timeout "60": want a duration such as 90s or 5m`},
		{"stall_timeout too short", strings.Replace(good, "repeats: 3", "repeats: 3\nstall_timeout: 10ms", 1), false, `x.yaml:7: stall_timeout must be between 1s and 24h0m0s, got 10ms`},
		{"stall_timeout too long", strings.Replace(good, "repeats: 3", "repeats: 3\nstall_timeout: 1000h", 1), false, `x.yaml:7: stall_timeout must be between 1s and 24h0m0s`},
		{"machines not a mapping", strings.Replace(good, "check: page_all.p50[pg] <= 1000000", "check: page_all.p50[pg] <= 1000000\n    machines: [600]", 1), false, `x.yaml:27: machines must map a machine class to a threshold`},
		{"machines key not a class", strings.Replace(good, "check: page_all.p50[pg] <= 1000000", "check: page_all.p50[pg] <= 1000000\n    machines: {AMD EPYC: 600}", 1), false, `x.yaml:27: machines: a key is a machine class as reports name it`},
		{"machines value not a number", strings.Replace(good, "check: page_all.p50[pg] <= 1000000", "check: page_all.p50[pg] <= 1000000\n    machines: {\"AMD EPYC, 2 cores\": lots}", 1), false, `x.yaml:27: machines.AMD EPYC, 2 cores: bad number "lots"`},
		{"machines ratio factor not positive", strings.Replace(good, "  - scan.rows_per_s[mem] >= 0.5 * scan.rows_per_s[pg]", "  - check: scan.rows_per_s[mem] >= 0.5 * scan.rows_per_s[pg]\n    machines: {\"AMD EPYC, 2 cores\": 0}", 1), false, `machines.AMD EPYC, 2 cores: the factor 0 must be positive`},
		{"machines duration on a ratio", strings.Replace(good, "  - scan.rows_per_s[mem] >= 0.5 * scan.rows_per_s[pg]", "  - check: scan.rows_per_s[mem] >= 0.5 * scan.rows_per_s[pg]\n    machines: {\"AMD EPYC, 2 cores\": 2ms}", 1), false, `machines.AMD EPYC, 2 cores: `},
		{"machines duplicate class", strings.Replace(good, "check: page_all.p50[pg] <= 1000000", "check: page_all.p50[pg] <= 1000000\n    machines: {\"X, 2 cores\": 1, \"X, 2 cores\": 2}", 1), false, `appears twice`},
		{"stall_timeout not a scalar", strings.Replace(good, "repeats: 3", "repeats: 3\nstall_timeout: [1s]", 1), false, `x.yaml:7: stall_timeout must be a single value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("x.yaml", []byte(tt.yaml))
			if err == nil {
				_, err = c.Resolve(registry(t), tt.ci)
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v\nwant containing %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestMachineThresholds(t *testing.T) {
	y := strings.Replace(good, "check: page_all.p50[pg] <= 1000000", `check: page_all.p50[pg] <= 1000000
    machines:
      "AMD EPYC, 2 cores": 2500000     # measured there
      "Intel(R) Xeon(R) Processor, 4 cores": 90%`, 1)
	c, err := Parse("x.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Resolve(registry(t), false)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Assertions[1].Machines
	want := map[string]float64{"AMD EPYC, 2 cores": 2500000, "Intel(R) Xeon(R) Processor, 4 cores": 0.9}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("machines = %v, want %v", got, want)
	}
	if p.Assertions[1].RunValue != "" {
		t.Errorf("run_value not set: got %q, want the default (median)", p.Assertions[1].RunValue)
	}
	if p.Assertions[0].Machines != nil {
		t.Errorf("an assertion without machines: got %v", p.Assertions[0].Machines)
	}
}

func TestSlowdownFromEnvironment(t *testing.T) {
	y := strings.Replace(good, "adapter: memory", "adapter: memory\n    slowdown: ${DBBENCH_TEST_SLOWDOWN:-0%}", 1)
	for env, want := range map[string]float64{"": 0, "20%": 0.2, "0.05": 0.05} {
		t.Setenv("DBBENCH_TEST_SLOWDOWN", env)
		c, err := Parse("x.yaml", []byte(y))
		if err != nil {
			t.Fatal(err)
		}
		if c.Targets[0].Slowdown != want {
			t.Errorf("DBBENCH_TEST_SLOWDOWN=%q: slowdown %v, want %v", env, c.Targets[0].Slowdown, want)
		}
	}
	t.Setenv("DBBENCH_TEST_SLOWDOWN", "fast")
	if _, err := Parse("x.yaml", []byte(y)); err == nil || !strings.Contains(err.Error(), `slowdown must be a fraction such as 0.1 or 10%, got "fast"`) {
		t.Errorf("bad value from the environment: %v", err)
	}
}

func TestSweepAndGrowthAssertion(t *testing.T) {
	y := strings.Replace(good, "persons: 1000", "sizes: [300, 3000]", 1)
	y = strings.Replace(y, "page_all.p50[pg] <= 1000000", "page_all.p50[pg@max] <= 2 * page_all.p50[pg@min]", 1)
	c, err := Parse("sweep.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Resolve(registry(t), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sizes) != 2 || p.Sizes[1] != 3000 {
		t.Errorf("sizes = %v", p.Sizes)
	}
}

// TestShippedConfigs keeps every config in configs/ valid, both forms.
func TestShippedConfigs(t *testing.T) {
	reg := registry(t)
	for _, name := range configs.Names() {
		data, _ := configs.Read(name)
		c, err := Parse(name, data)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		// Only configs whose adapters are all in this test's registry resolve here; the CLI tests
		// validate every shipped config against the real registry.
		known := true
		for _, tg := range c.Targets {
			if _, ok := reg.Lookup(tg.Adapter); !ok {
				known = false
			}
		}
		if !known {
			continue
		}
		if _, err := c.Resolve(reg, false); err != nil {
			t.Errorf("%v", err)
		}
		if c.CI != nil {
			if _, err := c.Resolve(reg, true); err != nil {
				t.Errorf("ci: %v", err)
			}
		}
	}
}

func TestKeepTargets(t *testing.T) {
	c, err := Parse("two.yaml", []byte(`name: two
dataset: {persons: 100}
workloads: [scan, lookup]
targets:
  - {name: mem, adapter: memory, workloads: [scan]}
  - {name: other, adapter: memory}
assertions:
  - scan.rows_per_s[mem] >= 0.5 * scan.rows_per_s[other]
  - scan.rows_per_s[other] > 0
  - scan.rows_per_s[mem] > 0
`))
	if err != nil {
		t.Fatal(err)
	}
	dropped, err := c.KeepTargets([]string{"mem"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Targets) != 1 || c.Targets[0].Name != "mem" {
		t.Errorf("targets after KeepTargets: %+v", c.Targets)
	}
	if len(c.Workloads) != 1 || c.Workloads[0].Name != "scan" {
		t.Errorf("workloads after KeepTargets: %+v, want only scan (the one mem runs)", c.Workloads)
	}
	if len(dropped) != 2 || len(c.Assertions) != 1 {
		t.Errorf("dropped %q, kept %d assertions: want the two that name other dropped", dropped, len(c.Assertions))
	}
	if _, err := c.Resolve(registry(t), false); err != nil {
		t.Errorf("the narrowed config does not resolve: %v", err)
	}
	if _, err := c.KeepTargets([]string{"nope"}); err == nil || !strings.Contains(err.Error(), `no target "nope" (targets: mem)`) {
		t.Errorf("unknown target: error %v", err)
	}
}

package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/internal/redact"
	"github.com/dbbench/dbbench/internal/suggest"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/assertion"
	"github.com/dbbench/dbbench/workloads"
)

// Plan is a config resolved against the registry, with CI overrides applied: what the engine runs.
type Plan struct {
	Source      string
	Name        string
	Description string
	Seed        int64
	Salt        uint64 // the dataset's salt (dataset.GenerateSalted): one per run, every target's; 0 none
	Sizes       []int
	Warmup      int
	Repeats     int
	Isolation   string // one of IsolationModes
	Interleave  string // one of InterleaveModes
	Baseline    string // the baseline target, "" for none
	// Rewarm is the untimed runs before each timed repeat when they are re-warmed (isolation rewarm
	// or process; see RewarmRuns).
	Rewarm int
	// StallTimeout is how long a target may go without finishing an operation of a running workload
	// before the engine gives up on it.
	StallTimeout time.Duration
	Workloads    []WorkloadPlan
	Targets      []TargetPlan
	Assertions   []assertion.Assertion
	CI           bool
	Relax        float64
	// Memory asks for the memory figures of every timed repeat (memory: true or --memory;
	// docs/memory.md): a forced GC and a reading of the processes' memory around each.
	Memory bool
	// Profile asks for every timed operation split into the phases its target can see (profile:
	// true or --profile; docs/profile.md): a phase recorder handed to the target around each timed
	// repeat.
	Profile bool
	// Verdict is how the assertions are decided over runs (docs/verdicts.md).
	Verdict VerdictPlan
	// LeftOut are assertions the run does not decide, each with its reason (--targets left out a
	// target they name).
	LeftOut []LeftOutAssertion
	// AsRun is the config as run (CI overrides applied, secrets redacted) for the report.
	AsRun map[string]any
	// Load is how the YCSB workloads' operations arrive (nil: a closed loop of one worker); YCSB
	// their records and run phase (config/load.go), CI overrides applied.
	Load *LoadPlan
	YCSB YCSBPlan
	// Secrets holds every secret of the config (secret options, passwords in dsns and addresses),
	// to be masked wherever the run prints or stores text.
	Secrets *redact.Set
	// Shard is this process's share of a sharded run (nil: the whole run); docs/shards.md.
	Shard *ShardPlan
	// LoadOnly: this run only loads the stores on servers the user gives, for shards that then
	// share them (dbbench run --load-only; docs/shards.md).
	LoadOnly bool
	// Files are the files the config reads besides itself (a sql workload's script files), each
	// once, as the config names them (relative to its directory, or absolute): what must travel
	// with it (dbbench kube ships them beside it).
	Files []string
}

// VerdictPlan is how a run decides its assertions: Runs runs (fresh processes) before the first look,
// then while an assertion is undecided and Budget allows, batches of up to Runs more runs of just the
// workloads and targets the undecided assertions read, at most MaxLooks looks in all; each interval
// at confidence 1 - (1 - Confidence) / (k * MaxLooks) for k assertions decided.
type VerdictPlan struct {
	Runs       int
	Confidence float64
	// Budget is the most time the whole run may take (the initial runs are always made; extra runs
	// only while they fit); 0: extra runs may take DefaultBudgetFactor times what the initial runs
	// took.
	Budget   time.Duration
	MaxLooks int
}

// LeftOutAssertion is an assertion a run leaves out, with the reason.
type LeftOutAssertion struct {
	Assertion assertion.Assertion
	Reason    string
}

// Normalize gives what a plan leaves zero its default (isolation, interleave, re-warm runs, stall
// timeout, the verdict's runs, confidence and looks): the one place these defaults are decided, for a
// plan resolved from a config (Resolve normalizes it) and for one built in code (the engine
// normalizes the plan it runs). It changes nothing a config gave, and returns p.
func (p *Plan) Normalize() *Plan {
	if p.Verdict.Runs <= 0 {
		p.Verdict.Runs = DefaultRuns
	}
	if p.Verdict.Confidence <= 0 {
		p.Verdict.Confidence = DefaultConfidence
	}
	if p.Verdict.MaxLooks <= 0 {
		p.Verdict.MaxLooks = DefaultMaxLooks
	}
	if p.Isolation == "" {
		p.Isolation = IsolationNone
	}
	if p.Interleave == "" {
		p.Interleave = InterleaveRepeats
	}
	if p.Rewarm <= 0 {
		p.Rewarm = DefaultRewarm
	}
	if p.StallTimeout <= 0 {
		p.StallTimeout = DefaultStallTimeout
	}
	return p
}

// RewarmRuns is how many untimed runs precede each timed repeat of a target: Rewarm with isolation
// rewarm or process, else 0.
func (p *Plan) RewarmRuns() int {
	if p.Isolation != IsolationRewarm && p.Isolation != IsolationProcess {
		return 0
	}
	return p.Rewarm
}

// How the report's run.order describes the targets' alternation.
const (
	orderRepeats = "interleaved ABAB (targets in config order, each repeat)"
	orderOps     = "interleaved per operation where the engine times each operation (lookup and adapter workloads: op 0 of every target, then op 1, ..., the targets in a seeded shuffled order for each operation), else per repeat (ABAB, targets in config order, each repeat)"
	// isolation: process runs per repeat (Resolve refuses interleave: ops with it).
	orderProcesses = orderRepeats + ", one process per target"
)

// RunInfo is the plan's part of a report's run: the config's name and path, CI mode and relax, seed,
// sizes, warm-up and repeats, how the targets alternate, isolation, re-warm runs and baseline, as
// they were resolved. The engine adds what happened (times, harness, peak RSS, errors).
func (p *Plan) RunInfo() report.Run {
	order := orderRepeats
	switch {
	case p.Isolation == IsolationProcess:
		order = orderProcesses
	case p.Interleave == InterleaveOps:
		order = orderOps
	}
	return report.Run{
		ConfigName: p.Name, ConfigPath: p.Source, CI: p.CI, Relax: p.Relax, Seed: p.Seed, Salt: saltString(p.Salt),
		Sizes: p.Sizes, Warmup: p.Warmup, Repeats: p.Repeats, Order: order,
		Isolation: p.Isolation, Rewarm: p.RewarmRuns(), Baseline: p.Baseline,
	}
}

// WorkloadPlan is a workload with its parameters; a zero Rows/Ops/Readers means "the default for the
// dataset size", resolved per size by Params.
type WorkloadPlan struct {
	Name       string
	Custom     bool
	YCSB       bool // a YCSB workload (ycsb-a ... ycsb-f, ycsb): Plan.Load and Plan.YCSB say how it runs
	Rows       int
	Ops        int
	Readers    int
	CrossCheck bool
	SQL        *SQLPlan // a sql workload (config/sql.go): Plan.Load says how it runs; nil: none
}

// Params resolves a workload's sizes for a dataset of size persons (workloads.Params).
func (w WorkloadPlan) Params(size int) (rows, ops, readers int) {
	return workloads.Params(w.Name, w.Rows, w.Ops, w.Readers, size)
}

// TargetPlan is a target with its adapter and validated options.
type TargetPlan struct {
	Name     string
	Adapter  adapters.Adapter
	Options  adapters.Options
	Optional bool
	Slowdown float64
	// Workloads is the set of workloads this target runs.
	Workloads []string
	// Params holds the validated params of each adapter-specific workload.
	Params map[string]adapters.Options
}

// CheckProfile refuses a profiled plan (Profile) that would profile nothing it claims to: a YCSB
// workload's operations go through the load model's workers, which hand the targets no phase
// recorder (docs/profile.md). Nil when the plan does not profile.
func (p *Plan) CheckProfile() error {
	if !p.Profile {
		return nil
	}
	for _, w := range p.Workloads {
		if w.LoadModel() {
			kind := "YCSB"
			if w.SQL != nil {
				kind = "sql"
			}
			return fmt.Errorf("profile: true does not split the operations of %s workloads (%s): the load model's workers time no phases", kind, w.Name)
		}
	}
	return nil
}

// Runs reports whether the target runs the workload.
func (t TargetPlan) Runs(workload string) bool { return slices.Contains(t.Workloads, workload) }

// Resolve validates the config against the adapters and applies the CI overrides when ci is set.
// Every mistake is returned at once (Errors, sorted by line), with those Parse found.
func (c *Config) Resolve(reg *adapters.Registry, ci bool) (*Plan, error) {
	r := &resolution{c: c, reg: reg, pr: &problems{list: slices.Clone(c.problems)}, workloadOK: map[string]bool{}}
	p := r.resolve(ci)
	if err := r.pr.located(c.Source); err != nil {
		return nil, err
	}
	return p, nil
}

// resolution is Resolve at work: the plan as far as it resolved, the mistakes found, and what is in
// error, which is neither checked further nor reported again through what refers to it.
type resolution struct {
	c   *Config
	reg *adapters.Registry
	pr  *problems
	p   *Plan
	ci  bool
	// targetOK[i]: c.Targets[i] resolved, and p.Targets[i] is its plan (a placeholder otherwise).
	targetOK []bool
	// workloadOK: the workload resolved, or has not failed yet.
	workloadOK map[string]bool
	known      []string // the workloads the registry knows
	// unsureWorkloads: a workload's name is in error, so what names a workload missing from the
	// config may mean that one.
	unsureWorkloads bool
}

func (r *resolution) resolve(ci bool) *Plan {
	c := r.c
	r.ci = ci
	p, overrides, err := c.newPlan(r.pr, ci)
	if p == nil {
		r.pr.add(err) // --ci without a ci: section: no CI form to check
		return nil
	}
	r.p = p
	for _, w := range c.Workloads {
		r.workloadOK[w.Name] = !c.skip[skipWorkload(w.Name)]
	}
	r.checkWorkloadNames()
	r.resolveTargets()
	for _, w := range c.Workloads {
		if !r.workloadOK[w.Name] {
			continue
		}
		if wp, ok := r.resolveWorkload(w, overrides[w.Name]); ok {
			p.Workloads = append(p.Workloads, wp)
		} else {
			r.workloadOK[w.Name] = false
		}
	}
	if r.sizesKnown() {
		r.checkSizes()
	}
	if err := p.checkSleeps(); err != nil {
		line := 0
		if p.Load != nil {
			line = p.Load.Line
		}
		r.pr.add(&lineError{line: line, msg: err.Error()})
	}
	if err := p.CheckProfile(); err != nil {
		r.pr.add(&lineError{line: c.profileLine, msg: err.Error()})
	}
	r.checkStores()
	r.resolveAssertions()
	if r.pr.count() == 0 {
		p.AsRun = c.asRun(p)
	}
	return p
}

// sizesKnown reports whether the plan's sizes are the config's (not a stand-in for a dataset in
// error), so that what depends on them can be checked.
func (r *resolution) sizesKnown() bool {
	if r.ci && r.c.CI != nil && r.c.CI.Sizes != nil {
		return true
	}
	if r.ci && r.c.skip[skipCIDataset] {
		return false
	}
	return !r.c.skip[skipDataset]
}

// targetsOK reports whether every target of the config is known and resolved.
func (r *resolution) targetsOK() bool {
	return !r.c.skip[skipTargets] && !slices.Contains(r.targetOK, false)
}

// newPlan starts the plan from the config's settings, with the CI overrides of settings applied
// when ci is set, and defaults decided (Normalize); it returns the CI overrides of workloads. Its
// error is the one that leaves nothing to check: --ci on a config without a ci: section.
func (c *Config) newPlan(pr *problems, ci bool) (*Plan, map[string]workloadOverride, error) {
	p := &Plan{
		Secrets: &redact.Set{},
		Source:  c.Source, Name: c.Name, Description: c.Description, Seed: c.Seed,
		Sizes: c.Sizes, Warmup: c.Warmup, Repeats: c.Repeats, Isolation: c.Isolation, Baseline: c.Baseline, Rewarm: c.Rewarm, CI: ci,
		StallTimeout: c.StallTimeout, Interleave: c.Interleave, Memory: c.Memory, Profile: c.Profile,
	}
	v := c.Verdict
	if ci && c.CI != nil {
		v = v.over(c.CI.Verdict)
	}
	p.Verdict = VerdictPlan{Runs: v.Runs, Confidence: v.Confidence, Budget: v.Budget, MaxLooks: v.MaxLooks}
	for _, l := range c.LeftOut {
		if a, err := parseAssertion(l.Spec); pr.ok(err) {
			p.LeftOut = append(p.LeftOut, LeftOutAssertion{Assertion: a, Reason: l.Reason})
		}
	}
	p.Normalize()
	if p.Memory && p.Interleave == InterleaveOps {
		pr.add(&lineError{line: c.interleaveLine, msg: "memory: true measures each target's repeat on its own: it does not combine with interleave: ops"})
	}
	if p.Interleave == InterleaveOps && p.Isolation == IsolationProcess {
		pr.add(&lineError{line: c.interleaveLine, msg: "interleave: ops does not combine with isolation: process (one repeat at a time): use isolation none or rewarm"})
	}
	p.Load, p.YCSB = c.Load, DefaultYCSB()
	if c.YCSB != nil {
		p.YCSB = *c.YCSB
	}
	if !ci {
		c.defaultSizes(p)
		return p, map[string]workloadOverride{}, nil
	}
	if c.CI == nil {
		if c.skip[skipCI] {
			return nil, nil, nil // its ci: section is in error: the mistake is reported already
		}
		return nil, nil, fmt.Errorf("--ci needs a ci: section in the config (reduced sizes and a relax factor); this config has none")
	}
	if c.CI.Sizes != nil {
		p.Sizes = c.CI.Sizes
	}
	if c.CI.Warmup != nil {
		p.Warmup = *c.CI.Warmup
	}
	if c.CI.Repeats != nil {
		p.Repeats = *c.CI.Repeats
	}
	p.Relax = c.CI.Relax
	if c.CI.Load != nil {
		p.Load = c.CI.Load
	}
	if c.CI.YCSB != nil {
		p.YCSB = *c.CI.YCSB
	}
	c.defaultSizes(p)
	if !c.skip[skipWorkloads] {
		names := workloadNames(c.Workloads)
		for _, name := range slices.Sorted(maps.Keys(c.CI.Workloads)) {
			if !slices.Contains(names, name) {
				pr.add(&lineError{line: c.CI.Workloads[name].line, msg: fmt.Sprintf("ci.workloads names %q, which is not in workloads%s", name, suggest.Hint(name, names, ""))})
			}
		}
	}
	return p, c.CI.Workloads, nil
}

// resolveTargets gives the plan its targets: each one's adapter, its options parsed against the
// adapter's spec (their secrets noted), and its list of workloads checked against the config's. A
// target in error keeps its place in p.Targets with a placeholder (targetOK false).
func (r *resolution) resolveTargets() {
	c, p := r.c, r.p
	r.targetOK = make([]bool, len(c.Targets))
	for i, t := range c.Targets {
		p.Targets = append(p.Targets, TargetPlan{Name: t.Name, Params: map[string]adapters.Options{}})
		if c.skip[skipTarget(t.Name)] {
			continue
		}
		a, ok := r.reg.Lookup(t.Adapter)
		if !ok {
			r.pr.add(&lineError{line: t.Line, msg: fmt.Sprintf("unknown adapter %q%s", t.Adapter, suggest.Hint(t.Adapter, r.reg.Names(), "dbbench list"))})
			continue
		}
		opts, ok := r.options(a.Info().Options, t.Options, t.optionsNode, t.Line, fmt.Sprintf("target %s (%s)", t.Name, t.Adapter))
		if !ok {
			continue
		}
		for _, sec := range opts.Secrets() {
			p.Secrets.AddSecret(sec)
		}
		if !c.skip[skipWorkloads] && !r.unsureWorkloads {
			names := workloadNames(c.Workloads)
			if bad := slices.IndexFunc(t.Workloads, func(w string) bool { return !slices.Contains(names, w) }); bad >= 0 {
				w := t.Workloads[bad]
				r.pr.add(&lineError{line: t.Line, msg: fmt.Sprintf("target %s lists workload %q, which is not in workloads%s", t.Name, w, suggest.Hint(w, names, ""))})
				continue
			}
		}
		p.Targets[i] = TargetPlan{Name: t.Name, Adapter: a, Options: opts, Optional: t.Optional, Slowdown: t.Slowdown, Params: map[string]adapters.Options{}}
		r.targetOK[i] = true
	}
}

// options parses raw options (or a workload's params) against specs, each on its own: an unknown
// one with the name it was probably meant as, at its own line when node (where they are written)
// gives it, else at line; what names whose they are. ok is false after a mistake.
func (r *resolution) options(specs []adapters.OptionSpec, raw map[string]any, node *yaml.Node, line int, what string) (adapters.Options, bool) {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	lineOf := map[string]int{}
	var order []string
	if node != nil && node.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(node.Content); i += 2 {
			lineOf[node.Content[i].Value] = node.Content[i].Line
			order = append(order, node.Content[i].Value)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	ok := true
	for _, k := range order {
		at := line
		if l := lineOf[k]; l > 0 {
			at = l
		}
		if !slices.Contains(names, k) {
			r.pr.add(&lineError{line: at, msg: fmt.Sprintf("%s: unknown option %q%s", what, k, suggest.Hint(k, names, "dbbench list"))})
			ok = false
			continue
		}
		if _, err := adapters.ParseOptions(specs, map[string]any{k: raw[k]}); err != nil {
			r.pr.add(&lineError{line: at, msg: fmt.Sprintf("%s: %v", what, err)})
			ok = false
		}
	}
	if !ok {
		return adapters.Options{}, false
	}
	opts, err := adapters.ParseOptions(specs, raw)
	if err != nil {
		r.pr.add(&lineError{line: line, msg: fmt.Sprintf("%s: %v", what, err)})
		return opts, false
	}
	return opts, true
}

// checkWorkloadNames refuses a workload no adapter knows, unless a target's client declares its
// own workloads (it accepts any name); it notes the known names. While a target's adapter is not
// known, only a name close to a known one is refused (it is a misspelling; any other might be
// that adapter's).
func (r *resolution) checkWorkloadNames() {
	c := r.c
	r.known = knownWorkloads(r.reg)
	unsure := c.skip[skipTargets]
	for _, t := range c.Targets {
		a, known := r.reg.Lookup(t.Adapter)
		if known && a.Info().ClientWorkloads && !c.skip[skipTarget(t.Name)] {
			return
		}
		unsure = unsure || !known || c.skip[skipTarget(t.Name)]
	}
	for _, w := range c.Workloads {
		if !r.workloadOK[w.Name] || slices.Contains(r.known, w.Name) || w.SQL != nil {
			continue // a sql workload is named by the config (checkSQLName)
		}
		r.workloadOK[w.Name], r.unsureWorkloads = false, true
		if !unsure || suggest.Closest(w.Name, r.known) != "" {
			r.pr.add(&lineError{line: w.Line, msg: fmt.Sprintf("unknown workload %q%s", w.Name, suggest.Hint(w.Name, r.known, "dbbench list workloads"))})
		}
	}
}

// resolveWorkload resolves one workload: its sizes with the CI override o applied, its parameters
// checked, and the targets that run it (each must support it; at least one must run it).
func (r *resolution) resolveWorkload(w Workload, o workloadOverride) (WorkloadPlan, bool) {
	c, p := r.c, r.p
	if w.SQL != nil {
		if !r.pr.ok(checkSQLName(w)) {
			return WorkloadPlan{}, false
		}
		return r.resolveSQL(w, o)
	}
	wp := WorkloadPlan{Name: w.Name, Rows: w.Rows, Ops: w.Ops, Readers: w.Readers, CrossCheck: w.CrossCheck}
	for dst, v := range map[*int]*int{&wp.Rows: o.rows, &wp.Ops: o.ops, &wp.Readers: o.readers} {
		if v != nil {
			*dst = *v
		}
	}
	wp.YCSB = IsYCSB(w.Name)
	if wp.YCSB {
		// Each target's operations interleave with its own timing (inserts, versions): there is no
		// checksum the targets share; each result is verified on its own (engine/ycsbverify.go).
		wp.CrossCheck = false
	}
	wp.Custom = !wp.YCSB && !slices.Contains(workloads.Builtins, w.Name)
	if !r.pr.ok(checkWorkloadParams(w, wp)) {
		return wp, false
	}
	runners, ok := 0, true
	for i, t := range c.Targets {
		if !r.targetOK[i] {
			continue
		}
		runs, good := r.assignWorkload(&p.Targets[i], t, w, wp)
		if !good {
			ok, r.targetOK[i] = false, false // its list of workloads is in error
		}
		if runs {
			runners++
		}
	}
	if !ok {
		return wp, false
	}
	if runners == 0 {
		if r.targetsOK() {
			r.pr.add(&lineError{line: w.Line, msg: fmt.Sprintf("no target runs workload %q", w.Name)})
		}
		return wp, false
	}
	if wp.YCSB && !c.skip[skipYCSB] && !c.skip[skipLoad] {
		return wp, r.pr.ok(p.checkYCSB(w))
	}
	return wp, true
}

// assignWorkload gives target tp (configured as t) the workload when it runs it, with the params
// of an adapter's own workload parsed against its spec; it reports whether the target runs it, and
// ok false after a mistake. A target that names the workload, or runs every workload, must support
// it, bar an adapter's own workload, which runs on the targets of that adapter only.
func (r *resolution) assignWorkload(tp *TargetPlan, t Target, w Workload, wp WorkloadPlan) (runs, ok bool) {
	if t.Workloads != nil && !slices.Contains(t.Workloads, w.Name) {
		return false, true
	}
	if wp.YCSB {
		// Whether the target serves the mix's operations is known once it is open (the record
		// capabilities are its interfaces): the engine refuses it then, before anything is loaded.
		tp.Workloads = append(tp.Workloads, w.Name)
		return true, true
	}
	info := tp.Adapter.Info()
	supported, custom := adapters.Supports(info, w.Name)
	if !supported {
		if t.Workloads == nil && wp.Custom {
			return false, true // an adapter's own workload runs on the targets of that adapter only
		}
		r.pr.add(&lineError{line: w.Line, msg: fmt.Sprintf("target %s (%s) does not support workload %q (it supports: %s)", t.Name, t.Adapter, w.Name, strings.Join(supportedNames(info), ", "))})
		return false, false
	}
	if custom && info.ClientWorkloads && t.Workloads == nil && slices.Contains(r.known, w.Name) {
		return false, true // another adapter's workload: a client runs it only when its target lists it
	}
	if custom {
		what := fmt.Sprintf("workload %s on target %s", w.Name, t.Name)
		var params adapters.Options
		if spec, ok := adapters.CustomSpec(info, w.Name); ok {
			if params, ok = r.options(spec.Params, w.Params, w.paramsNode, w.Line, what); !ok {
				return false, false
			}
		} else {
			var err error
			if params, err = adapters.FreeOptions(w.Params); err != nil { // the client checks them
				r.pr.add(&lineError{line: w.Line, msg: fmt.Sprintf("%s: %v", what, err)})
				return false, false
			}
		}
		tp.Params[w.Name] = params
	} else if len(w.Params) > 0 {
		r.pr.add(&lineError{line: w.Line, msg: fmt.Sprintf("workload %s takes no params (use rows, ops or readers)", w.Name)})
		return false, false
	}
	tp.Workloads = append(tp.Workloads, w.Name)
	return true, true
}

// checkSizes refuses a workload that reads or writes more persons than a dataset size loads.
func (r *resolution) checkSizes() {
	for _, w := range r.c.Workloads {
		if !r.workloadOK[w.Name] {
			continue
		}
		for _, size := range r.p.Sizes {
			rows, ops, _ := r.p.workload(w.Name).Params(size)
			var msg string
			switch {
			case (w.Name == workloads.Scan || w.Name == workloads.Concurrent) && rows > size:
				msg = fmt.Sprintf("%s reads %d rows but the dataset has only %d persons", w.Name, rows, size)
			case w.Name == workloads.Insert && ops > size:
				msg = fmt.Sprintf("insert writes %d persons but the dataset has only %d", ops, size)
			}
			if msg != "" {
				r.pr.add(&lineError{line: w.Line, msg: msg})
				r.workloadOK[w.Name] = false
				break
			}
		}
	}
}

// checkStores finds now what the adapters would refuse when opening a target or preparing a
// workload (adapters.Checker), so that validate and run agree, and refuses two targets whose store
// paths are one or overlap.
func (r *resolution) checkStores() {
	c, p := r.c, r.p
	var paths []storePath
	for i, tp := range p.Targets {
		if !r.targetOK[i] {
			continue
		}
		line := c.Targets[i].Line
		if ck, ok := tp.Adapter.(adapters.Checker); ok && r.sizesKnown() {
			for _, size := range p.Sizes {
				if err := ck.Check(tp.Options, adapters.DatasetSpec{Size: size, Seed: p.Seed}, tp.Params); err != nil {
					r.pr.add(&lineError{line: line, msg: fmt.Sprintf("target %s: %v", tp.Name, err)})
					break
				}
			}
		}
		if path := tp.Options.String("path"); path != "" {
			sp := storePath{target: tp.Name, path: path, resolved: resolvePath(path)}
			for _, other := range paths {
				if msg := overlap(other, sp); msg != "" {
					r.pr.add(&lineError{line: line, msg: msg})
					break
				}
			}
			paths = append(paths, sp)
		}
	}
}

// resolveAssertions parses the assertions and checks every ref against the plan's targets,
// workloads, figures and sizes: the first mistake of each.
func (r *resolution) resolveAssertions() {
	for _, s := range r.c.Assertions {
		a, err := parseAssertion(s)
		if !r.pr.ok(err) {
			continue
		}
		ok := true
		for _, ref := range a.Refs() {
			if err := r.checkRef(ref); err != nil {
				r.pr.add(&lineError{line: s.Line, msg: err.Error()})
				ok = false
				break
			}
		}
		if ok {
			r.p.Assertions = append(r.p.Assertions, a)
		}
	}
}

// checkRef checks one side of an assertion: its target, workload, figure and size. What refers to
// a target or workload in error is not checked against it.
func (r *resolution) checkRef(ref assertion.Ref) error {
	c := r.c
	ti := slices.IndexFunc(c.Targets, func(t Target) bool { return t.Name == ref.Target })
	if names := targetNames(c.Targets); ti < 0 && !c.skip[skipTargets] {
		return fmt.Errorf("assertion names unknown target %q%s", ref.Target, suggest.Hint(ref.Target, names, ""))
	}
	if names := workloadNames(c.Workloads); !slices.Contains(names, ref.Workload) && !c.skip[skipWorkloads] && !r.unsureWorkloads {
		return fmt.Errorf("assertion names workload %q, which is not in workloads%s", ref.Workload, suggest.Hint(ref.Workload, names, ""))
	}
	if ref.Op == "" && report.StatementFigure(ref.Figure) {
		return fmt.Errorf("%s: a statement's figure is kept per transaction: name it, as %s.TRANSACTION.%s[%s]", ref, ref.Workload, ref.Figure, ref.Target)
	}
	if _, ok := report.LookupFigure(ref.Figure); !ok {
		return fmt.Errorf("unknown figure %q in %s%s", ref.Figure, ref, suggest.Hint(ref.Figure, report.FigureNames(), "dbbench list figures"))
	}
	if ti >= 0 && r.targetOK[ti] && r.workloadOK[ref.Workload] && !r.p.Targets[ti].Runs(ref.Workload) {
		return fmt.Errorf("assertion reads %s, but target %s does not run %s", ref, ref.Target, ref.Workload)
	}
	if ref.Size != "" && ref.Size != "min" && ref.Size != "max" && r.sizesKnown() {
		n, _ := strconv.Atoi(strings.ReplaceAll(ref.Size, "_", ""))
		if !slices.Contains(r.p.Sizes, n) {
			return fmt.Errorf("%s names size %s, which this run does not load (sizes: %v)", ref, ref.Size, r.p.Sizes)
		}
	}
	return nil
}

// storePath is the path option of a target: an LMDB directory or a SQLite file.
type storePath struct {
	target, path string
	resolved     string // absolute, cleaned, symbolic links resolved where it exists
}

// overlap says, in one line, why two targets' paths cannot both be used, or "": one path, or one
// inside the other, would have one target's store put into, refused by or removed with the other's.
func overlap(a, b storePath) string {
	switch {
	case a.resolved == b.resolved:
		return fmt.Sprintf("targets %s and %s both use path %s: give each its own", a.target, b.target, b.path)
	case inside(b.resolved, a.resolved):
		return fmt.Sprintf("targets %s and %s have overlapping paths: %s's path %s is inside %s's path %s: give each its own",
			a.target, b.target, b.target, b.path, a.target, a.path)
	case inside(a.resolved, b.resolved):
		return fmt.Sprintf("targets %s and %s have overlapping paths: %s's path %s is inside %s's path %s: give each its own",
			a.target, b.target, a.target, a.path, b.target, b.path)
	}
	return ""
}

// inside reports whether path p lies under directory dir (both absolute and clean).
func inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolvePath makes a path absolute and clean and resolves the symbolic links of its longest part
// that exists, so that two spellings of one place (a relative path, a link to a directory) compare
// equal.
func resolvePath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	var rest []string
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(append([]string{real}, rest...)...)
		}
		if filepath.Dir(dir) == dir {
			return abs
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
	}
}

func (p *Plan) workload(name string) WorkloadPlan {
	for _, w := range p.Workloads {
		if w.Name == name {
			return w
		}
	}
	return WorkloadPlan{Name: name}
}

func checkWorkloadParams(w Workload, wp WorkloadPlan) error {
	bad := func(param string) error {
		return &lineError{line: w.Line, msg: fmt.Sprintf("workload %s has no parameter %q", w.Name, param)}
	}
	if wp.YCSB && (wp.Rows != 0 || wp.Ops != 0 || wp.Readers != 0 || len(w.Params) > 0) {
		return &lineError{line: w.Line, msg: fmt.Sprintf("workload %s takes its sizes from the ycsb: section (recordcount, operationcount) and load: (ops, duration)", w.Name)}
	}
	switch w.Name {
	case workloads.Scan:
		if wp.Ops != 0 {
			return bad("ops")
		}
		if wp.Readers != 0 {
			return bad("readers")
		}
	case workloads.Lookup, workloads.Insert:
		if wp.Rows != 0 {
			return bad("rows")
		}
		if wp.Readers != 0 {
			return bad("readers")
		}
	case workloads.Concurrent:
		if wp.Ops != 0 {
			return bad("ops")
		}
	default:
		if wp.Rows != 0 {
			return bad("rows")
		}
		if wp.Readers != 0 {
			return bad("readers")
		}
	}
	return nil
}

func supportedNames(info adapters.Info) []string {
	out := append([]string{}, info.Builtin...)
	for _, w := range info.Workloads {
		out = append(out, w.Name)
	}
	return out
}

// asRun rebuilds the config as run for the report: CI overrides applied, options redacted.
func (c *Config) asRun(p *Plan) map[string]any {
	out := map[string]any{
		"name":    p.Name,
		"seed":    p.Seed,
		"warmup":  p.Warmup,
		"repeats": p.Repeats,
	}
	if p.Isolation != IsolationNone {
		out["isolation"] = p.Isolation
		out["rewarm"] = p.Rewarm
	}
	if p.Interleave != InterleaveRepeats {
		out["interleave"] = p.Interleave
	}
	if p.StallTimeout != DefaultStallTimeout {
		out["stall_timeout"] = p.StallTimeout.String()
	}
	if p.Memory {
		out["memory"] = true
	}
	if p.Profile {
		out["profile"] = true
	}
	if p.Baseline != "" {
		out["baseline"] = p.Baseline
	}
	if p.Description != "" {
		out["description"] = p.Description
	}
	if len(p.Sizes) == 1 {
		out["dataset"] = map[string]any{"persons": p.Sizes[0]}
	} else {
		out["dataset"] = map[string]any{"sizes": p.Sizes}
	}
	out["workloads"] = c.asRunWorkloads(p)
	if slices.ContainsFunc(p.Workloads, func(w WorkloadPlan) bool { return w.YCSB }) {
		out["ycsb"] = p.YCSB.asRun()
	}
	if p.HasLoadModel() && p.Load != nil {
		out["load"] = p.Load.asRun()
	}
	out["targets"] = c.asRunTargets(p)
	var as []any
	for _, a := range c.Assertions {
		if a.Name != "" {
			as = append(as, map[string]any{"name": a.Name, "check": a.Check})
		} else {
			as = append(as, a.Check)
		}
	}
	if as != nil {
		out["assertions"] = as
	}
	if v := p.Verdict; v != (VerdictPlan{Runs: DefaultRuns, Confidence: DefaultConfidence, MaxLooks: DefaultMaxLooks}) {
		m := map[string]any{"runs": v.Runs, "confidence": v.Confidence, "max_looks": v.MaxLooks}
		if v.Budget > 0 {
			m["budget"] = v.Budget.String()
		}
		out["verdict"] = m
	}
	if p.CI {
		out["ci"] = map[string]any{"relax": p.Relax}
	}
	return out
}

// asRunWorkloads is the workloads as run: the sizes given (CI overrides applied) and the params.
func (c *Config) asRunWorkloads(p *Plan) []any {
	var ws []any
	for i, w := range p.Workloads {
		m := map[string]any{"name": w.Name}
		if w.Rows != 0 {
			m["rows"] = w.Rows
		}
		if w.Ops != 0 {
			m["ops"] = w.Ops
		}
		if w.Readers != 0 {
			m["readers"] = w.Readers
		}
		if len(c.Workloads[i].Params) > 0 {
			m["params"] = c.Workloads[i].Params
		}
		if s := c.Workloads[i].SQL; s != nil {
			m["sql"] = s.asRunSQL()
		}
		if !w.CrossCheck && !w.LoadModel() {
			m["cross_check"] = false
		}
		ws = append(ws, m)
	}
	return ws
}

// asRunTargets is the targets as run, their options redacted.
func (c *Config) asRunTargets(p *Plan) []any {
	var ts []any
	for i, t := range p.Targets {
		m := map[string]any{"name": t.Name, "adapter": c.Targets[i].Adapter, "options": t.Options.Redacted()}
		if t.Optional {
			m["optional"] = true
		}
		if t.Slowdown != 0 {
			m["slowdown"] = t.Slowdown
		}
		if c.Targets[i].Workloads != nil {
			m["workloads"] = c.Targets[i].Workloads
		}
		ts = append(ts, m)
	}
	return ts
}

// saltString is how a report records the salt: 16 hexadecimal digits, "" for none.
func saltString(salt uint64) string {
	if salt == 0 {
		return ""
	}
	return fmt.Sprintf("%016x", salt)
}

// Package config reads a dbbench YAML config (docs/config.md), reports every mistake with its line,
// and resolves it against the adapter registry into a Plan the engine runs.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/internal/suggest"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/assertion"
	"github.com/dbbench/dbbench/workloads"
)

// Defaults for a config that leaves them out (a workload's sizes: workloads.Params).
const (
	DefaultSeed    = 1
	DefaultWarmup  = 1
	DefaultRepeats = 5
	MaxRepeats     = 1000
	// Upper bounds that a machine with 24 GiB survives: every workload holds its keys, persons or
	// per-operation latencies in memory, and every reader is a goroutine with a transaction.
	MaxWarmup  = 1000
	MaxOps     = 10_000_000
	MaxReaders = 1024
	MaxPersons = 50_000_000
)

// workloadBounds are the upper bounds of a workload's sizes.
var workloadBounds = map[string]int{"rows": MaxPersons, "ops": MaxOps, "readers": MaxReaders}

// Isolation modes: how the engine keeps one target's figures from depending on the targets that ran
// before it in the same repeat (see engine.Runner).
const (
	// IsolationNone runs the targets' timed repeats back to back (A B A B ...).
	IsolationNone = "none"
	// IsolationRewarm precedes every timed repeat of a target with a garbage collection and one
	// untimed, verified run of the same workload on the same target, so the repeat starts from its
	// own caches, TLB and heap rather than from whatever the previous target left.
	IsolationRewarm = "rewarm"
	// IsolationProcess gives every target a process of its own (re-warmed as with rewarm), run one
	// step at a time in the same interleaved order: no shared heap, runtime or address space.
	IsolationProcess = "process"
)

// DefaultRewarm is how many untimed runs precede each timed repeat with isolation rewarm or process.
// One is not enough: after the other targets' scans, lmdb-c's scan stayed 1.2-1.3x its figure alone
// with one re-warm run and came within 10% with two (a cache that keeps data seen once at low
// priority needs it seen again); .ci/isolation-check measures it.
const DefaultRewarm = 2

// The stall deadline (`stall_timeout`): when no operation of a running workload finishes for this
// long on a target, the engine gives up on that target (its server or client stopped answering). The
// default is the exec adapter's default per-request timeout, so that a client's own deadline still
// speaks first.
const (
	DefaultStallTimeout = 2 * time.Minute
	MinStallTimeout     = time.Second
	MaxStallTimeout     = 24 * time.Hour
)

// How a run decides its assertions (`verdict:`, docs/verdicts.md): runs, each a fresh process, and an
// interval over them.
const (
	// DefaultRuns is how many runs `dbbench run` makes before its first look at the verdicts.
	DefaultRuns = 3
	MaxRuns     = 100
	// DefaultConfidence is the family-wise confidence of a run's verdicts.
	DefaultConfidence = 0.95
	MinConfidence     = 0.5
	MaxConfidence     = 0.9999
	// DefaultMaxLooks is the most looks a run takes: the initial runs, then batches of extra runs of
	// the workloads that undecided assertions read.
	DefaultMaxLooks = 4
	MaxMaxLooks     = 10
	// DefaultBudgetFactor: unless verdict.budget says otherwise, extra runs may take at most this
	// many times as long as the initial runs took.
	DefaultBudgetFactor = 2
	// MaxRelax is the most `ci.relax` may loosen a threshold: a wider line hides the noise instead of
	// measuring it.
	MaxRelax = 0.10
)

// VerdictSettings is a config's `verdict:` (or `ci.verdict:`); zero fields are not given.
type VerdictSettings struct {
	Line       int
	Runs       int
	Confidence float64
	Budget     time.Duration
	MaxLooks   int
}

// over returns v with the fields o gives replaced.
func (v VerdictSettings) over(o *VerdictSettings) VerdictSettings {
	if o == nil {
		return v
	}
	if o.Runs != 0 {
		v.Runs = o.Runs
	}
	if o.Confidence != 0 {
		v.Confidence = o.Confidence
	}
	if o.Budget != 0 {
		v.Budget = o.Budget
	}
	if o.MaxLooks != 0 {
		v.MaxLooks = o.MaxLooks
	}
	return v
}

// IsolationModes lists the accepted values of `isolation`.
var IsolationModes = []string{IsolationNone, IsolationRewarm, IsolationProcess}

// Interleaving (`interleave`): how the engine alternates the targets within a timed or warm-up
// repeat of a workload.
const (
	// InterleaveRepeats runs each target's whole repeat in turn (A's repeat, then B's, ...).
	InterleaveRepeats = "repeats"
	// InterleaveOps alternates single operations where the engine times each operation (lookup
	// through a PointReader, custom workloads through Op.Do): op 0 of A, op 0 of B, op 1 of A, ...
	// Other workloads keep the per-repeat order.
	InterleaveOps = "ops"
)

// InterleaveModes lists the accepted values of `interleave`.
var InterleaveModes = []string{InterleaveRepeats, InterleaveOps}

// Config is a parsed config file, before CI overrides and adapter validation.
type Config struct {
	Source      string // file path, or "(embedded) NAME"
	Name        string
	Description string
	Seed        int64
	Sizes       []int
	Warmup      int
	Repeats     int
	Isolation   string // one of IsolationModes ("": not given)
	Interleave  string // one of InterleaveModes ("": not given)
	// interleaveLine is the line of `interleave` (0: not given), for errors found in Resolve.
	interleaveLine int
	Baseline       string // the target the others are measured against ("": none)
	Rewarm         int    // untimed runs before each timed repeat (isolation rewarm or process; 0: not given)
	// StallTimeout is how long a target may go without finishing an operation of a running workload
	// (0: not given).
	StallTimeout time.Duration
	// Memory asks for memory figures per operation (docs/memory.md).
	Memory bool
	// Profile asks for each timed operation split into its phases (docs/profile.md).
	Profile bool
	// profileLine is the line of `profile` (0: not given), for errors found in Resolve.
	profileLine int
	Workloads   []Workload
	Targets     []Target
	Assertions  []AssertionSpec
	// Verdict is how the assertions are decided over runs (zero fields: not given).
	Verdict VerdictSettings
	CI      *CI
	// LeftOut are the assertions --targets left out (KeepTargets), with the reason.
	LeftOut []LeftOut
	// Load and YCSB are the load model's sections (config/load.go; nil: not given): how the YCSB
	// workloads' operations arrive, and their records and operations.
	Load *LoadPlan
	YCSB *YCSBPlan
	// problems are the mistakes Parse found; skip what they leave Resolve to leave alone (mark).
	problems []*lineError
	skip     map[string]bool
}

// LeftOut is an assertion that is not decided because it names a target the run leaves out.
type LeftOut struct {
	Spec   AssertionSpec
	Reason string
}

// Workload is one entry of `workloads`.
type Workload struct {
	Name       string
	Line       int
	Rows       int // 0: default
	Ops        int
	Readers    int
	Params     map[string]any
	CrossCheck bool
	SQL        *SQLWorkload // a sql workload's section (config/sql.go); nil: none
	paramsNode *yaml.Node   // where Params are written, for the line of a mistake in one
}

// Target is one entry of `targets`.
type Target struct {
	Name      string
	Line      int
	Adapter   string
	Options   map[string]any
	Optional  bool
	Slowdown  float64
	Workloads []string // nil: all
	// optionsNode is where Options are written, for the line of a mistake in one.
	optionsNode *yaml.Node
}

// AssertionSpec is one entry of `assertions`.
type AssertionSpec struct {
	Name  string
	Check string
	Line  int
	// Machines are thresholds keyed by machine class ("AMD EPYC, 2 cores"), in config order.
	Machines []MachineThreshold
	// RunValue is what each run contributes to the interval: "median" (default) or "best".
	RunValue string
}

// MachineThreshold is one entry of an assertion's `machines:`: the threshold measured on one class of
// machine, where the check's own does not hold.
type MachineThreshold struct {
	Class string
	Value string
	Line  int
}

// CI holds the overrides --ci applies.
type CI struct {
	Line      int
	Sizes     []int
	Warmup    *int
	Repeats   *int
	Workloads map[string]workloadOverride
	Relax     float64
	Verdict   *VerdictSettings
	// Load and YCSB are the load sections with the ci section's keys laid over them (nil: no change).
	Load *LoadPlan
	YCSB *YCSBPlan
}

type workloadOverride struct {
	line    int
	rows    *int
	ops     *int
	readers *int
}

// Parse reads a config. source names it in errors ("configs/lmdb.yaml"). Its mistakes come back all
// at once (Errors, sorted by line) with the config as far as it could be read (nil when the YAML
// itself cannot be), which Resolve checks further: a config with mistakes never resolves, and
// Resolve returns its mistakes with those it finds itself.
func Parse(source string, data []byte) (*Config, error) {
	c, err := parse(data)
	if c == nil {
		return nil, located(source, err)
	}
	c.Source = source
	p := &problems{list: c.problems}
	if err := p.located(source); err != nil {
		return c, err
	}
	return c, nil
}

// located prefixes an error with the file (and line) it belongs to: a one-entry Errors.
func located(source string, err error) error {
	p := &problems{}
	p.add(err)
	return p.located(source)
}

// What Parse could not read, for Resolve to leave alone (Config.skip): the sections whose names
// (or sizes) are not all known, and each entry in error by its name.
const (
	skipWorkloads = "workloads" // the workloads' names are not all known
	skipTargets   = "targets"   // the targets' names are not all known
	skipDataset   = "dataset"   // the sizes are not known
	skipCI        = "ci"
	skipCIDataset = "ci.dataset"
	skipLoad      = "load"
	skipYCSB      = "ycsb"
)

// skipEntry names an entry of a list section in Config.skip: "workloads: scan".
func skipEntry(section, name string) string { return section + ": " + name }
func skipWorkload(name string) string       { return skipEntry(skipWorkloads, name) }
func skipTarget(name string) string         { return skipEntry(skipTargets, name) }

// mark notes that what key names is in error: Resolve neither checks it nor what refers to it.
func (c *Config) mark(key string) {
	if c.skip == nil {
		c.skip = map[string]bool{}
	}
	c.skip[key] = true
}

// topKeys are the keys of a config.
var topKeys = []string{"name", "description", "seed", "dataset", "warmup", "repeats", "isolation", "interleave", "rewarm",
	"stall_timeout", "memory", "profile", "baseline", "workloads", "targets", "assertions", "verdict", "ci", "load", "ycsb"}

// parse reads a config: nil and the error when it is not a YAML mapping, else the config with its
// mistakes in c.problems.
func parse(data []byte) (*Config, error) {
	root, err := document(data)
	if err != nil {
		return nil, err
	}
	fields, _, err := mapping(root, "the config", topKeys...)
	if fields == nil {
		return nil, err
	}
	p := &problems{}
	p.add(err)
	// Isolation, interleave, rewarm and stall_timeout stay zero when not given: Plan.Normalize decides
	// their defaults, for configs and plans built in code alike.
	c := &Config{Seed: DefaultSeed, Warmup: DefaultWarmup, Repeats: DefaultRepeats}
	c.parseSettings(p, root, fields)
	c.parseIsolation(p, fields)
	c.parseSections(p, root, fields)
	c.problems = p.list
	return c, nil
}

// document reads the config's one YAML document and returns its root.
func document(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("the config is empty")
		}
		return nil, syntaxError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, errAt(&extra, "only one YAML document is allowed per config")
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("the config is empty")
	}
	return doc.Content[0], nil
}

// required returns the value of a required key of mapping n, or nil after reporting its absence,
// unless an unknown key of n was a misspelling of it (that mistake is reported already).
func required(p *problems, n *yaml.Node, fields map[string]field, key, missing string) *yaml.Node {
	if f, ok := fields[key]; ok {
		return f.value
	}
	if !p.meant(n, key) {
		p.add(errAt(n, "%s", missing))
	}
	return nil
}

// parseSettings reads the run's settings: name, description, seed, dataset, warmup and repeats.
func (c *Config) parseSettings(p *problems, root *yaml.Node, fields map[string]field) {
	if n := required(p, root, fields, "name", "missing name: give the config a name"); n != nil {
		if name, err := scalarString(n, "name"); p.ok(err) {
			if !namePattern.MatchString(name) {
				p.add(errAt(n, "name %q may only hold letters, digits, '.', '-' and '_'", name))
			}
			c.Name = name
		}
	}
	if f, ok := fields["description"]; ok {
		if v, err := scalarString(f.value, "description"); p.ok(err) {
			c.Description = v
		}
	}
	if f, ok := fields["seed"]; ok {
		if n, err := wholeNumber(f.value, "seed"); p.ok(err) {
			c.Seed = int64(n)
		}
	}
	// A config of YCSB workloads only may leave out the dataset: its size is then the record count.
	if f, ok := fields["dataset"]; ok {
		if sizes, err := parseDataset(f.value); p.ok(err) {
			c.Sizes = sizes
		} else {
			c.mark(skipDataset)
		}
	} else if p.meant(root, "dataset") {
		c.mark(skipDataset)
	}
	if f, ok := fields["warmup"]; ok {
		if v, err := boundedInt(f.value, "warmup", 0, MaxWarmup); p.ok(err) {
			c.Warmup = v
		}
	}
	if f, ok := fields["repeats"]; ok {
		if v, err := boundedInt(f.value, "repeats", 1, MaxRepeats); p.ok(err) {
			c.Repeats = v
		}
	}
}

// parseIsolation reads how targets are kept apart and watched: isolation, interleave, rewarm,
// stall_timeout, memory and profile.
func (c *Config) parseIsolation(p *problems, fields map[string]field) {
	if f, ok := fields["isolation"]; ok {
		if v, err := scalarString(f.value, "isolation"); p.ok(err) {
			if slices.Contains(IsolationModes, v) {
				c.Isolation = v
			} else {
				p.add(errAt(f.value, "isolation %q: want one of %s", v, strings.Join(IsolationModes, ", ")))
			}
		}
	}
	if f, ok := fields["interleave"]; ok {
		if v, err := scalarString(f.value, "interleave"); p.ok(err) {
			if slices.Contains(InterleaveModes, v) {
				c.Interleave, c.interleaveLine = v, f.value.Line
			} else {
				p.add(errAt(f.value, "interleave %q: want one of %s", v, strings.Join(InterleaveModes, ", ")))
			}
		}
	}
	if f, ok := fields["rewarm"]; ok {
		if v, err := positiveInt(f.value, "rewarm"); p.ok(err) {
			if v > 10 {
				p.add(errAt(f.value, "rewarm must be at most 10 (untimed runs before each timed repeat)"))
			} else {
				c.Rewarm = v
			}
		}
	}
	if f, ok := fields["stall_timeout"]; ok {
		if v, err := stallTimeout(f.value); p.ok(err) {
			c.StallTimeout = v
		}
	}
	if f, ok := fields["memory"]; ok {
		if v, err := boolValue(f.value, "memory"); p.ok(err) {
			c.Memory = v
		}
	}
	if f, ok := fields["profile"]; ok {
		if v, err := boolValue(f.value, "profile"); p.ok(err) {
			c.Profile, c.profileLine = v, f.value.Line
		}
	}
}

// parseSections reads the workloads, the targets, the baseline, the assertions, the verdict, the
// load model's sections and the ci section.
func (c *Config) parseSections(p *problems, root *yaml.Node, fields map[string]field) {
	if n := required(p, root, fields, "workloads", "missing workloads: list at least one (scan, lookup, insert, concurrent)"); n != nil {
		c.Workloads = c.parseWorkloads(p, n)
	} else {
		c.mark(skipWorkloads)
	}
	if n := required(p, root, fields, "targets", "missing targets: list at least one (see `dbbench list` for adapters)"); n != nil {
		c.Targets = c.parseTargets(p, n)
	} else {
		c.mark(skipTargets)
	}
	if f, ok := fields["baseline"]; ok {
		if v, err := scalarString(f.value, "baseline"); p.ok(err) {
			c.Baseline = v
			if names := targetNames(c.Targets); !slices.Contains(names, v) && !c.skip[skipTargets] {
				p.add(errAt(f.value, "baseline %q is not one of the targets%s", v, suggest.Hint(v, names, "")))
			}
		}
	}
	if f, ok := fields["assertions"]; ok {
		c.Assertions = parseAssertions(p, f.value)
	}
	if f, ok := fields["verdict"]; ok {
		if v := parseVerdict(p, f.value, "verdict"); v != nil {
			c.Verdict = *v
		}
	}
	c.parseLoadSections(p, root, fields)
	if f, ok := fields["ci"]; ok {
		if c.CI = parseCI(p, f.value, c, fields); c.CI == nil {
			c.mark(skipCI)
		}
	} else if p.meant(root, "ci") {
		c.mark(skipCI)
	}
}

// targetNames lists the targets' names.
func targetNames(ts []Target) []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	return names
}

// workloadNames lists the workloads' names.
func workloadNames(ws []Workload) []string {
	names := make([]string, len(ws))
	for i, w := range ws {
		names[i] = w.Name
	}
	return names
}

// parseVerdict reads a `verdict:` section (what names it in errors: "verdict" or "ci.verdict"); nil
// when it is not a mapping.
func parseVerdict(p *problems, n *yaml.Node, what string) *VerdictSettings {
	fields, _, err := mapping(n, what, "runs", "confidence", "budget", "max_looks")
	p.add(err)
	if fields == nil {
		return nil
	}
	v := &VerdictSettings{Line: n.Line}
	if f, ok := fields["runs"]; ok {
		if x, err := boundedInt(f.value, what+".runs", 1, MaxRuns); p.ok(err) {
			v.Runs = x
		}
	}
	if f, ok := fields["max_looks"]; ok {
		if x, err := boundedInt(f.value, what+".max_looks", 1, MaxMaxLooks); p.ok(err) {
			v.MaxLooks = x
		}
	}
	if f, ok := fields["confidence"]; ok {
		if s, err := scalarString(f.value, what+".confidence"); p.ok(err) {
			if c, ok := ParseFraction(s); ok && c >= MinConfidence && c <= MaxConfidence {
				v.Confidence = c
			} else {
				p.add(errAt(f.value, "%s.confidence must be between %g and %g (or 50%%-99.99%%), got %q", what, MinConfidence, MaxConfidence, s))
			}
		}
	}
	if f, ok := fields["budget"]; ok {
		if s, err := scalarString(f.value, what+".budget"); p.ok(err) {
			if d, err := time.ParseDuration(s); err == nil && d > 0 && d <= MaxStallTimeout {
				v.Budget = d
			} else {
				p.add(errAt(f.value, "%s.budget %q: want a positive duration such as 90s or 5m, at most %v (max_looks: 1 takes no extra runs)", what, s, MaxStallTimeout))
			}
		}
	}
	return v
}

func parseDataset(n *yaml.Node) ([]int, error) {
	fields, _, err := mapping(n, "dataset", "persons", "sizes")
	if err != nil {
		return nil, err
	}
	p, hasP := fields["persons"]
	s, hasS := fields["sizes"]
	switch {
	case hasP && hasS:
		return nil, errAt(s.key, "dataset: give either persons or sizes, not both")
	case hasP:
		v, err := positiveInt(p.value, "dataset.persons")
		if err != nil {
			return nil, err
		}
		return []int{v}, checkSize(p.value, v)
	case hasS:
		if s.value.Kind != yaml.SequenceNode || len(s.value.Content) == 0 {
			return nil, errAt(s.value, "dataset.sizes must be a list of sizes, e.g. [10000, 100000]")
		}
		var out []int
		for _, e := range s.value.Content {
			v, err := positiveInt(e, "a dataset size")
			if err != nil {
				return nil, err
			}
			if err := checkSize(e, v); err != nil {
				return nil, err
			}
			if slices.Contains(out, v) {
				return nil, errAt(e, "dataset size %d appears twice", v)
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, errAt(n, "dataset: give persons (one size) or sizes (a sweep)")
}

func checkSize(n *yaml.Node, v int) error {
	if v > MaxPersons {
		return errAt(n, "dataset size %d is larger than the maximum of %d", v, MaxPersons)
	}
	return nil
}

// parseList reads a list section (workloads, targets), each entry with parse. An entry in error is
// kept by its name, marked (skipEntry), so that what refers to it is not reported too; one without
// a name that could be read, or whose name check refuses (a bad or a taken one), is left out and
// leaves the section's names incomplete (mark(section)).
func parseList[T any](c *Config, p *problems, n *yaml.Node, section string, parse func(*problems, *yaml.Node) (T, bool),
	name func(T) string, check func(e *yaml.Node, name string, taken bool) error) []T {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.add(errAt(n, "%s must be a non-empty list", section))
		c.mark(section)
		return nil
	}
	var out []T
	var names []string
	for _, e := range n.Content {
		before := p.count()
		v, named := parse(p, e)
		if !named || !p.ok(check(e, name(v), slices.Contains(names, name(v)))) {
			c.mark(section)
			continue
		}
		if p.count() > before {
			c.mark(skipEntry(section, name(v)))
		}
		out = append(out, v)
		names = append(names, name(v))
	}
	return out
}

// parseWorkloads reads the workloads (parseList).
func (c *Config) parseWorkloads(p *problems, n *yaml.Node) []Workload {
	return parseList(c, p, n, skipWorkloads, parseWorkload, func(w Workload) string { return w.Name }, func(e *yaml.Node, name string, taken bool) error {
		switch {
		case !namePattern.MatchString(name):
			return errAt(e, "bad workload name %q", name)
		case taken:
			return errAt(e, "workload %q appears twice", name)
		}
		return nil
	})
}

// parseWorkload reads one entry of workloads: a name, or a mapping; named is false when it has no
// name that could be read.
func parseWorkload(p *problems, e *yaml.Node) (w Workload, named bool) {
	w = Workload{Line: e.Line, CrossCheck: true}
	if e.Kind == yaml.ScalarNode {
		w.Name = e.Value
		return w, true
	}
	fields, _, err := mapping(e, "a workload", "name", "rows", "ops", "readers", "params", "cross_check", "sql")
	p.add(err)
	if fields == nil {
		return w, false
	}
	n := required(p, e, fields, "name", "a workload needs a name")
	if n == nil {
		return w, false
	}
	if w.Name, err = scalarString(n, "workload name"); !p.ok(err) {
		return w, false
	}
	for _, key := range []string{"rows", "ops", "readers"} {
		if f, ok := fields[key]; ok {
			if v, err := boundedInt(f.value, w.Name+"."+key, 1, workloadBounds[key]); p.ok(err) {
				*map[string]*int{"rows": &w.Rows, "ops": &w.Ops, "readers": &w.Readers}[key] = v
			}
		}
	}
	if f, ok := fields["params"]; ok {
		if v, err := plainMapping(f.value, w.Name+".params"); p.ok(err) {
			w.Params, w.paramsNode = v, f.value
		}
	}
	if f, ok := fields["cross_check"]; ok {
		if v, err := boolValue(f.value, "cross_check"); p.ok(err) {
			w.CrossCheck = v
		}
	}
	if f, ok := fields["sql"]; ok {
		if v, err := parseSQLWorkload(f.value, w.Name, fields); p.ok(err) {
			w.SQL = v
		}
	}
	return w, true
}

// parseTargets reads the targets (parseList).
func (c *Config) parseTargets(p *problems, n *yaml.Node) []Target {
	return parseList(c, p, n, skipTargets, parseTarget, func(t Target) string { return t.Name }, func(e *yaml.Node, name string, taken bool) error {
		switch {
		case !namePattern.MatchString(name) || strings.ContainsAny(name, "@[]"):
			return errAt(e, "bad target name %q: use letters, digits, '.', '-' and '_'", name)
		case taken:
			return errAt(e, "target %q appears twice: give each target a distinct name", name)
		}
		return nil
	})
}

// parseTarget reads one entry of targets; named is false when it has neither a name nor an adapter
// that could be read.
func parseTarget(p *problems, e *yaml.Node) (t Target, named bool) {
	t = Target{Line: e.Line}
	fields, _, err := mapping(e, "a target", "name", "adapter", "options", "optional", "slowdown", "workloads")
	p.add(err)
	if fields == nil {
		return t, false
	}
	if n := required(p, e, fields, "adapter", "a target needs an adapter (see `dbbench list`)"); n != nil {
		if v, err := scalarString(n, "adapter"); p.ok(err) {
			t.Adapter, t.Name = v, v
		}
	}
	if f, ok := fields["name"]; ok {
		v, err := scalarString(f.value, "target name")
		if !p.ok(err) {
			return t, false
		}
		t.Name = v
	}
	if f, ok := fields["options"]; ok && f.value.Tag != "!!null" {
		if v, err := plainMapping(f.value, "options of "+t.Name); p.ok(err) {
			t.Options, t.optionsNode = v, f.value
		}
	}
	if f, ok := fields["optional"]; ok {
		if v, err := boolValue(f.value, "optional"); p.ok(err) {
			t.Optional = v
		}
	}
	if f, ok := fields["slowdown"]; ok {
		// ${ENV} lets a script inject a slowdown without editing the config (see .ci/gate).
		v := *f.value
		if v.Value, err = adapters.ExpandEnvStrict(v.Value); err != nil {
			p.add(errAt(f.value, "slowdown: %v", err))
		} else if x, err := fraction(&v, "slowdown", 100); p.ok(err) {
			t.Slowdown = x
		}
	}
	if f, ok := fields["workloads"]; ok {
		if ws, err := nameList(f.value, "workloads of target "+t.Name); p.ok(err) {
			t.Workloads = ws
		}
	}
	return t, t.Name != ""
}

// nameList reads a list of names (a target's workloads).
func nameList(n *yaml.Node, what string) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, errAt(n, "%s must be a list", what)
	}
	out := []string{}
	for _, w := range n.Content {
		s, err := scalarString(w, "workload name")
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// parseAssertions reads the assertions; an entry in error is left out (nothing refers to it).
func parseAssertions(p *problems, n *yaml.Node) []AssertionSpec {
	if n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.add(errAt(n, "assertions must be a list"))
		return nil
	}
	var out []AssertionSpec
	for _, e := range n.Content {
		before := p.count()
		a := parseAssertionSpec(p, e)
		if p.count() == before {
			out = append(out, a)
		}
	}
	return out
}

// parseAssertionSpec reads one entry of assertions: a check, or a mapping.
func parseAssertionSpec(p *problems, e *yaml.Node) AssertionSpec {
	a := AssertionSpec{Line: e.Line}
	if e.Kind == yaml.ScalarNode {
		a.Check = e.Value
		return a
	}
	fields, _, err := mapping(e, "an assertion", "name", "check", "machines", "run_value")
	p.add(err)
	if fields == nil {
		return a
	}
	if n := required(p, e, fields, "check", "an assertion needs a check, e.g. check: scan.rows_per_s[a] >= 0.8 * scan.rows_per_s[b]"); n != nil {
		if v, err := scalarString(n, "check"); p.ok(err) {
			a.Check, a.Line = v, n.Line
		}
	}
	if f, ok := fields["name"]; ok {
		if v, err := scalarString(f.value, "assertion name"); p.ok(err) {
			a.Name = v
		}
	}
	if f, ok := fields["machines"]; ok {
		if v, err := parseMachines(f.value); p.ok(err) {
			a.Machines = v
		}
	}
	if f, ok := fields["run_value"]; ok {
		if v, err := scalarString(f.value, "run_value"); p.ok(err) {
			if v != report.RunMedian && v != report.RunBest {
				p.add(errAt(f.value, "run_value is %s or %s, got %q", report.RunMedian, report.RunBest, v))
			}
			a.RunValue = v
		}
	}
	return a
}

// machineClassRe is the form of report.Environment.MachineClass: "CPU model, N cores".
var machineClassRe = regexp.MustCompile(`^\S.*, [1-9][0-9]* cores$`)

// parseMachines reads an assertion's `machines:` mapping: machine class -> threshold.
func parseMachines(n *yaml.Node) ([]MachineThreshold, error) {
	if n.Kind != yaml.MappingNode {
		return nil, errAt(n, "machines must map a machine class to a threshold, e.g. \"AMD EPYC, 2 cores\": 600")
	}
	var out []MachineThreshold
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || !machineClassRe.MatchString(k.Value) {
			return nil, errAt(k, "machines: a key is a machine class as reports name it (CPU model, N cores), e.g. \"AMD EPYC, 2 cores\"")
		}
		for _, m := range out {
			if m.Class == k.Value {
				return nil, errAt(k, "machines: %q appears twice", k.Value)
			}
		}
		val, err := scalarString(v, "machines."+k.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, MachineThreshold{Class: k.Value, Value: val, Line: v.Line})
	}
	return out, nil
}

// parseCI reads the ci section: nil when it is not a mapping, else the overrides that could be read.
func parseCI(p *problems, n *yaml.Node, c *Config, top map[string]field) *CI {
	fields, _, err := mapping(n, "ci", "dataset", "warmup", "repeats", "workloads", "relax", "verdict", "load", "ycsb")
	p.add(err)
	if fields == nil {
		return nil
	}
	ci := &CI{Line: n.Line, Workloads: map[string]workloadOverride{}}
	ci.parseLoadSections(p, c, top, fields)
	if f, ok := fields["dataset"]; ok {
		if sizes, err := parseDataset(f.value); p.ok(err) {
			ci.Sizes = sizes
		} else {
			c.mark(skipCIDataset)
		}
	}
	if f, ok := fields["warmup"]; ok {
		if v, err := boundedInt(f.value, "ci.warmup", 0, MaxWarmup); p.ok(err) {
			ci.Warmup = &v
		}
	}
	if f, ok := fields["repeats"]; ok {
		if v, err := boundedInt(f.value, "ci.repeats", 1, MaxRepeats); p.ok(err) {
			ci.Repeats = &v
		}
	}
	if f, ok := fields["relax"]; ok {
		if v, err := fraction(f.value, "ci.relax", 1); p.ok(err) {
			if v > MaxRelax+1e-12 {
				p.add(errAt(f.value, "ci.relax %s: at most %.0f%%: a wider line hides the noise instead of measuring it (docs/verdicts.md)", f.value.Value, MaxRelax*100))
			} else {
				ci.Relax = v
			}
		}
	}
	if f, ok := fields["verdict"]; ok {
		ci.Verdict = parseVerdict(p, f.value, "ci.verdict")
	}
	if f, ok := fields["workloads"]; ok {
		ci.parseWorkloads(p, f.value)
	}
	return ci
}

// parseWorkloads reads ci.workloads: each workload's sizes.
func (ci *CI) parseWorkloads(p *problems, n *yaml.Node) {
	wf, order, err := mapping(n, "ci.workloads")
	p.add(err)
	for _, name := range order {
		o := workloadOverride{line: wf[name].key.Line}
		ff, _, err := mapping(wf[name].value, "ci.workloads."+name, "rows", "ops", "readers")
		p.add(err)
		if ff == nil {
			continue
		}
		for _, key := range []string{"rows", "ops", "readers"} {
			if f, ok := ff[key]; ok {
				if v, err := boundedInt(f.value, "ci.workloads."+name+"."+key, 1, workloadBounds[key]); p.ok(err) {
					*map[string]**int{"rows": &o.rows, "ops": &o.ops, "readers": &o.readers}[key] = &v
				}
			}
		}
		ci.Workloads[name] = o
	}
}

// parseAssertion turns a spec into a parsed assertion with its line.
func parseAssertion(s AssertionSpec) (assertion.Assertion, error) {
	a, err := assertion.Parse(s.Check)
	if err != nil {
		return a, &lineError{line: s.Line, msg: err.Error()}
	}
	a.Name, a.Line, a.RunValue = s.Name, s.Line, s.RunValue
	for _, m := range s.Machines {
		k, err := a.ReadThreshold(m.Value)
		if err != nil {
			return a, &lineError{line: m.Line, msg: fmt.Sprintf("machines.%s: %v", m.Class, err)}
		}
		if a.Machines == nil {
			a.Machines = map[string]float64{}
		}
		a.Machines[m.Class] = k
	}
	return a, nil
}

// used by Resolve for unknown-name suggestions.
func knownWorkloads(reg *adapters.Registry) []string {
	known := append(append([]string{}, workloads.Builtins...), YCSBNames()...)
	for _, n := range reg.Names() {
		a, _ := reg.Lookup(n)
		for _, w := range a.Info().Workloads {
			if !slices.Contains(known, w.Name) {
				known = append(known, w.Name)
			}
		}
	}
	return known
}

// KeepTargets narrows the config to the named targets (`dbbench run --targets`), to measure some
// of them alone. Assertions that name a target left out cannot be decided: they move to LeftOut with
// the reason, and their checks are returned so the caller can say so. Workloads that none of the kept
// targets lists (when each lists its own) are dropped too. An unknown name is an error.
func (c *Config) KeepTargets(names []string) (dropped []string, err error) {
	keep := map[string]bool{}
	for _, n := range names {
		if !slices.ContainsFunc(c.Targets, func(t Target) bool { return t.Name == n }) {
			known := make([]string, len(c.Targets))
			for i, t := range c.Targets {
				known[i] = t.Name
			}
			return nil, fmt.Errorf("--targets: the config has no target %q (targets: %s)", n, strings.Join(known, ", "))
		}
		keep[n] = true
	}
	c.Targets = slices.DeleteFunc(c.Targets, func(t Target) bool { return !keep[t.Name] })
	if !keep[c.Baseline] {
		c.Baseline = ""
	}
	if !slices.ContainsFunc(c.Targets, func(t Target) bool { return t.Workloads == nil }) {
		c.Workloads = slices.DeleteFunc(c.Workloads, func(w Workload) bool {
			if slices.ContainsFunc(c.Targets, func(t Target) bool { return slices.Contains(t.Workloads, w.Name) }) {
				return false
			}
			if c.CI != nil {
				delete(c.CI.Workloads, w.Name)
			}
			return true
		})
	}
	c.Assertions = slices.DeleteFunc(c.Assertions, func(s AssertionSpec) bool {
		a, err := parseAssertion(s)
		if err != nil {
			return false // Resolve reports it with its line
		}
		for _, r := range a.Refs() {
			if !keep[r.Target] {
				dropped = append(dropped, s.Check)
				c.LeftOut = append(c.LeftOut, LeftOut{Spec: s, Reason: fmt.Sprintf("--targets left out target %s", r.Target)})
				return true
			}
		}
		return false
	})
	return dropped, nil
}

// KeepWorkloads narrows the config to the named workloads (a run of just the workloads some
// assertions read), dropping targets left with none to run and every assertion: the run that is
// narrowed only measures, its parent decides. An unknown name is an error.
func (c *Config) KeepWorkloads(names []string) error {
	for _, n := range names {
		if !slices.ContainsFunc(c.Workloads, func(w Workload) bool { return w.Name == n }) {
			return fmt.Errorf("the config has no workload %q", n)
		}
	}
	c.Workloads = slices.DeleteFunc(c.Workloads, func(w Workload) bool { return !slices.Contains(names, w.Name) })
	for i := range c.Targets {
		if ws := c.Targets[i].Workloads; ws != nil {
			c.Targets[i].Workloads = slices.DeleteFunc(ws, func(w string) bool { return !slices.Contains(names, w) })
		}
	}
	// A target that listed only workloads left out runs nothing (nil would mean all: keep it apart).
	c.Targets = slices.DeleteFunc(c.Targets, func(t Target) bool { return t.Workloads != nil && len(t.Workloads) == 0 })
	if c.CI != nil {
		for w := range c.CI.Workloads {
			if !slices.Contains(names, w) {
				delete(c.CI.Workloads, w)
			}
		}
	}
	if !slices.ContainsFunc(c.Targets, func(t Target) bool { return t.Name == c.Baseline }) {
		c.Baseline = ""
	}
	c.Assertions, c.LeftOut = nil, nil
	return nil
}

// stallTimeout parses `stall_timeout`: a duration such as 90s or 5m, within its bounds.
func stallTimeout(n *yaml.Node) (time.Duration, error) {
	s, err := scalarString(n, "stall_timeout")
	if err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errAt(n, "stall_timeout %q: want a duration such as 90s or 5m", s)
	}
	if d < MinStallTimeout || d > MaxStallTimeout {
		return 0, errAt(n, "stall_timeout must be between %v and %v, got %v", MinStallTimeout, MaxStallTimeout, d)
	}
	return d, nil
}

// SetSlowdown sets the slowdown of the target called name (the --slowdown flag), as its slowdown:
// key would.
func (c *Config) SetSlowdown(name string, fraction float64) error {
	for i := range c.Targets {
		if c.Targets[i].Name == name {
			c.Targets[i].Slowdown = fraction
			return nil
		}
	}
	names := make([]string, len(c.Targets))
	for i, t := range c.Targets {
		names[i] = t.Name
	}
	return fmt.Errorf("no target %q in the config (targets: %s)", name, strings.Join(names, ", "))
}

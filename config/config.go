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

// Parse reads a config. source names it in errors ("configs/lmdb.yaml").
func Parse(source string, data []byte) (*Config, error) {
	c, err := parse(data)
	if err != nil {
		return nil, located(source, err)
	}
	c.Source = source
	return c, nil
}

// located prefixes an error with the file (and line) it belongs to.
func located(source string, err error) error {
	var le *lineError
	if errors.As(err, &le) {
		if le.line > 0 {
			return fmt.Errorf("%s:%d: %s", source, le.line, le.msg)
		}
		return fmt.Errorf("%s: %s", source, le.msg)
	}
	return fmt.Errorf("%s: %w", source, err)
}

func parse(data []byte) (*Config, error) {
	root, err := document(data)
	if err != nil {
		return nil, err
	}
	fields, _, err := mapping(root, "the config",
		"name", "description", "seed", "dataset", "warmup", "repeats", "isolation", "interleave", "rewarm", "stall_timeout", "memory", "profile", "baseline", "workloads", "targets", "assertions", "verdict", "ci", "load", "ycsb")
	if err != nil {
		return nil, err
	}
	// Isolation, interleave, rewarm and stall_timeout stay zero when not given: Plan.Normalize decides
	// their defaults, for configs and plans built in code alike.
	c := &Config{Seed: DefaultSeed, Warmup: DefaultWarmup, Repeats: DefaultRepeats}
	if err := c.parseSettings(root, fields); err != nil {
		return nil, err
	}
	if err := c.parseIsolation(fields); err != nil {
		return nil, err
	}
	if err := c.parseSections(root, fields); err != nil {
		return nil, err
	}
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

// parseSettings reads the run's settings: name, description, seed, dataset, warmup and repeats.
func (c *Config) parseSettings(root *yaml.Node, fields map[string]field) error {
	var err error
	f, ok := fields["name"]
	if !ok {
		return errAt(root, "missing name: give the config a name")
	}
	if c.Name, err = scalarString(f.value, "name"); err != nil {
		return err
	}
	if !namePattern.MatchString(c.Name) {
		return errAt(f.value, "name %q may only hold letters, digits, '.', '-' and '_'", c.Name)
	}
	if f, ok := fields["description"]; ok {
		if c.Description, err = scalarString(f.value, "description"); err != nil {
			return err
		}
	}
	if f, ok := fields["seed"]; ok {
		n, err := wholeNumber(f.value, "seed")
		if err != nil {
			return err
		}
		c.Seed = int64(n)
	}
	// A config of YCSB workloads only may leave out the dataset: its size is then the record count.
	if f, ok := fields["dataset"]; ok {
		if c.Sizes, err = parseDataset(f.value); err != nil {
			return err
		}
	}
	if f, ok := fields["warmup"]; ok {
		if c.Warmup, err = boundedInt(f.value, "warmup", 0, MaxWarmup); err != nil {
			return err
		}
	}
	if f, ok := fields["repeats"]; ok {
		if c.Repeats, err = positiveInt(f.value, "repeats"); err != nil {
			return err
		}
		if c.Repeats > MaxRepeats {
			return errAt(f.value, "repeats must be at most %d", MaxRepeats)
		}
	}
	return nil
}

// parseIsolation reads how targets are kept apart and watched: isolation, interleave, rewarm,
// stall_timeout, memory and profile.
func (c *Config) parseIsolation(fields map[string]field) error {
	var err error
	if f, ok := fields["isolation"]; ok {
		if c.Isolation, err = scalarString(f.value, "isolation"); err != nil {
			return err
		}
		if !slices.Contains(IsolationModes, c.Isolation) {
			return errAt(f.value, "isolation %q: want one of %s", c.Isolation, strings.Join(IsolationModes, ", "))
		}
	}
	if f, ok := fields["interleave"]; ok {
		if c.Interleave, err = scalarString(f.value, "interleave"); err != nil {
			return err
		}
		if !slices.Contains(InterleaveModes, c.Interleave) {
			return errAt(f.value, "interleave %q: want one of %s", c.Interleave, strings.Join(InterleaveModes, ", "))
		}
		c.interleaveLine = f.value.Line
	}
	if f, ok := fields["rewarm"]; ok {
		if c.Rewarm, err = positiveInt(f.value, "rewarm"); err != nil {
			return err
		}
		if c.Rewarm > 10 {
			return errAt(f.value, "rewarm must be at most 10 (untimed runs before each timed repeat)")
		}
	}
	if f, ok := fields["stall_timeout"]; ok {
		if c.StallTimeout, err = stallTimeout(f.value); err != nil {
			return err
		}
	}
	if f, ok := fields["memory"]; ok {
		if c.Memory, err = boolValue(f.value, "memory"); err != nil {
			return err
		}
	}
	if f, ok := fields["profile"]; ok {
		if c.Profile, err = boolValue(f.value, "profile"); err != nil {
			return err
		}
		c.profileLine = f.value.Line
	}
	return nil
}

// parseSections reads the workloads, the targets, the baseline, the assertions and the ci section.
func (c *Config) parseSections(root *yaml.Node, fields map[string]field) error {
	var err error
	f, ok := fields["workloads"]
	if !ok {
		return errAt(root, "missing workloads: list at least one (scan, lookup, insert, concurrent)")
	}
	if c.Workloads, err = parseWorkloads(f.value); err != nil {
		return err
	}
	f, ok = fields["targets"]
	if !ok {
		return errAt(root, "missing targets: list at least one (see `dbbench list` for adapters)")
	}
	if c.Targets, err = parseTargets(f.value); err != nil {
		return err
	}
	if f, ok := fields["baseline"]; ok {
		if c.Baseline, err = scalarString(f.value, "baseline"); err != nil {
			return err
		}
		if !slices.ContainsFunc(c.Targets, func(t Target) bool { return t.Name == c.Baseline }) {
			return errAt(f.value, "baseline %q is not one of the targets", c.Baseline)
		}
	}
	if f, ok := fields["assertions"]; ok {
		if c.Assertions, err = parseAssertions(f.value); err != nil {
			return err
		}
	}
	if f, ok := fields["verdict"]; ok {
		v, err := parseVerdict(f.value, "verdict")
		if err != nil {
			return err
		}
		c.Verdict = *v
	}
	if err := c.parseLoadSections(root, fields); err != nil {
		return err
	}
	if f, ok := fields["ci"]; ok {
		if c.CI, err = parseCI(f.value, c, fields); err != nil {
			return err
		}
	}
	return nil
}

// parseVerdict reads a `verdict:` section (what names it in errors: "verdict" or "ci.verdict").
func parseVerdict(n *yaml.Node, what string) (*VerdictSettings, error) {
	fields, _, err := mapping(n, what, "runs", "confidence", "budget", "max_looks")
	if err != nil {
		return nil, err
	}
	v := &VerdictSettings{Line: n.Line}
	if f, ok := fields["runs"]; ok {
		if v.Runs, err = boundedInt(f.value, what+".runs", 1, MaxRuns); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["max_looks"]; ok {
		if v.MaxLooks, err = boundedInt(f.value, what+".max_looks", 1, MaxMaxLooks); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["confidence"]; ok {
		s, err := scalarString(f.value, what+".confidence")
		if err != nil {
			return nil, err
		}
		c, ok := ParseFraction(s)
		if !ok || c < MinConfidence || c > MaxConfidence {
			return nil, errAt(f.value, "%s.confidence must be between %g and %g (or 50%%-99.99%%), got %q", what, MinConfidence, MaxConfidence, s)
		}
		v.Confidence = c
	}
	if f, ok := fields["budget"]; ok {
		s, err := scalarString(f.value, what+".budget")
		if err != nil {
			return nil, err
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 || d > MaxStallTimeout {
			return nil, errAt(f.value, "%s.budget %q: want a positive duration such as 90s or 5m, at most %v (max_looks: 1 takes no extra runs)", what, s, MaxStallTimeout)
		}
		v.Budget = d
	}
	return v, nil
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

func parseWorkloads(n *yaml.Node) ([]Workload, error) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return nil, errAt(n, "workloads must be a non-empty list")
	}
	var out []Workload
	for _, e := range n.Content {
		w := Workload{Line: e.Line, CrossCheck: true}
		if e.Kind == yaml.ScalarNode {
			w.Name = e.Value
		} else {
			fields, _, err := mapping(e, "a workload", "name", "rows", "ops", "readers", "params", "cross_check", "sql")
			if err != nil {
				return nil, err
			}
			if w.Name, _, err = requiredString(e, fields, "name", "a workload needs a name", "workload name"); err != nil {
				return nil, err
			}
			for key, dst := range map[string]*int{"rows": &w.Rows, "ops": &w.Ops, "readers": &w.Readers} {
				if f, ok := fields[key]; ok {
					if *dst, err = boundedInt(f.value, w.Name+"."+key, 1, workloadBounds[key]); err != nil {
						return nil, err
					}
				}
			}
			if f, ok := fields["params"]; ok {
				if w.Params, err = plainMapping(f.value, w.Name+".params"); err != nil {
					return nil, err
				}
			}
			if f, ok := fields["cross_check"]; ok {
				if w.CrossCheck, err = boolValue(f.value, "cross_check"); err != nil {
					return nil, err
				}
			}
			if f, ok := fields["sql"]; ok {
				if w.SQL, err = parseSQLWorkload(f.value, w.Name, fields); err != nil {
					return nil, err
				}
			}
		}
		if !namePattern.MatchString(w.Name) {
			return nil, errAt(e, "bad workload name %q", w.Name)
		}
		for _, prev := range out {
			if prev.Name == w.Name {
				return nil, errAt(e, "workload %q appears twice", w.Name)
			}
		}
		out = append(out, w)
	}
	return out, nil
}

func parseTargets(n *yaml.Node) ([]Target, error) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return nil, errAt(n, "targets must be a non-empty list")
	}
	var out []Target
	for _, e := range n.Content {
		fields, _, err := mapping(e, "a target", "name", "adapter", "options", "optional", "slowdown", "workloads")
		if err != nil {
			return nil, err
		}
		t := Target{Line: e.Line}
		f, ok := fields["adapter"]
		if !ok {
			return nil, errAt(e, "a target needs an adapter (see `dbbench list`)")
		}
		if t.Adapter, err = scalarString(f.value, "adapter"); err != nil {
			return nil, err
		}
		t.Name = t.Adapter
		if f, ok := fields["name"]; ok {
			if t.Name, err = scalarString(f.value, "target name"); err != nil {
				return nil, err
			}
		}
		if !namePattern.MatchString(t.Name) || strings.ContainsAny(t.Name, "@[]") {
			return nil, errAt(e, "bad target name %q: use letters, digits, '.', '-' and '_'", t.Name)
		}
		for _, prev := range out {
			if prev.Name == t.Name {
				return nil, errAt(e, "target %q appears twice: give each target a distinct name", t.Name)
			}
		}
		if f, ok := fields["options"]; ok && f.value.Tag != "!!null" {
			if t.Options, err = plainMapping(f.value, "options of "+t.Name); err != nil {
				return nil, err
			}
		}
		if f, ok := fields["optional"]; ok {
			if t.Optional, err = boolValue(f.value, "optional"); err != nil {
				return nil, err
			}
		}
		if f, ok := fields["slowdown"]; ok {
			// ${ENV} lets a script inject a slowdown without editing the config (see .ci/gate).
			v := *f.value
			if v.Value, err = adapters.ExpandEnvStrict(v.Value); err != nil {
				return nil, errAt(f.value, "slowdown: %v", err)
			}
			if t.Slowdown, err = fraction(&v, "slowdown", 100); err != nil {
				return nil, err
			}
		}
		if f, ok := fields["workloads"]; ok {
			if f.value.Kind != yaml.SequenceNode {
				return nil, errAt(f.value, "workloads of target %s must be a list", t.Name)
			}
			t.Workloads = []string{}
			for _, w := range f.value.Content {
				s, err := scalarString(w, "workload name")
				if err != nil {
					return nil, err
				}
				t.Workloads = append(t.Workloads, s)
			}
		}
		out = append(out, t)
	}
	return out, nil
}

func parseAssertions(n *yaml.Node) ([]AssertionSpec, error) {
	if n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, errAt(n, "assertions must be a list")
	}
	var out []AssertionSpec
	for _, e := range n.Content {
		a := AssertionSpec{Line: e.Line}
		if e.Kind == yaml.ScalarNode {
			a.Check = e.Value
		} else {
			fields, _, err := mapping(e, "an assertion", "name", "check", "machines", "run_value")
			if err != nil {
				return nil, err
			}
			var v *yaml.Node
			if a.Check, v, err = requiredString(e, fields, "check", "an assertion needs a check, e.g. check: scan.rows_per_s[a] >= 0.8 * scan.rows_per_s[b]", "check"); err != nil {
				return nil, err
			}
			a.Line = v.Line
			if f, ok := fields["name"]; ok {
				if a.Name, err = scalarString(f.value, "assertion name"); err != nil {
					return nil, err
				}
			}
			if f, ok := fields["machines"]; ok {
				if a.Machines, err = parseMachines(f.value); err != nil {
					return nil, err
				}
			}
			if f, ok := fields["run_value"]; ok {
				if a.RunValue, err = scalarString(f.value, "run_value"); err != nil {
					return nil, err
				}
				if a.RunValue != report.RunMedian && a.RunValue != report.RunBest {
					return nil, errAt(f.value, "run_value is %s or %s, got %q", report.RunMedian, report.RunBest, a.RunValue)
				}
			}
		}
		out = append(out, a)
	}
	return out, nil
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

func parseCI(n *yaml.Node, c *Config, top map[string]field) (*CI, error) {
	fields, _, err := mapping(n, "ci", "dataset", "warmup", "repeats", "workloads", "relax", "verdict", "load", "ycsb")
	if err != nil {
		return nil, err
	}
	ci := &CI{Line: n.Line, Workloads: map[string]workloadOverride{}}
	if err := ci.parseLoadSections(c, top, fields); err != nil {
		return nil, err
	}
	if f, ok := fields["dataset"]; ok {
		if ci.Sizes, err = parseDataset(f.value); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["warmup"]; ok {
		v, err := boundedInt(f.value, "ci.warmup", 0, MaxWarmup)
		if err != nil {
			return nil, err
		}
		ci.Warmup = &v
	}
	if f, ok := fields["repeats"]; ok {
		v, err := boundedInt(f.value, "ci.repeats", 1, MaxRepeats)
		if err != nil {
			return nil, err
		}
		ci.Repeats = &v
	}
	if f, ok := fields["relax"]; ok {
		if ci.Relax, err = fraction(f.value, "ci.relax", 1); err != nil {
			return nil, err
		}
		if ci.Relax > MaxRelax+1e-12 {
			return nil, errAt(f.value, "ci.relax %s: at most %.0f%%: a wider line hides the noise instead of measuring it (verdicts are decided on intervals over runs: see docs/verdicts.md)", f.value.Value, MaxRelax*100)
		}
	}
	if f, ok := fields["verdict"]; ok {
		if ci.Verdict, err = parseVerdict(f.value, "ci.verdict"); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["workloads"]; ok {
		wf, order, err := mapping(f.value, "ci.workloads")
		if err != nil {
			return nil, err
		}
		for _, name := range order {
			o := workloadOverride{line: wf[name].key.Line}
			ff, _, err := mapping(wf[name].value, "ci.workloads."+name, "rows", "ops", "readers")
			if err != nil {
				return nil, err
			}
			for key, dst := range map[string]**int{"rows": &o.rows, "ops": &o.ops, "readers": &o.readers} {
				if f, ok := ff[key]; ok {
					v, err := boundedInt(f.value, "ci.workloads."+name+"."+key, 1, workloadBounds[key])
					if err != nil {
						return nil, err
					}
					*dst = &v
				}
			}
			ci.Workloads[name] = o
		}
	}
	return ci, nil
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

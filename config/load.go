package config

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dbbench/dbbench/workloads/ycsb"
)

// The load model's config (docs/load.md): a `load:` section says how operations arrive (an open
// loop at a rate, or a closed loop of workers when it gives none) and a `ycsb:` section what the
// YCSB workloads' records and operations are. Both apply to the YCSB workloads of a config
// (ycsb-a ... ycsb-f, or ycsb with a mix of its own); without `load:` those run as a closed loop.

// Defaults and bounds of the `load:` section.
const (
	DefaultLoadWorkers   = 8 // open loop: operations in flight at most
	DefaultClosedWorkers = 1 // closed loop: YCSB's threadcount default
	MaxLoadWorkers       = 4096
	MaxLoadRate          = 10_000_000 // ops/s
	MaxLoadDuration      = 24 * time.Hour
	// DefaultMaxErrorRate: a result fails when any repeat's errors exceed this share of its
	// operations (load.max_error_rate): a few timeouts under overload stay a measurement, half the
	// operations refused never passes.
	DefaultMaxErrorRate = 0.01
)

// Policies and arrivals a `load:` section accepts (engine/load's names).
var (
	LoadPolicies = []string{"queue", "drop"}
	LoadArrivals = []string{"constant", "poisson"}
)

// LoadStage is a point of a ramp: the rate at a time from the start.
type LoadStage struct {
	At   time.Duration
	Rate float64
}

// LoadPlan is a config's `load:` section, resolved. Rate 0 with no stages is a closed loop.
type LoadPlan struct {
	Line      int
	Rate      float64     // ops/s; 0 with no stages: closed loop
	Stages    []LoadStage // a ramp (the first at 0)
	Arrivals  string      // constant or poisson
	Duration  time.Duration
	Ops       int64
	Workers   int
	Policy    string // queue or drop
	Timeout   time.Duration
	Interval  time.Duration
	LateAfter time.Duration
	Precise   bool // one worker at a time waits for the next start, spinning (engine/load Config.Precise)
	// MaxErrorRate is the largest share of a repeat's operations that may fail (errors over
	// completed plus errors) before the result fails (default DefaultMaxErrorRate).
	MaxErrorRate float64
}

// ErrorBudget is the largest error rate a repeat may have: the section's max_error_rate, or the
// default when there is no section (a closed loop of one worker).
func (l *LoadPlan) ErrorBudget() float64 {
	if l == nil {
		return DefaultMaxErrorRate
	}
	return l.MaxErrorRate
}

// Open reports whether the load is an open loop (a rate or a ramp).
func (l *LoadPlan) Open() bool { return l != nil && (l.Rate > 0 || len(l.Stages) > 0) }

// YCSBPlan is a config's `ycsb:` section, resolved: the record shape and the run phase's size.
type YCSBPlan struct {
	Line                int
	Workload            string   // a..f: the mix of the workload named ycsb ("": Mix gives it)
	Mix                 ycsb.Mix // a mix of proportions (the workload ycsb)
	RecordCount         int64
	OperationCount      int64
	FieldCount          int
	FieldLength         int
	InsertOrder         string // hashed or ordered
	RequestDistribution string // "": the workload's own
	MaxScanLength       int64  // 0: the workload's own
	// CheckSample accepts that reads past the verification's memory budget go unchecked (counted
	// and shown); without it a result with unchecked reads is not ok.
	CheckSample bool
}

// Defaults of the `ycsb:` section: sized so a run takes seconds.
const (
	DefaultRecordCount    = 10_000
	DefaultOperationCount = 10_000
	MaxRecordCount        = 50_000_000
	MaxOperationCount     = 100_000_000
)

// YCSBWorkload is the name of the workload whose mix the `ycsb:` section gives.
const YCSBWorkload = "ycsb"

// IsYCSB reports whether a workload name is a YCSB workload: ycsb-a ... ycsb-f, or ycsb.
func IsYCSB(name string) bool {
	if name == YCSBWorkload {
		return true
	}
	_, ok := ycsb.Lookup(name)
	return ok
}

// YCSBNames lists the YCSB workload names.
func YCSBNames() []string {
	out := []string{}
	for _, w := range ycsb.Core {
		out = append(out, w.Name)
	}
	return append(out, YCSBWorkload)
}

// Definition returns the YCSB workload a workload name runs, with the section's overrides applied.
func (y YCSBPlan) Definition(name string) (ycsb.Workload, error) {
	base := name
	if name == YCSBWorkload {
		if y.Workload == "" && y.Mix == (ycsb.Mix{}) {
			return ycsb.Workload{}, fmt.Errorf("workload ycsb needs ycsb.workload (a..f) or ycsb.mix")
		}
		base = "ycsb-" + y.Workload
		if y.Workload == "" {
			base = "ycsb-a"
		}
	}
	w, ok := ycsb.Lookup(base)
	if !ok {
		return w, fmt.Errorf("unknown YCSB workload %q", base)
	}
	w.Name = name
	if name == YCSBWorkload && y.Mix != (ycsb.Mix{}) {
		w.Mix = y.Mix
	}
	if y.FieldCount > 0 {
		w.FieldCount = y.FieldCount
	}
	if y.FieldLength > 0 {
		w.FieldLength = y.FieldLength
	}
	w.Ordered = y.InsertOrder == "ordered"
	if y.RequestDistribution != "" {
		w.RequestDistribution = y.RequestDistribution
	}
	if y.MaxScanLength > 0 {
		w.MaxScanLength = y.MaxScanLength
	}
	return w, nil
}

// parseDuration reads a positive duration such as 10s.
func parseDuration(n *yaml.Node, what string, max time.Duration) (time.Duration, error) {
	s, err := scalarString(n, what)
	if err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > max {
		return 0, errAt(n, "%s %q: want a positive duration such as 10s or 500ms, at most %v", what, s, max)
	}
	return d, nil
}

// parseRate reads a rate in ops/s: a positive number up to MaxLoadRate (0 allowed when zeroOK).
func parseRate(n *yaml.Node, what string, zeroOK bool) (float64, error) {
	s, err := scalarString(n, what)
	if err != nil {
		return 0, err
	}
	r, perr := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if perr != nil || math.IsNaN(r) || r < 0 || (r == 0 && !zeroOK) || r > MaxLoadRate {
		return 0, errAt(n, "%s must be a positive number of operations per second (at most %d), got %q", what, MaxLoadRate, s)
	}
	return r, nil
}

// parseLoad reads the `load:` section: nil when it is not a mapping, else the section with the keys
// that could be read.
func parseLoad(p *problems, n *yaml.Node) *LoadPlan {
	fields, _, err := mapping(n, "load", "rate", "stages", "arrivals", "duration", "ops", "workers", "policy", "timeout", "interval", "late_after", "precise", "max_error_rate")
	p.add(err)
	if fields == nil {
		return nil
	}
	before := p.count()
	l := &LoadPlan{Line: n.Line, Arrivals: "constant", Policy: "queue", MaxErrorRate: DefaultMaxErrorRate}
	if f, ok := fields["rate"]; ok {
		if v, err := parseRate(f.value, "load.rate", false); p.ok(err) {
			l.Rate = v
		}
	}
	if f, ok := fields["stages"]; ok {
		if _, both := fields["rate"]; both {
			p.add(errAt(f.key, "load: give either rate or stages, not both"))
		} else if v, err := parseStages(f.value); p.ok(err) {
			l.Stages = v
		}
	}
	for _, key := range []string{"arrivals", "policy"} {
		f, ok := fields[key]
		if !ok {
			continue
		}
		allowed := map[string][]string{"arrivals": LoadArrivals, "policy": LoadPolicies}[key]
		v, err := scalarString(f.value, "load."+key)
		switch {
		case err != nil:
			p.add(err)
		case !slices.Contains(allowed, v):
			p.add(errAt(f.value, "load.%s %q: want one of %s", key, v, strings.Join(allowed, ", ")))
		default:
			*map[string]*string{"arrivals": &l.Arrivals, "policy": &l.Policy}[key] = v
		}
	}
	durations := map[string]*time.Duration{"duration": &l.Duration, "timeout": &l.Timeout, "interval": &l.Interval, "late_after": &l.LateAfter}
	for _, key := range []string{"duration", "timeout", "interval", "late_after"} {
		if f, ok := fields[key]; ok {
			if v, err := parseDuration(f.value, "load."+key, MaxLoadDuration); p.ok(err) {
				*durations[key] = v
			}
		}
	}
	if f, ok := fields["ops"]; ok {
		if v, err := boundedInt(f.value, "load.ops", 1, MaxOperationCount); p.ok(err) {
			l.Ops = int64(v)
		}
	}
	if f, ok := fields["workers"]; ok {
		if v, err := boundedInt(f.value, "load.workers", 1, MaxLoadWorkers); p.ok(err) {
			l.Workers = v
		}
	}
	if f, ok := fields["precise"]; ok {
		if v, err := boolValue(f.value, "load.precise"); p.ok(err) {
			l.Precise = v
		}
	}
	if f, ok := fields["max_error_rate"]; ok {
		if v, err := fraction(f.value, "load.max_error_rate", 1); p.ok(err) {
			l.MaxErrorRate = v
		}
	}
	if p.count() == before {
		// what depends on the rest is checked once the rest is known
		p.add(l.finish())
	}
	return l
}

// finish decides the defaults that depend on the rest: the workers, and a ramp's duration (its
// last stage's time when none is given).
func (l *LoadPlan) finish() error {
	if l.Workers == 0 {
		l.Workers = DefaultClosedWorkers
		if l.Open() {
			l.Workers = DefaultLoadWorkers
		}
	}
	if n := len(l.Stages); n > 0 && l.Duration == 0 && l.Ops == 0 {
		if l.Stages[n-1].At == 0 {
			return &lineError{line: l.Line, msg: "load: a ramp needs a duration (or stages that end after 0s)"}
		}
		l.Duration = l.Stages[n-1].At
	}
	if !l.Open() && l.Policy == "drop" {
		return &lineError{line: l.Line, msg: "load.policy drop needs a rate: a closed loop never has an operation without a free worker"}
	}
	return nil
}

// parseStages reads a ramp: a list of {at: TIME, rate: R} (at from the start) or {duration: D,
// rate: R} (D after the previous stage). A first stage after 0s starts the ramp from rate 0 at 0s.
func parseStages(n *yaml.Node) ([]LoadStage, error) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return nil, errAt(n, "load.stages must be a list of {at: 10s, rate: 1000} or {duration: 10s, rate: 1000}")
	}
	var out []LoadStage
	var prev time.Duration
	for i, e := range n.Content {
		fields, _, err := mapping(e, "a load stage", "at", "duration", "rate")
		if err != nil {
			return nil, err
		}
		f, ok := fields["rate"]
		if !ok {
			return nil, errAt(e, "load stage %d needs a rate", i+1)
		}
		rate, err := parseRate(f.value, "load stage rate", true)
		if err != nil {
			return nil, err
		}
		at, hasAt := fields["at"]
		dur, hasDur := fields["duration"]
		var t time.Duration
		switch {
		case hasAt && hasDur:
			return nil, errAt(e, "load stage %d: give at or duration, not both", i+1)
		case hasAt:
			s, err := scalarString(at.value, "load stage at")
			if err != nil {
				return nil, err
			}
			if t, err = time.ParseDuration(s); err != nil || t < 0 || t > MaxLoadDuration {
				return nil, errAt(at.value, "load stage at %q: want a duration from the start such as 0s or 20s", s)
			}
		case hasDur:
			d, err := parseDuration(dur.value, "load stage duration", MaxLoadDuration)
			if err != nil {
				return nil, err
			}
			t = prev + d
		default:
			return nil, errAt(e, "load stage %d needs at (from the start) or duration (after the previous stage)", i+1)
		}
		if i > 0 && t <= prev {
			return nil, errAt(e, "load stage %d at %v is not after stage %d's %v", i+1, t, i, prev)
		}
		if i == 0 && t > 0 {
			out = append(out, LoadStage{At: 0, Rate: 0})
		}
		out = append(out, LoadStage{At: t, Rate: rate})
		prev = t
	}
	if !slices.ContainsFunc(out, func(s LoadStage) bool { return s.Rate > 0 }) {
		return nil, errAt(n, "load.stages: every stage has rate 0")
	}
	return out, nil
}

// parseYCSB reads the `ycsb:` section: nil when it is not a mapping, else the section with the keys
// that could be read.
func parseYCSB(p *problems, n *yaml.Node) *YCSBPlan {
	fields, _, err := mapping(n, "ycsb", "workload", "mix", "recordcount", "operationcount", "fieldcount", "fieldlength",
		"insertorder", "requestdistribution", "maxscanlength", "check_sample")
	p.add(err)
	if fields == nil {
		return nil
	}
	y := &YCSBPlan{Line: n.Line, RecordCount: DefaultRecordCount, OperationCount: DefaultOperationCount, InsertOrder: "hashed"}
	if f, ok := fields["workload"]; ok {
		if v, err := scalarString(f.value, "ycsb.workload"); p.ok(err) {
			v = strings.TrimPrefix(strings.ToLower(v), "ycsb-")
			if _, ok := ycsb.Lookup("ycsb-" + v); ok {
				y.Workload = v
			} else {
				p.add(errAt(f.value, "ycsb.workload %q: want one of a, b, c, d, e, f", f.value.Value))
			}
		}
	}
	if f, ok := fields["mix"]; ok {
		if _, both := fields["workload"]; both {
			p.add(errAt(f.key, "ycsb: give either workload or mix, not both"))
		} else if m, err := parseMix(f.value); p.ok(err) {
			y.Mix = m
		}
	}
	ints := []struct {
		key string
		max int
		set func(int)
	}{
		{"recordcount", MaxRecordCount, func(v int) { y.RecordCount = int64(v) }},
		{"operationcount", MaxOperationCount, func(v int) { y.OperationCount = int64(v) }},
		{"fieldcount", 1000, func(v int) { y.FieldCount = v }},
		{"fieldlength", 1 << 20, func(v int) { y.FieldLength = v }},
		{"maxscanlength", 1_000_000, func(v int) { y.MaxScanLength = int64(v) }},
	}
	for _, x := range ints {
		if f, ok := fields[x.key]; ok {
			if v, err := boundedInt(f.value, "ycsb."+x.key, 1, x.max); p.ok(err) {
				x.set(v)
			}
		}
	}
	if f, ok := fields["insertorder"]; ok {
		if v, err := scalarString(f.value, "ycsb.insertorder"); p.ok(err) {
			if v == "hashed" || v == "ordered" {
				y.InsertOrder = v
			} else {
				p.add(errAt(f.value, "ycsb.insertorder %q: want hashed or ordered", v))
			}
		}
	}
	if f, ok := fields["check_sample"]; ok {
		if v, err := boolValue(f.value, "ycsb.check_sample"); p.ok(err) {
			y.CheckSample = v
		}
	}
	if f, ok := fields["requestdistribution"]; ok {
		if v, err := scalarString(f.value, "ycsb.requestdistribution"); p.ok(err) {
			if slices.Contains(ycsb.Distributions, v) {
				y.RequestDistribution = v
			} else {
				p.add(errAt(f.value, "ycsb.requestdistribution %q: want one of %s", v, strings.Join(ycsb.Distributions, ", ")))
			}
		}
	}
	return y
}

// parseMix reads a mix of proportions: {read: 0.5, update: 0.5}.
func parseMix(n *yaml.Node) (ycsb.Mix, error) {
	var names []string
	for _, o := range ycsb.Ops() {
		names = append(names, o.String())
	}
	fields, _, err := mapping(n, "ycsb.mix", names...)
	if err != nil {
		return ycsb.Mix{}, err
	}
	var m ycsb.Mix
	for _, o := range ycsb.Ops() {
		if f, ok := fields[o.String()]; ok {
			if m[o], err = fraction(f.value, "ycsb.mix."+o.String(), 1); err != nil {
				return m, err
			}
		}
	}
	if _, err := ycsb.NewOpChooser(m); err != nil {
		return m, errAt(n, "ycsb.mix: every proportion is zero")
	}
	return m, nil
}

// parseLoadSections reads the `load:` and `ycsb:` sections: load: applies to the load model's
// workloads (YCSB's and sql workloads), ycsb: to YCSB's; a config of those only may leave out its
// dataset.
func (c *Config) parseLoadSections(p *problems, root *yaml.Node, fields map[string]field) {
	hasYCSB, hasLoad, hasOther := false, false, false
	unknown := c.skip[skipWorkloads] // a workload in error may be of any kind
	for _, w := range c.Workloads {
		hasYCSB = hasYCSB || IsYCSB(w.Name)
		hasLoad = hasLoad || w.loadModel()
		hasOther = hasOther || !w.loadModel()
		unknown = unknown || c.skip[skipWorkload(w.Name)] && !w.loadModel()
	}
	sections := map[string]*yaml.Node{}
	for _, key := range []string{"load", "ycsb"} {
		f, ok := fields[key]
		applies, what := hasYCSB, "YCSB workloads (%s)"
		if key == "load" {
			applies, what = hasLoad, "YCSB workloads (%s) and sql workloads"
		}
		switch {
		case !ok:
		case !applies && !unknown:
			p.add(errAt(f.key, "%s: applies to "+what+", and this config has none", key, strings.Join(YCSBNames(), ", ")))
		case !applies:
			// a workload in error may be one it applies to: nothing to check the section against
		default:
			sections[key] = f.value
		}
	}
	if n := sections["load"]; n != nil {
		before := p.count()
		if c.Load = parseLoad(p, n); p.count() > before {
			c.mark(skipLoad)
		}
	}
	if n := sections["ycsb"]; n != nil {
		before := p.count()
		if c.YCSB = parseYCSB(p, n); p.count() > before {
			c.mark(skipYCSB)
		}
	}
	if c.Sizes == nil && hasOther && !unknown && !c.skip[skipDataset] {
		p.add(errAt(root, "missing dataset: say how many persons to load (dataset: {persons: 100000})"))
		c.mark(skipDataset)
	}
	for _, w := range c.Workloads {
		if w.Name == YCSBWorkload && !c.skip[skipYCSB] && (c.YCSB == nil || c.YCSB.Workload == "" && c.YCSB.Mix == (ycsb.Mix{})) {
			p.add(errAt(root, "workload ycsb (line %d) needs ycsb.workload (a..f) or ycsb.mix", w.Line))
		}
	}
}

// parseLoadSections reads ci.load and ci.ycsb: their keys laid over the config's sections.
func (ci *CI) parseLoadSections(p *problems, c *Config, top, fields map[string]field) {
	if f, ok := fields["load"]; ok && !c.skip[skipLoad] {
		if _, given := top["load"]; !given {
			p.add(errAt(f.key, "ci.load changes the config's load: section, and there is none"))
		} else if c.Load != nil {
			ci.Load = parseLoad(p, overlay(top["load"].value, f.value, "rate", "stages"))
		}
	}
	if f, ok := fields["ycsb"]; ok && !c.skip[skipYCSB] {
		if _, given := top["ycsb"]; !given {
			p.add(errAt(f.key, "ci.ycsb changes the config's ycsb: section, and there is none"))
		} else if c.YCSB != nil {
			ci.YCSB = parseYCSB(p, overlay(top["ycsb"].value, f.value, "workload", "mix"))
		}
	}
}

// overlay returns mapping base with over's keys laid over it; exclusive names keys that replace
// each other (a ci section's stages replace the config's rate).
func overlay(base, over *yaml.Node, exclusive ...string) *yaml.Node {
	if base.Kind != yaml.MappingNode || over.Kind != yaml.MappingNode {
		return over
	}
	given := map[string]bool{}
	for i := 0; i+1 < len(over.Content); i += 2 {
		given[over.Content[i].Value] = true
	}
	dropAll := slices.ContainsFunc(exclusive, func(k string) bool { return given[k] })
	out := &yaml.Node{Kind: yaml.MappingNode, Line: over.Line, Column: over.Column}
	for i := 0; i+1 < len(base.Content); i += 2 {
		k := base.Content[i].Value
		if given[k] || dropAll && slices.Contains(exclusive, k) {
			continue
		}
		out.Content = append(out.Content, base.Content[i], base.Content[i+1])
	}
	out.Content = append(out.Content, over.Content...)
	return out
}

// DefaultYCSB is the `ycsb:` section a config leaves out.
func DefaultYCSB() YCSBPlan {
	return YCSBPlan{RecordCount: DefaultRecordCount, OperationCount: DefaultOperationCount, InsertOrder: "hashed"}
}

// ycsbSizes gives a config of YCSB workloads only, which names no dataset, its one size: the
// record count (the size its results and assertions are keyed by).
func (p *Plan) ycsbSizes() {
	if len(p.Sizes) == 0 {
		p.Sizes = []int{int(p.YCSB.RecordCount)}
	}
}

// NeededOps are the operation types a target must serve for a mix: the mix's, and reads always
// (every write is read back to verify it).
func NeededOps(mix ycsb.Mix) []ycsb.Op {
	out := []ycsb.Op{ycsb.Read}
	for _, o := range ycsb.Ops() {
		if mix[o] > 0 && o != ycsb.Read {
			out = append(out, o)
		}
	}
	return out
}

// checkYCSB checks that a YCSB workload's definition and generator can be made, and that every
// target that runs it declares the record operations its mix needs (adapters.Info.Records).
func (p *Plan) checkYCSB(w Workload) error {
	def, err := p.YCSB.Definition(w.Name)
	if err == nil {
		_, err = ycsb.NewGenerator(def, p.YCSB.RecordCount, p.YCSB.OperationCount, 1)
	}
	if err != nil {
		return &lineError{line: w.Line, msg: err.Error()}
	}
	for _, tp := range p.Targets {
		if !tp.Runs(w.Name) {
			continue
		}
		info := tp.Adapter.Info()
		if err := info.MissingRecordOps(NeededOps(def.Mix)); err != nil {
			why := ""
			if def.Mix[ycsb.Read] == 0 {
				why = "; reads are needed to verify every write"
			}
			return &lineError{line: w.Line, msg: fmt.Sprintf("target %s (%s) cannot run workload %s (%s): it %v%s", tp.Name, info.Name, w.Name, def.Mix, err, why)}
		}
	}
	return nil
}

// asRun is the section as run, for the report.
func (y YCSBPlan) asRun() map[string]any {
	m := map[string]any{"recordcount": y.RecordCount, "operationcount": y.OperationCount, "insertorder": y.InsertOrder}
	if y.Workload != "" {
		m["workload"] = y.Workload
	}
	if y.Mix != (ycsb.Mix{}) {
		mix := map[string]any{}
		for _, o := range ycsb.Ops() {
			if y.Mix[o] > 0 {
				mix[o.String()] = y.Mix[o]
			}
		}
		m["mix"] = mix
	}
	for k, v := range map[string]int64{"fieldcount": int64(y.FieldCount), "fieldlength": int64(y.FieldLength), "maxscanlength": y.MaxScanLength} {
		if v > 0 {
			m[k] = v
		}
	}
	if y.RequestDistribution != "" {
		m["requestdistribution"] = y.RequestDistribution
	}
	if y.CheckSample {
		m["check_sample"] = true
	}
	return m
}

// asRun is the section as run, for the report.
func (l *LoadPlan) asRun() map[string]any {
	m := map[string]any{"workers": l.Workers, "arrivals": l.Arrivals, "policy": l.Policy}
	if l.Rate > 0 {
		m["rate"] = l.Rate
	}
	if len(l.Stages) > 0 {
		var st []any
		for _, s := range l.Stages {
			st = append(st, map[string]any{"at": s.At.String(), "rate": s.Rate})
		}
		m["stages"] = st
	}
	for k, d := range map[string]time.Duration{"duration": l.Duration, "timeout": l.Timeout, "interval": l.Interval, "late_after": l.LateAfter} {
		if d > 0 {
			m[k] = d.String()
		}
	}
	if l.Ops > 0 {
		m["ops"] = l.Ops
	}
	if l.Precise {
		m["precise"] = true
	}
	if l.MaxErrorRate != DefaultMaxErrorRate {
		m["max_error_rate"] = l.MaxErrorRate
	}
	return m
}

// OverrideLoad applies `dbbench run --rate R --duration D` (either may be zero: not given) to the
// plan: an open loop at rate R (replacing the config's rate or ramp) for D. The plan must have a
// YCSB workload.
func (p *Plan) OverrideLoad(rate float64, duration time.Duration) error {
	if rate == 0 && duration == 0 {
		return nil
	}
	if !p.HasLoadModel() {
		return fmt.Errorf("--rate and --duration apply to YCSB workloads (%s) and sql workloads, and this config has none", strings.Join(YCSBNames(), ", "))
	}
	if rate < 0 || rate > MaxLoadRate || math.IsNaN(rate) {
		return fmt.Errorf("--rate %g: want a positive number of operations per second, at most %d", rate, MaxLoadRate)
	}
	if duration < 0 || duration > MaxLoadDuration {
		return fmt.Errorf("--duration %v: want a positive duration, at most %v", duration, MaxLoadDuration)
	}
	l := &LoadPlan{Arrivals: "constant", Policy: "queue", MaxErrorRate: DefaultMaxErrorRate}
	if p.Load != nil {
		cp := *p.Load
		l = &cp
	}
	if rate > 0 {
		l.Rate, l.Stages = rate, nil
		if !p.Load.Open() && l.Workers <= DefaultClosedWorkers {
			l.Workers = 0 // the open loop's default rather than the closed loop's one worker
		}
	}
	if duration > 0 {
		l.Duration, l.Ops = duration, 0
	}
	if err := l.finish(); err != nil {
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "line 0: "))
	}
	prev := p.Load
	p.Load = l
	if err := p.checkSleeps(); err != nil {
		p.Load = prev
		return err
	}
	if p.AsRun != nil {
		p.AsRun["load"] = l.asRun()
	}
	return nil
}

// SetPrecise applies `dbbench run --precise` (after OverrideLoad): one of the open loop's workers
// at a time waits for the next intended start, spinning (load: precise).
func (p *Plan) SetPrecise() error {
	if !p.Load.Open() {
		return fmt.Errorf("--precise applies to an open loop: give the YCSB and sql workloads a rate (--rate, or load: rate or stages)")
	}
	p.Load.Precise = true
	if p.AsRun != nil {
		p.AsRun["load"] = p.Load.asRun()
	}
	return nil
}

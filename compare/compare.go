// Package compare decides whether one side's dbbench reports (OLD) differ from another's (NEW). It
// pairs the results by target, workload and dataset size and compares each figure with the
// Mann-Whitney U test of golang.org/x/perf/benchmath (the statistics behind benchstat). The samples
// are runs, not repeats: the repeats of one run share the machine's state of that moment and are not
// independent samples of what changes from one run to the next, so a test over them overstates
// significance. Each run contributes one value (the median over its repeats, or its best): a schema 1
// report is one run, a schema 2 report holds run.runs of them (repeats carry their run index). With
// one run per side no change is called significant, unless PerRepeat asks for the old repeat-level
// test. With a reference target (by default the baseline both reports name) it compares each
// target's figures divided by the reference's figures of the same repeat, which cancels the speed of
// the machine. Rendering is in render.go: nothing here prints.
//
// Given thresholds, the comparison is a gate, and a gated figure is decided on an interval of its
// change, never on a point (decide.go): FAIL when the whole interval lies beyond the threshold on the
// worse side, PASS when it lies wholly within it, else INCONCLUSIVE with an estimate of the runs a
// side that would decide. The interval is Welch's t interval for the difference of the sides' means
// of log run values (a ratio of geometric means), not benchmath's distribution-free interval of the
// median's change: that one is built from order statistics, so its confidence comes in steps fixed by
// the sample sizes (a median's interval over 5 runs reaches at most 1 - 2/2^5, about 94%, while the
// Bonferroni split over 3 figures and 4 looks asks for 99.6% each), and it gives no way to say how
// many more runs would decide. Run values are medians of many paired repeats, close to normal within one machine state;
// a machine that flips between states widens the spread and so the interval, which is the honest
// outcome (more runs, or INCONCLUSIVE). Nothing is decided across machine classes (checks.go).
package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/dbbench/dbbench/internal/suggest"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render"
)

// DefaultAlpha is the significance level of the U test over repeats, as in benchstat.
const DefaultAlpha = 0.05

// DefaultRunAlpha is the significance level when the runs are the samples. Runs on a shared machine
// are not quite independent either (its load drifts over minutes), and at 0.05 identical code came
// out significantly different in 8 of 100 figure-comparisons of 5 runs against 5 (.ci/gate-calibrate);
// at 0.01, in 2. It takes 5 runs per side to reach it (7 tolerate an outlying run).
const DefaultRunAlpha = 0.01

// Options configure a comparison.
type Options struct {
	// Figures to compare; empty means the default set (see DefaultFigures).
	Figures []string
	// NormalizeBy names a reference target: every other target's per-repeat figures are divided by the
	// reference's figures of the same repeat before OLD and NEW are compared.
	NormalizeBy string
	// Thresholds make the comparison a gate; nil or empty compares only.
	Thresholds *Thresholds
	// AllowSizeMismatch pairs results of different dataset sizes (by rank: smallest with smallest).
	AllowSizeMismatch bool
	// Alpha is the significance level (0: DefaultRunAlpha when both sides have several runs, else
	// DefaultAlpha).
	Alpha float64
	// OldName and NewName label the reports in messages (default "OLD" and "NEW").
	OldName, NewName string
	// NoNormalize compares raw figures even when both sides name the same baseline target.
	NoNormalize bool
	// Force compares reports of different configs, seeds or targets (the differences become notes).
	Force bool
	// PerRepeat takes the repeats as the samples when a side has a single run (the repeat-level U
	// test; only honest for reports made back to back on an idle machine).
	PerRepeat bool
	// RunValue is what each run contributes when the runs are the samples: report.RunMedian
	// (default) or report.RunBest.
	RunValue string
	// DropSlowest leaves out each side's N slowest runs of each figure before the test (with several
	// runs a side). Other work on a shared machine only ever adds time, and when it lasts a whole run
	// even the run's best repeat carries it: the slowest run is the likeliest to be disturbed.
	DropSlowest int
	// OptionKinds says which target options are sizes, to show them in bytes in messages (nil:
	// plain numbers).
	OptionKinds render.OptionKinds
	// Confidence is the family-wise confidence of the gate's decisions (0: DefaultConfidence): each
	// gated figure's interval is taken at 1 - (1-Confidence)/(gated figures x Looks).
	Confidence float64
	// Looks is the most times a sequential gate may decide over growing samples (0: 1). Each look is
	// a test, so the error budget is split over them too.
	Looks int
	// OldFiles and NewFiles name each side's reports, in order, for messages that point at one
	// (nil: "run N").
	OldFiles, NewFiles []string
	// AllowMissing accepts gated figures with values on one side only: listed and noted, but not held
	// against the gate (without it one missing in NEW fails the gate, one missing in OLD leaves it
	// inconclusive).
	AllowMissing bool
}

// DefaultFigures is the set compared when Options.Figures is empty: the throughput (rows_per_s, or
// ops_per_s when a result has no rows) and the p50 and p99 latencies. Latency figures (percentiles,
// min, max, mean) are never compared for results whose repeats record a single latency (a whole
// scan, a whole insert transaction): there they equal the repeat's elapsed time, which ns_per_row and
// the throughput already cover.
var DefaultFigures = []string{"rows_per_s", "p50", "p99"}

// Verdict is the outcome of comparing one figure.
type Verdict string

const (
	Better Verdict = "better"
	Worse  Verdict = "worse"
	// Same means no significant change (benchstat's "~").
	Same Verdict = "same"
	// TooFew means the samples are too small for the test to ever reject at alpha: no decision.
	TooFew Verdict = "too_few_repeats"
	// OneRun means a side has a single run: the run-to-run variation is not measured, so no change is
	// called significant.
	OneRun Verdict = "one_run"
	// OtherMachines means the sides ran on different machine classes: nothing is decided.
	OtherMachines Verdict = "other_machines"
)

// The unit of evidence of a comparison (Comparison.Sample).
const (
	SampleRuns    = "runs"    // one value per run: the median over its repeats
	SampleRepeats = "repeats" // one value per repeat (PerRepeat)
	SampleOneRun  = "one run" // a side has one run and PerRepeat is off: no significance
)

// Label is the verdict as shown in tables.
func (v Verdict) Label() string {
	switch v {
	case Same:
		return "~"
	case TooFew:
		return "too few samples"
	case OneRun:
		return "? one run"
	case OtherMachines:
		return "? machines"
	}
	return string(v)
}

// GateStatus is what the gate made of one row, or of the whole comparison.
type GateStatus string

const (
	GateNone GateStatus = ""     // no threshold applies
	GatePass GateStatus = "pass" // the change's interval lies within the threshold
	GateFail GateStatus = "fail" // the change's interval lies beyond the threshold on the worse side
	// GateInconclusive: the interval straddles the threshold, there is none (too few runs), or the
	// sides ran on different machine classes. Never a pass.
	GateInconclusive GateStatus = "inconclusive"
)

// Comparison is the outcome of comparing two reports.
type Comparison struct {
	Old         Source `json:"old"`
	New         Source `json:"new"`
	NormalizeBy string `json:"normalize_by,omitempty"`
	// NormalizedByDefault: NormalizeBy is the baseline both sides name, not a --normalize-by.
	NormalizedByDefault bool    `json:"normalized_by_default,omitempty"`
	Alpha               float64 `json:"alpha"`
	// Sample is the unit of evidence: "runs", "repeats" or "one run" (see SampleRuns...).
	Sample string `json:"sample"`
	// RunValue is what each run contributed when Sample is "runs": "median" or "best".
	RunValue string `json:"run_value,omitempty"`
	// DropSlowest is how many of each side's slowest runs per figure were left out of the test.
	DropSlowest int `json:"drop_slowest,omitempty"`
	// Forced lists the differences that would have refused the comparison without --force.
	Forced []string `json:"forced,omitempty"`
	// Sweep is true when either report covers several dataset sizes (rows then name their size).
	Sweep bool  `json:"sweep"`
	Rows  []Row `json:"rows"`
	// Failed lists results that failed in either report: no figure of theirs can be trusted.
	Failed []Failed `json:"failed"`
	// Unpaired lists the missing evidence: results, or figures of a result, with values on one side
	// only (or without the reference's result to normalize by). A figure neither side defines is not
	// missing, nor is one a schema version redefined (a note says it is not comparable).
	Unpaired []Unpaired `json:"unpaired"`
	// Notes are differences between the reports worth knowing (parameters, slowdowns, isolation).
	Notes []string `json:"notes"`
	// Undecidable says why the comparison decides nothing at all (the sides ran on different machine
	// classes); empty otherwise.
	Undecidable string `json:"undecidable,omitempty"`
	Gate        Gate   `json:"gate"`
}

// Source identifies one of the compared reports.
type Source struct {
	Name      string `json:"name"`
	Config    string `json:"config"`
	CI        bool   `json:"ci"`
	StartedAt string `json:"started_at"`
	Commit    string `json:"commit,omitempty"`
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	// MachineClass is report.Environment.MachineClass of the side's runs (one class a side).
	MachineClass string `json:"machine_class"`
	Repeats      int    `json:"repeats"`
	Sizes        []int  `json:"sizes"`
	// Runs is how many independent runs the side has: one per schema 1 report, and each run a
	// schema 2 report holds.
	Runs int `json:"runs"`
}

// Row compares one figure of one result.
type Row struct {
	Target   string `json:"target"`
	Workload string `json:"workload"`
	Size     int    `json:"size"`
	// OldSize is OLD's dataset size when it differs (--allow-size-mismatch).
	OldSize int    `json:"old_size,omitempty"`
	Figure  string `json:"figure"`
	// Unit is the figure's unit, or "ratio" when normalized.
	Unit         string `json:"unit"`
	HigherBetter bool   `json:"higher_is_better"`
	Old          Side   `json:"old"`
	New          Side   `json:"new"`
	// Change is new/old - 1 of the medians; ChangeLo and ChangeHi bound it with confidence
	// CIConfidence (null when there are too few repeats for an interval).
	Change       Num     `json:"change"`
	ChangeLo     Num     `json:"change_lo"`
	ChangeHi     Num     `json:"change_hi"`
	CIConfidence float64 `json:"ci_confidence,omitempty"`
	// P is the p-value of the Mann-Whitney U test.
	P       float64 `json:"p"`
	Verdict Verdict `json:"verdict"`
	// Reason explains a TooFew verdict in benchmath's words.
	Reason string `json:"reason,omitempty"`
	// Threshold is the gate's threshold for this row (null when not gated).
	Threshold *float64   `json:"threshold,omitempty"`
	Gate      GateStatus `json:"gate,omitempty"`
	// Decision is how the gate decided the row (gated rows only).
	Decision *Decision `json:"decision,omitempty"`
}

// Side holds one report's values of a row's figure.
type Side struct {
	// Median over the samples, with its confidence interval (null bounds when too few samples).
	Median Num `json:"median"`
	Lo     Num `json:"lo"`
	Hi     Num `json:"hi"`
	// Values are the samples: one per run (its median over repeats) when the comparison's sample is
	// "runs", else the per-repeat values in repeat order.
	Values []float64 `json:"values"`
	// Merged is a percentile figure computed from the histogram merged over all repeats (latency
	// figures only).
	Merged *float64 `json:"merged,omitempty"`
}

// N is the number of samples on this side.
func (s Side) N() int { return len(s.Values) }

// Failed is a result that failed in one of the reports.
type Failed struct {
	Target   string `json:"target"`
	Workload string `json:"workload"`
	Size     int    `json:"size"`
	// In is "old" or "new".
	In    string `json:"in"`
	Error string `json:"error"`
}

// Unpaired is a result, or some figures of one, that could not be compared: missing on one side.
type Unpaired struct {
	Target   string `json:"target"`
	Workload string `json:"workload"`
	Size     int    `json:"size"`
	Reason   string `json:"reason"`
	// In is the side without it: "old" or "new".
	In string `json:"in"`
	// Figures are the figures it leaves uncompared: those the other side has.
	Figures []string `json:"figures,omitempty"`
	// Skipped: NEW recorded why the target did not run (an optional target whose server is missing).
	Skipped bool `json:"skipped,omitempty"`
	// Gate is what the gate made of it when some of its figures are gated: fail (missing in NEW),
	// inconclusive (missing in OLD, or NEW skipped the target with a reason); empty when none is
	// gated or --allow-missing accepted it (Allowed).
	Gate    GateStatus `json:"gate,omitempty"`
	Allowed bool       `json:"allowed,omitempty"`
}

// Gate is the overall outcome when thresholds are set.
type Gate struct {
	Enabled bool `json:"enabled"`
	// Verdict is "pass" (every gated figure's interval lies within its threshold), "fail" (some
	// figure's interval lies beyond its threshold on the worse side, a gated figure is missing in
	// NEW, or a result failed in NEW) or "inconclusive" (neither: some interval straddles its
	// threshold or there is none, a gated figure is missing in OLD or from a target NEW skipped, or
	// the sides ran on different machine classes). Empty when disabled.
	Verdict    GateStatus `json:"verdict,omitempty"`
	Thresholds string     `json:"thresholds,omitempty"`
	// Confidence is the family-wise confidence of the decisions, Looks the looks it is split over
	// (with the gated figures).
	Confidence float64 `json:"confidence,omitempty"`
	Looks      int     `json:"looks,omitempty"`
	// Gated counts the gated figures decided on an interval; Missing the gated figures with values
	// on one side only (not held against the gate with AllowMissing, which says it was given).
	Gated        int  `json:"gated"`
	Missing      int  `json:"missing,omitempty"`
	AllowMissing bool `json:"allow_missing,omitempty"`
	Failures     int  `json:"failures"`
	Inconclusive int  `json:"inconclusive"`
	// RunsNeeded is the most samples a side any inconclusive figure would need (Decision.RunsNeeded;
	// -1: more than anyone would take); 0 when none is estimated.
	RunsNeeded int `json:"runs_needed,omitempty"`
	// Reasons say why the verdict is not "pass", one line each.
	Reasons []string `json:"reasons,omitempty"`
	// Worst is the reason of the worst failure: a failed result or a figure missing in NEW, else
	// the figure that got worst.
	Worst string `json:"worst,omitempty"`
}

// Num is a float64 that encodes NaN and infinities as JSON null.
type Num float64

// MarshalJSON implements json.Marshaler.
func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return []byte(fmt.Sprint(f)), nil
}

// Compare compares NEW against OLD, one run each. Errors mean the reports cannot be compared (they
// name the difference); every error is about the input.
func Compare(oldRep, newRep *report.Report, opts Options) (*Comparison, error) {
	return CompareRuns([]*report.Report{oldRep}, []*report.Report{newRep}, opts)
}

// CompareRuns compares the runs of NEW against those of OLD: each side holds one or more reports of
// the same config, made by independent runs.
func CompareRuns(olds, news []*report.Report, opts Options) (*Comparison, error) {
	if len(olds) == 0 || len(news) == 0 {
		return nil, fmt.Errorf("nothing to compare: each side needs at least one report")
	}
	c := &comparer{opts: opts, olds: olds, news: news, old: olds[0], new: news[0], oldName: opts.OldName, newName: opts.NewName}
	if c.oldName == "" {
		c.oldName = "OLD"
	}
	if c.newName == "" {
		c.newName = "NEW"
	}
	c.oldRuns, c.newRuns = countRuns(olds), countRuns(news)
	if c.opts.Alpha == 0 {
		c.opts.Alpha = DefaultAlpha
		if c.oldRuns > 1 && c.newRuns > 1 {
			c.opts.Alpha = DefaultRunAlpha
		}
	}
	if c.opts.Confidence == 0 {
		c.opts.Confidence = DefaultConfidence
	}
	if cf := c.opts.Confidence; !(cf > 0 && cf < 1) {
		return nil, fmt.Errorf("confidence %g: want a level between 0 and 1, e.g. 0.95", cf)
	}
	if c.opts.Looks == 0 {
		c.opts.Looks = 1
	}
	if c.opts.Looks < 1 || c.opts.Looks > 100 {
		return nil, fmt.Errorf("looks %d: want the most looks a sequential gate takes, 1 to 100", c.opts.Looks)
	}
	switch c.opts.RunValue {
	case "":
		c.opts.RunValue = report.RunMedian
	case report.RunMedian, report.RunBest:
	default:
		return nil, fmt.Errorf("run value %q: want %s or %s", c.opts.RunValue, report.RunMedian, report.RunBest)
	}
	if a := c.opts.Alpha; !(a > 0 && a < 1) {
		return nil, fmt.Errorf("alpha %g: want a significance level between 0 and 1, e.g. 0.05", a)
	}
	if n := c.opts.DropSlowest; n != 0 {
		if left := min(c.oldRuns, c.newRuns) - n; n < 0 || left < minRunsLeft {
			return nil, fmt.Errorf("dropping the %d slowest runs of a side of %d: at least %d runs must be left to test (give more runs)",
				n, min(c.oldRuns, c.newRuns), minRunsLeft)
		}
	}
	if err := c.checkBaseline(); err != nil {
		return nil, err
	}
	return c.run()
}

// countRuns is how many independent runs a side's reports hold (each schema 1 report is one).
func countRuns(reps []*report.Report) int {
	n := 0
	for _, r := range reps {
		n += len(r.RunIndices())
	}
	return n
}

type comparer struct {
	opts       Options
	olds, news []*report.Report // every report of each side
	// oldRuns and newRuns count each side's runs (a schema 2 report holds several).
	oldRuns, newRuns int
	// old and new are each side's first run: they stand for their side in the checks and notes.
	old, new         *report.Report
	oldName, newName string
	sizeOf           map[int]int // NEW size -> OLD size
	out              *Comparison
	forced           []string
	sample           string
	// versions are the schema versions of every report compared (report.NotComparable).
	versions []int
	// notComparable groups the figures a schema version redefined, by why (in order of first sight).
	notComparable []notComparable
	// worst is how much worse the gate's worst failure got (Worsening; +Inf for a failed result or
	// a figure missing in NEW).
	worst float64
}

// notComparable is the figures left out for one reason: "target workload: fig, fig".
type notComparable struct {
	why   string
	names []string
}

func (c *comparer) run() (*Comparison, error) {
	if err := c.checkFigures(); err != nil {
		return nil, err
	}
	byDefault := c.defaultNormalize()
	if err := c.checkSameRuns(); err != nil {
		return nil, err
	}
	if err := c.checkCompatible(); err != nil {
		return nil, err
	}
	if err := c.checkMachines(); err != nil {
		return nil, err
	}
	switch {
	case c.oldRuns > 1 && c.newRuns > 1:
		c.sample = SampleRuns
	case c.opts.PerRepeat:
		c.sample = SampleRepeats
	default:
		c.sample = SampleOneRun
	}
	c.out = &Comparison{
		Old: source(c.oldName, c.old, c.oldRuns), New: source(c.newName, c.new, c.newRuns),
		NormalizeBy: c.opts.NormalizeBy, NormalizedByDefault: byDefault, Alpha: c.opts.Alpha, Sample: c.sample,
		RunValue: runValue(c.sample, c.opts.RunValue), DropSlowest: c.opts.DropSlowest,
		Forced: c.forced,
		Sweep:  len(c.old.Run.Sizes) > 1 || len(c.new.Run.Sizes) > 1,
		Rows:   []Row{}, Failed: []Failed{}, Unpaired: []Unpaired{}, Notes: []string{},
	}
	for _, r := range append(slices.Clone(c.olds), c.news...) {
		c.versions = append(c.versions, r.SchemaVersion)
	}
	if err := c.pairResults(); err != nil {
		return nil, err
	}
	if len(c.out.Rows) == 0 && len(c.out.Failed) == 0 && len(c.out.Unpaired) == 0 {
		if len(c.notComparable) > 0 {
			return nil, fmt.Errorf("nothing to compare: every figure to compare is not comparable across %s", c.notComparable[0].why)
		}
		what := "the default figures"
		if len(c.opts.Figures) > 0 {
			what = "figures " + strings.Join(c.opts.Figures, ", ")
		}
		return nil, fmt.Errorf("nothing to compare: no result has %s in both reports (latency percentiles are not compared for scan and insert, whose repeats record one latency)", what)
	}
	c.notes()
	c.undecidable()
	if err := c.gate(); err != nil {
		return nil, err
	}
	return c.out, nil
}

func source(name string, r *report.Report, runs int) Source {
	return Source{
		Runs: runs,
		Name: name, Config: r.Run.ConfigName, CI: r.Run.CI, StartedAt: r.Run.StartedAt.UTC().Format("2006-01-02 15:04:05Z"),
		Commit: r.Tool.Commit, CPU: r.Environment.CPUModel, Cores: r.Environment.Cores, MachineClass: r.Environment.MachineClass(),
		Repeats: r.Run.Repeats, Sizes: r.Run.Sizes,
	}
}

func (c *comparer) checkFigures() error {
	for _, f := range c.opts.Figures {
		if _, ok := report.LookupFigure(f); !ok {
			return fmt.Errorf("unknown figure %q%s", f, suggest.Hint(f, report.FigureNames(), "dbbench list figures"))
		}
	}
	return nil
}

// defaultNormalize picks the baseline target both sides name as the reference when none was given;
// it reports whether it did.
func (c *comparer) defaultNormalize() bool {
	if c.opts.NormalizeBy != "" || c.opts.NoNormalize {
		return false
	}
	b := c.old.Run.Baseline
	if b == "" || b != c.new.Run.Baseline {
		return false
	}
	for _, r := range append(slices.Clone(c.olds), c.news...) {
		if t := r.TargetByName(b); t == nil || t.Status == report.StatusSkipped || r.Run.Baseline != b {
			return false
		}
	}
	c.opts.NormalizeBy = b
	return true
}

// checkSameRuns refuses a side whose runs are not runs of one benchmark: they must agree on what
// was measured (config, seed, sizes, targets) to be samples of the same thing. --force does not
// lift this: a side mixing benchmarks has no single value to compare.
func (c *comparer) checkSameRuns() error {
	for _, side := range []struct {
		name string
		runs []*report.Report
	}{{c.oldName, c.olds}, {c.newName, c.news}} {
		first := side.runs[0]
		for i, r := range side.runs[1:] {
			if d := differences(first, r, "run 1", fmt.Sprintf("run %d", i+2), c.opts.OptionKinds); len(d) > 0 {
				return fmt.Errorf("%s: its runs are not runs of one benchmark: %s", side.name, d[0])
			}
			if !slices.Equal(sortedSizes(first), sortedSizes(r)) {
				return fmt.Errorf("%s: its runs are not runs of one benchmark: dataset sizes differ (run 1 has %s, run %d has %s)",
					side.name, joinInts(sortedSizes(first)), i+2, joinInts(sortedSizes(r)))
			}
		}
	}
	return nil
}

// differences lists what makes two reports measurements of different things: the config, the seed
// (another dataset and key sample), the isolation, and for each target name in both, its adapter and
// options (written in their units as kinds tells, nil: plain numbers).
func differences(a, b *report.Report, an, bn string, kinds render.OptionKinds) []string {
	var d []string
	if a.Run.ConfigName != b.Run.ConfigName {
		d = append(d, fmt.Sprintf("different configs (%s ran %q, %s ran %q)", an, a.Run.ConfigName, bn, b.Run.ConfigName))
	}
	if a.Run.Seed != b.Run.Seed {
		d = append(d, fmt.Sprintf("different seeds, so different datasets and key samples (%s has %d, %s has %d)", an, a.Run.Seed, bn, b.Run.Seed))
	}
	for _, t := range b.Targets {
		o := a.TargetByName(t.Name)
		if o == nil {
			continue
		}
		if o.Adapter != t.Adapter {
			d = append(d, fmt.Sprintf("target %s is adapter %s in %s but %s in %s", t.Name, o.Adapter, an, t.Adapter, bn))
		} else if fmt.Sprint(o.Options) != fmt.Sprint(t.Options) {
			d = append(d, fmt.Sprintf("target %s has options %s in %s but %s in %s", t.Name, optionsOrNone(o, kinds), an, optionsOrNone(&t, kinds), bn))
		}
	}
	return d
}

func optionsOrNone(t *report.Target, kinds render.OptionKinds) string {
	if len(t.Options) == 0 {
		return "(none)"
	}
	return render.OptionsText(t.Adapter, t.Options, kinds)
}

// checkCompatible refuses reports that cannot be compared, naming the difference.
func (c *comparer) checkCompatible() error {
	// Every schema version up to this dbbench's compares with every other (a schema 1 report is one
	// run); a newer one is refused when it is read, and here for reports built in code.
	for _, side := range [][]*report.Report{c.olds, c.news} {
		for _, r := range side {
			if r.SchemaVersion > report.SchemaVersion || r.SchemaVersion < 1 {
				return fmt.Errorf("a report has schema version %d; this dbbench reads 1 to %d", r.SchemaVersion, report.SchemaVersion)
			}
		}
	}
	if d := differences(c.old, c.new, c.oldName, c.newName, c.opts.OptionKinds); len(d) > 0 {
		if !c.opts.Force {
			return fmt.Errorf("%s (pass --force to compare them anyway)", d[0])
		}
		c.forced = d
	}
	oldT, newT := c.old.TargetNames(), c.new.TargetNames()
	if ref := c.opts.NormalizeBy; ref != "" {
		for _, side := range []struct {
			name string
			r    *report.Report
		}{{c.oldName, c.old}, {c.newName, c.new}} {
			t := side.r.TargetByName(ref)
			if t == nil {
				return fmt.Errorf("--normalize-by %s: %s has no target %s (targets: %s)", ref, side.name, ref, strings.Join(side.r.TargetNames(), ", "))
			}
			if t.Status == report.StatusSkipped {
				return fmt.Errorf("--normalize-by %s: the target was skipped in %s (%s)", ref, side.name, t.Reason)
			}
		}
	}
	var common []string
	for _, t := range newT {
		if slices.Contains(oldT, t) && t != c.opts.NormalizeBy {
			common = append(common, t)
		}
	}
	if len(common) == 0 {
		if c.opts.NormalizeBy != "" {
			return fmt.Errorf("no common targets besides the reference %s: %s has %s; %s has %s",
				c.opts.NormalizeBy, c.oldName, strings.Join(oldT, ", "), c.newName, strings.Join(newT, ", "))
		}
		return fmt.Errorf("no common targets: %s has %s; %s has %s", c.oldName, strings.Join(oldT, ", "), c.newName, strings.Join(newT, ", "))
	}
	oldW, newW := c.old.WorkloadNames(), c.new.WorkloadNames()
	if !slices.ContainsFunc(newW, func(w string) bool { return slices.Contains(oldW, w) }) {
		return fmt.Errorf("no common workloads: %s ran %s; %s ran %s", c.oldName, strings.Join(oldW, ", "), c.newName, strings.Join(newW, ", "))
	}
	return c.pairSizes()
}

// pairSizes maps each NEW dataset size to the OLD one it is compared with.
func (c *comparer) pairSizes() error {
	oldSizes, newSizes := sortedSizes(c.old), sortedSizes(c.new)
	c.sizeOf = map[int]int{}
	if slices.Equal(oldSizes, newSizes) {
		for _, s := range newSizes {
			c.sizeOf[s] = s
		}
		return nil
	}
	if !c.opts.AllowSizeMismatch {
		return fmt.Errorf("dataset sizes differ: %s has %s, %s has %s (pass --allow-size-mismatch to compare them anyway)",
			c.oldName, joinInts(oldSizes), c.newName, joinInts(newSizes))
	}
	if len(oldSizes) != len(newSizes) {
		return fmt.Errorf("cannot pair dataset sizes: %s has %d (%s), %s has %d (%s)",
			c.oldName, len(oldSizes), joinInts(oldSizes), c.newName, len(newSizes), joinInts(newSizes))
	}
	for i, s := range newSizes {
		c.sizeOf[s] = oldSizes[i]
	}
	return nil
}

// sortedSizes returns a report's dataset sizes (from run.sizes, else from its results).
func sortedSizes(r *report.Report) []int {
	sizes := slices.Clone(r.Run.Sizes)
	if len(sizes) == 0 {
		for _, x := range r.Results {
			if !slices.Contains(sizes, x.Size) {
				sizes = append(sizes, x.Size)
			}
		}
	}
	sort.Ints(sizes)
	return slices.Compact(sizes)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, "/")
}

// find returns the result for (target, workload) at exactly size.
func find(r *report.Report, target, workload string, size int) *report.Result {
	for i := range r.Results {
		x := &r.Results[i]
		if x.Target == target && x.Workload == workload && x.Size == size {
			return x
		}
	}
	return nil
}

// resultKey names a result by NEW's dataset size (one only OLD has, by the NEW size paired with it).
type resultKey struct {
	target, workload string
	size             int
}

// resultKeys lists every result of either side but the reference's: NEW's in order, then those
// only OLD has.
func (c *comparer) resultKeys() []resultKey {
	newSize := map[int]int{}
	for n, o := range c.sizeOf {
		newSize[o] = n
	}
	var keys []resultKey
	add := func(target, workload string, size int) {
		k := resultKey{target, workload, size}
		if target != c.opts.NormalizeBy && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, r := range c.news {
		for _, x := range r.Results {
			add(x.Target, x.Workload, x.Size)
		}
	}
	for _, r := range c.olds {
		for _, x := range r.Results {
			if s, ok := newSize[x.Size]; ok {
				add(x.Target, x.Workload, s)
			}
		}
	}
	return keys
}

// pairResults pairs every result of either side with the other side's and compares their figures;
// a result one side lacks (in any of its runs) is missing evidence.
func (c *comparer) pairResults() error {
	ref := c.opts.NormalizeBy
	for _, k := range c.resultKeys() {
		oldSize := c.sizeOf[k.size]
		ors, oldAny, oldGap := collect(c.olds, k.target, k.workload, oldSize)
		nrs, newAny, newGap := collect(c.news, k.target, k.workload, k.size)
		switch {
		case nrs == nil:
			c.missingResult(k, "new", cmp.Or(oldAny, newAny), newGap)
			continue
		case ors == nil:
			c.failedAny(nil, nrs) // a result that failed in NEW fails the gate, paired or not
			c.missingResult(k, "old", newAny, oldGap)
			continue
		}
		if c.failedAny(ors, nrs) {
			continue
		}
		var oldRefs, newRefs []*report.Result
		if ref != "" {
			oldRefs, _, _ = collect(c.olds, ref, k.workload, oldSize)
			newRefs, _, _ = collect(c.news, ref, k.workload, k.size)
			if oldRefs == nil || newRefs == nil {
				in, name := "new", c.newName
				if oldRefs == nil {
					in, name = "old", c.oldName
				}
				c.unpaired(Unpaired{Target: k.target, Workload: k.workload, Size: k.size, In: in, Figures: c.presentFigures(newAny),
					Reason: fmt.Sprintf("the reference %s has no %s result in %s to normalize by", ref, k.workload, name)})
				continue
			}
			if c.failedAny(oldRefs, newRefs) {
				continue
			}
		}
		if err := c.compareResult(ors, nrs, oldRefs, newRefs); err != nil {
			return err
		}
	}
	return nil
}

// collect returns the result of (target, workload, size) from every run of a side, or nil and which
// run lacks it (" (missing in run 2)"); found is one of the results there are (nil: none).
func collect(runs []*report.Report, target, workload string, size int) (all []*report.Result, found *report.Result, gap string) {
	all = make([]*report.Result, 0, len(runs))
	for i, r := range runs {
		x := find(r, target, workload, size)
		if x == nil {
			if gap == "" {
				gap = fmt.Sprintf(" (missing in run %d)", i+1)
			}
			continue
		}
		found = cmp.Or(found, x)
		all = append(all, x)
	}
	switch {
	case found == nil:
		return nil, nil, ""
	case len(all) < len(runs):
		return nil, found, gap
	}
	return all, found, ""
}

// missingResult records a result side in lacks (gap: in which of its runs), with the figures the
// other side's result x would have had compared.
func (c *comparer) missingResult(k resultKey, in string, x *report.Result, gap string) {
	name, other, reps := c.newName, c.oldName, c.news
	if in == "old" {
		name, other, reps = c.oldName, c.newName, c.olds
	}
	u := Unpaired{Target: k.target, Workload: k.workload, Size: k.size, In: in, Figures: c.presentFigures(x)}
	switch {
	case gap != "":
		u.Reason = "not in every run of " + name + gap
	case skipped(reps, k.target) != "":
		u.Reason, u.Skipped = fmt.Sprintf("%s skipped %s: %s", name, k.target, skipped(reps, k.target)), in == "new"
	default:
		u.Reason = "only in " + other
	}
	c.unpaired(u)
}

// skipped is why a side skipped target (the first run that did, with a reason), or "".
func skipped(reps []*report.Report, target string) string {
	for _, r := range reps {
		if t := r.TargetByName(target); t != nil && t.Status == report.StatusSkipped && t.Reason != "" {
			return t.Reason
		}
	}
	return ""
}

// presentFigures are the figures compare would compare for x that x has (none for a nil x).
func (c *comparer) presentFigures(x *report.Result) []string {
	if x == nil {
		return nil
	}
	var figs []string
	for _, f := range c.figuresFor(x, x) {
		if hasFigure(x, f) {
			figs = append(figs, f)
		}
	}
	return figs
}

// failedAny records the failed results among both sides' runs; it reports whether any failed.
func (c *comparer) failedAny(ors, nrs []*report.Result) bool {
	failed := false
	for _, or := range ors {
		failed = c.failedEither(or, nil) || failed
	}
	for _, nr := range nrs {
		failed = c.failedEither(nil, nr) || failed
	}
	return failed
}

func (c *comparer) unpaired(u Unpaired) {
	c.out.Unpaired = append(c.out.Unpaired, u)
}

// failedEither records failed results; it reports whether either failed.
func (c *comparer) failedEither(or, nr *report.Result) bool {
	failed := false
	for _, x := range []struct {
		in string
		r  *report.Result
	}{{"old", or}, {"new", nr}} {
		if x.r == nil || x.r.Status == report.StatusOK {
			continue
		}
		failed = true
		if slices.ContainsFunc(c.out.Failed, func(f Failed) bool {
			return f.In == x.in && f.Target == x.r.Target && f.Workload == x.r.Workload && f.Size == x.r.Size
		}) {
			continue // a failed reference shows up once, not once per target normalized by it
		}
		msg := x.r.Error
		if msg == "" {
			msg = "status " + string(x.r.Status)
		}
		c.out.Failed = append(c.out.Failed, Failed{Target: x.r.Target, Workload: x.r.Workload, Size: x.r.Size, In: x.in, Error: msg})
	}
	return failed
}

// figuresFor picks the figures to compare for one result pair.
func (c *comparer) figuresFor(or, nr *report.Result) []string {
	single := singleOp(or) || singleOp(nr)
	if len(c.opts.Figures) > 0 {
		var figs []string
		for _, f := range c.opts.Figures {
			if !(single && mergedFigures[f]) {
				figs = append(figs, f)
			}
		}
		return figs
	}
	if figs := loadFigures(or, nr); len(figs) > 0 {
		return figs
	}
	throughput := "rows_per_s" // when either side has it: the other's lacking it is missing evidence
	if !hasFigure(or, throughput) && !hasFigure(nr, throughput) {
		throughput = "ops_per_s"
	}
	figs := []string{throughput}
	if !single {
		figs = append(figs, "p50", "p99")
	}
	return figs
}

// loadFigures are the figures compared by default when both sides ran open-loop: the rate achieved,
// then the response time (from the intended start, what a user waits) of all operation types. Their
// p50 and p99 would be ambiguous there (which clock?), and a throughput over elapsed time means
// nothing when the schedule sets the pace.
func loadFigures(or, nr *report.Result) []string {
	if or.Load == nil || nr.Load == nil {
		return nil
	}
	var figs []string
	for _, f := range []string{"achieved_rate", "response_p50", "response_p99"} {
		if hasFigure(or, f) || hasFigure(nr, f) {
			figs = append(figs, f)
		}
	}
	return figs
}

// singleOp reports whether each repeat of r records one latency (a whole scan, a whole insert
// transaction), so its percentiles are just its elapsed time.
func singleOp(r *report.Result) bool {
	return r.Unit == "scan" || r.Unit == "insert-txn"
}

func hasFigure(r *report.Result, fig string) bool {
	for _, rep := range r.Repeats {
		if _, ok := rep.Figures[fig]; ok {
			return true
		}
	}
	return false
}

// compareResult adds one row per figure of a result pair, given each side's result in every run;
// oldRefs and newRefs are the reference target's results when normalizing.
// A figure neither side has is not compared (an insert has no percentiles worth a row, ...); one
// that a schema version redefined is noted as not comparable; one with values on one side only is
// missing evidence.
func (c *comparer) compareResult(ors, nrs, oldRefs, newRefs []*report.Result) error {
	or, nr := ors[0], nrs[0]
	missing := map[string][]string{} // side without values -> figures
	for _, fig := range c.figuresFor(or, nr) {
		if !anyHas(ors, fig) && !anyHas(nrs, fig) {
			continue
		}
		if why := report.NotComparable(fig, c.versions, append(slices.Clone(ors), nrs...)...); why != "" {
			c.noteNotComparable(why, nr, fig)
			continue
		}
		info, _ := report.LookupFigure(fig)
		oldS, err := c.sideSeries(c.oldName, ors, oldRefs, fig)
		if err != nil {
			return err
		}
		newS, err := c.sideSeries(c.newName, nrs, newRefs, fig)
		if err != nil {
			return err
		}
		switch {
		case len(oldS.values) == 0 && len(newS.values) == 0:
			continue // nothing on either side (of the reference's, when normalized)
		case len(newS.values) == 0:
			missing["new"] = append(missing["new"], fig)
			continue
		case len(oldS.values) == 0:
			missing["old"] = append(missing["old"], fig)
			continue
		}
		row := Row{
			Target: nr.Target, Workload: nr.Workload, Size: nr.Size, Figure: fig,
			Unit: info.Unit, HigherBetter: info.HigherBetter,
		}
		if oldSize := or.Size; oldSize != nr.Size {
			row.OldSize = oldSize
		}
		if oldRefs != nil {
			row.Unit = "ratio"
		}
		st := compareSamples(oldS.values, newS.values, c.opts.Alpha)
		row.Old = side(st.old.Center, st.old.Lo, st.old.Hi, oldS)
		row.New = side(st.new.Center, st.new.Lo, st.new.Hi, newS)
		row.Change, row.ChangeLo, row.ChangeHi = Num(st.change), Num(st.lo), Num(st.hi)
		row.CIConfidence = st.ciConfidence
		row.P = math.Min(st.cmp.P, 1) // benchmath's sum can round to just above 1
		row.Verdict, row.Reason = verdict(st, info.HigherBetter)
		if c.sample == SampleOneRun && !st.allEqual {
			row.Verdict, row.Reason = OneRun, "one run per side: the run-to-run variation is not measured"
		}
		c.out.Rows = append(c.out.Rows, row)
	}
	for _, in := range []string{"new", "old"} {
		if figs := missing[in]; len(figs) > 0 {
			other := c.oldName
			if in == "old" {
				other = c.newName
			}
			c.unpaired(Unpaired{Target: nr.Target, Workload: nr.Workload, Size: nr.Size, In: in, Figures: figs, Reason: "values only in " + other})
		}
	}
	return nil
}

// anyHas reports whether any of rs has fig in a repeat.
func anyHas(rs []*report.Result, fig string) bool {
	return slices.ContainsFunc(rs, func(r *report.Result) bool { return hasFigure(r, fig) })
}

// noteNotComparable records that fig of x was left out for why.
func (c *comparer) noteNotComparable(why string, x *report.Result, fig string) {
	i := slices.IndexFunc(c.notComparable, func(n notComparable) bool { return n.why == why })
	if i < 0 {
		c.notComparable = append(c.notComparable, notComparable{why: why})
		i = len(c.notComparable) - 1
	}
	n := &c.notComparable[i]
	name := x.Target + " " + x.Workload + c.sizeSuffix(x.Size) + ":"
	if last := len(n.names) - 1; last >= 0 && strings.HasPrefix(n.names[last], name+" ") {
		n.names[last] += ", " + fig
		return
	}
	n.names = append(n.names, name+" "+fig)
}

// sideSeries is one side's samples of fig: with several runs a side (Sample "runs") one value per run,
// each report's runs in turn (its median over the run's repeats, or its best repeat), so the run is
// the unit of evidence; otherwise the per-repeat values of every run pooled. The merged percentile
// comes from the histograms of every run.
func (c *comparer) sideSeries(name string, rs, refs []*report.Result, fig string) (sideValues, error) {
	ref := func(i int) *report.Result {
		if refs == nil {
			return nil
		}
		return refs[i]
	}
	out := sideValues{merged: math.NaN()}
	for i, r := range rs {
		if c.sample != SampleRuns {
			out.values = append(out.values, series(r, ref(i), fig, 0)...)
			continue
		}
		for _, k := range r.RunIndices() {
			vals := series(r, ref(i), fig, k)
			if len(vals) == 0 {
				continue // the run did not measure this figure (or not the reference's)
			}
			v := median(vals)
			if c.opts.RunValue == report.RunBest {
				var err error
				if v, err = bestOfRun(r, ref(i), fig, k); err != nil {
					return out, err
				}
			}
			out.values = append(out.values, v)
		}
	}
	if c.sample == SampleRuns {
		out.values = dropSlowest(out.values, c.opts.DropSlowest, fig)
	}
	if mergedFigures[fig] && len(out.values) > 0 {
		m, err := mergedAcross(rs, refs, fig)
		if err != nil {
			return out, fmt.Errorf("%s: %v", name, err)
		}
		out.merged = m
	}
	return out, nil
}

// bestOfRun is run k's best repeat of fig in r (divided by the reference's best repeat of the run).
func bestOfRun(r, ref *report.Result, fig string, k int) (float64, error) {
	best := func(r *report.Result) float64 {
		var vals []float64
		for _, rep := range r.Repeats {
			if v, ok := rep.Figures[fig]; ok && rep.RunIndex() == k {
				vals = append(vals, v)
			}
		}
		return report.Best(fig, vals)
	}
	v := best(r)
	if ref != nil {
		d := best(ref)
		if d == 0 || math.IsNaN(d) {
			return 0, fmt.Errorf("%s %s: the reference %s has no %s to normalize by", r.Target, r.Workload, ref.Target, fig)
		}
		v /= d
	}
	return v, nil
}

// minRunsLeft is the fewest runs a side may keep after DropSlowest: with 3 a side the U test cannot
// reject at alpha 0.05, let alone 0.01, so the verdict would only ever be "~".
const minRunsLeft = 3

// dropSlowest returns the run values without the n slowest (the smallest for a figure where higher
// is better, else the largest), in their order.
func dropSlowest(values []float64, n int, fig string) []float64 {
	if n <= 0 || n >= len(values) {
		return values
	}
	info, _ := report.LookupFigure(fig)
	sorted := slices.Clone(values)
	sort.Float64s(sorted)
	cut := sorted[len(sorted)-n] // values from here up are dropped
	if info.HigherBetter {
		cut = sorted[n-1] // values from here down
	}
	out := make([]float64, 0, len(values)-n)
	dropped := 0
	for _, v := range values {
		slow := v >= cut
		if info.HigherBetter {
			slow = v <= cut
		}
		if slow && dropped < n {
			dropped++
			continue
		}
		out = append(out, v)
	}
	return out
}

func runValue(sample, v string) string {
	if sample != SampleRuns {
		return ""
	}
	return v
}

// median of xs (not modified).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func side(center, lo, hi float64, s sideValues) Side {
	out := Side{Median: Num(center), Lo: Num(lo), Hi: Num(hi), Values: s.values}
	if !math.IsNaN(s.merged) && !math.IsInf(s.merged, 0) {
		m := s.merged
		out.Merged = &m
	}
	return out
}

// verdict decides one row from its statistics.
func verdict(st sampleStats, higherBetter bool) (Verdict, string) {
	if st.allEqual {
		return Same, ""
	}
	if st.cmp.P > st.cmp.Alpha {
		if len(st.cmp.Warnings) > 0 {
			msgs := make([]string, len(st.cmp.Warnings))
			for i, w := range st.cmp.Warnings {
				msgs[i] = w.Error()
			}
			return TooFew, strings.Join(msgs, "; ")
		}
		return Same, ""
	}
	switch d := st.new.Center - st.old.Center; {
	case d == 0:
		return Same, ""
	case (d > 0) == higherBetter:
		return Better, ""
	default:
		return Worse, ""
	}
}

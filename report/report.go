// Package report holds the JSON report of a dbbench run (its schema, documented field by field in
// report/SCHEMA.md), computes figures from histograms, and reads and writes reports atomically.
// Rendering for people lives in report/render.
package report

import "time"

// SchemaVersion is the version of the report format. A reader refuses reports from a newer version
// and reads every older one: a version 1 report is one run (its repeats carry no run index); in a
// version 2 report a load-model result's counts, rates and clocks include failed operations and a
// closed loop reports a start lag of 0 (version 3 counts successful operations only and leaves out
// what a closed loop does not measure: SCHEMA.md).
const SchemaVersion = 3

// Report is one run of dbbench.
type Report struct {
	SchemaVersion int         `json:"schema_version"`
	Tool          Tool        `json:"tool"`
	Environment   Environment `json:"environment"`
	Run           Run         `json:"run"`
	// Config is the configuration as run (CI overrides applied, secrets redacted).
	Config     map[string]any `json:"config"`
	Targets    []Target       `json:"targets"`
	Results    []Result       `json:"results"`
	Assertions []Assertion    `json:"assertions"`
	// Verdict is VerdictPass (every assertion held), VerdictFail (an assertion failed),
	// VerdictInconclusive (some assertion could not be decided within the budget, none failed) or
	// VerdictError (a target or workload failed, an assertion had nothing to decide on, or nothing ran:
	// its results cannot be trusted).
	Verdict Verdict `json:"verdict"`
}

// Status is what became of a target or a result. The values are the report's JSON strings.
type Status string

const (
	StatusOK     Status = "ok"
	StatusFailed Status = "failed" // errors, or the verification did not match
	// StatusSkipped is a target's only: an optional target that could run at no size.
	StatusSkipped Status = "skipped"
)

// Verdict is the outcome of an assertion or of a whole run. The values are the report's JSON strings.
type Verdict string

const (
	// VerdictPass: the interval over runs lies on the passing side of the threshold (one run: the
	// value does).
	VerdictPass Verdict = "pass"
	// VerdictFail: the interval lies on the failing side.
	VerdictFail Verdict = "fail"
	// VerdictInconclusive: the interval still straddles the threshold when the budget of runs is
	// spent; nothing failed, and nothing passed either.
	VerdictInconclusive Verdict = "inconclusive"
	// VerdictError: for an assertion, nothing to decide on (a side's result failed, a figure is
	// missing, a denominator is zero, a value is not a number); for a run, a target or result failed,
	// an assertion erred, or the run stopped early.
	VerdictError Verdict = "error"
	// VerdictSaturated is a run's only (schema version 3): dbbench's own generator could not keep a
	// load run's schedule, so its figures are the generator's limit, not the target's, whatever the
	// assertions say (exit 5). Only a target or result that failed (error) comes before it.
	VerdictSaturated Verdict = "generator_saturated"
	// VerdictLeftOut is an assertion's only: it names a target that is not part of the run (an
	// optional target whose infrastructure is missing, or one --targets left out). It changes nothing.
	VerdictLeftOut Verdict = "left_out"
	// VerdictSkipped is found in version 1 reports only: a side was missing (a skipped or failed
	// target); version 2 says left_out or error instead.
	VerdictSkipped Verdict = "skipped"
)

// Decided reports whether v is an assertion's decision on evidence: pass or fail.
func (v Verdict) Decided() bool { return v == VerdictPass || v == VerdictFail }

// Tool identifies the dbbench build.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Commit  string `json:"commit"`
}

// Environment is the machine and runtime the run happened on.
type Environment struct {
	GoVersion   string `json:"go_version"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	Kernel      string `json:"kernel,omitempty"`
	CPUModel    string `json:"cpu_model"`
	Cores       int    `json:"cores"`
	GOMAXPROCS  int    `json:"gomaxprocs"`
	MemoryBytes int64  `json:"memory_bytes"`
	Hostname    string `json:"hostname"`
}

// Run describes how the run was made. Salt is the run's dataset salt, 16 hex digits (docs/protocol.md,
// "The person file"; absent: none).
type Run struct {
	ConfigName string    `json:"config_name"`
	ConfigPath string    `json:"config_path"` // "(embedded)" for the built-in default
	CI         bool      `json:"ci"`
	Relax      float64   `json:"relax"` // fraction every assertion threshold was relaxed by (CI mode)
	Seed       int64     `json:"seed"`
	Salt       string    `json:"salt,omitempty"`
	Sizes      []int     `json:"sizes"` // dataset sizes (persons); more than one for a size sweep
	Warmup     int       `json:"warmup"`
	Repeats    int       `json:"repeats"`
	Order      string    `json:"order"` // how targets were interleaved, e.g. "ABAB"
	StartedAt  time.Time `json:"started_at"`
	// LoadAverage is the machine's 1-minute load average when the run ended (Linux; absent where
	// unknown): beside Environment.Cores it says how busy the machine was, which an INCONCLUSIVE
	// verdict names.
	LoadAverage *float64  `json:"load_average,omitempty"`
	FinishedAt  time.Time `json:"finished_at"`
	// Harness is the engine's own cost per timed operation, measured at start-up.
	Harness      Harness `json:"harness"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	Interrupted  bool    `json:"interrupted,omitempty"`
	// Errors are why the run stopped early, first failure first, then what cleaning up could not do;
	// the results measured until then are kept and the verdict is "error".
	Errors        []string `json:"errors,omitempty"`
	CommandLine   string   `json:"command_line,omitempty"`
	SlowdownNotes string   `json:"slowdown_notes,omitempty"`

	// Isolation is how a target's timed repeats were kept from depending on the targets run before
	// them: "none", or "rewarm" (a GC and an untimed run of the same workload before each).
	Isolation string `json:"isolation"`
	// Rewarm is how many untimed runs of the workload preceded each timed repeat of a target
	// (isolation rewarm or process; 0 otherwise).
	Rewarm int `json:"rewarm,omitempty"`
	// Baseline is the config's baseline target ("" for none): dbbench compare normalizes by it by
	// default when both reports name the same one.
	Baseline string `json:"baseline,omitempty"`
	// Instructions says how instr_per_op and instr_per_row were counted, when they were (dbbench run
	// --instructions); empty otherwise.
	Instructions string `json:"instructions,omitempty"`
	// Runs lists the runs the report holds, in order (version 2; a version 1 report is one run and
	// lists none). Each run is a fresh process with fresh stores.
	Runs []RunEntry `json:"runs,omitempty"`
	// Verdict is how the assertions were decided over the runs: the family-wise confidence, how the
	// error budget was shared, the looks and the budget (version 2; absent in version 1).
	Verdict *VerdictRule `json:"verdict,omitempty"`
	// Shard is a shard run's record of itself (dbbench run --shard; docs/shards.md); nil otherwise.
	Shard *Shard `json:"shard,omitempty"`
	// Merge is a merged report's record of the shards it was made from (dbbench merge); nil otherwise.
	Merge *Merge `json:"merge,omitempty"`
}

// VerdictRule records how a report's assertions were decided over runs.
type VerdictRule struct {
	// Confidence is the family-wise confidence of the run's verdicts (verdict.confidence).
	Confidence float64 `json:"confidence"`
	// Assertions is k, the assertions decided on intervals; MaxLooks is L, the most looks the run may
	// take. Each interval is at confidence 1 - (1 - Confidence) / (k * L) (Bonferroni).
	Assertions int `json:"assertions"`
	MaxLooks   int `json:"max_looks"`
	// InitialRuns is the runs made before the first look, and each later batch at most as many.
	InitialRuns int `json:"initial_runs"`
	// BudgetNs is the time extra runs could take (what verdict.budget left after the initial runs,
	// or twice their time); SpentNs what they took.
	BudgetNs int64 `json:"budget_ns"`
	SpentNs  int64 `json:"spent_ns"`
	// Looks is how many looks the run took.
	Looks int `json:"looks"`
}

// IsolationMode is the run's isolation as recorded; a report from before the field existed ran
// without any ("none").
func (r Run) IsolationMode() string {
	if r.Isolation == "" {
		return "none"
	}
	return r.Isolation
}

// Harness is the measured overhead of the engine's timing around one operation.
type Harness struct {
	// TimerNs is the median latency the engine records for an operation that does nothing: the floor
	// under every per-operation latency.
	TimerNs float64 `json:"timer_ns"`
	// LoopNs is the mean wall time per iteration of the engine's timed loop around a no-op.
	LoopNs float64 `json:"loop_ns"`
}

// Target is one configured target (adapter plus options).
type Target struct {
	Name     string         `json:"name"`
	Adapter  string         `json:"adapter"`
	Options  map[string]any `json:"options"` // redacted
	Optional bool           `json:"optional,omitempty"`
	Slowdown float64        `json:"slowdown,omitempty"` // injected extra work per operation, as a fraction
	// Status is ok, skipped (an optional target that could run at no size: its infrastructure is
	// missing; see instances[].skipped for a target skipped at some sizes only) or failed.
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Instances holds one entry per dataset size the target was opened for.
	Instances []Instance `json:"instances"`
}

// Instance is a target opened for one dataset size.
type Instance struct {
	Size int `json:"size"`
	// Skipped says why an optional target did not run at this size (its infrastructure is missing,
	// or the adapter declined the size); its other fields are then empty.
	Skipped   string         `json:"skipped,omitempty"`
	LoadNs    int64          `json:"load_ns"`
	LoadRowsS float64        `json:"load_rows_per_s"`
	Info      map[string]any `json:"info,omitempty"`
}

// Result holds the measurements of one workload on one target at one dataset size.
type Result struct {
	Target   string `json:"target"`
	Workload string `json:"workload"`
	Size     int    `json:"size"`
	// Unit says what one histogram value is: "scan" (a whole scan), "lookup", "insert-txn" (the whole
	// write transaction), "reader" (one concurrent reader), or "op" for adapter workloads.
	Unit   string         `json:"unit"`
	Params map[string]any `json:"params,omitempty"`
	// Status is ok or failed (errors, or the verification did not match).
	Status Status `json:"status"`
	Error  string `json:"error,omitempty"`
	// Figures are the headline figures: the median over runs of each run's figures (Runs), a run's
	// figures being the medians over its repeats (see Figure names). For one run: the medians over
	// repeats.
	Figures map[string]float64 `json:"figures"`
	// Runs holds each run's own figures (version 2), in run order.
	Runs []RunFigures `json:"runs,omitempty"`
	// Merged are percentiles of the histogram merged over all repeats (ns).
	Merged map[string]float64 `json:"merged,omitempty"`
	// Histogram is the merged latency histogram (ns), HdrHistogram V2 compressed, base64.
	Histogram string `json:"histogram"`
	// ErrorHistogram holds the latencies of failed operations, same encoding; empty if none failed.
	ErrorHistogram string   `json:"error_histogram,omitempty"`
	Repeats        []Repeat `json:"repeats"`
	// Verification is what the engine checked before the times counted.
	Verification Verification `json:"verification"`
	// Load is set for an open-loop workload (a rate or a duration; docs/load.md): its schedule, rates,
	// clocks per operation type and time series.
	Load *Load `json:"load,omitempty"`
	// Profile says how the phase figures were read, with --profile (docs/profile.md).
	Profile  *Profile       `json:"profile,omitempty"`
	Info     map[string]any `json:"info,omitempty"`
	Warnings []string       `json:"warnings,omitempty"`
}

// RunFigures is one run's figures of a result: the medians over that run's repeats.
type RunFigures struct {
	Run     int                `json:"run"`
	Figures map[string]float64 `json:"figures"`
}

// Repeat is one measured repetition.
type Repeat struct {
	Index int `json:"index"`
	// Run is the 1-based run the repeat belongs to (schema 2; absent or 0 in schema 1: run 1).
	Run       int                `json:"run,omitempty"`
	ElapsedNs int64              `json:"elapsed_ns"`
	Ops       int64              `json:"ops"`
	Rows      int64              `json:"rows"`
	Errors    int64              `json:"errors"`
	Checksum  string             `json:"checksum"` // hex of the sum of row checksums
	Figures   map[string]float64 `json:"figures"`
	Histogram string             `json:"histogram"`
	// Types are a load-model repeat's clocks per operation type, in a shard's report only (its
	// Load holds the last repeat's): dbbench merge recomputes every repeat's figures from them.
	Types []LoadType `json:"types,omitempty"`
	// Statements are a sql workload's repeat's statements, in a shard's report only, as Types:
	// dbbench merge recomputes their figures from them (MergeStatements).
	Statements []LoadStatement `json:"statements,omitempty"`
}

// Verification records what a workload was checked against.
type Verification struct {
	ExpectedRows int64  `json:"expected_rows"`
	Expected     string `json:"expected_checksum,omitempty"` // empty when only a cross-target check applies
	Method       string `json:"method"`
	OK           bool   `json:"ok"`
}

// Assertion is one evaluated assertion.
type Assertion struct {
	Name string `json:"name,omitempty"`
	Expr string `json:"expr"`
	Line int    `json:"line"`
	// Left and Right name the two sides ("scan.rows_per_s[lmdb-go]").
	Left  string `json:"left"`
	Right string `json:"right,omitempty"`
	// Form is "ratio" (left / right compared with Threshold), "difference" (left - right) or
	// "absolute" (left alone).
	Form string `json:"form"`
	Op   string `json:"op"`
	// Threshold as written, and after CI relaxation.
	Threshold        float64 `json:"threshold"`
	RelaxedThreshold float64 `json:"relaxed_threshold"`
	// MachineClass is set when the threshold is the one the config keys to this run's machine class
	// (report.Environment.MachineClass) instead of the check's own; DefaultThreshold is then the
	// check's own.
	MachineClass     string  `json:"machine_class,omitempty"`
	DefaultThreshold float64 `json:"default_threshold,omitempty"`
	// LeftValue and RightValue are the medians over runs of each side's per-run median. RunValues
	// holds each run's value: the median of that run's paired per-repeat ratios (or differences, or
	// values), as PerRepeat holds them for every repeat of every run. Value is the centre of the
	// interval the verdict is decided on (the mean of the run values; their geometric mean on log
	// scale); with one run, that run's value.
	LeftValue  float64   `json:"left_value"`
	RightValue float64   `json:"right_value,omitempty"`
	Value      float64   `json:"value"`
	PerRepeat  []float64 `json:"per_repeat"`
	RunValues  []float64 `json:"run_values,omitempty"`
	// RunValue is "best" when each run's value compares the sides' best repeats (config
	// `run_value: best`) instead of the median of the paired ones; empty for the median.
	RunValue string `json:"run_value,omitempty"`
	// Interval is what the verdict was decided on (nil when there was nothing to decide on).
	Interval *Interval `json:"interval,omitempty"`
	// Runs is how many runs' values the verdict rests on; Looks how many looks it took (decided at
	// the last one, or undecided after it).
	Runs  int `json:"runs,omitempty"`
	Looks int `json:"looks,omitempty"`
	// MoreRuns estimates, for an inconclusive verdict, how many more runs would decide it if the
	// mean and spread stayed as they are (0: none estimated).
	MoreRuns int `json:"more_runs,omitempty"`
	// Verdict is pass, fail, inconclusive, error or left_out (skipped in version 1 reports).
	Verdict Verdict `json:"verdict"`
	// Why says in one line what decided the verdict, or what would.
	Why    string `json:"why,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Interval is the interval an assertion's verdict is decided on, in the assertion's own terms (a
// ratio, a difference, a figure's value).
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// Confidence of the interval (0 for a point).
	Confidence float64 `json:"confidence"`
	// Method: "t" (Student's t interval for the mean of the run values), "t-log" (the same on the
	// logarithms of the run values, exponentiated back: a ratio's or a positive figure's), or
	// "point" (one run: lo = hi = its value).
	Method string `json:"method"`
}

// Package render prints reports for people: a summary table of results and a table of assertions.
// It only formats; every figure is computed by package report.
package render

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
)

// Style says how text output may look: colour (ANSI, only on a terminal) and the width it must fit.
type Style struct {
	Color bool
	// Width is the column count tables must fit (0: DefaultWidth).
	Width int
}

// DefaultWidth is the widest a line of text output gets: a 120-column terminal shows every row whole.
const DefaultWidth = 120

func (st Style) width() int {
	if st.Width <= 0 {
		return DefaultWidth
	}
	return st.Width
}

// verdictWord colours PASS/FAIL/ERROR/SKIPPED when colour is on.
func (st Style) verdictWord(s string) string {
	if !st.Color {
		return s
	}
	switch strings.ToLower(s) {
	case string(report.VerdictPass), string(report.StatusOK):
		return "\033[32m" + s + "\033[0m"
	case string(report.VerdictFail), string(report.StatusFailed), string(report.VerdictError), "partial", "generator saturated":
		return "\033[1;31m" + s + "\033[0m"
	case string(report.StatusSkipped), string(report.VerdictInconclusive), string(report.VerdictLeftOut):
		return "\033[33m" + s + "\033[0m"
	}
	return s
}

// Summary writes the results table, warnings, failures, the open-loop results' load blocks and the
// assertions table.
func Summary(w io.Writer, r *report.Report) error { return SummaryStyled(w, r, Style{}) }

// SummaryStyled is Summary with a style (colour, width).
func SummaryStyled(w io.Writer, r *report.Report, st Style) error {
	ew := NewErrWriter(w)
	Shards(ew, r, st)
	Results(ew, r, st)
	Phases(ew, r, st)
	Memory(ew, r, st)
	Loads(ew, r, st)
	Assertions(ew, r, st)
	VerdictLine(ew, r, st)
	return ew.Err()
}

// resultsLegend says where the table's figures come from: the medians over the runs of each run's
// medians over its repeats (one run: over its repeats), the tails from all repeats' operations,
// since a median of per-repeat tails understates the tail. Results may rest on different numbers
// of runs (a run made to decide an assertion measures only what it reads): the legend says so.
func resultsLegend(r *report.Report) string {
	lo, hi := 0, 0
	for i := range r.Results {
		if n := len(r.Results[i].RunIndices()); n > 0 {
			if lo == 0 || n < lo {
				lo = n
			}
			hi = max(hi, n)
		}
	}
	switch {
	case hi > 1 && lo == hi:
		return fmt.Sprintf("OPS, ROWS/S, NS/ROW, P50-P99: medians over %d runs of each run's medians; P99.9, MAX: all repeats merged", hi)
	case hi > 1:
		return fmt.Sprintf("OPS, ROWS/S, NS/ROW, P50-P99: medians over %d-%d runs (per result) of each run's medians; P99.9, MAX: all repeats merged", lo, hi)
	}
	return "OPS, ROWS/S, NS/ROW, P50-P99: medians over repeats; P99.9 and MAX: from the histogram merged over all repeats"
}

// resultCells are a result's figure cells in table order (OPS ... ERRORS) and its status mark.
// P99.9 and MAX come from the merged histogram when the report has it.
func resultCells(x *report.Result) []string {
	if len(x.Repeats) == 0 {
		return []string{"-", "-", "-", "-", "-", "-", "-", "-", "-", strings.ToUpper(string(x.Status))}
	}
	f := x.Figures
	tail := func(k string) string {
		if v, ok := x.MergedTail(k); ok {
			return Ns(v)
		}
		return ns(f, k)
	}
	return []string{Count(f["ops"]), rate(f, "rows_per_s"), ns(f, "ns_per_row"),
		ns(f, "p50"), ns(f, "p90"), ns(f, "p99"), tail("p999"), tail("max"),
		Count(f["errors"]), statusMark(x.Status)}
}

// Results writes one row per target, workload (and size, in a sweep), then the legend and a line
// for each skipped target, failed result and warning.
func Results(w io.Writer, r *report.Report, st Style) {
	t, hasMerged := resultsTable(r)
	t.Fit(st.width(), 0, 1)
	t.color = st.verdictWord
	t.Write(w)
	if hasMerged {
		fmt.Fprintln(w, resultsLegend(r))
	}
	for _, n := range resultNotes(r) {
		word, rest, _ := strings.Cut(n, " ")
		if word == "skipped" || word == "FAILED" {
			word = st.verdictWord(word)
		}
		fmt.Fprintln(w, wrap(word+" "+rest, st.width(), "  "))
	}
}

// resultsTable is the results table, and whether a result has figures from its merged histogram.
func resultsTable(r *report.Report) (*Table, bool) {
	sweep := len(r.Run.Sizes) > 1
	head := []string{"TARGET", "WORKLOAD"}
	if sweep {
		head = append(head, "SIZE")
	}
	first := len(head)
	head = append(head, "OPS", "ROWS/S", "NS/ROW", "P50", "P90", "P99", "P99.9", "MAX", "ERRORS", "")
	t := NewTable(head...)
	for i := first - 1; i < len(head)-1; i++ {
		if i >= first || sweep {
			t.AlignRight(i)
		}
	}
	hasMerged := false
	for i := range r.Results {
		x := &r.Results[i]
		row := []string{x.Target, x.Workload}
		if sweep {
			row = append(row, fmt.Sprint(x.Size))
		}
		t.Add(append(row, resultCells(x)...)...)
		hasMerged = hasMerged || len(x.Merged) > 0
	}
	return t, hasMerged
}

// resultNotes are the lines under the results table, each starting with its kind: "skipped" for a
// target (or a size of one) skipped, "FAILED" for a failed result, "warning" for a result's warning.
func resultNotes(r *report.Report) []string {
	var out []string
	for _, t := range r.Targets {
		if t.Status == report.StatusSkipped {
			out = append(out, fmt.Sprintf("%s %s: %s", report.StatusSkipped, t.Name, t.Reason))
			continue
		}
		for _, in := range t.Instances {
			if in.Skipped != "" {
				out = append(out, fmt.Sprintf("%s %s at size %d: %s", report.StatusSkipped, t.Name, in.Size, in.Skipped))
			}
		}
	}
	for _, x := range r.Results {
		if x.Status != report.StatusOK {
			out = append(out, fmt.Sprintf("FAILED %s %s%s: %s", x.Target, x.Workload, sizeSuffix(r, x.Size), x.Error))
		}
		for _, warn := range x.Warnings {
			out = append(out, fmt.Sprintf("warning %s %s%s: %s", x.Target, x.Workload, sizeSuffix(r, x.Size), warn))
		}
	}
	return out
}

func sizeSuffix(r *report.Report, size int) string {
	if len(r.Run.Sizes) > 1 {
		return fmt.Sprintf(" @%d", size)
	}
	return ""
}

func statusMark(s report.Status) string {
	if s == report.StatusOK {
		return ""
	}
	return strings.ToUpper(string(s))
}

func ns(f map[string]float64, k string) string {
	v, ok := f[k]
	if !ok {
		return "-"
	}
	return Ns(v)
}

func rate(f map[string]float64, k string) string {
	v, ok := f[k]
	if !ok {
		return "-"
	}
	return Rate(v)
}

// Assertions writes each evaluated assertion: the verdict and the check, then (indented) both
// sides' values and what decided it: the interval over runs against the (relaxed) threshold, or one
// run's value; for an undecided one, what would decide it; for one with nothing to decide on, why.
// Long lines wrap.
func Assertions(w io.Writer, r *report.Report, st Style) {
	if len(r.Assertions) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "ASSERTIONS")
	const indent = "              "
	for _, a := range r.Assertions {
		verdict := strings.ToUpper(string(a.Verdict))
		head := fmt.Sprintf("%-12s  %s", verdict, assertionCheck(a))
		head = wrap(head, st.width(), indent)
		head = st.verdictWord(verdict) + head[len(verdict):]
		fmt.Fprintln(w, head)
		fmt.Fprintln(w, wrap(indent+assertionDetail(a), st.width(), indent))
		if a.Verdict == report.VerdictInconclusive && a.Why != "" {
			fmt.Fprintln(w, wrap(indent+a.Why, st.width(), indent))
		}
	}
}

// assertionCheck is an assertion as the config wrote it, with its name when it has one.
func assertionCheck(a report.Assertion) string {
	if a.Name != "" {
		return a.Name + ": " + a.Expr
	}
	return a.Expr
}

// assertionDetail says what decided an assertion (both sides' values, then the interval against
// the threshold), or, when nothing could, why.
func assertionDetail(a report.Assertion) string {
	switch a.Verdict {
	case report.VerdictSkipped, report.VerdictLeftOut, report.VerdictError:
		return a.Reason
	}
	return sidesText(a) + ": " + decidedOn(a)
}

// sidesText names both sides with their medians: "a@200 96.5M/s vs b@200 105M/s", "a 1.37 µs vs b 852 ns".
func sidesText(a report.Assertion) string {
	s := fmt.Sprintf("%s %s", a.Left, spacedUnit(FigureValue(figureOf(a.Left), a.LeftValue)))
	if a.Form != "absolute" {
		s += fmt.Sprintf(" vs %s %s", a.Right, spacedUnit(FigureValue(figureOf(a.Right), a.RightValue)))
	}
	return s
}

// Wrap breaks s at spaces so no line is wider than width; continuation lines start with indent.
// A word longer than a line stays whole.
func Wrap(s string, width int, indent string) string { return wrap(s, width, indent) }

func wrap(s string, width int, indent string) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	words := strings.Split(s, " ")
	var b strings.Builder
	col := 0
	for i, wd := range words {
		n := utf8.RuneCountInString(wd)
		if i > 0 {
			if col+1+n > width && col > len(indent) {
				b.WriteString("\n" + indent)
				col = len(indent)
			} else {
				b.WriteByte(' ')
				col++
			}
		}
		b.WriteString(wd)
		col += n
	}
	return b.String()
}

// decidedOn explains the comparison in the figure's unit, with the relation that actually holds
// between the decided value and the (relaxed) threshold, which is what the check allowed (an upper
// bound) or required (a lower bound): "median ratio 0.57 >= 0.45 required (relaxed from 0.5)" passes,
// "median diff 351 ns > 275 ns allowed (relaxed from 250 ns)" fails.
func decidedOn(a report.Assertion) string {
	format := trimFloat
	what := "median"
	switch a.Form {
	case "ratio":
		what = "median ratio"
	case "difference":
		what = "median diff"
		fallthrough
	default:
		u := figureOf(a.Left)
		format = func(v float64) string { return spacedUnit(FigureValue(u, v)) }
	}
	value := format(a.Value)
	var notes []string
	if a.RelaxedThreshold != a.Threshold {
		notes = append(notes, "relaxed from "+format(a.Threshold))
	}
	if a.RunValue == report.RunBest { // each run's value is from the sides' best repeats
		what = strings.Replace(what, "median", "best-repeat", 1)
	}
	if iv := a.Interval; iv != nil && iv.Method != "point" && a.Runs > 1 {
		// the interval over runs, around the runs' mean (geometric mean for ratios)
		what = strings.Replace(what, "median", "mean", 1)
		if a.RunValue == report.RunBest {
			what = "mean " + what
		}
		value = fmt.Sprintf("%s [%s, %s]", value, format(iv.Lo), format(iv.Hi))
		notes = append(notes, fmt.Sprintf("%s, %s", Plural(a.Runs, "run"), confidenceText(iv.Confidence)))
	}
	s := fmt.Sprintf("%s %s %s %s %s", what, value, holdingRelation(a), format(a.RelaxedThreshold), boundWord(a.Op))
	if a.MachineClass != "" {
		// The config keys this threshold to the run's machine class; say whose, and the check's own.
		notes = append(notes, fmt.Sprintf("threshold for %s; elsewhere %s", a.MachineClass, format(a.DefaultThreshold)))
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

// confidenceText is an interval's confidence as a percentage: 0.99583 -> "99.6%".
func confidenceText(c float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", c*100), "0"), ".") + "%"
}

// DecidedOn is decidedOn for other packages: the one-line reason of a verdict ("median diff 351 ns >
// 275 ns allowed").
func DecidedOn(a report.Assertion) string { return decidedOn(a) }

// holdingRelation is the comparison that holds between the value and the threshold: the assertion's
// own operator when it passed, its negation when it failed ("<=" fails as ">").
func holdingRelation(a report.Assertion) string {
	if a.Verdict == report.VerdictInconclusive {
		return "straddles " + a.Op
	}
	if a.Verdict != report.VerdictFail {
		return a.Op
	}
	switch a.Op {
	case "<=":
		return ">"
	case "<":
		return ">="
	case ">=":
		return "<"
	case ">":
		return "<="
	}
	return "not " + a.Op
}

// boundWord labels the threshold: an upper bound is what the check allows, a lower bound what it
// requires.
func boundWord(op string) string {
	if op == "<=" || op == "<" {
		return "allowed"
	}
	return "required"
}

// spacedUnit puts a space between a duration and its unit, "351ns" -> "351 ns", so that a relation
// between two durations reads as one; rates and counts ("96.5M/s") stay as the tables print them.
func spacedUnit(v string) string {
	for _, u := range []string{"ns", "µs", "ms", "s"} {
		if n, ok := strings.CutSuffix(v, u); ok && n != "" && strings.IndexFunc(n[len(n)-1:], func(r rune) bool { return r < '0' || r > '9' }) < 0 {
			return n + " " + u
		}
	}
	return v
}

// figureOf extracts the figure name from "workload.figure[target]".
func figureOf(ref string) string {
	_, rest, ok := strings.Cut(ref, ".")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "[")
	return name
}

// FigureValue formats a value of the named figure in its unit.
func FigureValue(figure string, v float64) string {
	info, ok := report.LookupFigure(figure)
	if !ok {
		return trimFloat(v)
	}
	switch info.Unit {
	case "ns":
		return Ns(v)
	case "1/s":
		return Rate(v)
	case "bytes":
		return BytesPerOp(v)
	}
	return Count(v)
}

// trimFloat prints a threshold or ratio compactly: four significant digits, no exponent for large values.
func trimFloat(v float64) string {
	if math.Abs(v) >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	s := strconv.FormatFloat(v, 'g', 4, 64)
	if strings.Contains(s, "e") { // a small threshold (relaxed 0.0001 is 9e-05): plain digits, "0.00009"
		f, _ := strconv.ParseFloat(s, 64)
		s = strconv.FormatFloat(f, 'f', -1, 64)
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// VerdictLine writes the outcome: one line, wrapped when its reason is long (a database's error).
func VerdictLine(w io.Writer, r *report.Report, st Style) {
	var b strings.Builder
	verdictLine(&b, r)
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = wrap(l, st.width(), "  ")
	}
	line := strings.Join(lines, "\n")
	if word := strings.ToUpper(strings.ReplaceAll(string(r.Verdict), "_", " ")); st.Color {
		line = strings.Replace(line, "verdict: "+word, "verdict: "+st.verdictWord(word), 1)
	}
	fmt.Fprint(w, line)
}

func verdictLine(w io.Writer, r *report.Report) {
	n := map[report.Verdict]int{}
	var firstError, firstUndecided *report.Assertion
	for i, a := range r.Assertions {
		n[a.Verdict]++
		if a.Verdict == report.VerdictError && firstError == nil {
			firstError = &r.Assertions[i]
		}
		if a.Verdict == report.VerdictInconclusive && firstUndecided == nil {
			firstUndecided = &r.Assertions[i]
		}
	}
	decided := len(r.Assertions) - n[report.VerdictLeftOut] - n[report.VerdictSkipped]
	var extra []string
	if k := n[report.VerdictLeftOut] + n[report.VerdictSkipped]; k > 0 {
		extra = append(extra, fmt.Sprintf("%d left out", k))
	}
	if len(r.Run.Runs) == 1 && decided > 0 {
		extra = append(extra, "one run: point verdicts, no interval")
	}
	tail := ""
	if len(extra) > 0 {
		tail = " (" + strings.Join(extra, "; ") + ")"
	}
	fmt.Fprintln(w)
	switch r.Verdict {
	case report.VerdictError:
		switch {
		case len(r.Results) == 0 && len(r.Run.Errors) > 0:
			fmt.Fprintln(w, "verdict: ERROR: the run stopped before anything was measured: "+exitcode.OneLine(r.Run.Errors[0]))
		case len(r.Results) == 0:
			fmt.Fprintln(w, "verdict: ERROR: every target was skipped, so nothing was measured (see skipped above)")
		case firstError != nil && !anyFailed(r):
			name := firstError.Name
			if name == "" {
				name = firstError.Expr
			}
			fmt.Fprintf(w, "verdict: ERROR: %s nothing to decide on, first %s: %s\n", Plural(n[report.VerdictError], "assertion had", "assertions had"), name, exitcode.OneLine(firstError.Reason))
		default:
			fmt.Fprintln(w, "verdict: ERROR: a target or workload failed, so its figures cannot be trusted (see FAILED above)")
		}
	case report.VerdictSaturated:
		fmt.Fprintf(w, "verdict: GENERATOR SATURATED: dbbench's own generator could not keep the schedule of %s, so its figures are the generator's limit, not the target's, and decide nothing\n",
			saturatedRuns(r))
	case report.VerdictFail:
		fmt.Fprintf(w, "verdict: FAIL: %d of %s failed%s\n", n[report.VerdictFail], Plural(decided, "assertion"), tail)
	case report.VerdictInconclusive:
		fmt.Fprintf(w, "verdict: INCONCLUSIVE: %d of %s undecided within the budget, none failed%s%s\n", n[report.VerdictInconclusive], Plural(decided, "assertion"), tail, undecidedRemedy(r))
	default:
		switch {
		case len(r.Assertions) == 0:
			fmt.Fprintln(w, "verdict: PASS (no assertions)")
		case decided == 0:
			fmt.Fprintf(w, "verdict: PASS (no assertions decided: %s)\n", strings.Join(extra, "; "))
		default:
			fmt.Fprintf(w, "verdict: PASS: %s%s\n", allHold(n[report.VerdictPass]), tail)
		}
	}
}

// undecidedRemedy says, after an INCONCLUSIVE verdict, how busy the machine was when the run ended
// and what would decide: on a busy machine (a load average of at least 3/4 of a thread per core)
// a quieter one or more time; otherwise more time (a budget twice the run's).
func undecidedRemedy(r *report.Report) string {
	more := "give it more time"
	if took := r.Run.FinishedAt.Sub(r.Run.StartedAt); took > 0 {
		more = fmt.Sprintf("give it more time (--budget %s)", roundBudget(2*took))
	}
	if r.Run.LoadAverage == nil || r.Environment.Cores <= 0 {
		return "; " + more
	}
	load, cores := *r.Run.LoadAverage, r.Environment.Cores
	if load >= 0.75*float64(cores) {
		return fmt.Sprintf("; load average %.1f on %d cores: a busy machine, so rerun on a quieter one, or %s", load, cores, more)
	}
	return fmt.Sprintf("; load average %.1f on %d cores: %s", load, cores, more)
}

// roundBudget writes a duration for a --budget to suggest: whole seconds under a minute ("40s"),
// whole minutes, rounded up, above ("2m").
func roundBudget(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%ds", max(int(d.Round(time.Second)/time.Second), 1))
	}
	return fmt.Sprintf("%dm", (d+time.Minute-1)/time.Minute)
}

// saturatedRuns names the load results whose generator saturated: "ycsb-c on memory, ...".
func saturatedRuns(r *report.Report) string {
	var which []string
	for _, x := range r.Results {
		if x.Load != nil && x.Load.Saturation == "generator saturated" {
			which = append(which, x.Workload+sizeSuffix(r, x.Size)+" on "+x.Target)
		}
	}
	return strings.Join(which, ", ")
}

// allHold says that n assertions hold: "the assertion holds" for one, "all 3 assertions hold".
func allHold(n int) string {
	if n == 1 {
		return "the assertion holds"
	}
	return fmt.Sprintf("all %d assertions hold", n)
}

// anyFailed reports whether a target or result of the report failed.
func anyFailed(r *report.Report) bool {
	for _, x := range r.Results {
		if x.Status != report.StatusOK {
			return true
		}
	}
	for _, t := range r.Targets {
		if t.Status == report.StatusFailed {
			return true
		}
	}
	return false
}

// ErrWriter remembers the first write error so renderers can write freely and check once.
type ErrWriter struct {
	w   io.Writer
	err error
}

// NewErrWriter wraps w.
func NewErrWriter(w io.Writer) *ErrWriter { return &ErrWriter{w: w} }

// Err is the first write error, if any.
func (e *ErrWriter) Err() error { return e.err }

func (e *ErrWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render"
)

// Format is an output format for a comparison.
type Format string

const (
	Text     Format = "text"     // aligned table for terminals
	Markdown Format = "markdown" // GitHub-flavoured table for PR comments and $GITHUB_STEP_SUMMARY
	JSON     Format = "json"     // the Comparison, for machines
	HTML     Format = "html"     // a self-contained page with charts of every change
)

// Formats lists the formats Render accepts.
var Formats = []Format{Text, Markdown, JSON, HTML}

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q (formats: text, markdown, json, html)", s)
}

// Render writes c in format f.
func Render(w io.Writer, c *Comparison, f Format) error {
	switch f {
	case Markdown:
		return WriteMarkdown(w, c)
	case JSON:
		return WriteJSON(w, c)
	case HTML:
		return WriteHTML(w, c)
	}
	return WriteText(w, c)
}

// JSONVersion is the version of compare's JSON, its schema_version field: the schema is
// report/schema/compare.v<N>.schema.json. Fields are only added within a version.
const JSONVersion = 2

// WriteJSON writes c as indented JSON, with the schema version first.
func WriteJSON(w io.Writer, c *Comparison) error {
	b, err := json.MarshalIndent(struct {
		SchemaVersion int `json:"schema_version"`
		*Comparison
	}{JSONVersion, c}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteText writes the comparison as an aligned table with the notes and the gate's verdict.
func WriteText(w io.Writer, c *Comparison) error {
	ew := render.NewErrWriter(w)
	line := func(s string) { fmt.Fprintln(ew, render.Wrap(s, render.DefaultWidth, "  ")) }
	line("old: " + describe(c.Old))
	line("new: " + describe(c.New))
	if c.NormalizeBy != "" {
		line(fmt.Sprintf("normalized: every figure is the target's divided by %s's in the same repeat%s", c.NormalizeBy, byDefault(c)))
	}
	fmt.Fprintln(ew)
	t := table(c, true)
	t.Fit(render.DefaultWidth, slices.Index(t.Head, "TARGET"), slices.Index(t.Head, "WORKLOAD"))
	t.Write(ew)
	if len(c.Failed)+len(c.Unpaired)+len(c.Notes) > 0 {
		fmt.Fprintln(ew)
	}
	for _, f := range c.Failed {
		line(fmt.Sprintf("FAILED in %s: %s %s%s: %s", sideName(c, f.In), f.Target, f.Workload, sizeSuffix(c, f.Size), f.Error))
	}
	for _, u := range c.Unpaired {
		line(missingText(c, u))
	}
	for _, n := range c.Notes {
		line("note: " + n)
	}
	if c.Undecidable != "" && !c.Gate.Enabled {
		fmt.Fprintln(ew)
		line("INCONCLUSIVE: " + c.Undecidable)
	}
	fmt.Fprintln(ew)
	line(legend(c))
	if c.Gate.Enabled {
		line(gateLine(c))
		for _, r := range c.Gate.Reasons {
			fmt.Fprintln(ew, render.Wrap("  "+r, render.DefaultWidth, "    "))
		}
	}
	return ew.Err()
}

// WriteMarkdown writes the comparison as a GitHub-flavoured markdown section.
func WriteMarkdown(w io.Writer, c *Comparison) error {
	ew := render.NewErrWriter(w)
	title := "dbbench compare"
	if c.Gate.Enabled {
		title += ": " + strings.ToUpper(string(c.Gate.Verdict))
	}
	fmt.Fprintf(ew, "### %s\n\n", title)
	fmt.Fprintf(ew, "- old: %s\n- new: %s\n", render.MarkdownEscape(describe(c.Old)), render.MarkdownEscape(describe(c.New)))
	if c.NormalizeBy != "" {
		fmt.Fprintf(ew, "- normalized: every figure is the target's divided by `%s`'s in the same repeat%s\n", c.NormalizeBy, byDefault(c))
	}
	fmt.Fprintln(ew)
	t := table(c, false)
	fmt.Fprintf(ew, "| %s |\n", strings.Join(t.Head, " | "))
	aligns := make([]string, len(t.Head))
	for i := range aligns {
		aligns[i] = "---"
		if t.Right[i] {
			aligns[i] = "--:"
		}
	}
	fmt.Fprintf(ew, "|%s|\n", strings.Join(aligns, "|"))
	for ri, r := range t.Rows {
		cells := make([]string, len(r))
		for i, s := range r {
			cells[i] = render.MarkdownEscape(s)
			if t.Class(ri, i) != "" && s != "" {
				cells[i] = "**" + cells[i] + "**"
			}
		}
		fmt.Fprintf(ew, "| %s |\n", strings.Join(cells, " | "))
	}
	var items []string
	for _, f := range c.Failed {
		items = append(items, fmt.Sprintf("**FAILED** in %s: %s %s%s: %s", sideName(c, f.In), f.Target, f.Workload, sizeSuffix(c, f.Size), render.MarkdownEscape(f.Error)))
	}
	for _, u := range c.Unpaired {
		items = append(items, render.MarkdownEscape(missingText(c, u)))
	}
	for _, n := range c.Notes {
		items = append(items, "note: "+render.MarkdownEscape(n))
	}
	if c.Undecidable != "" && !c.Gate.Enabled {
		items = append(items, "**INCONCLUSIVE**: "+render.MarkdownEscape(c.Undecidable))
	}
	if len(items) > 0 {
		fmt.Fprintf(ew, "\n- %s\n", strings.Join(items, "\n- "))
	}
	if c.Gate.Enabled {
		fmt.Fprintf(ew, "\n**%s**\n", render.MarkdownEscape(gateLine(c)))
		for _, r := range c.Gate.Reasons {
			fmt.Fprintf(ew, "- %s\n", render.MarkdownEscape(r))
		}
	}
	fmt.Fprintf(ew, "\n<sub>%s</sub>\n", render.MarkdownEscape(legend(c)))
	return ew.Err()
}

// missingText is a line on evidence one side lacks: "missing in NEW: sut insert rows_per_s: only in
// OLD (gate: FAIL)".
func missingText(c *Comparison, u Unpaired) string {
	s := fmt.Sprintf("missing in %s: %s %s%s", sideName(c, u.In), u.Target, u.Workload, sizeSuffix(c, u.Size))
	if len(u.Figures) > 0 {
		s += " " + strings.Join(u.Figures, ", ")
	}
	s += ": " + u.Reason
	switch {
	case u.Allowed:
		s += " (--allow-missing: not held against the gate)"
	case u.Gate != GateNone:
		s += " (gate: " + strings.ToUpper(string(u.Gate)) + ")"
	}
	return s
}

func describe(s Source) string {
	mode := ""
	if s.CI {
		mode = " --ci"
	}
	commit := ""
	if s.Commit != "" && s.Commit != "unknown" {
		commit = ", commit " + s.Commit
	}
	runs := ""
	if s.Runs > 1 {
		runs = fmt.Sprintf(", %d runs from %s", s.Runs, s.StartedAt)
	}
	return fmt.Sprintf("%s (config %s%s, %s%s, %s, %d cores, %d repeats%s)",
		s.Name, s.Config, mode, s.StartedAt, commit, s.CPU, s.Cores, s.Repeats, runs)
}

func byDefault(c *Comparison) string {
	s := ""
	if c.RunValue == report.RunBest {
		s = " (each run: its best repeat over the reference's best repeat)"
	}
	if c.NormalizedByDefault {
		s += " (by default: the baseline both sides name)"
	}
	return s
}

func sideName(c *Comparison, in string) string {
	if in == "old" {
		return c.Old.Name
	}
	return c.New.Name
}

func sizeSuffix(c *Comparison, size int) string {
	if c.Sweep {
		return " @" + render.Grouped(int64(size))
	}
	return ""
}

func legend(c *Comparison) string {
	samples := "repeats"
	switch c.Sample {
	case SampleRuns:
		samples = "runs (each run's median over its repeats; N counts runs)"
		if c.RunValue == report.RunBest {
			samples = "runs (each run's best repeat, divided by the reference's best when normalized; N counts runs)"
		}
		if c.DropSlowest > 0 {
			samples += fmt.Sprintf(", without each side's %d slowest per figure", c.DropSlowest)
		}
	case SampleOneRun:
		samples = "repeats of one run per side (\"? one run\": no significance without the run-to-run variation)"
	}
	ci := fmt.Sprintf("CI = distribution-free confidence interval of the change (at least %s%%)", strconv.FormatFloat(100*(1-c.Alpha), 'f', -1, 64))
	if c.Gate.Enabled && c.Gate.Gated > 0 {
		ci = fmt.Sprintf("CI = a gated figure's interval the gate decides on (Welch's t over %s, log scale, %s each: "+
			"%s family-wise over %s and %s), other figures' distribution-free interval (at least %s%%)",
			c.gateSampleWord(), percent(gatedConfidence(c)), percent(c.Gate.Confidence), plural(c.Gate.Gated, "figure"),
			plural(c.Gate.Looks, "look"), strconv.FormatFloat(100*(1-c.Alpha), 'f', -1, 64))
	}
	return fmt.Sprintf("~ = no significant change (Mann-Whitney U test over %s, alpha %s); OLD and NEW are medians; "+
		"%s; merged = percentile of the histogram merged over all repeats",
		samples, strconv.FormatFloat(c.Alpha, 'f', -1, 64), ci)
}

// gateSampleWord names what the gate's samples are.
func (c *Comparison) gateSampleWord() string {
	if c.Sample == SampleRuns {
		return "runs"
	}
	return "repeats"
}

// gatedConfidence is the confidence of each gated figure's interval.
func gatedConfidence(c *Comparison) float64 {
	return 1 - (1-c.Gate.Confidence)/float64(max(c.Gate.Gated, 1)*max(c.Gate.Looks, 1))
}

// allOf is "the 1 gated figure", "all 3 gated figures".
func allOf(n int, word string) string {
	if n == 1 {
		return "the 1 " + word
	}
	return fmt.Sprintf("all %d %ss", n, word)
}

// plural is "1 look", "4 looks".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// percent renders a confidence: 0.95 -> "95%", 0.99583 -> "99.58%".
func percent(f float64) string {
	return strconv.FormatFloat(math.Round(f*1e4)/100, 'f', -1, 64) + "%"
}

func gateLine(c *Comparison) string {
	g := c.Gate
	allowed := ""
	if g.AllowMissing && slices.ContainsFunc(c.Unpaired, func(u Unpaired) bool { return u.Allowed }) {
		allowed = "; --allow-missing: those missing on one side not held against it"
	}
	switch g.Verdict {
	case GateFail:
		return fmt.Sprintf("gate: FAIL: %d of %s failed: worse beyond the threshold (the whole interval), missing in NEW, or their result failed (thresholds %s)",
			g.Failures, plural(c.gatedTotal(), "gated figure"), g.Thresholds)
	case GateInconclusive:
		if c.Undecidable != "" {
			return fmt.Sprintf("gate: INCONCLUSIVE: none of %s decided: the sides ran on different machine classes (thresholds %s)", plural(g.Gated, "gated figure"), g.Thresholds)
		}
		more := ""
		switch n := g.RunsNeeded; {
		case n > 0:
			more = fmt.Sprintf("%s them all: about %s a side", runsPhrase, plural(n, singular(c.gateSampleWord())))
		case n < 0:
			more = runsPhrase + " them all: none"
			for _, r := range c.Rows {
				if r.Decision != nil && r.Gate == GateInconclusive && r.Decision.RunsNeeded < 0 {
					more += fmt.Sprintf(" (%s %s %s sits on its threshold)", r.Target, r.Workload, r.Figure)
					break
				}
			}
		}
		return fmt.Sprintf("gate: INCONCLUSIVE: %d of %s undecided (thresholds %s)%s%s", g.Inconclusive, plural(c.gatedTotal(), "gated figure"), g.Thresholds, allowed, more)
	}
	return fmt.Sprintf("gate: PASS: %s within the threshold (the whole interval; thresholds %s)%s", allOf(g.Gated, "gated figure"), g.Thresholds, allowed)
}

// table lays out the comparison's rows; columns without content anywhere (size, merged, gate) are
// left out. The text table (text) fits a 120-column terminal: the normalization and what MERGED
// holds are said above and below it, not in every row; the interval is compact; N goes when every
// row has the repeats the header lines state. The verdict cells of a changed or gated row stand out
// (Class: bold in markdown, coloured in HTML).
func table(c *Comparison, text bool) *render.Table {
	hasMerged := false
	for _, r := range c.Rows {
		if r.Old.Merged != nil || r.New.Merged != nil {
			hasMerged = true
		}
	}
	merged := "MERGED OLD→NEW"
	if text {
		merged = "MERGED"
	}
	type col struct {
		name  string
		right bool
		show  bool
		cell  func(Row) string
	}
	cols := []col{
		{"TARGET", false, true, func(r Row) string { return r.Target }},
		{"WORKLOAD", false, true, func(r Row) string { return r.Workload }},
		{"SIZE", true, c.Sweep, func(r Row) string {
			if r.OldSize != 0 {
				return render.Grouped(int64(r.OldSize)) + "→" + render.Grouped(int64(r.Size))
			}
			return render.Grouped(int64(r.Size))
		}},
		{"FIGURE", false, true, func(r Row) string {
			if c.NormalizeBy != "" && !text {
				return r.Figure + "/" + c.NormalizeBy
			}
			return r.Figure
		}},
		{"OLD", true, true, func(r Row) string { return value(r, float64(r.Old.Median)) }},
		{"NEW", true, true, func(r Row) string { return value(r, float64(r.New.Median)) }},
		{merged, true, hasMerged, func(r Row) string {
			if r.Old.Merged == nil || r.New.Merged == nil {
				return ""
			}
			return value(r, *r.Old.Merged) + "→" + value(r, *r.New.Merged)
		}},
		{"CHANGE", true, true, func(r Row) string { return FormatChange(float64(r.Change)) }},
		{"CI", false, true, func(r Row) string { return ci(r, text) }},
		{"P", true, true, func(r Row) string {
			if r.Verdict == OneRun || r.Verdict == OtherMachines {
				return "-"
			}
			return strconv.FormatFloat(r.P, 'f', 3, 64)
		}},
		{"N", true, !text || !sameRepeats(c), func(r Row) string {
			if r.Old.N() == r.New.N() {
				return fmt.Sprint(r.Old.N())
			}
			return fmt.Sprintf("%d+%d", r.Old.N(), r.New.N())
		}},
		{"VERDICT", false, true, func(r Row) string { return r.Verdict.Label() }},
		{"GATE", false, c.Gate.Enabled, gateCell},
	}
	cols = slices.DeleteFunc(cols, func(cl col) bool { return !cl.show })
	t := render.NewTable()
	for _, cl := range cols {
		t.Head = append(t.Head, cl.name)
		t.Right = append(t.Right, cl.right)
	}
	for _, r := range c.Rows {
		cells := make([]string, len(cols))
		for j, cl := range cols {
			cells[j] = cl.cell(r)
		}
		t.Add(cells...)
	}
	t.Class = func(row, col int) string {
		r := c.Rows[row]
		switch cols[col].name {
		case "CHANGE", "VERDICT":
			if r.Verdict == Worse || r.Verdict == Better {
				return verdictClass(r)
			}
		case "GATE":
			if r.Gate == GateFail || r.Gate == GateInconclusive {
				return verdictClass(r)
			}
		}
		return ""
	}
	return t
}

func gateCell(r Row) string {
	if r.Threshold == nil {
		return "-"
	}
	t := FormatPercent(*r.Threshold)
	switch r.Gate {
	case GateFail:
		return "FAIL >" + t
	case GateInconclusive:
		return "? " + t
	}
	return "ok ≤" + t
}

// value formats one value of a row in its unit; normalized values are ratios.
func value(r Row, v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	if r.Unit == "ratio" {
		return render.Sig3(v) + "×"
	}
	return render.FigureValue(r.Figure, v)
}

// ci renders the change's interval: "[-18.0%, -15.1%]" ("-18.0%…-15.1%" in text), or "±∞" with too
// few repeats. A gated row shows the interval the gate decided on.
func ci(r Row, text bool) string {
	lo, hi := float64(r.ChangeLo), float64(r.ChangeHi)
	if r.Decision != nil {
		lo, hi = float64(r.Decision.Lo), float64(r.Decision.Hi)
	}
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "±∞"
	}
	if text {
		return FormatChange(lo) + "…" + FormatChange(hi)
	}
	return "[" + FormatChange(lo) + ", " + FormatChange(hi) + "]"
}

// sameRepeats reports whether every row compares the repeat counts both reports state.
func sameRepeats(c *Comparison) bool {
	for _, r := range c.Rows {
		if r.Old.N() != c.Old.Repeats || r.New.N() != c.New.Repeats {
			return false
		}
	}
	return true
}

package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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
	head, rows := table(c)
	// the text table fits a 120-column terminal: the normalization is said above, not in every
	// row, and long names are shortened
	for i, h := range head.cells {
		switch {
		case h == "MERGED OLD→NEW":
			head.cells[i] = "MERGED" // the legend says what it is
		case h == "FIGURE" && c.NormalizeBy != "":
			for _, r := range rows {
				r.cells[i] = strings.TrimSuffix(r.cells[i], "/"+c.NormalizeBy)
			}
		case h == "CI":
			for _, r := range rows {
				r.cells[i] = strings.Replace(strings.Trim(r.cells[i], "[]"), ", ", "…", 1)
			}
		}
	}
	if n := slices.Index(head.cells, "N"); n >= 0 && sameRepeats(c) {
		head, rows = dropColumn(head, rows, n) // every row has the repeats the header lines state
	}
	fitNames(head, rows, render.DefaultWidth)
	writeAligned(ew, head, rows)
	if len(c.Failed)+len(c.Unpaired)+len(c.Notes) > 0 {
		fmt.Fprintln(ew)
	}
	for _, f := range c.Failed {
		line(fmt.Sprintf("FAILED in %s: %s %s%s: %s", sideName(c, f.In), f.Target, f.Workload, sizeSuffix(c, f.Size), f.Error))
	}
	for _, u := range c.Unpaired {
		line(fmt.Sprintf("not compared: %s %s%s: %s", u.Target, u.Workload, sizeSuffix(c, u.Size), u.Reason))
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
	fmt.Fprintf(ew, "- old: %s\n- new: %s\n", mdEscape(describe(c.Old)), mdEscape(describe(c.New)))
	if c.NormalizeBy != "" {
		fmt.Fprintf(ew, "- normalized: every figure is the target's divided by `%s`'s in the same repeat%s\n", c.NormalizeBy, byDefault(c))
	}
	fmt.Fprintln(ew)
	head, rows := table(c)
	fmt.Fprintf(ew, "| %s |\n", strings.Join(head.cells, " | "))
	aligns := make([]string, len(head.cells))
	for i := range aligns {
		aligns[i] = "---"
		if head.right[i] {
			aligns[i] = "--:"
		}
	}
	fmt.Fprintf(ew, "|%s|\n", strings.Join(aligns, "|"))
	for _, r := range rows {
		cells := make([]string, len(r.cells))
		for i, s := range r.cells {
			cells[i] = mdEscape(s)
			if r.emphasize[i] && s != "" {
				cells[i] = "**" + cells[i] + "**"
			}
		}
		fmt.Fprintf(ew, "| %s |\n", strings.Join(cells, " | "))
	}
	var items []string
	for _, f := range c.Failed {
		items = append(items, fmt.Sprintf("**FAILED** in %s: %s %s%s: %s", sideName(c, f.In), f.Target, f.Workload, sizeSuffix(c, f.Size), mdEscape(f.Error)))
	}
	for _, u := range c.Unpaired {
		items = append(items, fmt.Sprintf("not compared: %s %s%s: %s", u.Target, u.Workload, sizeSuffix(c, u.Size), mdEscape(u.Reason)))
	}
	for _, n := range c.Notes {
		items = append(items, "note: "+mdEscape(n))
	}
	if c.Undecidable != "" && !c.Gate.Enabled {
		items = append(items, "**INCONCLUSIVE**: "+mdEscape(c.Undecidable))
	}
	if len(items) > 0 {
		fmt.Fprintf(ew, "\n- %s\n", strings.Join(items, "\n- "))
	}
	if c.Gate.Enabled {
		fmt.Fprintf(ew, "\n**%s**\n", mdEscape(gateLine(c)))
		for _, r := range c.Gate.Reasons {
			fmt.Fprintf(ew, "- %s\n", mdEscape(r))
		}
	}
	fmt.Fprintf(ew, "\n<sub>%s</sub>\n", mdEscape(legend(c)))
	return ew.Err()
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
	switch g.Verdict {
	case GateFail:
		return fmt.Sprintf("gate: FAIL: %d of %s worse beyond their threshold (the whole interval) or failed (thresholds %s)", g.Failures, plural(g.Gated+len(c.Failed), "gated figure"), g.Thresholds)
	case GateInconclusive:
		if c.Undecidable != "" {
			return fmt.Sprintf("gate: INCONCLUSIVE: none of %s decided: the sides ran on different machine classes (thresholds %s)", plural(g.Gated, "gated figure"), g.Thresholds)
		}
		more := ""
		switch n := g.RunsNeeded; {
		case n > 0:
			more = fmt.Sprintf(": about %d %s a side would decide", n, c.gateSampleWord())
		case n < 0:
			more = ": a change sits on its threshold, no practical number of runs decides it"
		}
		return fmt.Sprintf("gate: INCONCLUSIVE: %d of %s undecided (thresholds %s)%s", g.Inconclusive, plural(g.Gated, "gated figure"), g.Thresholds, more)
	}
	return fmt.Sprintf("gate: PASS: %s within the threshold (the whole interval; thresholds %s)", allOf(g.Gated, "gated figure"), g.Thresholds)
}

// line is one table row; emphasize marks cells markdown shows in bold.
type line struct {
	cells     []string
	right     []bool
	emphasize []bool
}

// table lays out the comparison's rows; columns without content anywhere (size, merged, gate) are
// left out.
func table(c *Comparison) (line, []line) {
	hasMerged := false
	for _, r := range c.Rows {
		if r.Old.Merged != nil || r.New.Merged != nil {
			hasMerged = true
		}
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
			if c.NormalizeBy != "" {
				return r.Figure + "/" + c.NormalizeBy
			}
			return r.Figure
		}},
		{"OLD", true, true, func(r Row) string { return value(r, float64(r.Old.Median)) }},
		{"NEW", true, true, func(r Row) string { return value(r, float64(r.New.Median)) }},
		{"MERGED OLD→NEW", true, hasMerged, func(r Row) string {
			if r.Old.Merged == nil || r.New.Merged == nil {
				return ""
			}
			return value(r, *r.Old.Merged) + "→" + value(r, *r.New.Merged)
		}},
		{"CHANGE", true, true, func(r Row) string { return FormatChange(float64(r.Change)) }},
		{"CI", false, true, func(r Row) string { return ci(r) }},
		{"P", true, true, func(r Row) string {
			if r.Verdict == OneRun || r.Verdict == OtherMachines {
				return "-"
			}
			return strconv.FormatFloat(r.P, 'f', 3, 64)
		}},
		{"N", true, true, func(r Row) string {
			if r.Old.N() == r.New.N() {
				return fmt.Sprint(r.Old.N())
			}
			return fmt.Sprintf("%d+%d", r.Old.N(), r.New.N())
		}},
		{"VERDICT", false, true, func(r Row) string { return r.Verdict.Label() }},
		{"GATE", false, c.Gate.Enabled, gateCell},
	}
	var head line
	var shown []col
	for _, cl := range cols {
		if cl.show {
			shown = append(shown, cl)
			head.cells = append(head.cells, cl.name)
			head.right = append(head.right, cl.right)
		}
	}
	head.emphasize = make([]bool, len(shown))
	rows := make([]line, len(c.Rows))
	for i, r := range c.Rows {
		l := line{right: head.right, emphasize: make([]bool, len(shown))}
		for j, cl := range shown {
			l.cells = append(l.cells, cl.cell(r))
			switch cl.name {
			case "CHANGE", "VERDICT":
				l.emphasize[j] = r.Verdict == Worse || r.Verdict == Better
			case "GATE":
				l.emphasize[j] = r.Gate == GateFail || r.Gate == GateInconclusive
			}
		}
		rows[i] = l
	}
	return head, rows
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

// ci renders the change's interval: "[-18.0%, -15.1%]", or "±∞" with too few repeats. A gated row
// shows the interval the gate decided on.
func ci(r Row) string {
	lo, hi := float64(r.ChangeLo), float64(r.ChangeHi)
	if r.Decision != nil {
		lo, hi = float64(r.Decision.Lo), float64(r.Decision.Hi)
	}
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "±∞"
	}
	return "[" + FormatChange(lo) + ", " + FormatChange(hi) + "]"
}

// writeAligned prints a table: text columns left-aligned, numbers right-aligned, two spaces apart.
func writeAligned(w io.Writer, head line, rows []line) {
	width := make([]int, len(head.cells))
	for _, r := range append([]line{head}, rows...) {
		for i, c := range r.cells {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range append([]line{head}, rows...) {
		var b strings.Builder
		for i, c := range r.cells {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if head.right[i] {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
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

func dropColumn(head line, rows []line, i int) (line, []line) {
	cut := func(l line) line {
		l.cells = slices.Delete(slices.Clone(l.cells), i, i+1)
		l.right = slices.Delete(slices.Clone(l.right), i, i+1)
		l.emphasize = slices.Delete(slices.Clone(l.emphasize), i, i+1)
		return l
	}
	out := make([]line, len(rows))
	for j, r := range rows {
		out[j] = cut(r)
	}
	return cut(head), out
}

// fitNames shortens the TARGET and WORKLOAD cells, longest first, until the table fits width.
func fitNames(head line, rows []line, width int) {
	const minName = 8
	for {
		ws := make([]int, len(head.cells))
		for _, r := range append([]line{head}, rows...) {
			for i, c := range r.cells {
				ws[i] = max(ws[i], utf8.RuneCountInString(c))
			}
		}
		total := 2 * (len(ws) - 1)
		for _, w := range ws {
			total += w
		}
		widest := -1
		for i, h := range head.cells {
			if (h == "TARGET" || h == "WORKLOAD") && ws[i] > minName && (widest < 0 || ws[i] > ws[widest]) {
				widest = i
			}
		}
		if total <= width || widest < 0 {
			return
		}
		limit := max(minName, ws[widest]-(total-width))
		for _, r := range rows {
			r.cells[widest] = render.Shorten(r.cells[widest], limit)
		}
	}
}

// mdEscape keeps a cell's text from breaking a markdown table or being read as markup or HTML.
func mdEscape(s string) string {
	r := strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "<", "&lt;", "`", "'")
	return r.Replace(s)
}

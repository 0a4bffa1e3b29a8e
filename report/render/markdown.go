package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/dbbench/dbbench/report"
)

// Markdown writes the text report's tables as GitHub-flavoured Markdown, for a pull request's
// comment or $GITHUB_STEP_SUMMARY: the results with their legend and notes, the phases and memory
// tables when the run measured them, each open-loop result's clocks, the assertions and the verdict.
// The figures are the text report's, formatted alike.
func Markdown(w io.Writer, r *report.Report) error {
	ew := NewErrWriter(w)
	fmt.Fprintf(ew, "### dbbench: %s\n", MarkdownEscape(configText(r.Run)))
	var shards strings.Builder
	Shards(&shards, r, Style{})
	markdownList(ew, strings.Split(strings.TrimSpace(shards.String()), "\n"))
	fmt.Fprintln(ew)
	t, hasMerged := resultsTable(r)
	t.Head[len(t.Head)-1] = "STATUS"
	t.Class = func(row, col int) string {
		if col == len(t.Head)-1 {
			return "status"
		}
		return ""
	}
	t.WriteMarkdown(ew)
	if hasMerged {
		fmt.Fprintf(ew, "\n%s\n", MarkdownEscape(resultsLegend(r)))
	}
	var notes []string
	for _, n := range resultNotes(r) {
		word, rest, _ := strings.Cut(n, " ")
		notes = append(notes, "**"+word+"** "+MarkdownEscape(rest))
	}
	markdownList(ew, notes)
	markdownSection(ew, "Phases", phasesTable(r), phasesLegend)
	markdownSection(ew, "Memory", memoryTable(r), memoryLegend)
	for _, x := range loadResults(r) {
		markdownLoad(ew, r, x)
	}
	markdownAssertions(ew, r)
	var b strings.Builder
	verdictLine(&b, r)
	fmt.Fprintf(ew, "\n**%s**\n", MarkdownEscape(strings.TrimSpace(b.String())))
	return ew.Err()
}

// markdownList writes items (Markdown already) as a list after a blank line; nothing for none.
func markdownList(w io.Writer, items []string) {
	var kept []string
	for _, it := range items {
		if strings.TrimSpace(it) != "" {
			kept = append(kept, strings.TrimSpace(it))
		}
	}
	if len(kept) > 0 {
		fmt.Fprintf(w, "\n- %s\n", strings.Join(kept, "\n- "))
	}
}

// markdownSection writes a titled table with its legend; nothing when t is nil.
func markdownSection(w io.Writer, title string, t *Table, legend string) {
	if t == nil {
		return
	}
	fmt.Fprintf(w, "\n#### %s\n\n", title)
	t.WriteMarkdown(w)
	fmt.Fprintf(w, "\n%s\n", MarkdownEscape(legend))
}

// markdownLoad writes an open-loop result as the text report's load block does: its saturation,
// rate, counts and generator, its clocks table and its time series.
func markdownLoad(w io.Writer, r *report.Report, x *report.Result) {
	l := x.Load
	fmt.Fprintf(w, "\n#### Load: %s %s%s\n\n%s\n", MarkdownEscape(x.Target), MarkdownEscape(x.Workload), sizeSuffix(r, x.Size), MarkdownEscape(SaturationText(l.Saturation)))
	items := []string{"rate: " + loadRateText(l), "operations: " + loadCountsText(l), "generator: " + generatorText(l.Generator)}
	if s := seriesText(l); s != "" {
		items = append(items, "series: "+s)
	}
	if l.Hlog != "" {
		items = append(items, "interval log: "+l.Hlog)
	}
	for i := range items {
		items[i] = MarkdownEscape(items[i])
	}
	markdownList(w, items)
	fmt.Fprintln(w)
	clocksTable(l).WriteMarkdown(w)
}

// markdownAssertions writes the assertions as a table: the verdict (in bold), the check, and what
// decided it (both sides' values and the interval against the threshold), or why nothing did.
func markdownAssertions(w io.Writer, r *report.Report) {
	if len(r.Assertions) == 0 {
		return
	}
	t := NewTable("VERDICT", "ASSERTION", "DECIDED ON")
	t.Class = func(_, col int) string {
		if col == 0 {
			return "verdict"
		}
		return ""
	}
	for _, a := range r.Assertions {
		detail := assertionDetail(a)
		if a.Verdict == report.VerdictInconclusive && a.Why != "" {
			detail += "; " + a.Why
		}
		t.Add(strings.ToUpper(string(a.Verdict)), assertionCheck(a), detail)
	}
	fmt.Fprint(w, "\n#### Assertions\n\n")
	t.WriteMarkdown(w)
}

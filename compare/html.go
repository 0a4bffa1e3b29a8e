package compare

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/dbbench/dbbench/report/render"
)

// WriteHTML writes the comparison as one self-contained page (no script, nothing fetched): both
// reports, the gate's verdict, per figure a chart of every result's change with its confidence
// interval (and the gate's threshold), then the table the text format prints.
func WriteHTML(w io.Writer, c *Comparison) error {
	ew := render.NewErrWriter(w)
	title := "dbbench compare"
	render.WritePageStart(ew, title)
	fmt.Fprintf(ew, "<h1>%s</h1>\n", title)
	if c.Gate.Enabled {
		fmt.Fprintf(ew, "<p><span class=\"verdict %s\">%s</span> %s</p>\n", render.Esc(string(c.Gate.Verdict)), strings.ToUpper(render.Esc(string(c.Gate.Verdict))), render.Esc(gateLine(c)))
		if len(c.Gate.Reasons) > 0 {
			fmt.Fprintln(ew, "<ul>")
			for _, r := range c.Gate.Reasons {
				fmt.Fprintf(ew, "<li>%s</li>\n", render.Esc(r))
			}
			fmt.Fprintln(ew, "</ul>")
		}
	}
	fmt.Fprintf(ew, "<table><tr><th>old</th><td>%s</td></tr><tr><th>new</th><td>%s</td></tr>", render.Esc(describe(c.Old)), render.Esc(describe(c.New)))
	if c.NormalizeBy != "" {
		fmt.Fprintf(ew, "<tr><th>normalized</th><td>every figure is the target's divided by %s's in the same repeat</td></tr>", render.Esc(c.NormalizeBy))
	}
	fmt.Fprintln(ew, "</table>")
	charts := ChangeCharts(c)
	if len(charts) > 0 {
		fmt.Fprintln(ew, "<h2>Changes</h2>")
		fmt.Fprintf(ew, "<p class=\"note\">%s</p>\n", "Each point is the change of the median from OLD to NEW, its bar the confidence interval (for a gated figure the one the gate decided on; none with too few samples); dashed red: the gate's threshold.")
		for i := range charts {
			charts[i].WriteSVG(ew)
		}
	}
	fmt.Fprintln(ew, "<h2>Figures</h2>")
	table(c, false).WriteHTML(ew, "nowrap")
	for _, f := range c.Failed {
		fmt.Fprintf(ew, "<p class=\"fail\">FAILED in %s: %s %s%s: %s</p>\n", render.Esc(sideName(c, f.In)), render.Esc(f.Target), render.Esc(f.Workload), sizeSuffix(c, f.Size), render.Esc(f.Error))
	}
	for _, u := range c.Unpaired {
		class := "note"
		if u.Gate == GateFail {
			class = "fail"
		}
		fmt.Fprintf(ew, "<p class=\"%s\">%s</p>\n", class, render.Esc(missingText(c, u)))
	}
	for _, n := range c.Notes {
		fmt.Fprintf(ew, "<p class=\"note\">note: %s</p>\n", render.Esc(n))
	}
	fmt.Fprintf(ew, "<p class=\"note\">%s</p>\n", render.Esc(legend(c)))
	render.WritePageEnd(ew)
	return ew.Err()
}

func verdictClass(r Row) string {
	switch r.Gate {
	case GateFail:
		return "fail"
	case GateInconclusive:
		return "inconclusive"
	}
	switch r.Verdict {
	case Worse:
		return "worse"
	case Better:
		return "better"
	}
	return ""
}

// ChangeCharts returns one chart per figure: x is the workload (and size), one series per target,
// y the change in percent with its confidence interval, the axis named after the figure. Tests count what the browser draws against
// these.
func ChangeCharts(c *Comparison) []render.Chart {
	var figures []string
	for _, r := range c.Rows {
		if !slices.Contains(figures, r.Figure) {
			figures = append(figures, r.Figure)
		}
	}
	var out []render.Chart
	for _, fig := range figures {
		if ch, ok := changeChart(c, fig); ok {
			out = append(out, ch)
		}
	}
	return out
}

// changeChart is the chart of one figure's changes; false when no row of it has a change.
func changeChart(c *Comparison, fig string) (render.Chart, bool) {
	var cats, targets []string
	var rows []Row
	for _, r := range c.Rows {
		if r.Figure != fig || math.IsNaN(float64(r.Change)) {
			continue
		}
		rows = append(rows, r)
		if cat := category(c, r); !slices.Contains(cats, cat) {
			cats = append(cats, cat)
		}
		if !slices.Contains(targets, r.Target) {
			targets = append(targets, r.Target)
		}
	}
	if len(rows) == 0 {
		return render.Chart{}, false
	}
	name := fig
	if c.NormalizeBy != "" {
		name += "/" + c.NormalizeBy
	}
	better := "lower is better"
	if rows[0].HigherBetter {
		better = "higher is better"
	}
	xLabel := "workload"
	if c.Sweep {
		xLabel = "workload @ dataset size (persons)"
	}
	ch := render.Chart{
		ID:          "change-" + fig,
		Title:       fmt.Sprintf("%s: change from OLD to NEW (%s)", name, better),
		XLabel:      xLabel,
		YLabel:      fmt.Sprintf("%s change (%%)", name),
		XCategories: cats,
		Dodge:       true,
		YFormat:     func(v float64) string { return FormatChange(v / 100) },
		Marks:       []render.Mark{{X0: math.NaN(), X1: math.NaN(), Y: 0}},
	}
	for _, t := range targets {
		ch.Series = append(ch.Series, changeSeries(c, fig, t, cats, rows))
	}
	ch.Marks = append(ch.Marks, gateMarks(c, cats, rows)...)
	return ch, true
}

// changeSeries is target t's changes of a figure, one point per category with its interval.
func changeSeries(c *Comparison, fig, t string, cats []string, rows []Row) render.Series {
	s := render.Series{Name: t}
	for _, r := range rows {
		if r.Target != t {
			continue
		}
		p := render.Pt(float64(slices.Index(cats, category(c, r))), 100*float64(r.Change),
			fmt.Sprintf("%s %s %s → %s, %s %s, %s", r.Workload, fig, value(r, float64(r.Old.Median)), value(r, float64(r.New.Median)), FormatChange(float64(r.Change)), ci(r, false), r.Verdict.Label()))
		lo, hi := float64(r.ChangeLo), float64(r.ChangeHi)
		if r.Decision != nil { // the interval the gate decided on, as the table shows it
			lo, hi = float64(r.Decision.Lo), float64(r.Decision.Hi)
		}
		if !math.IsNaN(lo) && !math.IsNaN(hi) {
			p.Lo, p.Hi = 100*lo, 100*hi
		}
		s.Points = append(s.Points, p)
	}
	return s
}

// gateMarks draws the gate's threshold over each category whose rows share one.
func gateMarks(c *Comparison, cats []string, rows []Row) []render.Mark {
	var marks []render.Mark
	for i, cat := range cats {
		var in []Row
		for _, r := range rows {
			if category(c, r) == cat {
				in = append(in, r)
			}
		}
		if th, ok := commonThreshold(in); ok {
			y := 100 * th
			if in[0].HigherBetter {
				y = -y
			}
			marks = append(marks, render.Mark{X0: float64(i) - 0.45, X1: float64(i) + 0.45, Y: y, Label: "gate " + FormatPercent(th), Bad: true})
		}
	}
	return marks
}

func category(c *Comparison, r Row) string {
	return r.Workload + sizeSuffix(c, r.Size)
}

// commonThreshold is the gate threshold shared by every row of a figure, if they share one.
func commonThreshold(rows []Row) (float64, bool) {
	var th *float64
	if len(rows) == 0 {
		return 0, false
	}
	for _, r := range rows {
		if r.Threshold == nil {
			return 0, false
		}
		if th != nil && *th != *r.Threshold {
			return 0, false
		}
		th = r.Threshold
	}
	return *th, true
}

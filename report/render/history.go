package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dbbench/dbbench/report"
)

// sparkBlocks draw a trend in one line of text, lowest to highest.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkMax is how many of the latest runs a text trend shows.
const sparkMax = 24

// sparkline draws vs (NaN: a gap, drawn as a space) scaled between their smallest and largest value.
func sparkline(vs []float64) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if !math.IsNaN(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	var b strings.Builder
	for _, v := range vs {
		switch {
		case math.IsNaN(v):
			b.WriteRune(' ')
		case hi == lo:
			b.WriteRune(sparkBlocks[len(sparkBlocks)/2])
		default:
			b.WriteRune(sparkBlocks[int(math.Round((v-lo)/(hi-lo)*float64(len(sparkBlocks)-1)))])
		}
	}
	return b.String()
}

// firstLast returns the first and last values that are there, and how many are.
func firstLast(vs []float64) (first, last float64, n int) {
	first, last = math.NaN(), math.NaN()
	for _, v := range vs {
		if math.IsNaN(v) {
			continue
		}
		if n == 0 {
			first = v
		}
		last = v
		n++
	}
	return first, last, n
}

// HistoryText writes one table per config: each figure's first and latest median, the change
// between them (worse or better only where the test over runs decides it, else changed; not
// comparable across a schema version that redefined it), and a sparkline of the latest runs.
func HistoryText(w io.Writer, hs []report.History) error {
	ew := NewErrWriter(w)
	var notes []string
	for i, h := range hs {
		if i > 0 {
			fmt.Fprintln(ew)
		}
		fmt.Fprintln(ew, Wrap(fmt.Sprintf("config %s: %s, %s to %s", h.Config, plural(len(h.Runs), "report"), h.Runs[0].Started, h.Runs[len(h.Runs)-1].Started), DefaultWidth, "  "))
		sweep := false
		for _, t := range h.Trends {
			sweep = sweep || t.Size != h.Trends[0].Size
		}
		head := []string{"TARGET", "WORKLOAD"}
		if sweep {
			head = append(head, "SIZE")
		}
		first := len(head)
		head = append(head, "FIGURE", "FIRST", "LATEST", "CHANGE", "REPORTS", fmt.Sprintf("TREND (last %d)", min(sparkMax, len(h.Runs))))
		tb := NewTable(head...)
		if sweep {
			tb.AlignRight(first - 1)
		}
		tb.AlignRight(first+1, first+2, first+3, first+4)
		for _, t := range h.Trends {
			row := []string{t.Target, t.Workload}
			if sweep {
				row = append(row, fmt.Sprint(t.Size))
			}
			a, b, n := firstLast(t.Values)
			change := "-"
			switch {
			case t.NotComparable != "":
				change = "not comparable"
				notes = appendOnce(notes, "not comparable: "+t.NotComparable)
			case n > 1 && !math.IsNaN(t.Change):
				change = strings.TrimSpace(fmt.Sprintf("%+.1f%% %s", 100*t.Change, t.Verdict))
			}
			vals := t.Values
			if len(vals) > sparkMax {
				vals = vals[len(vals)-sparkMax:]
			}
			tb.Add(append(row, t.Figure, FigureValue(t.Figure, a), FigureValue(t.Figure, b), change, fmt.Sprint(n), sparkline(vals))...)
		}
		tb.Fit(DefaultWidth, 0, 1)
		tb.Write(ew)
	}
	fmt.Fprintln(ew)
	for _, n := range notes {
		fmt.Fprintln(ew, Wrap(n, DefaultWidth, "  "))
	}
	fmt.Fprintln(ew, Wrap(fmt.Sprintf("FIRST and LATEST are medians over each report's repeats; reports ordered by start time. CHANGE says worse or better "+
		"only where a Mann-Whitney U test over the first and the latest report's runs decides it (alpha %s; each run one sample, "+
		"so it takes several a report: dbbench run --runs 5), else changed.", strconv.FormatFloat(report.HistoryAlpha, 'f', -1, 64)), DefaultWidth, ""))
	return ew.Err()
}

// appendOnce appends s unless list has it.
func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// HistoryCharts are the charts of the history page: per config, workload (and size) and figure, one
// line per target across the runs.
func HistoryCharts(hs []report.History) []Section {
	var secs []Section
	for _, h := range hs {
		sec := Section{Title: "config " + h.Config, Note: fmt.Sprintf("%s, %s to %s; x is the report, in start order; each point the median over that report's repeats.", plural(len(h.Runs), "report"), h.Runs[0].Started, h.Runs[len(h.Runs)-1].Started)}
		type key struct {
			wl, fig string
			size    int
		}
		var keys []key
		for _, t := range h.Trends {
			k := key{t.Workload, t.Figure, t.Size}
			found := false
			for _, x := range keys {
				found = found || x == k
			}
			if !found {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			fig := k.fig
			c := Chart{
				ID:      chartID("history", h.Config, k.wl, k.size, fig),
				Title:   fmt.Sprintf("%s %s (%s persons): %s", h.Config, k.wl, Grouped(int64(k.size)), fig),
				XLabel:  "report",
				YLabel:  fig,
				XFormat: func(v float64) string { return fmt.Sprintf("%.0f", v) },
				YFormat: func(v float64) string { return FigureValue(fig, v) },
			}
			for _, t := range h.Trends {
				if t.Workload != k.wl || t.Figure != k.fig || t.Size != k.size {
					continue
				}
				s := Series{Name: t.Target, Line: true, Gap: 1} // no line across a run without the result
				for i, v := range t.Values {
					if math.IsNaN(v) {
						continue
					}
					run := h.Runs[i]
					s.Points = append(s.Points, Pt(float64(i+1), v, fmt.Sprintf("report %d, %s, commit %s: %s", i+1, run.Started, run.Commit, FigureValue(fig, v))))
				}
				if len(s.Points) > 0 {
					c.Series = append(c.Series, s)
				}
			}
			if len(c.Series) > 0 {
				sec.Charts = append(sec.Charts, c)
			}
		}
		secs = append(secs, sec)
	}
	return secs
}

// HistoryHTML writes the history as a self-contained page (see HTML).
func HistoryHTML(w io.Writer, hs []report.History) error {
	ew := NewErrWriter(w)
	WritePageStart(ew, "dbbench history")
	fmt.Fprintln(ew, "<h1>dbbench history</h1>")
	for _, h := range hs {
		fmt.Fprintf(ew, "<h2>config %s: reports</h2>\n<table><tr><th class=n>#</th><th>started</th><th>commit</th><th>report</th></tr>\n", esc(h.Config))
		for i, r := range h.Runs {
			ci := ""
			if r.CI {
				ci = " (--ci)"
			}
			fmt.Fprintf(ew, "<tr><td class=n>%d</td><td>%s</td><td>%s</td><td>%s%s</td></tr>\n", i+1, esc(r.Started), esc(r.Commit), esc(r.Path), ci)
		}
		fmt.Fprintln(ew, "</table>")
	}
	for _, sec := range HistoryCharts(hs) {
		fmt.Fprintf(ew, "<h2>%s</h2>\n<p class=\"note\">%s</p>\n", esc(sec.Title), esc(sec.Note))
		for i := range sec.Charts {
			sec.Charts[i].WriteSVG(ew)
		}
	}
	WritePageEnd(ew)
	return ew.Err()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

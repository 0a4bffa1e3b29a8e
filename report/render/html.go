package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/dbbench/dbbench/report"
)

// HTML writes r as one self-contained page: the environment and verdict, every assertion with its
// inputs, and per workload (and size) the latency distribution of every target on HdrHistogram's
// percentile axis and every repeat as a point; for an open-loop result its clocks per operation type
// and its achieved rate and response times over time; for a sweep, each workload's figure against
// size with the growth assertions' limits. Charts are inline SVG (see svg.go); the page loads nothing. kinds
// (may be nil) tells which options are sizes, to show them in bytes.
func HTML(w io.Writer, r *report.Report, kinds OptionKinds) error {
	ew := NewErrWriter(w)
	charts, err := ReportCharts(r)
	if err != nil {
		return err
	}
	title := "dbbench " + r.Run.ConfigName
	WritePageStart(ew, title)
	fmt.Fprintf(ew, "<h1>%s</h1>\n", esc(title))
	fmt.Fprintf(ew, "<p><span class=\"verdict %s\">%s</span> %s</p>\n", esc(string(r.Verdict)), strings.ToUpper(esc(strings.ReplaceAll(string(r.Verdict), "_", " "))), esc(verdictText(r)))
	htmlEnvironment(ew, r, kinds)
	htmlResults(ew, r)
	htmlMemory(ew, r)
	htmlPhases(ew, r)
	htmlLoads(ew, r)
	htmlAssertions(ew, r)
	for _, sec := range charts {
		fmt.Fprintf(ew, "<h2>%s</h2>\n", esc(sec.Title))
		if sec.Note != "" {
			fmt.Fprintf(ew, "<p class=\"note\">%s</p>\n", esc(sec.Note))
		}
		if sec.Bars != nil {
			sec.Bars.WriteSVG(ew)
		}
		for i := range sec.Charts {
			sec.Charts[i].WriteSVG(ew)
		}
	}
	WritePageEnd(ew)
	return ew.Err()
}

// Section is a titled group of charts: a workload's phases as bars (with --profile), then its charts.
type Section struct {
	Title, Note string
	Bars        *PhaseBars
	Charts      []Chart
}

// ReportCharts builds the charts of a report's page, in page order. Tests count what the browser
// draws against these.
func ReportCharts(r *report.Report) ([]Section, error) {
	var secs []Section
	sweep := len(r.Run.Sizes) > 1
	colours := PhaseColours(r)
	for _, g := range groupResults(r) {
		title := g.workload
		if sweep {
			title += fmt.Sprintf(" at %s persons", Grouped(int64(g.size)))
		}
		sec := Section{Title: title, Bars: phaseBars(g, colours)}
		if c, err := distributionChart(g, sweep); err != nil {
			return nil, err
		} else if c != nil {
			sec.Charts = append(sec.Charts, *c)
		}
		if c := repeatsChart(g, sweep); c != nil {
			sec.Charts = append(sec.Charts, *c)
		}
		for _, x := range g.results {
			if x.Load != nil {
				sec.Charts = append(sec.Charts, loadCharts(r, x)...)
			}
		}
		if len(sec.Charts) > 0 || sec.Bars != nil {
			secs = append(secs, sec)
		}
	}
	if sweep {
		sec := Section{Title: "Growth across sizes", Note: "Median over repeats at each size; dashed red: the limit a growth assertion allows at its size."}
		limits := r.GrowthLimits()
		for _, wl := range r.WorkloadNames() {
			if c := sweepChart(r, wl, limits); c != nil {
				sec.Charts = append(sec.Charts, *c)
			}
		}
		if len(sec.Charts) > 0 {
			secs = append(secs, sec)
		}
	}
	return secs, nil
}

type resultGroup struct {
	workload string
	size     int
	results  []*report.Result
}

// groupResults groups measured results by (workload, size) in run order.
func groupResults(r *report.Report) []resultGroup {
	var out []resultGroup
	for i := range r.Results {
		x := &r.Results[i]
		if len(x.Repeats) == 0 {
			continue
		}
		j := slices.IndexFunc(out, func(g resultGroup) bool { return g.workload == x.Workload && g.size == x.Size })
		if j < 0 {
			out = append(out, resultGroup{workload: x.Workload, size: x.Size})
			j = len(out) - 1
		}
		out[j].results = append(out[j].results, x)
	}
	return out
}

func chartID(parts ...any) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('-')
		}
		b.WriteString(fileSafe(fmt.Sprint(p)))
	}
	return b.String()
}

// distributionChart plots each target's merged latency distribution against 1/(1-p). The max sits at
// percentile 1-1/count: the rank of the largest of count samples.
func distributionChart(g resultGroup, sweep bool) (*Chart, error) {
	c := &Chart{
		ID:      chartID("dist", g.workload, g.size),
		Title:   fmt.Sprintf("%s: latency by percentile (all repeats merged)", g.workload),
		XLabel:  "percentile (HdrHistogram scale, 1/(1-p))",
		YLabel:  "latency",
		XScale:  InvTail,
		YScale:  Linear,
		XFormat: PercentLabel,
		YFormat: Ns,
	}
	var lo, hi float64 = math.Inf(1), 0
	for _, x := range g.results {
		h, err := x.MergedHistogram()
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", x.Target, x.Workload, err)
		}
		pts := report.Distribution(h, report.DistributionTicks)
		if len(pts) == 0 {
			continue
		}
		s := Series{Name: x.Target, Line: true}
		top := 100 * (1 - 1/float64(h.TotalCount()))
		for _, p := range pts {
			pct := math.Min(p.Percentile, top)
			if n := len(s.Points); n > 0 && pct <= s.Points[n-1].X {
				s.Points[n-1] = Pt(s.Points[n-1].X, p.Value, fmt.Sprintf("p%s %s", trimFloat(p.Percentile), Ns(p.Value)))
				continue
			}
			s.Points = append(s.Points, Pt(pct, p.Value, fmt.Sprintf("p%s %s", trimFloat(p.Percentile), Ns(p.Value))))
			lo, hi = math.Min(lo, p.Value), math.Max(hi, p.Value)
		}
		c.Series = append(c.Series, s)
	}
	if len(c.Series) == 0 {
		return nil, nil
	}
	if hi/lo > 20 {
		c.YScale = Log10
	}
	return c, nil
}

// repeatsChart plots each target's per-repeat value of the group's primary figure, in repeat order,
// so drift and noise show.
func repeatsChart(g resultGroup, sweep bool) *Chart {
	fig := ""
	for _, x := range g.results {
		if fig = report.PrimaryFigure(x); fig != "" {
			break
		}
	}
	if fig == "" {
		return nil
	}
	info, _ := report.LookupFigure(fig)
	c := &Chart{
		ID:      chartID("repeats", g.workload, g.size),
		Title:   fmt.Sprintf("%s: %s of every repeat (%s)", g.workload, fig, info.Help),
		XLabel:  "repeat (targets interleaved within each)",
		YLabel:  fig,
		XFormat: func(v float64) string { return fmt.Sprintf("%.0f", v) },
		YFormat: func(v float64) string { return FigureValue(fig, v) },
	}
	var lo, hi float64 = math.Inf(1), 0
	for _, x := range g.results {
		s := Series{Name: x.Target}
		for _, rep := range x.Repeats {
			v, ok := rep.Figures[fig]
			if !ok {
				continue
			}
			s.Points = append(s.Points, Pt(float64(rep.Index+1), v, fmt.Sprintf("repeat %d: %s", rep.Index+1, FigureValue(fig, v))))
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if len(s.Points) > 0 {
			c.Series = append(c.Series, s)
		}
	}
	if len(c.Series) == 0 {
		return nil
	}
	if lo > 0 && hi/lo > 20 {
		c.YScale = Log10
	}
	return c
}

// sweepChart plots a workload's primary figure (median over repeats) against dataset size, one line
// per target, with the limits of growth assertions on that figure.
func sweepChart(r *report.Report, wl string, limits []report.GrowthLimit) *Chart {
	fig := ""
	for i := range r.Results {
		if x := &r.Results[i]; x.Workload == wl && len(x.Repeats) > 0 {
			if fig = report.PrimaryFigure(x); fig != "" {
				break
			}
		}
	}
	// a growth assertion on another figure of this workload decides which figure is drawn
	for _, l := range limits {
		if l.Ref.Workload == wl {
			fig = l.Ref.Figure
			break
		}
	}
	if fig == "" {
		return nil
	}
	c := &Chart{
		ID:      chartID("sweep", wl, fig),
		Title:   fmt.Sprintf("%s: %s against dataset size", wl, fig),
		XLabel:  "persons",
		YLabel:  fig,
		XScale:  Log10,
		YScale:  Log10,
		XFormat: Count,
		YFormat: func(v float64) string { return FigureValue(fig, v) },
	}
	var targets []string
	for _, x := range r.Results {
		if x.Workload == wl && !slices.Contains(targets, x.Target) {
			targets = append(targets, x.Target)
		}
	}
	for _, t := range targets {
		s := Series{Name: t, Line: true}
		for _, size := range r.Run.Sizes {
			x := r.Find(t, wl, size)
			if x == nil || len(x.Repeats) == 0 {
				continue
			}
			if v, ok := x.Figures[fig]; ok && v > 0 {
				s.Points = append(s.Points, Pt(float64(size), v, fmt.Sprintf("%s persons: %s", Grouped(int64(size)), FigureValue(fig, v))))
			}
		}
		if len(s.Points) > 0 {
			c.Series = append(c.Series, s)
		}
	}
	if len(c.Series) == 0 {
		return nil
	}
	for _, l := range limits {
		if l.Ref.Workload != wl || l.Ref.Figure != fig || l.Limit <= 0 {
			continue
		}
		label := l.Assertion.Name
		if label == "" {
			label = l.Assertion.Expr
		}
		label = fmt.Sprintf("%s limit %s (%s)", l.Ref.Target, FigureValue(fig, l.Limit), label)
		c.Marks = append(c.Marks, Mark{X0: float64(l.Size) / 1.25, X1: float64(l.Size) * 1.02, Y: l.Limit, Label: label, Bad: true})
	}
	return c
}

func verdictText(r *report.Report) string {
	var b strings.Builder
	verdictLine(&b, r)
	s := strings.TrimSpace(b.String())
	s = strings.TrimPrefix(s, "verdict: ")
	_, rest, ok := strings.Cut(s, ": ")
	if ok {
		return rest
	}
	return ""
}

// configText names a run's config and where it came from: "lmdb (configs/lmdb.yaml)", "lmdb
// (built-in)", the path alone when there is no name.
func configText(run report.Run) string {
	where := run.ConfigPath
	if b, ok := strings.CutPrefix(where, "(built-in) "); ok {
		where = "built-in"
		if b != run.ConfigName {
			where += " " + b
		}
	}
	switch {
	case where == "":
		return run.ConfigName
	case run.ConfigName == "":
		return where
	}
	return fmt.Sprintf("%s (%s)", run.ConfigName, where)
}

func htmlEnvironment(w io.Writer, r *report.Report, kinds OptionKinds) {
	e, run := r.Environment, r.Run
	sizes := make([]string, len(run.Sizes))
	for i, s := range run.Sizes {
		sizes[i] = Grouped(int64(s))
	}
	ci := ""
	if run.CI {
		ci = ", CI mode"
		if run.Relax > 0 {
			ci = fmt.Sprintf(", CI mode (thresholds relaxed %s%%)", trimFloat(100*run.Relax))
		}
	}
	rows := [][2]string{
		{"config", configText(run) + ci},
		{"dataset", strings.Join(sizes, ", ") + " persons"},
		{"repeats", fmt.Sprintf("%d after %d warm-up, %s", run.Repeats, run.Warmup, run.Order)},
		{"started", fmt.Sprintf("%s, took %s", run.StartedAt.Format("2006-01-02 15:04:05 MST"), Duration(run.FinishedAt.Sub(run.StartedAt)))},
		{"dbbench", fmt.Sprintf("%s (commit %s)", r.Tool.Version, r.Tool.Commit)},
		{"machine", fmt.Sprintf("%s, %d cores, %s memory, %s/%s %s, %s, GOMAXPROCS %d", e.CPUModel, e.Cores, Bytes(e.MemoryBytes), e.OS, e.Arch, e.Kernel, e.GoVersion, e.GOMAXPROCS)},
		{"harness", fmt.Sprintf("a no-op operation records %s; the timed loop costs %s per iteration", Ns(run.Harness.TimerNs), Ns(run.Harness.LoopNs))},
	}
	if run.CommandLine != "" {
		rows = append(rows, [2]string{"command", run.CommandLine})
	}
	fmt.Fprintln(w, "<h2>Run</h2>\n<table>")
	for _, row := range rows {
		fmt.Fprintf(w, "<tr><th>%s</th><td>%s</td></tr>\n", esc(row[0]), esc(row[1]))
	}
	for _, t := range r.Targets {
		status := string(t.Status)
		if t.Reason != "" {
			status += ": " + t.Reason
		}
		fmt.Fprintf(w, "<tr><th>target %s</th><td>adapter %s %s; %s</td></tr>\n", esc(t.Name), esc(t.Adapter), esc(OptionsText(t.Adapter, t.Options, kinds)), esc(status))
	}
	fmt.Fprintln(w, "</table>")
}

// htmlResultRowStart opens a table row of a result: its target, workload and (in a sweep) size.
func htmlResultRowStart(w io.Writer, x *report.Result, sweep bool) {
	fmt.Fprintf(w, "<tr><td>%s</td><td>%s</td>", esc(x.Target), esc(x.Workload))
	if sweep {
		fmt.Fprintf(w, "<td class=n>%s</td>", Grouped(int64(x.Size)))
	}
}

func htmlResults(w io.Writer, r *report.Report) {
	sweep := len(r.Run.Sizes) > 1
	fmt.Fprintln(w, "<h2>Results</h2>\n<table class=\"results\">\n<tr><th>target</th><th>workload</th>")
	if sweep {
		fmt.Fprint(w, "<th class=n>size</th>")
	}
	fmt.Fprint(w, "<th class=n>ops</th><th class=n>rows/s</th><th class=n>ns/row</th><th class=n>p50</th><th class=n>p90</th><th class=n>p99</th><th class=n>p99.9 (merged)</th><th class=n>max (merged)</th><th class=n>errors</th>")
	mem := memoryHeadline(r)
	for _, c := range mem {
		fmt.Fprintf(w, "<th class=n>%s</th>", esc(strings.ToLower(c.head)))
	}
	fmt.Fprintln(w, "<th></th></tr>")
	for i := range r.Results {
		x := &r.Results[i]
		htmlResultRowStart(w, x, sweep)
		cells := resultCells(x)
		st := cells[len(cells)-1]
		for _, c := range append(cells[:len(cells)-1], memoryCells(x, mem)...) {
			fmt.Fprintf(w, "<td class=n>%s</td>", esc(c))
		}
		fmt.Fprintf(w, "<td class=\"%s\">%s</td></tr>\n", esc(strings.ToLower(st)), esc(st))
	}
	fmt.Fprintln(w, "</table>")
	fmt.Fprintf(w, "<p class=\"note\">%s</p>\n", esc(resultsLegend(r)))
	if len(mem) > 0 {
		fmt.Fprintf(w, "<p class=\"note\">%s</p>\n", esc(memoryHeadlineNote))
	}
	var notes []string
	for _, x := range r.Results {
		if x.Status != report.StatusOK {
			notes = append(notes, fmt.Sprintf("FAILED %s %s%s: %s", x.Target, x.Workload, sizeSuffix(r, x.Size), x.Error))
		}
		for _, warn := range x.Warnings {
			notes = append(notes, fmt.Sprintf("warning %s %s%s: %s", x.Target, x.Workload, sizeSuffix(r, x.Size), warn))
		}
	}
	for _, n := range notes {
		fmt.Fprintf(w, "<p class=\"note\">%s</p>\n", esc(n))
	}
}

func htmlAssertions(w io.Writer, r *report.Report) {
	if len(r.Assertions) == 0 {
		return
	}
	fmt.Fprintln(w, "<h2>Assertions</h2>\n<table>\n<tr><th>assertion</th><th class=n>left</th><th class=n>right</th><th>decided on</th><th>values decided on</th><th>verdict</th></tr>")
	for _, a := range r.Assertions {
		check := a.Expr
		if a.Name != "" {
			check = a.Name + ": " + a.Expr
		}
		sides := a.Left
		if a.Right != "" {
			sides += " vs " + a.Right
		}
		switch a.Verdict {
		case report.VerdictSkipped, report.VerdictLeftOut, report.VerdictError:
			// nothing was decided: say why (an error names the figure that was missing)
			why := a.Reason
			if why == "" {
				why = a.Why
			}
			class := "skipped"
			if a.Verdict == report.VerdictError {
				class = "error"
			}
			fmt.Fprintf(w, "<tr><td>%s<br><code>%s</code></td><td>-</td><td>-</td><td>%s</td><td></td><td class=%s>%s</td></tr>\n",
				esc(check), esc(sides), esc(why), class, strings.ToUpper(esc(string(a.Verdict))))
			continue
		}
		left, right := FigureValue(figureOf(a.Left), a.LeftValue), "-"
		if a.Form != "absolute" {
			right = FigureValue(figureOf(a.Right), a.RightValue)
		}
		// the values the verdict was decided on: one per run (schema 2), else one per repeat of the one run
		vals, label := a.RunValues, "runs: "
		if len(vals) == 0 {
			vals, label = a.PerRepeat, "repeats: "
		}
		per := make([]string, len(vals))
		for i, v := range vals {
			per[i] = trimFloat(v)
			if a.Form != "ratio" {
				per[i] = FigureValue(figureOf(a.Left), v)
			}
		}
		decided := decidedOn(a)
		if a.Verdict == report.VerdictInconclusive && a.Why != "" {
			decided += "; " + a.Why
		}
		fmt.Fprintf(w, "<tr><td>%s<br><code>%s</code></td><td class=n>%s</td><td class=n>%s</td><td>%s</td><td>%s</td><td class=%s>%s</td></tr>\n",
			esc(check), esc(sides), esc(left), esc(right), esc(decided), esc(label+strings.Join(per, " ")), esc(string(a.Verdict)), strings.ToUpper(esc(string(a.Verdict))))
	}
	fmt.Fprintln(w, "</table>")
}

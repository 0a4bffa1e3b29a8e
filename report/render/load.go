package render

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/dbbench/dbbench/report"
)

// The open-loop part of a report (report.Load): what the schedule asked and what was achieved, the
// counts, the saturation, the generator's cost, and per operation type the three clocks under the
// names they have everywhere ("response", "service", "start lag"), so that none is read as another.

// clockNames are the three clocks in the order they are shown, with how each is measured, and the
// failed operations' response times, which are in none of the clocks.
var clockNames = []struct{ name, from string }{
	{"response", "from the intended start: what a user waits"},
	{"service", "from the actual start: what the store took"},
	{"start lag", "actual minus intended start"},
	{"failed", "response time of the operations that failed, in no clock"},
}

// clockSummaries returns an operation type's clock summaries in clockNames' order: nil for a clock
// it does not have (a closed loop's start lag; no failed operation).
func clockSummaries(t report.LoadType) []map[string]float64 {
	return []map[string]float64{t.Response, t.Service, t.StartLag, t.Failed}
}

// Loads writes, after the results table, a block per open-loop result (per target and workload, and
// size in a sweep); nothing when no result ran open-loop.
func Loads(w io.Writer, r *report.Report, st Style) {
	loads := loadResults(r)
	if len(loads) == 0 {
		return
	}
	var legend []string
	for _, c := range clockNames {
		legend = append(legend, c.name+" "+c.from)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, wrap("LOAD MODEL (clocks: "+strings.Join(legend, "; ")+")", st.width(), "  "))
	for _, x := range loads {
		loadBlock(w, r, x, st)
	}
}

// loadResults are the report's open-loop results, in report order.
func loadResults(r *report.Report) []*report.Result {
	var out []*report.Result
	for i := range r.Results {
		if r.Results[i].Load != nil {
			out = append(out, &r.Results[i])
		}
	}
	return out
}

// loadBlock writes one open-loop result: a head line with its saturation, the rate, the counts, the
// generator, the clocks table and the time series in brief.
func loadBlock(w io.Writer, r *report.Report, x *report.Result, st Style) {
	l := x.Load
	line := func(s string) { fmt.Fprintln(w, wrap("  "+s, st.width(), "      ")) }
	fmt.Fprintln(w, wrap(fmt.Sprintf("%s %s%s: %s", x.Target, x.Workload, sizeSuffix(r, x.Size), loadHeadText(l)), st.width(), "  "))
	line("rate: " + loadRateText(l))
	line("operations: " + loadCountsText(l))
	if l.Loop != "closed" {
		line("generator: " + generatorText(l.Generator))
	}
	if c := checksText(x); c != "" {
		line("checks: " + c)
	}
	var b strings.Builder
	clocksTable(l).Write(&b)
	for _, s := range strings.SplitAfter(strings.TrimRight(b.String(), "\n"), "\n") {
		fmt.Fprint(w, "  "+s)
	}
	fmt.Fprintln(w)
	if len(l.Statements) > 0 {
		b.Reset()
		statementsTable(l.Statements).Write(&b)
		for _, s := range strings.SplitAfter(strings.TrimRight(b.String(), "\n"), "\n") {
			fmt.Fprint(w, "  "+s)
		}
		fmt.Fprintln(w)
	}
	if s := seriesText(l); s != "" {
		line("series: " + s)
	}
	if l.Hlog != "" {
		line("interval log: " + l.Hlog)
	}
}

// loadHeadText is what a load result's head line says: a closed loop has no schedule to keep, an
// open loop's saturation says what it means for the figures.
func loadHeadText(l *report.Load) string {
	if l.Loop == "closed" {
		return "closed loop: each worker starts its next operation when its last ends (no schedule, so no start lag, late, waited or dropped)"
	}
	return SaturationText(l.Saturation)
}

// SaturationText says what a result's saturation means for its figures.
func SaturationText(s string) string {
	switch s {
	case "":
		return "not saturated: the workers kept up with the schedule"
	case "target saturated":
		return "TARGET SATURATED: more than 1% of the operations waited for a worker or were dropped (every worker busy with the store)"
	case "generator stalled":
		return "generator stalled: dbbench handed more than 1% of the operations over late with workers free, then caught up (the machine took its CPU for a while); their response times include it"
	case "generator saturated":
		return "GENERATOR SATURATED: dbbench itself fell behind the schedule with workers free; these figures say nothing of the target"
	}
	return strings.ToUpper(s)
}

// loadRateText is the achieved rate against the target rate and the schedule that set it.
func loadRateText(l *report.Load) string {
	if l.Loop == "closed" {
		return fmt.Sprintf("achieved %s (operations that succeeded), %d workers, span %s", Rate(l.Achieved), l.Workers, Ns(float64(l.SpanNs)))
	}
	share := "-"
	if l.TargetRate > 0 {
		share = fmt.Sprintf("%.1f%%", 100*l.Achieved/l.TargetRate)
	}
	return fmt.Sprintf("achieved %s of %s targeted (%s), %s arrivals, %s policy, %d workers, %s scheduled (span %s)",
		Rate(l.Achieved), Rate(l.TargetRate), share, l.Arrivals, l.Policy, l.Workers, Ns(float64(l.DurationNs)), Ns(float64(l.SpanNs)))
}

// loadCountsText is what became of the operations: completed (without an error) and failed apart,
// and, in an open loop, what the schedule saw.
func loadCountsText(l *report.Load) string {
	errs := fmt.Sprintf("errors %d (%s of the operations performed), timed out %d", l.Errors, errorRateText(l), l.TimedOut)
	if l.Loop == "closed" {
		return fmt.Sprintf("completed %d, %s", l.Completed, errs)
	}
	return fmt.Sprintf("scheduled %d, completed %d, %s, late %d (sent more than %s after the intended start), waited for a worker %d (every worker busy), dropped %d",
		l.Scheduled, l.Completed, errs, l.Late, Ns(float64(l.LateAfter)), l.Waited, l.Dropped)
}

// errorRateText is a load's error rate as a percentage; from its counts in a report before schema
// version 3 (which has none, and counted errors among the completed).
func errorRateText(l *report.Load) string {
	rate := l.ErrorRate
	if rate == 0 && l.Errors > 0 && l.Completed > 0 {
		rate = float64(l.Errors) / float64(l.Completed)
	}
	return percentText(rate)
}

// checksText is what the verification checked over a load result's run phases, saying how many
// reads were not checked (ycsb.check_sample).
func checksText(x *report.Result) string {
	c := x.Load.Checks
	if c.Expects > 0 || c.Comparisons > 0 || c.FirstResults > 0 {
		s := fmt.Sprintf("%d results against their statement's expect, %d results of check: same against the first with the same arguments (%d first results kept)",
			c.Expects, c.Comparisons, c.FirstResults)
		if c.SameUnchecked > 0 {
			s += fmt.Sprintf(", %d NOT COMPARED (past the memory budget)", c.SameUnchecked)
		}
		return s
	}
	if c.Reads == 0 && c.ReadsUnchecked == 0 && c.Scans == 0 && c.ReadBack == 0 {
		return ""
	}
	reads := fmt.Sprintf("every read (%d)", c.Reads)
	if c.ReadsUnchecked > 0 {
		reads = fmt.Sprintf("%d reads, %d NOT CHECKED (past the verification's memory budget; ycsb.check_sample accepts that)", c.Reads, c.ReadsUnchecked)
	}
	s := reads + " against the versions its record could hold"
	if c.Scans > 0 {
		s += fmt.Sprintf(", %d scans (%d by their row count only: a write overlapped)", c.Scans, c.ScansInexact)
	}
	return s + fmt.Sprintf(", %d records written read back after the run", c.ReadBack)
}

// generatorText is what the dispatcher cost.
func generatorText(g report.LoadGenerator) string {
	cpu := "CPU not measured"
	if g.CPUMeasured {
		cpu = fmt.Sprintf("CPU %s of a core (spinning included)", percentText(g.CPUShare))
	}
	return fmt.Sprintf("%s, work per op %s (waiting excluded), %d started late by the generator itself with a worker free, max lag %s",
		cpu, Ns(g.WorkPerOpNs), g.Late, Ns(float64(g.MaxLagNs)))
}

// percentText writes a share (0.123) as a percentage with three significant digits ("12.3%").
func percentText(share float64) string { return sig3(100*share) + "%" }

// statementsTable lays out a sql workload's statements, as pgbench -r does: per transaction and
// statement its executions, failures and execution times, and its text on one line (cut).
func statementsTable(stmts []report.LoadStatement) *Table {
	t := NewTable("OP", "STMT", "LINE", "COUNT", "ERRORS", "MEAN", "P50", "P99", "STATEMENT")
	t.AlignRight(1, 2, 3, 4, 5, 6, 7)
	prev := ""
	for _, s := range stmts {
		op := s.Op
		if op == prev {
			op = ""
		}
		prev = s.Op
		text := strings.Join(strings.Fields(s.Text), " ")
		if r := []rune(text); len(r) > 60 {
			text = string(r[:57]) + "..."
		}
		t.Add(op, fmt.Sprint(s.Index), fmt.Sprint(s.Line), fmt.Sprint(s.Count), fmt.Sprint(s.Errors),
			ns(s.Latency, "mean"), ns(s.Latency, "p50"), ns(s.Latency, "p99"), text)
	}
	return t
}

// clocksTable lays out per operation type its count and errors and its three clocks' p50, p99,
// p99.9 and max, one row per clock.
func clocksTable(l *report.Load) *Table {
	t := NewTable("OP", "CLOCK", "COUNT", "ERRORS", "P50", "P99", "P99.9", "MAX")
	t.AlignRight(2, 3, 4, 5, 6, 7)
	for _, op := range l.Types {
		first := true
		for i, sum := range clockSummaries(op) {
			if sum == nil {
				continue
			}
			row := []string{"", clockNames[i].name, "", ""}
			if first {
				row, first = []string{op.Op, clockNames[i].name, fmt.Sprint(op.Count), fmt.Sprint(op.Errors)}, false
			}
			for _, k := range []string{"p50", "p99", "p999", "max"} {
				row = append(row, ns(sum, k))
			}
			t.Add(row...)
		}
	}
	return t
}

// seriesText sums up the time series: its intervals, the range of the achieved rate and of the
// response p99 over them, and when the worst p99 was.
func seriesText(l *report.Load) string {
	iv := l.Intervals
	if len(iv) == 0 {
		return ""
	}
	lo, hi, worst := iv[0].Achieved, iv[0].Achieved, 0
	for i, x := range iv {
		lo, hi = min(lo, x.Achieved), max(hi, x.Achieved)
		if x.ResponseP99 > iv[worst].ResponseP99 {
			worst = i
		}
	}
	text := fmt.Sprintf("%d intervals of %s; achieved %s to %s per interval", len(iv), Ns(float64(iv[0].LengthNs)), Rate(lo), Rate(hi))
	if iv[worst].ResponseP99 == 0 { // none: nothing completed, or old shard reports
		return text
	}
	return text + fmt.Sprintf("; response p99 up to %s (in the interval at %s)", Ns(iv[worst].ResponseP99), secondsText(iv[worst].StartNs))
}

// secondsText writes a time since the start in seconds, as a time series' axis reads: "0s", "12s",
// "2.5s".
func secondsText(ns int64) string { return strconv.FormatFloat(float64(ns)/1e9, 'f', -1, 64) + "s" }

// loadCharts are an open-loop result's time series: the achieved rate against the target rate, and
// the response time percentiles, per interval. x is the interval's start, in seconds since the run's.
func loadCharts(r *report.Report, x *report.Result) []Chart {
	iv := x.Load.Intervals
	if len(iv) == 0 {
		return nil
	}
	name := x.Target + " " + x.Workload + sizeSuffix(r, x.Size)
	seconds := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + "s" }
	rate := Chart{
		ID:      chartID("load-rate", x.Target, x.Workload, x.Size),
		Title:   name + ": achieved rate against the target rate, per interval",
		XLabel:  "seconds since the start (interval start)",
		YLabel:  "operations per second",
		XFormat: seconds,
		YFormat: Rate,
	}
	target, achieved := Series{Name: "target rate", Line: true}, Series{Name: "achieved rate", Line: true}
	for _, v := range iv {
		at := float64(v.StartNs) / 1e9
		target.Points = append(target.Points, Pt(at, v.TargetRate, fmt.Sprintf("%s: target %s", seconds(at), Rate(v.TargetRate))))
		achieved.Points = append(achieved.Points, Pt(at, v.Achieved, fmt.Sprintf("%s: achieved %s", seconds(at), Rate(v.Achieved))))
	}
	rate.Series = []Series{target, achieved}
	if x.Load.Loop == "closed" { // no schedule: no target rate
		rate.Title, rate.Series = name+": achieved rate per interval (closed loop)", []Series{achieved}
	}
	resp := Chart{
		ID:      chartID("load-response", x.Target, x.Workload, x.Size),
		Title:   name + ": response time (from the intended start) of the operations completed in each interval",
		XLabel:  "seconds since the start (interval start)",
		YLabel:  "response time",
		XFormat: seconds,
		YFormat: Ns,
	}
	lo, hi := math.Inf(1), 0.0
	for _, q := range []struct {
		name string
		get  func(report.LoadInterval) float64
	}{
		{"p50", func(v report.LoadInterval) float64 { return v.ResponseP50 }},
		{"p99", func(v report.LoadInterval) float64 { return v.ResponseP99 }},
		{"p99.9", func(v report.LoadInterval) float64 { return v.ResponseP999 }},
	} {
		s := Series{Name: q.name, Line: true, Gap: 1.5 * float64(iv[0].LengthNs) / 1e9}
		for _, v := range iv {
			y := q.get(v)
			if v.Achieved == 0 || !(y > 0) { // nothing completed in the interval: no percentile
				continue
			}
			at := float64(v.StartNs) / 1e9
			s.Points = append(s.Points, Pt(at, y, fmt.Sprintf("%s: %s %s", seconds(at), q.name, Ns(y))))
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
		if len(s.Points) > 0 {
			resp.Series = append(resp.Series, s)
		}
	}
	if len(resp.Series) == 0 {
		return []Chart{rate}
	}
	if hi/lo > 20 {
		resp.YScale = Log10
	}
	return []Chart{rate, resp}
}

// htmlLoads writes per open-loop result its rate, counts, saturation and generator, and the three
// clocks per operation type, under the names the text output uses.
func htmlLoads(w io.Writer, r *report.Report) {
	loads := loadResults(r)
	if len(loads) == 0 {
		return
	}
	var legend []string
	for _, c := range clockNames {
		legend = append(legend, "<b>"+esc(c.name)+"</b> "+esc(c.from))
	}
	fmt.Fprintln(w, "<h2>Load model</h2>")
	fmt.Fprintf(w, "<p class=\"note\">Clocks: %s.</p>\n", strings.Join(legend, "; "))
	for _, x := range loads {
		l := x.Load
		class := "pass"
		if l.Saturation != "" {
			class = "fail"
		}
		gen := ""
		if l.Loop != "closed" {
			gen = generatorText(l.Generator)
		}
		fmt.Fprintf(w, "<h3>%s %s%s: <span class=\"%s\">%s</span></h3>\n<table>\n", esc(x.Target), esc(x.Workload), esc(sizeSuffix(r, x.Size)), class, esc(loadHeadText(l)))
		for _, row := range [][2]string{{"rate", loadRateText(l)}, {"operations", loadCountsText(l)}, {"generator", gen}, {"checks", checksText(x)}, {"series", seriesText(l)}, {"interval log", l.Hlog}} {
			if row[1] != "" {
				fmt.Fprintf(w, "<tr><th>%s</th><td>%s</td></tr>\n", esc(row[0]), esc(row[1]))
			}
		}
		fmt.Fprintln(w, "</table>")
		clocksTable(l).WriteHTML(w, "clocks")
	}
}

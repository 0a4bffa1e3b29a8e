package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dbbench/dbbench/report"
)

// The phases of a profiled result (dbbench run --profile): a table in the text report, and in the
// HTML report one stacked bar per target, so that where each target's time goes reads at a glance.

// PhaseSegment is one part of a profiled operation: a phase, or the time no phase covers ("other").
type PhaseSegment struct {
	Phase string
	// Ns is the time per operation (NaN: the report lacks the figure).
	Ns float64
	// Share of the operation's time (NaN: the report lacks the figure).
	Share float64
	// Method is report.ProfilePhase's ("timed", "sampled", "client"), "" for other.
	Method string
	Every  int
}

// otherPhase names the time no phase covers, as the figure phase_other_ns does.
const otherPhase = "other"

// Label is the phase's name with its mark: "get~" sampled, "txn*" timed by the client.
func (s PhaseSegment) Label() string {
	switch s.Method {
	case report.PhaseSampled:
		return s.Phase + "~"
	case "client":
		return s.Phase + "*"
	}
	return s.Phase
}

// how says how the segment's time was read, where that is not a plain clock read at both ends.
func (s PhaseSegment) how() string {
	switch {
	case s.Method == report.PhaseSampled && s.Every > 1:
		return fmt.Sprintf("sampled 1 in %d", s.Every)
	case s.Method == report.PhaseSampled:
		return "sampled"
	case s.Method == "client":
		return "timed by the client"
	case s.Phase == otherPhase && s.Method == "":
		return "no phase covers it"
	case s.Method != report.PhaseTimed:
		return s.Method // a method this dbbench does not know: say it as it is
	}
	return ""
}

// PhaseSegments are a result's phases in operation order, then the time no phase covers; nil when
// the result has no profile. The other's share is its part of the segments' sum, as the report
// keeps no share figure for it.
func PhaseSegments(x *report.Result) []PhaseSegment {
	if x.Profile == nil {
		return nil
	}
	fig := func(name string) float64 {
		if v, ok := x.Figures[name]; ok {
			return v
		}
		return math.NaN()
	}
	var out []PhaseSegment
	sum := 0.0
	for _, p := range x.Profile.Phases {
		s := PhaseSegment{Phase: p.Name, Ns: fig(report.PhaseFigure(p.Name)), Share: fig(report.PhaseShareFigure(p.Name)), Method: p.Method, Every: p.Every}
		out = append(out, s)
		if !math.IsNaN(s.Ns) {
			sum += s.Ns
		}
	}
	if other := fig(report.PhaseOther); !math.IsNaN(other) {
		sum += other
		share := math.NaN()
		if sum > 0 {
			share = other / sum
		}
		out = append(out, PhaseSegment{Phase: otherPhase, Ns: other, Share: share})
	}
	return out
}

// anyProfile reports whether some result of the report has a profile.
func anyProfile(r *report.Report) bool {
	for i := range r.Results {
		if r.Results[i].Profile != nil {
			return true
		}
	}
	return false
}

// shareText is a share as a percentage: "26.6%".
func shareText(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
}

// phasesLegend says what the phases table and bars show, in a line.
const phasesLegend = "phases per operation (--profile), medians over repeats: ~ sampled (one occurrence in N timed, the sum scaled up), " +
	"* timed by the client in its own process; other: the operation's time no phase covers; profile cost: what the profile's " +
	"clock reads add to an operation (docs/profile.md)"

// roundTripHow and profileCostHow say what the two rows besides the phases are.
const roundTripHow = "dbbench's own time per request, around the client's"

func profileCostHow(p *report.Profile) string {
	return fmt.Sprintf("%s clock reads of %s", trimFloat(p.LapsPerOp), Ns(p.ClockNs))
}

// Phases writes the phases of every measured result, one row per phase, when some result was
// profiled: its ns per operation and share, then the time no phase covers, the round trip dbbench
// timed around a client, and what the profile cost.
func Phases(w io.Writer, r *report.Report, st Style) {
	writeSection(w, phasesTable(r), phasesLegend, st)
}

// phasesTable is the table Phases writes, nil when no result was profiled.
func phasesTable(r *report.Report) *Table {
	if !anyProfile(r) {
		return nil
	}
	head, sweep := resultHeads(r)
	first := len(head)
	head = append(head, "PHASE", "NS/OP", "SHARE", "HOW")
	t := NewTable(head...)
	t.AlignRight(first+1, first+2)
	for i := range r.Results {
		x := &r.Results[i]
		if len(x.Repeats) == 0 {
			continue
		}
		lead := resultLead(x, sweep)
		blank := make([]string, len(lead))
		row := func(cells ...string) {
			t.Add(append(append([]string(nil), lead...), cells...)...)
			lead = blank
		}
		segs := PhaseSegments(x)
		if segs == nil {
			row("-", "", "", "not profiled")
			continue
		}
		for _, s := range segs {
			row(s.Label(), Ns(s.Ns), shareText(s.Share), s.how())
		}
		if v, ok := x.Figures[report.RoundTrip]; ok {
			row("round trip", Ns(v), "", roundTripHow)
		}
		if v, ok := x.Figures[report.ProfileOverhead]; ok {
			row("profile cost", Ns(v), "", profileCostHow(x.Profile))
		}
	}
	return t
}

// Phase colours: Okabe-Ito's without black, then Paul Tol's muted; the time no phase covers is grey.
var phasePalette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442",
	"#882255", "#44AA99", "#999933", "#332288", "#AA4499"}

const otherColour = "#BBBBBB"

// PhaseColours gives every phase name of the report its colour, in the order the names first appear,
// so that a phase has one colour on the whole page (decode of TypeDB and of a client alike).
func PhaseColours(r *report.Report) map[string]string {
	out := map[string]string{otherPhase: otherColour}
	n := 0
	for i := range r.Results {
		p := r.Results[i].Profile
		if p == nil {
			continue
		}
		for _, ph := range p.Phases {
			if _, ok := out[ph.Name]; !ok {
				out[ph.Name] = phasePalette[n%len(phasePalette)]
				n++
			}
		}
	}
	return out
}

// PhaseBar is one target's bar: its segments end to end, so that its length is the operation's time.
type PhaseBar struct {
	Target   string
	Segments []PhaseSegment // nil: not profiled
	// RoundTrip is dbbench's own time per request around a client's (0: none).
	RoundTrip float64
	// Overhead is what the profile's clock reads cost per operation (NaN: not stated).
	Overhead float64
}

// Total is the bar's length: the sum of its segments.
func (b PhaseBar) Total() float64 {
	t := 0.0
	for _, s := range b.Segments {
		if !math.IsNaN(s.Ns) {
			t += s.Ns
		}
	}
	return t
}

// PhaseBars is a workload's profiles, one horizontal stacked bar per target.
type PhaseBars struct {
	ID, Title string
	Bars      []PhaseBar
	// Colours maps a phase name to its colour (PhaseColours: the same in every figure of a page).
	Colours map[string]string
}

// phaseBars builds the bars of a group of results, nil when none of them was profiled.
func phaseBars(g resultGroup, colours map[string]string) *PhaseBars {
	b := &PhaseBars{
		ID:      chartID("phases", g.workload, g.size),
		Title:   fmt.Sprintf("%s: where an operation's time goes (phases per operation, --profile)", g.workload),
		Colours: colours,
	}
	profiled := false
	for _, x := range g.results {
		bar := PhaseBar{Target: x.Target, Segments: PhaseSegments(x), Overhead: math.NaN()}
		profiled = profiled || bar.Segments != nil
		if v, ok := x.Figures[report.RoundTrip]; ok {
			bar.RoundTrip = v
		}
		if v, ok := x.Figures[report.ProfileOverhead]; ok {
			bar.Overhead = v
		}
		b.Bars = append(b.Bars, bar)
	}
	if !profiled {
		return nil
	}
	return b
}

// The bars' layout in the viewBox: target names on the left, totals on the right, each panel's
// axis below its bars, the axis' name at the bottom.
const (
	barsPadL, barsPadR = 150, 70
	barsPadT, barsPadB = 8, 20
	barRowH, barH      = 28, 18
	panelAxisH         = 26
	barLabelChar       = 6.2 // px per character of a segment's label, to tell whether it fits
)

// panelSpread is how many times longer than a panel's shortest bar its longest may be: beyond that
// the short bars would be a few pixels wide next to the long ones (lmdb-go's 500 ns beside TypeDB's
// 200 µs), so they get a panel of their own.
const panelSpread = 10

// extent is how far a bar reaches on its axis: its total, or its round trip when longer.
func (bar PhaseBar) extent() float64 { return math.Max(bar.Total(), bar.RoundTrip) }

// Panels groups the bars so that on each panel's own linear axis a bar's length is its time and no
// bar reaches more than panelSpread times as far as the panel's shortest. Panels go from the
// shortest bars to the longest, bars keep their order within one, and the bars not profiled join
// the first.
func (b *PhaseBars) Panels() [][]PhaseBar {
	var ext []float64
	for _, bar := range b.Bars {
		if bar.Segments != nil {
			ext = append(ext, bar.extent())
		}
	}
	slices.Sort(ext)
	var lows []float64 // the shortest extent of each panel
	for _, e := range ext {
		switch n := len(lows); {
		case n == 0:
			lows = append(lows, e)
		case lows[n-1] <= 0:
			lows[n-1] = e
		case e > lows[n-1]*panelSpread:
			lows = append(lows, e)
		}
	}
	out := make([][]PhaseBar, max(1, len(lows)))
	for _, bar := range b.Bars {
		k := 0
		if bar.Segments != nil {
			for k+1 < len(lows) && lows[k+1] <= bar.extent() {
				k++
			}
		}
		out[k] = append(out[k], bar)
	}
	return out
}

// colour is a phase's colour (grey for a name the map lacks).
func (b *PhaseBars) colour(phase string) string {
	if c, ok := b.Colours[phase]; ok {
		return c
	}
	return otherColour
}

// inkOn returns the text colour legible on a fill: black on light colours, white on dark ones.
func inkOn(fill string) string {
	v, err := strconv.ParseUint(strings.TrimPrefix(fill, "#"), 16, 32)
	if err != nil {
		return "#000"
	}
	r, g, bl := float64(v>>16&0xff), float64(v>>8&0xff), float64(v&0xff)
	if 0.299*r+0.587*g+0.114*bl > 140 {
		return "#000"
	}
	return "#fff"
}

// describe is a bar in words, for the svg's text alternative and the bar's tooltip.
func (bar PhaseBar) describe() string {
	if bar.Segments == nil {
		return bar.Target + ": not profiled"
	}
	parts := make([]string, 0, len(bar.Segments)+2)
	for _, s := range bar.Segments {
		parts = append(parts, s.Label()+" "+Ns(s.Ns))
	}
	d := fmt.Sprintf("%s: %s; %s in all", bar.Target, strings.Join(parts, ", "), Ns(bar.Total()))
	if bar.RoundTrip > 0 {
		d += "; round trip " + Ns(bar.RoundTrip)
	}
	if !math.IsNaN(bar.Overhead) {
		d += "; profile cost " + Ns(bar.Overhead)
	}
	return d
}

// WriteSVG writes the bars as a <figure class="bars">: per target a <g class="bar"> whose
// <rect class="seg" data-phase> are its segments end to end from 0 on its panel's ns axis, each
// with its value as a tooltip and its name written on it where it fits; then a legend that names
// every phase with its colour.
func (b *PhaseBars) WriteSVG(w io.Writer) {
	panels := b.Panels()
	h := barsPadT + barsPadB
	for _, p := range panels {
		h += len(p)*barRowH + panelAxisH
	}
	var descs []string
	for _, bar := range b.Bars {
		descs = append(descs, bar.describe())
	}
	fmt.Fprintf(w, "<figure class=\"bars\" id=\"%s\" data-bars=\"%d\">\n", esc(b.ID), len(b.Bars))
	fmt.Fprintf(w, "<figcaption>%s</figcaption>\n", esc(b.Title))
	fmt.Fprintf(w, "<svg viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n", chartW, h, esc(strings.Join(descs, ". ")))
	y := barsPadT
	for k, p := range panels {
		xa := axis{scale: Linear, from: barsPadL, to: chartW - barsPadR}
		vs := []float64{0}
		for _, bar := range p {
			vs = append(vs, bar.extent())
		}
		ticks, labels := xa.fit(vs, true, Ns)
		bottom := y + len(p)*barRowH
		for i, t := range ticks {
			x := f1(xa.px(t))
			fmt.Fprintf(w, "<line class=\"grid\" x1=\"%s\" x2=\"%s\" y1=\"%d\" y2=\"%d\"/><text class=\"tick\" data-axis=\"x\" data-panel=\"%d\" data-value=\"%s\" x=\"%s\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
				x, x, y, bottom, k, tickValue(t), x, bottom+14, esc(labels[i]))
		}
		for i, bar := range p {
			b.writeBar(w, xa, k, y+i*barRowH+(barRowH-barH)/2, bar)
		}
		y = bottom + panelAxisH
	}
	fmt.Fprintf(w, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">time per operation</text>\n", (barsPadL+chartW-barsPadR)/2, h-6)
	fmt.Fprintln(w, "</svg>")
	b.writeLegend(w, len(panels) > 1)
	fmt.Fprintln(w, "</figure>")
}

// writeBar writes one target's bar in panel k with its top at y.
func (b *PhaseBars) writeBar(w io.Writer, xa axis, k, y int, bar PhaseBar) {
	mid := f1(float64(y) + barH/2)
	fmt.Fprintf(w, "<g class=\"bar\" data-target=\"%s\" data-panel=\"%d\" data-total=\"%s\"><title>%s</title>\n", esc(bar.Target), k, tickValue(bar.Total()), esc(bar.describe()))
	fmt.Fprintf(w, "<text class=\"target\" x=\"%d\" y=\"%s\" text-anchor=\"end\" dominant-baseline=\"central\">%s</text>\n", barsPadL-6, mid, esc(shorten(bar.Target, 22)))
	zero := xa.px(0)
	if bar.Segments == nil {
		fmt.Fprintf(w, "<text class=\"none\" x=\"%s\" y=\"%s\" dominant-baseline=\"central\">not profiled</text>\n</g>\n", f1(zero+4), mid)
		return
	}
	// each segment's ends are rounded once, so that segments meet exactly and the bar's end is the total's
	cum, x0 := 0.0, math.Round(zero*10)/10
	for _, s := range bar.Segments {
		if math.IsNaN(s.Ns) {
			continue
		}
		cum += s.Ns
		x1 := math.Round(xa.px(cum)*10) / 10
		fill := b.colour(s.Phase)
		tip := fmt.Sprintf("%s: %s %s per operation, %s of it", bar.Target, s.Label(), Ns(s.Ns), shareText(s.Share))
		if how := s.how(); how != "" {
			tip += ", " + how
		}
		fmt.Fprintf(w, "<rect class=\"seg\" data-phase=\"%s\" x=\"%s\" y=\"%d\" width=\"%s\" height=\"%d\" style=\"fill:%s\"><title>%s</title></rect>\n",
			esc(s.Phase), f1(x0), y, f1(x1-x0), barH, fill, esc(tip))
		if label := s.Label(); float64(len(label))*barLabelChar+6 <= x1-x0 {
			fmt.Fprintf(w, "<text class=\"seglabel\" x=\"%s\" y=\"%s\" text-anchor=\"middle\" dominant-baseline=\"central\" style=\"fill:%s\">%s</text>\n",
				f1((x0+x1)/2), mid, inkOn(fill), esc(label))
		}
		x0 = x1
	}
	fmt.Fprintf(w, "<text class=\"total\" x=\"%s\" y=\"%s\" dominant-baseline=\"central\">%s</text>\n", f1(x0+4), mid, esc(Ns(bar.Total())))
	if bar.RoundTrip > 0 {
		ty, end := float64(y+barH+3), xa.px(bar.RoundTrip)
		fmt.Fprintf(w, "<line class=\"trip\" x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\"><title>%s: round trip %s per request (%s)</title></line>\n",
			f1(zero), f1(end), f1(ty), f1(ty), esc(bar.Target), Ns(bar.RoundTrip), roundTripHow)
		// its value beside its end, where that is past the bar's total and inside the figure
		label := "round trip " + Ns(bar.RoundTrip)
		if end > x0+float64(len(Ns(bar.Total())))*barLabelChar+8 && end+4+float64(utf8.RuneCountInString(label))*barLabelChar <= chartW {
			fmt.Fprintf(w, "<text class=\"triplabel\" x=\"%s\" y=\"%s\" dominant-baseline=\"central\">%s</text>\n", f1(end+4), f1(ty), esc(label))
		}
	}
	fmt.Fprintln(w, "</g>")
}

// writeLegend names the figure's phases in their colours, in the order they first appear, then
// says what the marks and the round trip's line are.
func (b *PhaseBars) writeLegend(w io.Writer, panels bool) {
	var names []string
	sampled, client, trip := false, false, false
	other := false
	for _, bar := range b.Bars {
		for _, s := range bar.Segments {
			other = other || s.Phase == otherPhase && s.Method == ""
			if !slices.Contains(names, s.Phase) && !(s.Phase == otherPhase && s.Method == "") {
				names = append(names, s.Phase)
			}
			sampled = sampled || s.Method == report.PhaseSampled
			client = client || s.Method == "client"
		}
		trip = trip || bar.RoundTrip > 0
	}
	if other { // the time no phase covers ends every bar, and the legend
		names = append(names, otherPhase)
	}
	fmt.Fprint(w, "<p class=\"legend\">")
	for _, n := range names {
		fmt.Fprintf(w, "<span class=\"phase\" data-phase=\"%s\"><span class=\"swatch\" style=\"color:%s\">&#9632;</span> %s</span> ", esc(n), b.colour(n), esc(n))
	}
	if trip {
		fmt.Fprint(w, "<span class=\"trip\">&#9473; round trip</span>")
	}
	fmt.Fprintln(w, "</p>")
	var notes []string
	if sampled {
		notes = append(notes, "~ sampled: one occurrence in N timed, the sum scaled up (a phase cheaper than a clock read)")
	}
	if client {
		notes = append(notes, "* timed by the client in its own process")
	}
	if trip {
		notes = append(notes, "round trip: "+roundTripHow)
	}
	if panels {
		notes = append(notes, fmt.Sprintf("bars more than %d times apart are on separate axes", panelSpread))
	}
	notes = append(notes, "hover over a segment for its value")
	fmt.Fprintf(w, "<p class=\"note\">%s</p>\n", esc(strings.Join(notes, "; ")))
}

// htmlPhases is the phases table of the HTML report: per result its phases in operation order with
// their values, so that the page states every value in text (printed, or a segment too narrow to
// hover), beside the bars that show them.
func htmlPhases(w io.Writer, r *report.Report) {
	if !anyProfile(r) {
		return
	}
	sweep := len(r.Run.Sizes) > 1
	fmt.Fprint(w, "<h2>Phases</h2>\n<table class=\"phases\">\n<tr><th>target</th><th>workload</th>")
	if sweep {
		fmt.Fprint(w, "<th class=n>size</th>")
	}
	fmt.Fprintln(w, "<th>phases per operation, in order (share)</th><th class=n>other</th><th class=n>round trip</th><th class=n>profile cost</th></tr>")
	for i := range r.Results {
		x := &r.Results[i]
		if len(x.Repeats) == 0 {
			continue
		}
		htmlResultRowStart(w, x, sweep)
		segs := PhaseSegments(x)
		if segs == nil {
			fmt.Fprintln(w, "<td>not profiled</td><td class=n>-</td><td class=n>-</td><td class=n>-</td></tr>")
			continue
		}
		var phases []string
		other := "-"
		for _, s := range segs {
			v := fmt.Sprintf("%s (%s)", Ns(s.Ns), shareText(s.Share))
			if s.Phase == otherPhase && s.Method == "" {
				other = v
				continue
			}
			phases = append(phases, s.Label()+" "+v)
		}
		cell := func(fig string) string {
			if v, ok := x.Figures[fig]; ok {
				return Ns(v)
			}
			return "-"
		}
		fmt.Fprintf(w, "<td>%s</td><td class=n>%s</td><td class=n>%s</td><td class=n>%s</td></tr>\n",
			esc(strings.Join(phases, " · ")), esc(other), esc(cell(report.RoundTrip)), esc(cell(report.ProfileOverhead)))
	}
	fmt.Fprintln(w, "</table>")
	fmt.Fprintf(w, "<p class=\"note\">%s</p>\n", esc(phasesLegend))
}

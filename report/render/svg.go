package render

import (
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
)

// The HTML pages draw their charts as inline SVG written here, in Go: no script, no chart library, no
// font or style sheet to fetch, so a page opens offline, prints, and stays small (a chart is a few
// kilobytes of paths and circles). Every chart is a <figure class="chart"> whose <svg> holds one
// <g class="series"> per series with one <circle> per point, which the browser tests count.

// Scale maps data values to one axis.
type Scale int

const (
	Linear Scale = iota
	Log10
	// InvTail maps a percentile p (0-100) to log10(1/(1-p/100)): HdrHistogram's percentile axis,
	// where 90%, 99%, 99.9% are equally spaced.
	InvTail
)

// Point is one data point; Lo and Hi (when not NaN) draw an interval around Y.
type Point struct {
	X, Y   float64
	Lo, Hi float64
	// Title is the point's tooltip.
	Title string
}

// Pt is a point without an interval.
func Pt(x, y float64, title string) Point {
	return Point{X: x, Y: y, Lo: math.NaN(), Hi: math.NaN(), Title: title}
}

// Series is one named set of points, drawn in one colour.
type Series struct {
	Name   string
	Points []Point
	// Line joins the points in order.
	Line bool
	// Gap, when above 0, breaks the line between points further apart in x than this (a missing run).
	Gap float64
}

// Mark is a reference drawn on a chart: a horizontal line at Y from X0 to X1 (the whole width when
// both are NaN), or a vertical one at X when Vertical.
type Mark struct {
	X0, X1, Y float64
	Vertical  bool
	X         float64
	Label     string
	// Bad draws the mark in the colour of a failure (a limit), otherwise neutral (zero, a baseline).
	Bad bool
}

// Chart is a scatter or line chart.
type Chart struct {
	ID, Title      string
	XLabel, YLabel string
	XScale, YScale Scale
	XFormat        func(float64) string
	YFormat        func(float64) string
	// XCategories labels the x positions 0..n-1 instead of numeric ticks (for example figure names).
	XCategories []string
	// Dodge spreads the series side by side within each category, so their points do not overlap.
	Dodge  bool
	Series []Series
	Marks  []Mark
	// Height in pixels (default 260).
	Height int
}

// Okabe-Ito colours: distinguishable with the common colour-vision deficiencies and in print.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"}

const (
	chartW            = 720
	padL, padR, padT  = 70, 16, 12
	padB              = 42
	defaultChartH     = 260
	maxCategoryLabels = 40
)

type axis struct {
	scale    Scale
	lo, hi   float64 // in transformed units
	from, to float64 // pixels
}

func transform(s Scale, v float64) float64 {
	switch s {
	case Log10:
		if v <= 0 {
			return math.NaN()
		}
		return math.Log10(v)
	case InvTail:
		if v >= 100 {
			return math.NaN()
		}
		return -math.Log10(1 - v/100)
	}
	return v
}

// fit spans the axis from the first to the last of the ticks that bracket vs (and 0, when zero),
// padded a little so that no point sits on the frame, and returns the ticks and their labels.
func (a *axis) fit(vs []float64, zero bool, format func(float64) string) ([]float64, []string) {
	lo, hi, ok := dataRange(a.scale, vs)
	switch {
	case zero && a.scale == Linear:
		if !ok {
			lo, hi = 0, 0
		}
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	case !ok && a.scale == Log10:
		lo, hi = 1, 10
	case !ok: // no data: an empty axis from 0 (0% on a percentile axis)
		lo, hi = 0, 0
	}
	ts, labels := axisTicks(a.scale, lo, hi, format)
	if len(ts) == 0 { // not reached: dataRange keeps only values the scale can place
		a.lo, a.hi = 0, 1
		return nil, nil
	}
	a.lo, a.hi = transform(a.scale, ts[0]), transform(a.scale, ts[len(ts)-1])
	pad := (a.hi - a.lo) * 0.03
	a.lo, a.hi = a.lo-pad, a.hi+pad
	return ts, labels
}

// tickValue writes a tick's value exactly, for the browser tests to compare.
func tickValue(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func (a axis) px(v float64) float64 {
	t := transform(a.scale, v)
	if a.hi == a.lo {
		return (a.from + a.to) / 2
	}
	return a.from + (t-a.lo)/(a.hi-a.lo)*(a.to-a.from)
}

// Ticks returns the labelled ticks of an axis on scale s that shows values from lo to hi
// (untransformed): the lowest tick at or below lo and the highest at or above hi, so the labels
// bracket everything plotted, and no tick further out than needed. The axis then spans from the
// first tick to the last.
//
// Linear: multiples of 1, 2 or 5 times a power of ten, at most 6 intervals. Log10 (lo > 0): the
// 1-2-5 sequence (1, 2, 5, 10, 20, ...) up to 8 ticks (about two decades), decades beyond that
// (every second or third decade over very many); a range within a factor 3 gets linear steps
// instead (1-2-5 ticks would leave the data a thin band between two of them), which read well on a
// log axis that short. InvTail: 0%, 50%, 90%, 99%, 99.9%, ... as far as hi.
func Ticks(s Scale, lo, hi float64) []float64 { return ticks(s, lo, hi, 6) }

// ticks is Ticks with at most maxIntervals linear intervals (fewer when labels would repeat).
func ticks(s Scale, lo, hi float64, maxIntervals int) []float64 {
	if hi < lo {
		lo, hi = hi, lo
	}
	if !finite(lo) || !finite(hi) || s == Log10 && lo <= 0 || s == InvTail && (lo < 0 || hi >= 100) {
		return nil
	}
	switch s {
	case InvTail:
		return percentileTicks(lo, hi)
	case Log10:
		t125 := logTicks(lo, hi, 1, 1, 2, 5)
		switch {
		case len(t125) > 8:
			for step := 1; ; step++ {
				if dec := logTicks(lo, hi, step, 1); len(dec) <= 8 {
					return dec
				}
			}
		case len(t125) >= 3 && hi >= 3*lo:
			return t125
		}
		if lin := linearTicks(lo, hi, maxIntervals); lin[0] > 0 {
			return lin
		}
		return t125
	}
	return linearTicks(lo, hi, maxIntervals)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// decade returns m * 10^e, correctly rounded (10^-e is exact where 10^e is not).
func decade(m float64, e int) float64 {
	if e < 0 {
		return m / math.Pow10(-e)
	}
	return m * math.Pow10(e)
}

// logTicks returns the values m * 10^e (m from ms, ascending from 1; e a multiple of step) from the
// largest at or below lo to the smallest at or above hi.
func logTicks(lo, hi float64, step int, ms ...float64) []float64 {
	e := int(math.Floor(math.Log10(lo)))
	for decade(1, e) > lo { // Log10 is not exact near powers of ten
		e--
	}
	for decade(10, e) <= lo {
		e++
	}
	e -= ((e % step) + step) % step
	var out []float64
	for ; ; e += step {
		for _, m := range ms {
			v := decade(m, e)
			if v <= lo {
				out = out[:0] // a larger value still at or below lo starts the ticks
			}
			out = append(out, v)
			if v >= hi {
				return out
			}
		}
	}
}

// linearTicks returns the multiples of a step of 1, 2 or 5 times a power of ten from the largest
// at or below lo to the smallest at or above hi: at most maxIntervals steps between lo and hi.
func linearTicks(lo, hi float64, maxIntervals int) []float64 {
	if hi == lo { // one value: a span around it
		d := math.Abs(lo) / 2
		if d == 0 {
			d = 0.5
		}
		lo, hi = lo-d, hi+d
	}
	span := hi - lo
	step := math.Pow(10, math.Floor(math.Log10(span/float64(maxIntervals))))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(step*m) <= float64(maxIntervals) {
			step *= m
			break
		}
	}
	at := func(i float64) float64 {
		if step < 1 { // i / (1/step) is the decimal tick correctly rounded; i * step may miss it
			return i / math.Round(1/step)
		}
		return i * step
	}
	first, last := math.Floor(lo/step), math.Ceil(hi/step)
	// lo/step and hi/step are rounded: put each end on the right side of the data
	for ; at(first) > lo; first-- {
	}
	for ; at(first+1) <= lo; first++ {
	}
	for ; at(last) < hi; last++ {
	}
	for ; at(last-1) >= hi; last-- {
	}
	var out []float64
	for i := first; i <= last; i++ {
		v := at(i)
		if v == 0 {
			v = 0 // not -0
		}
		out = append(out, v)
	}
	return out
}

// percentileTick returns the k-th percentile tick: 0, 50, then k-1 nines (90, 99, 99.9, ...).
func percentileTick(k int) float64 {
	s := "0"
	switch {
	case k == 1:
		s = "50"
	case k == 2:
		s = "90"
	case k == 3:
		s = "99"
	case k > 3:
		s = "99." + strings.Repeat("9", k-3)
	}
	v, _ := strconv.ParseFloat(s, 64) // the decimal's nearest float64, as the label prints it
	return v
}

// percentileTicks returns 0%, 50%, 90%, 99%, 99.9%, ... from the largest at or below lo to the
// smallest at or above hi (0 <= lo <= hi < 100).
func percentileTicks(lo, hi float64) []float64 {
	var out []float64
	for k := 0; ; k++ {
		v := percentileTick(k)
		if v >= 100 { // more nines than a float64 holds: hi is as close to 100 as one can be
			return out
		}
		if v <= lo {
			out = out[:0]
		}
		out = append(out, v)
		if v >= hi && len(out) >= 2 { // two at least, for one value
			return out
		}
	}
}

// axisTicks returns the ticks for data from lo to hi with their labels: the finest ticks whose
// labels all differ (a step finer than the format shows would print one label twice).
func axisTicks(s Scale, lo, hi float64, format func(float64) string) ([]float64, []string) {
	var ts []float64
	var labels []string
	for _, n := range []int{6, 3, 1} {
		ts = ticks(s, lo, hi, n)
		labels = make([]string, len(ts))
		distinct := true
		for i, t := range ts {
			labels[i] = tickLabel(format(t))
			distinct = distinct && (i == 0 || labels[i] != labels[i-1])
		}
		if distinct {
			break
		}
	}
	return ts, labels
}

// tickLabel tidies a formatted value for an axis: no trailing zeros ("1.50µs" -> "1.5µs") and no
// sign on zero ("+0.0%" -> "0%").
func tickLabel(s string) string {
	s = trimZeros(s)
	if len(s) > 1 && (s[0] == '+' || s[0] == '-') && s[1] == '0' && (len(s) == 2 || !strings.ContainsRune("0123456789.", rune(s[2]))) {
		return s[1:]
	}
	return s
}

// dataRange returns the smallest and largest of vs that scale s can place (log: above 0,
// percentiles: below 100); ok is false when there is none.
func dataRange(s Scale, vs []float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if t := transform(s, v); math.IsNaN(t) || math.IsInf(t, 0) {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi, !math.IsInf(lo, 1)
}

// PercentLabel labels a percentile tick: "0%", "90%", "99.9%".
func PercentLabel(p float64) string {
	return strconv.FormatFloat(p, 'f', -1, 64) + "%"
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// plot is a chart laid out: its height, its axes and their ticks with their labels.
type plot struct {
	*Chart
	h      int
	xa, ya axis
	xt, yt []float64
	xl, yl []string
}

// WriteSVG writes the chart as a <figure> with an inline <svg> and a legend.
func (c *Chart) WriteSVG(w io.Writer) {
	p := c.layout()
	fmt.Fprintf(w, "<figure class=\"chart\" id=\"%s\" data-series=\"%d\">\n", esc(c.ID), len(c.Series))
	fmt.Fprintf(w, "<figcaption>%s</figcaption>\n", esc(c.Title))
	fmt.Fprintf(w, "<svg viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n", chartW, p.h, esc(c.Title))
	p.writeFrame(w)
	p.writeMarks(w)
	for i, s := range c.Series {
		p.writeSeries(w, i, s)
	}
	fmt.Fprintln(w, "</svg>")
	c.writeLegend(w)
	fmt.Fprintln(w, "</figure>")
}

// layout fits the axes to every point, interval and mark of the chart.
func (c *Chart) layout() *plot {
	p := &plot{Chart: c, h: c.Height}
	if p.h == 0 {
		p.h = defaultChartH
	}
	xs, ys := c.extent()
	xf, yf := c.XFormat, c.YFormat
	if xf == nil {
		xf = trimFloat
	}
	if yf == nil {
		yf = trimFloat
	}
	p.xa = axis{scale: c.XScale, from: padL, to: chartW - padR}
	if c.XCategories != nil {
		p.xa.scale = Linear
		p.xa.lo, p.xa.hi = -0.5, float64(len(c.XCategories))-0.5
	} else {
		p.xt, p.xl = p.xa.fit(xs, false, xf)
	}
	p.ya = axis{scale: c.YScale, from: float64(p.h - padB), to: padT}
	p.yt, p.yl = p.ya.fit(ys, c.YScale == Linear, yf)
	return p
}

// extent returns every x and y value the chart must show: points, their intervals and marks.
func (c *Chart) extent() (xs, ys []float64) {
	for _, s := range c.Series {
		for _, p := range s.Points {
			xs = append(xs, p.X)
			ys = append(ys, p.Y)
			if !math.IsNaN(p.Lo) {
				ys = append(ys, p.Lo, p.Hi)
			}
		}
	}
	for _, m := range c.Marks {
		if m.Vertical {
			xs = append(xs, m.X)
		} else {
			ys = append(ys, m.Y)
		}
	}
	return xs, ys
}

// writeFrame writes the frame, the grid and tick labels (data-value is a tick's value, for the
// browser tests), the category labels and the axis labels.
func (p *plot) writeFrame(w io.Writer) {
	h, xa, ya := p.h, p.xa, p.ya
	fmt.Fprintf(w, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", padL, padT, chartW-padL-padR, h-padT-padB)
	for i, t := range p.yt {
		y := f1(ya.px(t))
		fmt.Fprintf(w, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%s\" y2=\"%s\"/><text class=\"tick\" data-axis=\"y\" data-value=\"%s\" x=\"%d\" y=\"%s\" text-anchor=\"end\" dominant-baseline=\"central\">%s</text>\n",
			padL, chartW-padR, y, y, tickValue(t), padL-4, y, esc(p.yl[i]))
	}
	if p.XCategories != nil {
		for i, name := range p.XCategories {
			if len(p.XCategories) > maxCategoryLabels {
				break
			}
			x := xa.px(float64(i))
			fmt.Fprintf(w, "<text class=\"category\" x=\"%s\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", f1(x), h-padB+14, esc(name))
		}
	}
	for i, t := range p.xt {
		x := f1(xa.px(t))
		fmt.Fprintf(w, "<line class=\"grid\" x1=\"%s\" x2=\"%s\" y1=\"%d\" y2=\"%d\"/><text class=\"tick\" data-axis=\"x\" data-value=\"%s\" x=\"%s\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			x, x, padT, h-padB, tickValue(t), x, h-padB+14, esc(p.xl[i]))
	}
	fmt.Fprintf(w, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", (padL+chartW-padR)/2, h-6, esc(p.XLabel))
	fmt.Fprintf(w, "<text class=\"label\" x=\"12\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 12 %d)\">%s</text>\n", (padT+h-padB)/2, (padT+h-padB)/2, esc(p.YLabel))
}

// writeMarks writes the reference lines, a horizontal one with its label.
func (p *plot) writeMarks(w io.Writer) {
	h, xa, ya := p.h, p.xa, p.ya
	for _, m := range p.Marks {
		cls := "mark"
		if m.Bad {
			cls = "mark bad"
		}
		if m.Vertical {
			x := xa.px(m.X)
			fmt.Fprintf(w, "<line class=\"%s\" x1=\"%s\" x2=\"%s\" y1=\"%d\" y2=\"%d\"><title>%s</title></line>\n", cls, f1(x), f1(x), padT, h-padB, esc(m.Label))
			continue
		}
		x0, x1 := float64(padL), float64(chartW-padR)
		if !math.IsNaN(m.X0) {
			x0, x1 = xa.px(m.X0), xa.px(m.X1)
		}
		y := ya.px(m.Y)
		fmt.Fprintf(w, "<line class=\"%s\" x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\"><title>%s</title></line>\n", cls, f1(x0), f1(x1), f1(y), f1(y), esc(m.Label))
		if m.Label != "" {
			fmt.Fprintf(w, "<text class=\"marklabel\" x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n", f1(x1-2), f1(y-3), esc(m.Label))
		}
	}
}

// writeSeries writes series i in its colour: its line, then each point with its interval and
// tooltip. With Dodge the series of a category chart sit side by side within each category.
func (p *plot) writeSeries(w io.Writer, i int, s Series) {
	col := palette[i%len(palette)]
	xa, ya := p.xa, p.ya
	if p.Dodge && p.XCategories != nil && len(p.Series) > 1 {
		step := 0.7 / float64(len(p.Series))
		off := (float64(i) - float64(len(p.Series)-1)/2) * step * (xa.to - xa.from) / (xa.hi - xa.lo)
		xa.from, xa.to = xa.from+off, xa.to+off
	}
	fmt.Fprintf(w, "<g class=\"series\" data-name=\"%s\" style=\"color:%s\">\n", esc(s.Name), col)
	if s.Line && len(s.Points) > 1 {
		var d strings.Builder
		for j, p := range s.Points {
			cmd := "L"
			if j == 0 || s.Gap > 0 && p.X-s.Points[j-1].X > s.Gap {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%s %s", cmd, f1(xa.px(p.X)), f1(ya.px(p.Y)))
		}
		fmt.Fprintf(w, "<path d=\"%s\"/>\n", d.String())
	}
	for _, p := range s.Points {
		x, y := xa.px(p.X), ya.px(p.Y)
		if !math.IsNaN(p.Lo) && !math.IsNaN(p.Hi) {
			fmt.Fprintf(w, "<line class=\"ci\" x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\"/>", f1(x), f1(x), f1(ya.px(p.Lo)), f1(ya.px(p.Hi)))
		}
		fmt.Fprintf(w, "<circle cx=\"%s\" cy=\"%s\" r=\"2.5\"><title>%s</title></circle>\n", f1(x), f1(y), esc(s.Name+": "+p.Title))
	}
	fmt.Fprintln(w, "</g>")
}

// writeLegend names the series in their colours, unless there is one without a name.
func (c *Chart) writeLegend(w io.Writer) {
	if len(c.Series) > 1 || (len(c.Series) == 1 && c.Series[0].Name != "") {
		fmt.Fprint(w, "<p class=\"legend\">")
		for i, s := range c.Series {
			fmt.Fprintf(w, "<span style=\"color:%s\">&#9679;</span> %s ", palette[i%len(palette)], esc(s.Name))
		}
		fmt.Fprintln(w, "</p>")
	}
}

func esc(s string) string { return html.EscapeString(s) }

// pageStyle is the whole style sheet of the HTML pages: system fonts only (nothing to fetch), and a
// print layout that keeps charts whole.
const pageStyle = `body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5em auto;max-width:960px;color:#222;padding:0 1em}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}h3{font-size:1em}
table{border-collapse:collapse;margin:.6em 0;font-size:12px}td,th{padding:2px 6px;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}table.nowrap td{white-space:nowrap}
.pass{color:#0a7a2f;font-weight:600}.fail,.error,.worse{color:#b00020;font-weight:600}.skipped,.left_out{color:#777}.inconclusive{color:#9a6700;font-weight:600}.better{color:#0a7a2f}
.verdict{font-size:1.2em;padding:.3em .6em;border:2px solid currentColor;display:inline-block}
figure.chart,figure.bars{margin:1em 0;break-inside:avoid;page-break-inside:avoid}figcaption{font-weight:600;margin-bottom:.2em}
svg{width:100%;height:auto;display:block}svg text{font:11px system-ui,sans-serif;fill:#333}
.frame{fill:none;stroke:#999}.grid{stroke:#eee}.series path{fill:none;stroke:currentColor;stroke-width:1.5}
.series circle{fill:currentColor}.series .ci{stroke:currentColor;stroke-width:2;opacity:.6}
.mark{stroke:#666;stroke-dasharray:4 3}.mark.bad{stroke:#b00020;stroke-width:1.5}.marklabel{fill:#b00020}
.legend{margin:.2em 0 0 70px;font-size:12px}
.bar .seg{stroke:#fff;stroke-width:.5}.bar .seglabel{font-size:10px}.bar .none{fill:#777;font-style:italic}.bar .trip{stroke:#222;stroke-width:2}.bar .triplabel{font-size:10px}
.results td:first-child{white-space:nowrap}.results th.n{white-space:normal}.legend .phase{margin-right:.8em;white-space:nowrap}.legend .swatch{font-size:14px}.note{color:#555;font-size:12px}code{font-size:12px}
@media print{body{max-width:none;margin:0}h2{break-after:avoid}}`

// WritePageStart writes the document head of an HTML page: a strict content security policy (nothing
// may load from anywhere, no script runs), the inline style sheet and the title.
func WritePageStart(w io.Writer, title string) {
	fmt.Fprintf(w, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<style>%s</style>
</head>
<body>
`, esc(title), pageStyle)
}

// WritePageEnd closes a page.
func WritePageEnd(w io.Writer) {
	fmt.Fprintln(w, "</body>\n</html>")
}

// Esc escapes text for HTML.
func Esc(s string) string { return esc(s) }

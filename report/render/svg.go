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

func (a axis) px(v float64) float64 {
	t := transform(a.scale, v)
	if a.hi == a.lo {
		return (a.from + a.to) / 2
	}
	return a.from + (t-a.lo)/(a.hi-a.lo)*(a.to-a.from)
}

// extent returns the transformed range of vs, padded so points do not sit on the frame.
func extent(s Scale, vs []float64, zero bool) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		t := transform(s, v)
		if math.IsNaN(t) || math.IsInf(t, 0) {
			continue
		}
		lo, hi = math.Min(lo, t), math.Max(hi, t)
	}
	if math.IsInf(lo, 1) {
		return 0, 1
	}
	if zero && s == Linear {
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	if hi == lo {
		d := math.Max(math.Abs(lo)*0.1, 1e-9)
		if s != Linear {
			d = 0.5
		}
		return lo - d, hi + d
	}
	pad := (hi - lo) * 0.06
	if zero && s == Linear && lo == 0 {
		return lo, hi + pad
	}
	return lo - pad, hi + pad
}

// ticks returns tick values (untransformed) across the transformed range lo..hi.
func ticks(s Scale, lo, hi float64) []float64 {
	var out []float64
	switch s {
	case Log10, InvTail:
		for e := math.Ceil(lo); e <= hi; e++ {
			if s == Log10 {
				out = append(out, math.Pow(10, e))
			} else {
				out = append(out, 100*(1-math.Pow(10, -e)))
			}
		}
		if len(out) >= 2 || s == InvTail {
			return out
		}
		// less than a decade: fall back to linear steps of the values
		return linearTicks(math.Pow(10, lo), math.Pow(10, hi))
	}
	return linearTicks(lo, hi)
}

func linearTicks(lo, hi float64) []float64 {
	span := hi - lo
	if span <= 0 {
		return []float64{lo}
	}
	step := math.Pow(10, math.Floor(math.Log10(span/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(step*m) <= 6 {
			step *= m
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		out = append(out, v)
	}
	return out
}

// PercentLabel labels a percentile tick: "0%", "90%", "99.9%".
func PercentLabel(p float64) string {
	return strconv.FormatFloat(p, 'f', -1, 64) + "%"
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// WriteSVG writes the chart as a <figure> with an inline <svg> and a legend.
func (c *Chart) WriteSVG(w io.Writer) {
	h := c.Height
	if h == 0 {
		h = defaultChartH
	}
	var xs, ys []float64
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
	xa := axis{scale: c.XScale, from: padL, to: chartW - padR}
	if c.XCategories != nil {
		xa.scale = Linear
		xa.lo, xa.hi = -0.5, float64(len(c.XCategories))-0.5
	} else {
		xa.lo, xa.hi = extent(c.XScale, xs, false)
	}
	ya := axis{scale: c.YScale, from: float64(h - padB), to: padT}
	ya.lo, ya.hi = extent(c.YScale, ys, c.YScale == Linear)
	xf, yf := c.XFormat, c.YFormat
	if xf == nil {
		xf = trimFloat
	}
	if yf == nil {
		yf = trimFloat
	}

	fmt.Fprintf(w, "<figure class=\"chart\" id=\"%s\" data-series=\"%d\">\n", esc(c.ID), len(c.Series))
	fmt.Fprintf(w, "<figcaption>%s</figcaption>\n", esc(c.Title))
	fmt.Fprintf(w, "<svg viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n", chartW, h, esc(c.Title))
	// frame, grid and tick labels
	fmt.Fprintf(w, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", padL, padT, chartW-padL-padR, h-padT-padB)
	for _, t := range ticks(ya.scale, ya.lo, ya.hi) {
		y := ya.px(t)
		if y < padT-0.5 || y > float64(h-padB)+0.5 {
			continue
		}
		fmt.Fprintf(w, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%s\" y2=\"%s\"/><text class=\"tick\" x=\"%d\" y=\"%s\" text-anchor=\"end\">%s</text>\n",
			padL, chartW-padR, f1(y), f1(y), padL-4, f1(y+4), esc(yf(t)))
	}
	if c.XCategories != nil {
		for i, name := range c.XCategories {
			if len(c.XCategories) > maxCategoryLabels {
				break
			}
			x := xa.px(float64(i))
			fmt.Fprintf(w, "<text class=\"tick\" x=\"%s\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", f1(x), h-padB+14, esc(name))
		}
	} else {
		for _, t := range ticks(xa.scale, xa.lo, xa.hi) {
			x := xa.px(t)
			if x < padL-0.5 || x > chartW-padR+0.5 {
				continue
			}
			fmt.Fprintf(w, "<line class=\"grid\" x1=\"%s\" x2=\"%s\" y1=\"%d\" y2=\"%d\"/><text class=\"tick\" x=\"%s\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
				f1(x), f1(x), padT, h-padB, f1(x), h-padB+14, esc(xf(t)))
		}
	}
	fmt.Fprintf(w, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", (padL+chartW-padR)/2, h-6, esc(c.XLabel))
	fmt.Fprintf(w, "<text class=\"label\" x=\"12\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 12 %d)\">%s</text>\n", (padT+h-padB)/2, (padT+h-padB)/2, esc(c.YLabel))
	for _, m := range c.Marks {
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
	for i, s := range c.Series {
		col := palette[i%len(palette)]
		xa := xa
		if c.Dodge && c.XCategories != nil && len(c.Series) > 1 {
			step := 0.7 / float64(len(c.Series))
			off := (float64(i) - float64(len(c.Series)-1)/2) * step * (xa.to - xa.from) / (xa.hi - xa.lo)
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
	fmt.Fprintln(w, "</svg>")
	if len(c.Series) > 1 || (len(c.Series) == 1 && c.Series[0].Name != "") {
		fmt.Fprint(w, "<p class=\"legend\">")
		for i, s := range c.Series {
			fmt.Fprintf(w, "<span style=\"color:%s\">&#9679;</span> %s ", palette[i%len(palette)], esc(s.Name))
		}
		fmt.Fprintln(w, "</p>")
	}
	fmt.Fprintln(w, "</figure>")
}

func esc(s string) string { return html.EscapeString(s) }

// pageStyle is the whole style sheet of the HTML pages: system fonts only (nothing to fetch), and a
// print layout that keeps charts whole.
const pageStyle = `body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5em auto;max-width:960px;color:#222;padding:0 1em}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}h3{font-size:1em}
table{border-collapse:collapse;margin:.6em 0;font-size:12px}td,th{padding:2px 6px;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}table.nowrap td{white-space:nowrap}
.pass{color:#0a7a2f;font-weight:600}.fail,.error,.worse{color:#b00020;font-weight:600}.skipped{color:#777}.better{color:#0a7a2f}
.verdict{font-size:1.2em;padding:.3em .6em;border:2px solid currentColor;display:inline-block}
figure.chart{margin:1em 0;break-inside:avoid;page-break-inside:avoid}figcaption{font-weight:600;margin-bottom:.2em}
svg{width:100%;height:auto;display:block}svg text{font:11px system-ui,sans-serif;fill:#333}
.frame{fill:none;stroke:#999}.grid{stroke:#eee}.series path{fill:none;stroke:currentColor;stroke-width:1.5}
.series circle{fill:currentColor}.series .ci{stroke:currentColor;stroke-width:2;opacity:.6}
.mark{stroke:#666;stroke-dasharray:4 3}.mark.bad{stroke:#b00020;stroke-width:1.5}.marklabel{fill:#b00020}
.legend{margin:.2em 0 0 70px;font-size:12px}.note{color:#555;font-size:12px}code{font-size:12px}
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

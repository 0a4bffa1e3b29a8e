// Package browsertest opens dbbench's HTML pages in a real headless Chromium (Debian's `chromium`,
// never a browser downloaded by a tool) and reports what it drew and every request the page made.
//
// Tests skip with the reason when no Chromium is found, unless DBBENCH_REQUIRE_BROWSER=1 (set by
// .ci/test; .ci/setup installs chromium) makes that a failure. Screenshots go to
// $DBBENCH_ARTIFACTS when set, otherwise to a dbbench-artifacts directory under the system temp dir.
package browsertest

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Candidates are the Chromium binaries looked for, in order ($DBBENCH_CHROMIUM first when set).
var Candidates = []string{"/usr/bin/chromium", "chromium", "chromium-browser"}

// Browser returns the path of a Chromium binary, or skips the test with the reason (fails it when
// DBBENCH_REQUIRE_BROWSER=1).
func Browser(t testing.TB) string {
	t.Helper()
	cands := Candidates
	if p := os.Getenv("DBBENCH_CHROMIUM"); p != "" {
		cands = []string{p}
	}
	for _, c := range cands {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("no Chromium found (looked for %s): install Debian's chromium (.ci/setup) to run the browser tests", strings.Join(cands, ", "))
	if os.Getenv("DBBENCH_REQUIRE_BROWSER") == "1" {
		t.Fatal(msg + "; DBBENCH_REQUIRE_BROWSER=1 makes that a failure")
	}
	t.Skip(msg)
	return ""
}

// SeriesSeen is one <g class="series"> as drawn: its circles, and how many of them the browser laid
// out at finite coordinates inside the chart.
type SeriesSeen struct {
	Name   string `json:"name"`
	Points int    `json:"points"`
	Drawn  int    `json:"drawn"`
}

// TickSeen is one labelled tick (<text class="tick" data-axis data-value>) as drawn: Pos is the
// centre of its label along its axis, in the svg's viewBox units (y grows downwards).
type TickSeen struct {
	Axis  string  `json:"axis"`
	Value float64 `json:"value"`
	Label string  `json:"label"`
	Pos   float64 `json:"pos"`
}

// Extent is the box the plotted data (every point and interval bar) covers, in viewBox units.
type Extent struct {
	N                      int
	XMin, XMax, YMin, YMax float64
}

// ChartSeen is one <figure class="chart"> as drawn.
type ChartSeen struct {
	ID     string       `json:"id"`
	Width  float64      `json:"width"`
	Height float64      `json:"height"`
	Series []SeriesSeen `json:"series"`
	Ticks  []TickSeen   `json:"ticks"`
	Data   Extent       `json:"data"`
}

// SegmentSeen is one segment of a stacked bar (<rect class="seg" data-phase>) as drawn: X and Width
// in the svg's viewBox units, Screen its width on the page in CSS pixels, Fill its computed colour.
type SegmentSeen struct {
	Phase  string  `json:"phase"`
	X      float64 `json:"x"`
	Width  float64 `json:"width"`
	Screen float64 `json:"screen"`
	Fill   string  `json:"fill"`
}

// BarSeen is one stacked bar (<g class="bar" data-target data-panel>) as drawn.
type BarSeen struct {
	Target   string        `json:"target"`
	Panel    int           `json:"panel"`
	Segments []SegmentSeen `json:"segments"`
}

// LegendSeen is one legend entry of a bars figure (.legend [data-phase]) and its swatch's colour.
type LegendSeen struct {
	Phase  string `json:"phase"`
	Colour string `json:"colour"`
	Text   string `json:"text"`
}

// BarsSeen is one <figure class="bars"> as drawn.
type BarsSeen struct {
	ID     string       `json:"id"`
	Bars   []BarSeen    `json:"bars"`
	Legend []LegendSeen `json:"legend"`
}

// Page is what the browser made of a page.
type Page struct {
	Title  string
	Charts []ChartSeen
	Bars   []BarsSeen
	// Requests are the URLs the page asked for, the page itself excepted.
	Requests []string
	// Console holds console and CSP messages (a blocked load shows here).
	Console    []string
	Screenshot []byte // PNG of the whole page
}

// measure reads every chart's series and circles; a circle counts as drawn when the browser gives it
// a box with finite coordinates inside its svg's viewBox. It reads the tick labels where the
// browser laid them out, and the box of everything plotted (circles and interval bars).
const measure = `Array.from(document.querySelectorAll('figure.chart')).map(f => {
  const svg = f.querySelector('svg');
  if (!svg) return {id: f.id, width: 0, height: 0, series: [], ticks: [], data: {N: 0}};
  const vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
  const ticks = Array.from(svg.querySelectorAll('text.tick')).map(t => {
    const b = t.getBBox(), axis = t.dataset.axis || '';
    return {axis: axis, value: parseFloat(t.dataset.value), label: t.textContent.trim(),
      pos: axis === 'x' ? b.x + b.width / 2 : b.y + b.height / 2};
  });
  const data = {N: 0, XMin: Infinity, XMax: -Infinity, YMin: Infinity, YMax: -Infinity};
  svg.querySelectorAll('g.series circle, g.series line.ci').forEach(e => {
    const b = e.getBBox();
    const x0 = e.tagName === 'circle' ? b.x + b.width / 2 : b.x, x1 = e.tagName === 'circle' ? x0 : b.x + b.width;
    const y0 = e.tagName === 'circle' ? b.y + b.height / 2 : b.y, y1 = e.tagName === 'circle' ? y0 : b.y + b.height;
    data.N++;
    data.XMin = Math.min(data.XMin, x0); data.XMax = Math.max(data.XMax, x1);
    data.YMin = Math.min(data.YMin, y0); data.YMax = Math.max(data.YMax, y1);
  });
  if (data.N === 0) { data.XMin = data.XMax = data.YMin = data.YMax = 0; }
  return {id: f.id, width: r.width, height: r.height, ticks: ticks, data: data,
    series: Array.from(svg.querySelectorAll('g.series')).map(g => {
      const cs = Array.from(g.querySelectorAll('circle'));
      const drawn = cs.filter(c => {
        const b = c.getBBox();
        const x = b.x + b.width / 2, y = b.y + b.height / 2;
        return b.width > 0 && isFinite(x) && isFinite(y) &&
          x >= vb.x && x <= vb.x + vb.width && y >= vb.y && y <= vb.y + vb.height;
      });
      return {name: g.dataset.name || '', points: cs.length, drawn: drawn.length};
    })};
})`

// measureBars reads every stacked-bar figure: each bar's segments where the browser laid them out
// and in the colour it filled them with, and the legend's entries with their swatches' colour.
const measureBars = `Array.from(document.querySelectorAll('figure.bars')).map(f => ({
  id: f.id,
  bars: Array.from(f.querySelectorAll('g.bar')).map(g => ({
    target: g.dataset.target || '', panel: parseInt(g.dataset.panel || '0', 10),
    segments: Array.from(g.querySelectorAll('rect.seg')).map(r => {
      const b = r.getBBox();
      return {phase: r.dataset.phase || '', x: b.x, width: b.width, screen: r.getBoundingClientRect().width, fill: getComputedStyle(r).fill};
    })})),
  legend: Array.from(f.querySelectorAll('.legend [data-phase]')).map(e => {
    const sw = e.querySelector('.swatch');
    return {phase: e.dataset.phase, colour: sw ? getComputedStyle(sw).color : '', text: e.textContent.trim()};
  })}))`

// Open loads the HTML file at path in a fresh headless Chromium (its own profile directory, no
// network services), waits for it to load, and returns what it drew and requested, with a screenshot
// of the whole page.
func Open(t testing.TB, path string) Page {
	t.Helper()
	bin := Browser(t)
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	pageURL := (&url.URL{Scheme: "file", Path: abs}).String()

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1000, 1200),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()

	var mu sync.Mutex
	var page Page
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			if e.Request.URL != pageURL {
				page.Requests = append(page.Requests, e.Request.URL)
			}
		case *log.EventEntryAdded:
			page.Console = append(page.Console, string(e.Entry.Source)+": "+e.Entry.Text)
		}
	}
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(listen))
	defer cancel()
	// the first Run starts the browser: no timeout on it (it would stop the browser), one per step
	if _, err := chromedp.Run(ctx, chromedp.Title()); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	step, stepCancel := context.WithTimeout(ctx, 60*time.Second)
	defer stepCancel()
	if err := chromedp.Do(step, chromedp.Navigate(pageURL), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("open %s: %v", pageURL, err)
	}
	title, err := chromedp.Run(step, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	charts, err := chromedp.Run(step, chromedp.Evaluate[[]ChartSeen](measure))
	if err != nil {
		t.Fatalf("measure the charts: %v", err)
	}
	bars, err := chromedp.Run(step, chromedp.Evaluate[[]BarsSeen](measureBars))
	if err != nil {
		t.Fatalf("measure the bars: %v", err)
	}
	shot, err := chromedp.Run(step, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	page.Title, page.Charts, page.Bars, page.Screenshot = title, charts, bars, shot
	return page
}

// SaveArtifact writes a test artefact (a screenshot) and logs where it went.
func SaveArtifact(t testing.TB, name string, data []byte) string {
	t.Helper()
	dir := os.Getenv("DBBENCH_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "dbbench-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("artefact directory: %v", err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatalf("artefact: %v", err)
	}
	t.Logf("screenshot: %s", p)
	return p
}

// Expect is what the page should hold for one chart: series names and point counts, in order.
type Expect struct {
	ID     string
	Series []SeriesSeen // Name and Points; Drawn must equal Points
	// XCategories: the x axis names categories (no numeric ticks to bracket the data).
	XCategories bool
	// XLabels must all be among the x axis' tick labels (a percentile axis: "50%", "90%", ...).
	XLabels []string
}

// TickTolerance is how far, in viewBox units, a label's centre may sit off its tick's position: the
// pages round coordinates to 0.1, and the font's metrics place a label's box a hair off the line it
// labels (within 0.05 in Debian's Chromium; a tick one pixel off the data is a miss).
const TickTolerance = 0.5

// Bracket returns what is wrong with a chart's tick labels: an axis with fewer than two labelled
// ticks, labels empty, repeated or out of order, or labels that do not bracket the plotted data:
// on each axis the lowest labelled tick must sit at or below the lowest point (or interval end),
// and the highest at or above the highest, on the axis' own scale, as the browser laid them out.
// A category x axis (xCategories) has no numeric ticks.
func Bracket(c ChartSeen, xCategories bool) []string {
	var out []string
	axes := []string{"y"}
	if !xCategories {
		axes = append(axes, "x")
	}
	for _, axis := range axes {
		var ts []TickSeen
		for _, t := range c.Ticks {
			if t.Axis == axis {
				ts = append(ts, t)
			}
		}
		if len(ts) < 2 {
			out = append(out, fmt.Sprintf("%s axis: %d labelled ticks, want 2 at least", axis, len(ts)))
			continue
		}
		slices.SortFunc(ts, func(a, b TickSeen) int { return cmp.Compare(a.Value, b.Value) })
		// dir is +1 where positions grow with values (x), -1 where they shrink (y: down the page)
		dir := 1.0
		if axis == "y" {
			dir = -1
		}
		for i, t := range ts {
			if t.Label == "" || math.IsNaN(t.Value) {
				out = append(out, fmt.Sprintf("%s axis: tick %d has no label or value (%q, %v)", axis, i, t.Label, t.Value))
			}
			if i > 0 && (t.Value == ts[i-1].Value || t.Label == ts[i-1].Label || dir*(t.Pos-ts[i-1].Pos) <= 0) {
				out = append(out, fmt.Sprintf("%s axis: ticks %q at %.1f and %q at %.1f repeat or are out of order", axis, ts[i-1].Label, ts[i-1].Pos, t.Label, t.Pos))
			}
		}
		if c.Data.N == 0 {
			continue
		}
		low, high := ts[0], ts[len(ts)-1]
		dataLow, dataHigh := c.Data.XMin, c.Data.XMax
		if axis == "y" {
			dataLow, dataHigh = c.Data.YMax, c.Data.YMin
		}
		if dir*(low.Pos-dataLow) > TickTolerance {
			out = append(out, fmt.Sprintf("%s axis: the lowest label %q (at %.1f) is above the lowest point (at %.1f)", axis, low.Label, low.Pos, dataLow))
		}
		if dir*(dataHigh-high.Pos) > TickTolerance {
			out = append(out, fmt.Sprintf("%s axis: the highest label %q (at %.1f) is below the highest point (at %.1f)", axis, high.Label, high.Pos, dataHigh))
		}
	}
	return out
}

func tickLabels(c ChartSeen, axis string) string {
	var ls []string
	for _, t := range c.Ticks {
		if t.Axis == axis {
			ls = append(ls, t.Label)
		}
	}
	return strings.Join(ls, " ")
}

// Check compares what the browser drew with the expected charts (every chart, in page order),
// checks that each chart's tick labels bracket its data (Bracket) and carry the labels expected, and
// fails on any request or console message: the pages must load nothing.
func Check(t testing.TB, p Page, want []Expect) {
	t.Helper()
	for _, r := range p.Requests {
		t.Errorf("the page made a request: %s", r)
	}
	for _, c := range p.Console {
		t.Errorf("console: %s", c)
	}
	if len(p.Charts) != len(want) {
		t.Errorf("the browser shows %d charts, want %d", len(p.Charts), len(want))
	}
	for i := 0; i < min(len(p.Charts), len(want)); i++ {
		got, w := p.Charts[i], want[i]
		if got.ID != w.ID {
			t.Errorf("chart %d is %q, want %q", i, got.ID, w.ID)
			continue
		}
		if got.Width < 100 || got.Height < 50 {
			t.Errorf("chart %s laid out at %.0fx%.0f px", got.ID, got.Width, got.Height)
		}
		if len(got.Series) != len(w.Series) {
			t.Errorf("chart %s: %d series drawn, want %d", got.ID, len(got.Series), len(w.Series))
			continue
		}
		for j, s := range got.Series {
			ws := w.Series[j]
			if s.Name != ws.Name || s.Points != ws.Points || s.Drawn != ws.Points {
				t.Errorf("chart %s series %d: %q with %d points (%d drawn inside the chart), want %q with %d", got.ID, j, s.Name, s.Points, s.Drawn, ws.Name, ws.Points)
			}
		}
		for _, p := range Bracket(got, w.XCategories) {
			t.Errorf("chart %s: %s", got.ID, p)
		}
		for _, l := range w.XLabels {
			if !slices.ContainsFunc(got.Ticks, func(t TickSeen) bool { return t.Axis == "x" && t.Label == l }) {
				t.Errorf("chart %s: the x axis has no label %q (labels %s)", got.ID, l, tickLabels(got, "x"))
			}
		}
	}
}

// BarExpect is what one stacked bar should be: its target, its panel (bars on one axis), and its
// segments' phases in order with their times (ns).
type BarExpect struct {
	Target string
	Panel  int
	Phases []string
	Ns     []float64
}

// BarsExpect is what one bars figure should hold, in order.
type BarsExpect struct {
	ID   string
	Bars []BarExpect
}

// barTolerance is how far, in viewBox units, segments may sit off where their times put them: the
// pages round coordinates to 0.1.
const barTolerance = 0.25

// BarsProblems returns what is wrong with a bars figure as drawn: a bar or segment missing, out of
// order or of a phase not expected; a segment of a positive time without width on the screen;
// segments that do not meet end to end from one start; within a panel, a bar whose length is not in
// proportion to its time as the panel's others are (the longest bar's scale is the panel's); a
// phase the legend does not name, or whose swatch is not the colour of its segments.
func BarsProblems(got BarsSeen, want BarsExpect) []string {
	var out []string
	if len(got.Bars) != len(want.Bars) {
		return []string{fmt.Sprintf("%d bars drawn, want %d", len(got.Bars), len(want.Bars))}
	}
	legend := map[string]string{}
	for _, l := range got.Legend {
		legend[l.Phase] = l.Colour
	}
	scale := map[int]float64{} // viewBox units per ns, from each panel's longest bar
	longest := map[int]float64{}
	start := map[int]float64{}
	for i, b := range got.Bars {
		w := want.Bars[i]
		if b.Target != w.Target || b.Panel != w.Panel {
			out = append(out, fmt.Sprintf("bar %d is %q in panel %d, want %q in panel %d", i, b.Target, b.Panel, w.Target, w.Panel))
			continue
		}
		var phases []string
		for _, s := range b.Segments {
			phases = append(phases, s.Phase)
		}
		if !slices.Equal(phases, w.Phases) {
			out = append(out, fmt.Sprintf("%s: segments %v, want %v", b.Target, phases, w.Phases))
			continue
		}
		total, length := 0.0, 0.0
		for j, s := range b.Segments {
			total += w.Ns[j]
			length += s.Width
			if w.Ns[j] > 0 && (s.Width <= 0 || s.Screen <= 0) {
				out = append(out, fmt.Sprintf("%s %s: %v ns drawn %.2f wide (%.2f px on the screen)", b.Target, s.Phase, w.Ns[j], s.Width, s.Screen))
			}
			if j > 0 {
				if end := b.Segments[j-1].X + b.Segments[j-1].Width; math.Abs(s.X-end) > barTolerance {
					out = append(out, fmt.Sprintf("%s %s: starts at %.2f, the segment before ends at %.2f", b.Target, s.Phase, s.X, end))
				}
			}
			if c, ok := legend[s.Phase]; !ok {
				out = append(out, fmt.Sprintf("%s %s: the legend does not name the phase", b.Target, s.Phase))
			} else if c != s.Fill {
				out = append(out, fmt.Sprintf("%s %s: filled %s, its legend swatch is %s", b.Target, s.Phase, s.Fill, c))
			}
		}
		if len(b.Segments) == 0 {
			continue
		}
		if x, ok := start[b.Panel]; ok && math.Abs(b.Segments[0].X-x) > barTolerance {
			out = append(out, fmt.Sprintf("%s: starts at %.2f, the panel's other bars at %.2f", b.Target, b.Segments[0].X, x))
		}
		start[b.Panel] = b.Segments[0].X
		if total > longest[b.Panel] {
			longest[b.Panel], scale[b.Panel] = total, length/total
		}
	}
	for i, b := range got.Bars {
		w := want.Bars[i]
		if len(b.Segments) == 0 || len(b.Segments) != len(w.Ns) {
			continue
		}
		total, length := 0.0, 0.0
		for j, s := range b.Segments {
			total += w.Ns[j]
			length += s.Width
		}
		if want := total * scale[b.Panel]; math.Abs(length-want) > barTolerance*float64(len(b.Segments)) {
			out = append(out, fmt.Sprintf("%s: %.2f long for %v ns, want %.2f as its panel's longest bar scales", b.Target, length, total, want))
		}
	}
	return out
}

// ColourProblems returns the phases drawn in more than one colour across a page's bars figures.
func ColourProblems(p Page) []string {
	seen := map[string]string{}
	var out []string
	for _, f := range p.Bars {
		for _, b := range f.Bars {
			for _, s := range b.Segments {
				if c, ok := seen[s.Phase]; !ok {
					seen[s.Phase] = s.Fill
				} else if c != s.Fill {
					out = append(out, fmt.Sprintf("%s %s: phase %s filled %s, elsewhere %s", f.ID, b.Target, s.Phase, s.Fill, c))
				}
			}
		}
	}
	return out
}

// CheckBars compares the page's bars figures with the expected ones (every one, in page order) and
// checks that each phase has one colour on the page.
func CheckBars(t testing.TB, p Page, want []BarsExpect) {
	t.Helper()
	if len(p.Bars) != len(want) {
		t.Errorf("the browser shows %d bars figures, want %d", len(p.Bars), len(want))
	}
	for i := 0; i < min(len(p.Bars), len(want)); i++ {
		if p.Bars[i].ID != want[i].ID {
			t.Errorf("bars figure %d is %q, want %q", i, p.Bars[i].ID, want[i].ID)
			continue
		}
		for _, e := range BarsProblems(p.Bars[i], want[i]) {
			t.Errorf("bars %s: %s", want[i].ID, e)
		}
	}
	for _, e := range ColourProblems(p) {
		t.Error(e)
	}
}

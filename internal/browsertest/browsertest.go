// Package browsertest opens dbbench's HTML pages in a real headless Chromium (Debian's `chromium`,
// never a browser downloaded by a tool) and reports what it drew and every request the page made.
//
// Tests skip with the reason when no Chromium is found, unless DBBENCH_REQUIRE_BROWSER=1 (set by
// .ci/run, whose .ci/install-browser installs it) makes that a failure. Screenshots go to
// $DBBENCH_ARTIFACTS when set, otherwise to a dbbench-artifacts directory under the system temp dir.
package browsertest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
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
	msg := fmt.Sprintf("no Chromium found (looked for %s): install Debian's chromium (.ci/install-browser) to run the browser tests", strings.Join(cands, ", "))
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

// ChartSeen is one <figure class="chart"> as drawn.
type ChartSeen struct {
	ID     string       `json:"id"`
	Width  float64      `json:"width"`
	Height float64      `json:"height"`
	Series []SeriesSeen `json:"series"`
}

// Page is what the browser made of a page.
type Page struct {
	Title  string
	Charts []ChartSeen
	// Requests are the URLs the page asked for, the page itself excepted.
	Requests []string
	// Console holds console and CSP messages (a blocked load shows here).
	Console    []string
	Screenshot []byte // PNG of the whole page
}

// measure reads every chart's series and circles; a circle counts as drawn when the browser gives it
// a box with finite coordinates inside its svg's viewBox.
const measure = `Array.from(document.querySelectorAll('figure.chart')).map(f => {
  const svg = f.querySelector('svg');
  if (!svg) return {id: f.id, width: 0, height: 0, series: []};
  const vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
  return {id: f.id, width: r.width, height: r.height,
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
	shot, err := chromedp.Run(step, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	page.Title, page.Charts, page.Screenshot = title, charts, shot
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
}

// Check compares what the browser drew with the expected charts (every chart, in page order), and
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
	}
}

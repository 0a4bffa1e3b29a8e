package browsertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenSeesRequestsAndCharts shows the checks can fail: a page that loads an image from a
// loopback port is caught, and a chart's circles are counted, the one outside its viewBox not drawn.
func TestOpenSeesRequestsAndCharts(t *testing.T) {
	page := `<!DOCTYPE html><html><head><title>t</title></head><body>
<img src="http://127.0.0.1:9/x.png" alt="">
<figure class="chart" id="c1"><svg viewBox="0 0 100 50" width="300" height="150">
<g class="series" data-name="a"><circle cx="10" cy="10" r="2"/><circle cx="20" cy="20" r="2"/><circle cx="500" cy="20" r="2"/></g>
</svg></figure></body></html>`
	path := filepath.Join(t.TempDir(), "p.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Open(t, path)
	if len(p.Requests) != 1 || !strings.HasPrefix(p.Requests[0], "http://127.0.0.1:9/") {
		t.Errorf("requests %q, want the image's", p.Requests)
	}
	if len(p.Charts) != 1 || len(p.Charts[0].Series) != 1 {
		t.Fatalf("charts %+v", p.Charts)
	}
	if s := p.Charts[0].Series[0]; s.Name != "a" || s.Points != 3 || s.Drawn != 2 {
		t.Errorf("series %+v, want a with 3 points, 2 drawn inside the chart", s)
	}
	if len(p.Screenshot) < 8 || string(p.Screenshot[1:4]) != "PNG" {
		t.Error("no PNG screenshot")
	}
}

package browsertest

import (
	"fmt"
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

// TestBracketSeesTicksThatMissTheData: tick labels read where the browser put them; a point below
// the lowest label, a bar above the highest, a label out of order or a missing axis are reported,
// and ticks around the data are not.
func TestBracketSeesTicksThatMissTheData(t *testing.T) {
	chart := func(id, ticks, data string) string {
		return `<figure class="chart" id="` + id + `"><svg viewBox="0 0 200 100" width="400" height="200">` + ticks +
			`<g class="series" data-name="a">` + data + `</g></svg></figure>`
	}
	yTicks := `<text class="tick" data-axis="y" data-value="1" x="20" y="80" dominant-baseline="central">1ms</text>` +
		`<text class="tick" data-axis="y" data-value="2" x="20" y="20" dominant-baseline="central">2ms</text>`
	xTicks := `<text class="tick" data-axis="x" data-value="0" x="40" y="95" text-anchor="middle">0%</text>` +
		`<text class="tick" data-axis="x" data-value="50" x="180" y="95" text-anchor="middle">50%</text>`
	page := `<!DOCTYPE html><html><head><title>t</title></head><body>` +
		chart("inside", yTicks+xTicks, `<circle cx="40" cy="80" r="2"/><circle cx="180" cy="20" r="2"/><line class="ci" x1="100" x2="100" y1="30" y2="70"/>`) +
		chart("below", yTicks+xTicks, `<circle cx="50" cy="82" r="2"/><circle cx="60" cy="50" r="2"/>`) +
		chart("bar-above", yTicks+xTicks, `<circle cx="50" cy="50" r="2"/><line class="ci" x1="50" x2="50" y1="18" y2="60"/>`) +
		chart("right-of", yTicks+xTicks, `<circle cx="183" cy="50" r="2"/>`) +
		chart("no-x", yTicks, `<circle cx="50" cy="50" r="2"/>`) +
		chart("reversed", `<text class="tick" data-axis="y" data-value="1" x="20" y="20" dominant-baseline="central">1ms</text>`+
			`<text class="tick" data-axis="y" data-value="2" x="20" y="80" dominant-baseline="central">2ms</text>`+xTicks, `<circle cx="50" cy="50" r="2"/>`) +
		`</body></html>`
	path := filepath.Join(t.TempDir(), "p.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Open(t, path)
	want := map[string]string{
		"inside":    "",
		"below":     `y axis: the lowest label "1ms" (at 80.0) is above the lowest point (at 82.0)`,
		"bar-above": `y axis: the highest label "2ms" (at 20.0) is below the highest point (at 18.0)`,
		"right-of":  `x axis: the highest label "50%" (at 180.0) is below the highest point (at 183.0)`,
		"no-x":      "x axis: 0 labelled ticks, want 2 at least",
		"reversed": `y axis: ticks "1ms" at 20.0 and "2ms" at 80.0 repeat or are out of order; ` +
			`y axis: the lowest label "1ms" (at 20.0) is above the lowest point (at 50.0); ` +
			`y axis: the highest label "2ms" (at 80.0) is below the highest point (at 50.0)`,
	}
	if len(p.Charts) != len(want) {
		t.Fatalf("%d charts", len(p.Charts))
	}
	for _, c := range p.Charts {
		got := strings.Join(Bracket(c, false), "; ")
		if got != want[c.ID] {
			t.Errorf("%s: %q, want %q (ticks %+v, data %+v)", c.ID, got, want[c.ID], c.Ticks, c.Data)
		}
	}
	if got := Bracket(p.Charts[4], true); len(got) != 0 {
		t.Errorf("a category x axis needs no ticks: %q", got)
	}
}

// TestBarsProblems: a stacked bar whose segment has no width, leaves a gap, is not in proportion to
// its time, is filled in another colour than its legend swatch or is missing from the legend is
// reported, and a phase in two colours on one page too; a bar drawn as its times say is not.
func TestBarsProblems(t *testing.T) {
	seg := func(phase string, x, w float64, colour string) string {
		return fmt.Sprintf(`<rect class="seg" data-phase="%s" x="%v" y="0" width="%v" height="10" style="fill:%s"/>`, phase, x, w, colour)
	}
	bar := func(target string, panel int, segs ...string) string {
		return fmt.Sprintf(`<g class="bar" data-target="%s" data-panel="%d">%s</g>`, target, panel, strings.Join(segs, ""))
	}
	legend := func(phases ...string) string {
		var b strings.Builder
		for i := 0; i < len(phases); i += 2 {
			fmt.Fprintf(&b, `<span data-phase="%s"><span class="swatch" style="color:%s">&#9632;</span> %s</span>`, phases[i], phases[i+1], phases[i])
		}
		return `<p class="legend">` + b.String() + `</p>`
	}
	figure := func(id string, bars, leg string) string {
		return `<figure class="bars" id="` + id + `"><svg viewBox="0 0 200 100" width="400" height="200">` + bars + `</svg>` + leg + `</figure>`
	}
	page := `<!DOCTYPE html><html><head><title>t</title></head><body>` +
		figure("good", bar("a", 0, seg("send", 10, 20, "red"), seg("wait", 30, 10, "blue"))+bar("b", 0, seg("send", 10, 10, "red"))+
			bar("c", 1, seg("wait", 10, 100, "blue")), legend("send", "red", "wait", "blue")) +
		figure("bad", bar("a", 0, seg("send", 10, 20, "red"), seg("wait", 32, 0, "blue"))+bar("b", 0, seg("send", 10, 40, "green")),
			legend("send", "red")) +
		`</body></html>`
	path := filepath.Join(t.TempDir(), "p.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Open(t, path)
	if len(p.Bars) != 2 {
		t.Fatalf("%d bars figures, want 2: %+v", len(p.Bars), p.Bars)
	}
	want := BarsExpect{ID: "good", Bars: []BarExpect{
		{Target: "a", Phases: []string{"send", "wait"}, Ns: []float64{200, 100}},
		{Target: "b", Phases: []string{"send"}, Ns: []float64{100}},
		{Target: "c", Panel: 1, Phases: []string{"wait"}, Ns: []float64{5000}},
	}}
	if got := BarsProblems(p.Bars[0], want); len(got) != 0 {
		t.Errorf("good: %q", got)
	}
	want.ID, want.Bars = "bad", want.Bars[:2]
	got := strings.Join(BarsProblems(p.Bars[1], want), "\n")
	for _, w := range []string{
		"a wait: 100 ns drawn 0.00 wide (0.00 px on the screen)",
		"a wait: starts at 32.00, the segment before ends at 30.00",
		"a wait: the legend does not name the phase",
		"b send: filled rgb(0, 128, 0), its legend swatch is rgb(255, 0, 0)",
		"b: 40.00 long for 100 ns, want 6.67 as its panel's longest bar scales",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("bad: the problems lack %q:\n%s", w, got)
		}
	}
	if got := strings.Join(ColourProblems(p), "\n"); !strings.Contains(got, "bad b: phase send filled rgb(0, 128, 0), elsewhere rgb(255, 0, 0)") {
		t.Errorf("colour problems: %q", got)
	}
}

package render

import (
	"bytes"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render/browsertest"
)

// The phases of profile.json (testdata/genprofile.go) in the text report: per target and workload
// each phase's ns/op and share in operation order, other, the exec client's round trip, the
// profile's cost, a sampled phase and a client's marked, the C baseline not profiled.
func TestPhasesSummaryGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Summary(&b, readReport(t, "profile.json")); err != nil {
		t.Fatal(err)
	}
	golden(t, "profile.summary.txt", b.Bytes())
}

// The bars figures of profile.json as the page writes them.
func TestPhaseBarsGolden(t *testing.T) {
	secs, err := ReportCharts(readReport(t, "profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, s := range secs {
		if s.Bars != nil {
			s.Bars.WriteSVG(&b)
		}
	}
	golden(t, "profile.bars.html", b.Bytes())
}

// TestPhasesTableRows: every row of the table holds the figure the report has under the name the
// engine writes, in the profile's order; a report without a profile has no table.
func TestPhasesTableRows(t *testing.T) {
	r := readReport(t, "profile.json")
	var b bytes.Buffer
	Phases(&b, r, Style{Width: 200})
	text := b.String()
	// the rows in order: each result's phases in the profile's order, then other, the round trip and
	// the cost where the result has them
	at := 0
	next := func(what string, re string) {
		t.Helper()
		loc := regexp.MustCompile(re).FindStringIndex(text[at:])
		if loc == nil {
			t.Errorf("%s: no row %s after the previous one", what, re)
			return
		}
		at += loc[1]
	}
	q := regexp.QuoteMeta
	for _, x := range r.Results {
		what := x.Target + " " + x.Workload
		if x.Profile == nil {
			next(what, `(?m)^`+q(x.Target)+` +`+q(x.Workload)+` +- +not profiled$`)
			continue
		}
		next(what, `(?m)^`+q(x.Target)+` +`+q(x.Workload)+` `)
		for _, p := range x.Profile.Phases {
			mark := map[string]string{"sampled": "~", "client": "*"}[p.Method]
			next(what, q(p.Name+mark)+` +`+q(Ns(x.Figures[report.PhaseFigure(p.Name)]))+` +`+q(shareText(x.Figures[report.PhaseShareFigure(p.Name)])))
		}
		for _, f := range []struct{ fig, label string }{{report.PhaseOther, "other"}, {report.RoundTrip, "round trip"}, {report.ProfileOverhead, "profile cost"}} {
			if v, ok := x.Figures[f.fig]; ok {
				next(what, `(?m)^ +`+q(f.label)+` +`+q(Ns(v))+` `)
			}
		}
	}
	if !strings.Contains(text, "get~") || !strings.Contains(text, "sampled 1 in 64") || !strings.Contains(text, "txn*") {
		t.Errorf("the sampled and client phases are not marked:\n%s", text)
	}
	// in a size sweep each result's rows name its size
	r.Run.Sizes = []int{1000, 10000}
	b.Reset()
	Phases(&b, r, Style{Width: 200})
	if !regexp.MustCompile(`(?m)^TARGET +WORKLOAD +SIZE +PHASE`).MatchString(b.String()) || !regexp.MustCompile(`(?m)^lmdb-go +lookup +10000 +txn `).MatchString(b.String()) {
		t.Errorf("a sweep's phases table does not name the size:\n%s", b.String())
	}
	b.Reset()
	Phases(&b, readReport(t, "sweep.json"), Style{})
	if b.Len() != 0 {
		t.Errorf("a report without a profile has a phases table:\n%s", b.String())
	}
}

func TestPhaseSegments(t *testing.T) {
	x := &report.Result{
		Profile: &report.Profile{Phases: []report.ProfilePhase{{Name: "send", Method: "timed"}, {Name: "get", Method: "sampled", Every: 64}, {Name: "decode", Method: "client"}}},
		Figures: map[string]float64{"phase_send_ns": 300, "phase_send_share": 0.3, "phase_get_ns": 500, "phase_get_share": 0.5, report.PhaseOther: 200},
	}
	segs := PhaseSegments(x)
	var labels []string
	for _, s := range segs {
		labels = append(labels, s.Label())
	}
	if want := []string{"send", "get~", "decode*", "other"}; !slices.Equal(labels, want) {
		t.Fatalf("labels %v, want %v", labels, want)
	}
	if !math.IsNaN(segs[2].Ns) || segs[3].Ns != 200 || segs[3].Share != 0.2 || segs[1].how() != "sampled 1 in 64" {
		t.Errorf("segments %+v: want decode without a figure, other 200ns and 20%%", segs)
	}
	if bar := (PhaseBar{Segments: segs}); bar.Total() != 1000 {
		t.Errorf("total %v, want 1000 (a phase without a figure adds nothing)", bar.Total())
	}
	if s := (PhaseSegment{Phase: "io", Method: "batched"}); s.how() != "batched" || s.Label() != "io" {
		t.Errorf("a method this dbbench does not know reads %q %q, want it said as it is", s.Label(), s.how())
	}
	if PhaseSegments(&report.Result{Figures: x.Figures}) != nil {
		t.Error("a result without a profile has segments")
	}
}

// TestPanels: bars more than panelSpread times apart go on separate axes, shortest first; bars
// within it share one; a bar's round trip counts to its reach; an unprofiled bar joins the first.
func TestPanels(t *testing.T) {
	bar := func(name string, ns, trip float64) PhaseBar {
		return PhaseBar{Target: name, Segments: []PhaseSegment{{Phase: "x", Ns: ns}}, RoundTrip: trip}
	}
	for _, tt := range []struct {
		name string
		bars []PhaseBar
		want [][]string
	}{
		{"one axis", []PhaseBar{bar("a", 500, 0), bar("b", 4000, 0)}, [][]string{{"a", "b"}}},
		{"far apart", []PhaseBar{bar("typedb", 210000, 0), bar("lmdb-go", 545, 0), {Target: "lmdb-c"}}, [][]string{{"lmdb-go", "lmdb-c"}, {"typedb"}}},
		{"round trip reaches", []PhaseBar{bar("a", 500, 0), bar("exec", 900, 6900)}, [][]string{{"a"}, {"exec"}}},
		{"zero", []PhaseBar{bar("a", 0, 0), bar("b", 300, 0)}, [][]string{{"a", "b"}}},
		{"none profiled", []PhaseBar{{Target: "c"}}, [][]string{{"c"}}},
	} {
		b := &PhaseBars{Bars: tt.bars}
		var got [][]string
		for _, p := range b.Panels() {
			var names []string
			for _, x := range p {
				names = append(names, x.Target)
			}
			got = append(got, names)
		}
		if !slices.EqualFunc(got, tt.want, slices.Equal) {
			t.Errorf("%s: panels %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestPhaseColours: one colour per phase name across the report, distinct while the palette lasts,
// grey for other; every segment of the page is filled with its phase's colour.
func TestPhaseColours(t *testing.T) {
	r := readReport(t, "profile.json")
	c := PhaseColours(r)
	seen := map[string]string{}
	for name, col := range c {
		if other, ok := seen[col]; ok {
			t.Errorf("%s and %s share %s", name, other, col)
		}
		seen[col] = name
	}
	if c["other"] != otherColour || len(c) != 8 {
		t.Errorf("colours %v: want txn get copy send wait drain decode and other", c)
	}
	var b bytes.Buffer
	if err := HTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	segs := regexp.MustCompile(`<rect class="seg" data-phase="([a-z0-9_]+)"[^>]* style="fill:(#[0-9A-F]{6})"`).FindAllStringSubmatch(b.String(), -1)
	if len(segs) != 4+5+4+4 {
		t.Errorf("%d segments on the page, want 17", len(segs))
	}
	for _, m := range segs {
		if m[2] != c[m[1]] {
			t.Errorf("a %s segment is filled %s, want %s", m[1], m[2], c[m[1]])
		}
	}
}

// TestHTMLPhasesTable: the page states every phase's value in text too, in the profile's order, with
// other, the round trip and the profile cost in their columns.
func TestHTMLPhasesTable(t *testing.T) {
	r := readReport(t, "profile.json")
	var b bytes.Buffer
	htmlPhases(&b, r)
	page := b.String()
	for _, x := range r.Results {
		row := "<tr><td>" + x.Target + "</td><td>" + x.Workload + "</td><td>not profiled</td><td class=n>-</td><td class=n>-</td><td class=n>-</td></tr>"
		if x.Profile != nil {
			var phases []string
			for _, p := range x.Profile.Phases {
				mark := map[string]string{"sampled": "~", "client": "*"}[p.Method]
				phases = append(phases, p.Name+mark+" "+Ns(x.Figures[report.PhaseFigure(p.Name)])+" ("+shareText(x.Figures[report.PhaseShareFigure(p.Name)])+")")
			}
			cell := func(fig string) string {
				if v, ok := x.Figures[fig]; ok {
					return Ns(v)
				}
				return "-"
			}
			segs := PhaseSegments(&x)
			other := segs[len(segs)-1]
			row = "<tr><td>" + x.Target + "</td><td>" + x.Workload + "</td><td>" + esc(strings.Join(phases, " · ")) + "</td><td class=n>" +
				Ns(x.Figures[report.PhaseOther]) + " (" + shareText(other.Share) + ")</td><td class=n>" + cell(report.RoundTrip) + "</td><td class=n>" + cell(report.ProfileOverhead) + "</td></tr>"
		}
		if !strings.Contains(page, row) {
			t.Errorf("%s %s: no row %s in\n%s", x.Target, x.Workload, row, page)
		}
	}
	b.Reset()
	htmlPhases(&b, readReport(t, "lmdb.json"))
	if b.Len() != 0 {
		t.Error("a report without a profile has a phases table")
	}
}

// TestHTMLResultsMemory: the results table shows the headline memory figures of each result
// beside its times ("-" where it has none); the Memory table still has the breakdown.
func TestHTMLResultsMemory(t *testing.T) {
	r := readReport(t, "profile.json")
	var b bytes.Buffer
	htmlResults(&b, r)
	page := b.String()
	if !strings.Contains(page, "<th class=n>alloc/op</th><th class=n>retained/op</th><th class=n>peak rss</th><th></th>") {
		t.Errorf("the results table lacks the memory columns:\n%s", page)
	}
	for i := range r.Results {
		x := &r.Results[i]
		cells := resultCells(x)
		var row strings.Builder
		for _, c := range append(cells[:len(cells)-1], memoryCells(x, memoryHeadline(r))...) {
			row.WriteString("<td class=n>" + esc(c) + "</td>")
		}
		if !strings.Contains(page, row.String()) {
			t.Errorf("%s %s: no row %s", x.Target, x.Workload, row.String())
		}
	}
	for _, want := range []string{"<td class=n>48.6 B</td><td class=n>0.31 B</td><td class=n>96.2 MiB</td>", "<td class=n>-</td><td class=n>2.05 B</td><td class=n>19.9 MiB</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the results table lacks %s", want)
		}
	}
	b.Reset()
	htmlResults(&b, readReport(t, "sweep.json"))
	if strings.Contains(b.String(), "retained/op") {
		t.Error("a report without memory figures has memory columns")
	}
}

// barExpectations turns the page's bars model into what the browser must draw.
func barExpectations(secs []Section) []browsertest.BarsExpect {
	var out []browsertest.BarsExpect
	for _, s := range secs {
		if s.Bars == nil {
			continue
		}
		e := browsertest.BarsExpect{ID: s.Bars.ID}
		for k, p := range s.Bars.Panels() {
			for _, bar := range p {
				be := browsertest.BarExpect{Target: bar.Target, Panel: k}
				for _, seg := range bar.Segments {
					if !math.IsNaN(seg.Ns) {
						be.Phases = append(be.Phases, seg.Phase)
						be.Ns = append(be.Ns, seg.Ns)
					}
				}
				e.Bars = append(e.Bars, be)
			}
		}
		out = append(out, e)
	}
	return out
}

// TestPhasesWithoutFigures: a profile whose figures are missing (an engine that wrote none, a
// merged report) draws an empty bar and dashes, never NaN.
func TestPhasesWithoutFigures(t *testing.T) {
	r := readReport(t, "profile.json")
	for i := range r.Results {
		for k := range r.Results[i].Figures {
			if strings.HasPrefix(k, "phase_") || k == report.RoundTrip || k == report.ProfileOverhead {
				delete(r.Results[i].Figures, k)
			}
		}
	}
	var page, text bytes.Buffer
	if err := HTML(&page, r, nil); err != nil {
		t.Fatal(err)
	}
	if err := Summary(&text, r); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{"page": page.String(), "text": text.String()} {
		if strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
			t.Errorf("the %s shows NaN or Inf", name)
		}
	}
	if !regexp.MustCompile(`(?m)^lmdb-go +lookup +txn +- +-$`).MatchString(text.String()) {
		t.Errorf("a phase without figures is not a row of dashes:\n%s", text.String())
	}
}

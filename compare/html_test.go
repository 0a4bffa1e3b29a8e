package compare

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/render"
	"github.com/dbbench/dbbench/report/render/browsertest"
)

// lmdbComparison compares two real runs of configs/lmdb.yaml (four targets), normalized by the C
// target and gated, as CI would.
func lmdbComparison(t *testing.T) *Comparison {
	t.Helper()
	var reps [2]*report.Report
	for i, name := range []string{"lmdb.json", "lmdb-2.json"} {
		r, err := report.Read(filepath.Join("..", "report", "render", "testdata", name)) // two runs of configs/lmdb.yaml
		if err != nil {
			t.Fatal(err)
		}
		reps[i] = r
	}
	var th Thresholds
	if err := th.Set("15%"); err != nil {
		t.Fatal(err)
	}
	c, err := Compare(reps[0], reps[1], Options{NormalizeBy: "lmdb-c", Thresholds: &th, OldName: "lmdb-old.json", NewName: "lmdb-new.json"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func expectCharts(charts []render.Chart) []browsertest.Expect {
	var out []browsertest.Expect
	for _, c := range charts {
		e := browsertest.Expect{ID: c.ID, XCategories: c.XCategories != nil}
		for _, s := range c.Series {
			e.Series = append(e.Series, browsertest.SeriesSeen{Name: s.Name, Points: len(s.Points)})
		}
		out = append(out, e)
	}
	return out
}

func TestHTMLInBrowser(t *testing.T) {
	scenarios := map[string]func(*testing.T) *Comparison{"lmdb": lmdbComparison, "gate": gateScenario, "sweep": sweepScenario}
	for name, mk := range scenarios {
		t.Run(name, func(t *testing.T) {
			c := mk(t)
			var b bytes.Buffer
			if err := WriteHTML(&b, c); err != nil {
				t.Fatal(err)
			}
			if b.Len() > 200_000 {
				t.Errorf("the compare page is %d bytes, over the 200 KB budget", b.Len())
			}
			path := filepath.Join(t.TempDir(), "compare.html")
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			page := browsertest.Open(t, path)
			browsertest.Check(t, page, expectCharts(ChangeCharts(c)))
			browsertest.SaveArtifact(t, "compare-"+name+".png", page.Screenshot)
		})
	}
}

// TestChangeCharts checks the chart model against the comparison's rows: every row with a change is
// one point, at its change in percent, with its interval when it has one.
func TestChangeCharts(t *testing.T) {
	c := gateScenario(t)
	charts := ChangeCharts(c)
	seen := 0
	for _, ch := range charts {
		fig := strings.TrimPrefix(ch.ID, "change-")
		for _, s := range ch.Series {
			for _, p := range s.Points {
				seen++
				var row *Row
				for i := range c.Rows {
					r := &c.Rows[i]
					if r.Figure == fig && r.Target == s.Name && ch.XCategories[int(p.X)] == category(c, *r) {
						row = r
					}
				}
				if row == nil {
					t.Fatalf("%s: point %+v of %s matches no row", ch.ID, p, s.Name)
				}
				if p.Y != 100*float64(row.Change) {
					t.Errorf("%s %s: y %v, want %v", ch.ID, s.Name, p.Y, 100*float64(row.Change))
				}
				lo := float64(row.ChangeLo)
				if row.Decision != nil { // a gated row draws the interval the gate decided on
					lo = float64(row.Decision.Lo)
				}
				if !math.IsNaN(lo) && p.Lo != 100*lo {
					t.Errorf("%s %s: interval from %v, want %v", ch.ID, s.Name, p.Lo, 100*lo)
				}
			}
		}
		gated := 0
		for _, m := range ch.Marks {
			if m.Bad {
				gated++
			}
		}
		if gated == 0 {
			t.Errorf("%s: no gate threshold drawn", ch.ID)
		}
	}
	want := 0
	for _, r := range c.Rows {
		if !math.IsNaN(float64(r.Change)) {
			want++
		}
	}
	if seen != want || want == 0 {
		t.Errorf("%d points, want one per row with a change (%d)", seen, want)
	}
}

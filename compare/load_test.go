package compare

import (
	"bytes"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/report"
)

// Two open-loop reports compare on the rate achieved and the response time (from the intended
// start), not on an ambiguous p50 or a throughput the schedule set; a per-operation-type clock can
// be asked for by name; every format renders.
func TestCompareLoad(t *testing.T) {
	read := func() *report.Report {
		r, err := report.Read(filepath.Join("..", "report", "render", "testdata", "load.json"))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	old, slower := read(), read()
	for i := range slower.Results {
		x := &slower.Results[i]
		if x.Target != "sqlite" {
			continue
		}
		for _, figs := range []map[string]float64{x.Figures, x.Repeats[0].Figures} {
			for k := range figs {
				if strings.Contains(k, "response_") {
					figs[k] *= 1.5
				}
			}
			figs["achieved_rate"] *= 0.9
		}
	}
	c, err := Compare(old, slower, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range c.Rows {
		got = append(got, r.Target+" "+r.Figure)
		if r.Target == "sqlite" && r.Figure == "response_p99" && math.Abs(float64(r.Change)-0.5) > 1e-9 {
			t.Errorf("sqlite response_p99 change %v, want +50%%", r.Change)
		}
		if r.Target == "sqlite" && r.Figure == "achieved_rate" && math.Abs(float64(r.Change)+0.1) > 1e-9 {
			t.Errorf("sqlite achieved_rate change %v, want -10%%", r.Change)
		}
	}
	want := []string{"memory achieved_rate", "memory response_p50", "memory response_p99", "sqlite achieved_rate", "sqlite response_p50", "sqlite response_p99"}
	if !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	for _, f := range []Format{"text", "markdown", "json", "html"} {
		var b bytes.Buffer
		// markdown escapes the underscore
		if err := Render(&b, c, f); err != nil || !strings.Contains(strings.ReplaceAll(b.String(), `\_`, "_"), "response_p99") {
			t.Errorf("%s: %v, output without response_p99", f, err)
		}
	}
	byOp, err := Compare(old, slower, Options{Figures: []string{"read.response_p99", "update.service_p50"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(byOp.Rows) != 4 || byOp.Rows[2].Figure != "read.response_p99" || byOp.Rows[2].Unit != "ns" || math.Abs(float64(byOp.Rows[2].Change)-0.5) > 1e-9 {
		t.Errorf("per operation type: %+v", byOp.Rows)
	}
}

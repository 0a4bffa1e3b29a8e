package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/report"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestSummaryGolden(t *testing.T) {
	r, err := report.Read(filepath.Join("testdata", "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Summary(&b, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "sweep.summary.txt", b.Bytes())
}

// An open-loop report (two targets, two operation types, one of them saturated): after the results
// table, per target the rates, counts, saturation, generator and the three clocks by their names.
func TestLoadSummaryGolden(t *testing.T) {
	r, err := report.Read(filepath.Join("testdata", "load.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Summary(&b, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "load.summary.txt", b.Bytes())
}

func TestFormats(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{Ns(812), "812ns"}, {Ns(4210), "4.21µs"}, {Ns(13_040_000), "13.0ms"}, {Ns(2.5e9), "2.50s"},
		{Rate(812), "812/s"}, {Rate(4210), "4.21k/s"}, {Rate(1.234e8), "123M/s"}, {Count(1.5), "1.50"},
		{trimFloat(0.0001), "0.0001"}, {trimFloat(1.36363), "1.364"}, {trimFloat(1e6), "1000000"}, {trimFloat(-0.0), "0"},
		{FigureValue("p50", 1500), "1.50µs"}, {FigureValue("rows_per_s", 2e6), "2.00M/s"}, {FigureValue("ops", 3), "3"},
		{FigureValue("read.response_p99", 2e6), "2.00ms"}, {FigureValue("achieved_rate", 995), "995/s"}, {FigureValue("dropped", 3), "3"},
		{FigureValue("read.achieved_rate", 995), "995"}, // not kept per operation type: no unit
		{secondsText(0), "0s"}, {secondsText(12e9), "12s"}, {secondsText(2_500_000_000), "2.5s"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// A run that measured nothing says why: a target that could not be opened is not a skipped one.
func TestVerdictOfARunThatMeasuredNothing(t *testing.T) {
	for _, c := range []struct {
		name   string
		errors []string
		want   string
	}{
		{"stopped", []string{"target pg: sign in: password authentication failed\nfor user x"},
			"verdict: ERROR: the run stopped before anything was measured: target pg: sign in: password authentication failed for user x\n"},
		{"all skipped", nil, "verdict: ERROR: every target was skipped, so nothing was measured (see skipped above)\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &report.Report{Verdict: "error", Run: report.Run{Errors: c.errors}}
			var b bytes.Buffer
			verdictLine(&b, r)
			if got := b.String(); got != "\n"+c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// The three saturation states read differently, and a generator-saturated result says its figures
// are not the target's.
func TestSaturationText(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range []string{"", "target saturated", "generator saturated"} {
		txt := SaturationText(s)
		if seen[txt] {
			t.Errorf("%q reads as another state: %q", s, txt)
		}
		seen[txt] = true
	}
	if got := SaturationText("generator saturated"); !strings.Contains(got, "say nothing of the target") {
		t.Errorf("generator saturated: %q", got)
	}
}

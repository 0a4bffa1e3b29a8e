package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/compare/comparetest"
	"github.com/dbbench/dbbench/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// gateScenario is a normalized, gated comparison with a regression, an improvement, a failed result,
// an unpaired one and notes: most of what the renderers show.
func gateScenario(t *testing.T) *Comparison {
	t.Helper()
	const n = 10
	mk := func(sutRatio, latScale float64, seed uint64, failOther bool) *report.Report {
		ref := comparetest.Noisy(2e6, 0.05, n, seed)
		sut := make([]float64, n)
		own := comparetest.Noisy(1, 0.01, n, seed+100)
		for i := range ref {
			sut[i] = ref[i] * sutRatio * own[i]
		}
		refLat := comparetest.Latencies(400, 0.3, n, 100, seed)
		sutLat := make([][]int64, n)
		p50 := func(lat [][]int64) []float64 {
			out := make([]float64, len(lat))
			for i, rep := range lat {
				h := report.NewHistogram()
				for _, l := range rep {
					_ = h.RecordValue(l)
				}
				out[i] = float64(h.ValueAtQuantile(50))
			}
			return out
		}
		for i, rep := range refLat {
			for _, l := range rep {
				sutLat[i] = append(sutLat[i], int64(float64(l)*1.3*latScale))
			}
		}
		other := ct{Target: "other", Workload: "scan", Unit: "scan", Figures: map[string][]float64{"rows_per_s": comparetest.Scale(ref, 0.9)}}
		if failOther {
			other.Status, other.Error = "failed", "verification failed: checksum 00000000000000ff, want 0000000000000100: the rows are not the dataset's"
		}
		results := []ct{
			{Target: "ref", Workload: "scan", Unit: "scan", Figures: map[string][]float64{"rows_per_s": ref}},
			{Target: "sut", Workload: "scan", Unit: "scan", Figures: map[string][]float64{"rows_per_s": sut}},
			other,
			{Target: "ref", Workload: "lookup", Latencies: refLat, Figures: map[string][]float64{"rows_per_s": comparetest.Scale(ref, 0.1), "p50": p50(refLat)}},
			{Target: "sut", Workload: "lookup", Latencies: sutLat, Figures: map[string][]float64{"rows_per_s": comparetest.Scale(ref, 0.1/1.3/latScale), "p50": p50(sutLat)}},
		}
		if !failOther {
			results = append(results, ct{Target: "sut", Workload: "insert", Unit: "insert-txn", Figures: map[string][]float64{"rows_per_s": comparetest.Scale(ref, 0.3)}})
		}
		return comparetest.Report("gate", results...)
	}
	old := mk(0.5, 1, 1, false)
	new := mk(0.5/1.2, 0.8, 2, true)
	new.Targets[1].Slowdown = 0.2
	var th Thresholds
	for _, s := range []string{"10%", "lookup.p50=15%"} {
		if err := th.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Compare(old, new, Options{PerRepeat: true, NormalizeBy: "ref", Thresholds: &th, OldName: "baselines/gate-ci.json", NewName: "reports/gate-ci.json"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sweepScenario compares a size sweep without normalization or gate, one row with too few repeats.
func sweepScenario(t *testing.T) *Comparison {
	t.Helper()
	mk := func(k float64, seed uint64) *report.Report {
		return comparetest.Report("sweep",
			ct{Target: "indexed", Workload: "page_all", Unit: "op", Size: 1000, Figures: map[string][]float64{"ops_per_s": comparetest.Noisy(5000*k, 0.02, 6, seed), "ns_per_op": comparetest.Noisy(2e5/k, 0.02, 6, seed+1)}},
			ct{Target: "indexed", Workload: "page_all", Unit: "op", Size: 10000, Figures: map[string][]float64{"ops_per_s": comparetest.Noisy(700*k, 0.02, 3, seed), "ns_per_op": comparetest.Noisy(1.4e6/k, 0.02, 3, seed+1)}},
		)
	}
	c, err := Compare(mk(1, 1), mk(1.1, 5), Options{PerRepeat: true, Figures: []string{"ops_per_s", "ns_per_op"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRenderGolden(t *testing.T) {
	scenarios := map[string]func(*testing.T) *Comparison{"gate": gateScenario, "sweep": sweepScenario}
	for name, mk := range scenarios {
		c := mk(t)
		for _, f := range Formats {
			t.Run(name+"."+string(f), func(t *testing.T) {
				var b bytes.Buffer
				if err := Render(&b, c, f); err != nil {
					t.Fatal(err)
				}
				golden(t, filepath.Join("testdata", name+"."+string(f)+".golden"), b.Bytes())
			})
		}
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it after a deliberate change):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestGateScenarioOutcome(t *testing.T) {
	c := gateScenario(t)
	if c.Gate.Verdict != GateFail {
		t.Fatalf("gate %q, want fail", c.Gate.Verdict)
	}
	got := map[string]GateStatus{}
	for _, r := range c.Rows {
		got[r.Target+" "+r.Workload+" "+r.Figure] = r.Gate
	}
	want := map[string]GateStatus{
		"sut scan rows_per_s":   GateFail, // 20% slower than the reference: ratio -16.7% beyond 10%
		"sut lookup rows_per_s": GatePass, // latencies 0.8x: better
		"sut lookup p50":        GatePass,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: gate %q, want %q", k, got[k], v)
		}
	}
	if len(c.Failed) != 1 || c.Failed[0].Target != "other" || c.Failed[0].In != "new" {
		t.Errorf("failed %+v, want other scan failed in new", c.Failed)
	}
	if len(c.Unpaired) != 1 || c.Unpaired[0].Workload != "insert" {
		t.Errorf("unpaired %+v, want sut insert (only in OLD)", c.Unpaired)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	c := sweepScenario(t)
	var b bytes.Buffer
	if err := WriteJSON(&b, c); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Rows []struct {
			Verdict  string   `json:"verdict"`
			ChangeLo *float64 `json:"change_lo"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	sawTooFew := false
	for _, r := range back.Rows {
		if r.Verdict == string(TooFew) {
			sawTooFew = true
			if r.ChangeLo != nil {
				t.Errorf("too-few row has a CI bound %v; want null", *r.ChangeLo)
			}
		}
	}
	if !sawTooFew {
		t.Error("the sweep's 3-repeat size should be too_few_repeats")
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range []string{"text", "markdown", "json", "html"} {
		if _, err := ParseFormat(f); err != nil {
			t.Errorf("ParseFormat(%q): %v", f, err)
		}
	}
	if _, err := ParseFormat("pdf"); err == nil || !strings.Contains(err.Error(), `unknown format "pdf"`) {
		t.Errorf("ParseFormat(pdf): %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRenderReportsWriteErrors(t *testing.T) {
	c := sweepScenario(t)
	for _, f := range Formats {
		if err := Render(failWriter{}, c, f); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%s: error %v, want the write error", f, err)
		}
	}
}

package render

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/dbbench/dbbench/report"
)

// documented compiles a schema written from a dashboard's documentation (testdata).
func documented(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validateDoc(t *testing.T, s *jsonschema.Schema, b []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("the export does not match the documented format: %v", err)
	}
}

// TestGitHubBenchmark: the documented entry format, one entry per figure per target (never one per
// repeat), throughputs only in the bigger-is-better file and times only in the other, the median as
// value and the repeats' spread as range.
func TestGitHubBenchmark(t *testing.T) {
	s := documented(t, "github-action-benchmark.schema.json")
	for _, name := range []string{"lmdb.json", "sweep.json"} {
		r := readReport(t, name)
		seen := map[string]bool{}
		for _, bigger := range []bool{true, false} {
			var b bytes.Buffer
			if err := GitHubBenchmark(&b, r, bigger); err != nil {
				t.Fatal(err)
			}
			validateDoc(t, s, b.Bytes())
			var entries []GitHubBenchmarkEntry
			if err := json.Unmarshal(b.Bytes(), &entries); err != nil {
				t.Fatal(err)
			}
			if len(entries) == 0 {
				t.Fatalf("%s: no entries (bigger=%t)", name, bigger)
			}
			for _, e := range entries {
				if seen[e.Name] {
					t.Errorf("%s: %s appears twice", name, e.Name)
				}
				seen[e.Name] = true
				throughput := strings.HasSuffix(e.Unit, "/s")
				if throughput != bigger {
					t.Errorf("%s: %s (%s) in the bigger-is-better=%t file", name, e.Name, e.Unit, bigger)
				}
				ref, err := report.ParseRef(e.Name)
				if err != nil {
					t.Fatal(err)
				}
				x := r.Find(ref.Target, ref.Workload, ref.SizeIn(r.Run.Sizes))
				if x == nil || x.Status != "ok" {
					t.Fatalf("%s: %s names no ok result", name, e.Name)
				}
				if e.Value != x.Figures[ref.Figure] {
					t.Errorf("%s: %s = %v, want the median %v", name, e.Name, e.Value, x.Figures[ref.Figure])
				}
				if !strings.HasPrefix(e.Range, "± ") {
					t.Errorf("%s: range %q", e.Name, e.Range)
				}
			}
		}
		// every figure of every ok result is there exactly once
		want := 0
		for _, x := range r.Results {
			if x.Status != "ok" {
				continue
			}
			for _, d := range dashboardFigures {
				if _, ok := x.Figures[d.figure]; ok {
					want++
				}
			}
		}
		if len(seen) != want {
			t.Errorf("%s: %d entries, want %d (one per figure per ok result)", name, len(seen), want)
		}
	}
}

func TestBencher(t *testing.T) {
	s := documented(t, "bencher-bmf.schema.json")
	for _, name := range []string{"lmdb.json", "sweep.json"} {
		r := readReport(t, name)
		var b bytes.Buffer
		if err := Bencher(&b, r); err != nil {
			t.Fatal(err)
		}
		validateDoc(t, s, b.Bytes())
		var got map[string]map[string]BencherMetric
		if err := json.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		ok := 0
		for _, x := range r.Results {
			if x.Status == "ok" {
				ok++
			}
		}
		if len(got) != ok {
			t.Errorf("%s: %d benchmarks, want one per ok result (%d)", name, len(got), ok)
		}
		for bench, measures := range got {
			for slug, m := range measures {
				if m.LowerValue == nil || m.UpperValue == nil || *m.LowerValue > m.Value || m.Value > *m.UpperValue {
					t.Errorf("%s %s %s: value %v outside its range [%v, %v]", name, bench, slug, m.Value, m.LowerValue, m.UpperValue)
				}
				if len(slug) > 64 || strings.ContainsAny(slug, " _") {
					t.Errorf("%s: measure %q is not a slug", name, slug)
				}
			}
		}
	}
	// the failed result (b lookup @200 in sweep.json) is left out
	r := readReport(t, "sweep.json")
	var b bytes.Buffer
	if err := Bencher(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `"lookup[b@200]"`) {
		t.Error("the failed result is exported")
	}
}

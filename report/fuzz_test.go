package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzParse: any bytes are a report or one error naming the file, never a panic; a report that is
// accepted can be written and read back.
func FuzzParse(f *testing.F) {
	h := NewHistogram()
	Record(h, 1234*time.Nanosecond)
	enc, _ := EncodeHistogram(h)
	r := &Report{SchemaVersion: SchemaVersion, Tool: Tool{Name: "dbbench"}, Verdict: "pass", Results: []Result{{
		Target: "a", Workload: "scan", Size: 10, Status: "ok", Histogram: enc,
		Figures: map[string]float64{"p50": 1234}, Repeats: []Repeat{{Index: 0, Histogram: enc, Figures: map[string]float64{"p50": 1234}}},
	}}}
	b, _ := Encode(r)
	f.Add(b)
	if gate, err := os.ReadFile(filepath.Join("..", "baselines", "gate-ci.json")); err == nil {
		f.Add(gate)
	}
	for _, s := range []string{`{"schema_version": 1}`, `{"schema_version": 1, "verdict": "pass", "results": [{"target": "a", "workload": "b", "histogram": "HISTFAAAACh4nJNpmSzMwMDAyAABzFCaEUrzMTAwMDEAAB4CAUE="}]}`, `[]`, `null`, `{"schema_version": 99}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse("f.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		b, err := Encode(r)
		if err != nil {
			t.Fatalf("accepted report does not encode: %v", err)
		}
		if _, err := Parse("again.json", b); err != nil {
			t.Fatalf("accepted report does not read back: %v", err)
		}
	})
}

package report

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHistogramRoundTrip(t *testing.T) {
	h := NewHistogram()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 10000; i++ {
		Record(h, time.Duration(rng.ExpFloat64()*float64(50*time.Microsecond)))
	}
	Record(h, 0)            // clamped up to 1ns, not dropped
	Record(h, 5*time.Hour)  // clamped down to the maximum, not dropped
	Record(h, -time.Second) // clamped up
	if h.TotalCount() != 10003 {
		t.Fatalf("count = %d, want every value kept", h.TotalCount())
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(enc, "HISTF") {
		t.Errorf("encoding is not HdrHistogram's compressed base64: %.10s", enc)
	}
	back, err := DecodeHistogram(enc)
	if err != nil {
		t.Fatal(err)
	}
	want, got := Percentiles(h), Percentiles(back)
	for _, k := range []string{"p50", "p90", "p99", "p999", "max", "min"} {
		if want[k] != got[k] {
			t.Errorf("%s: %v after round trip, want %v", k, got[k], want[k])
		}
	}
	if back.TotalCount() != h.TotalCount() {
		t.Errorf("count %d after round trip", back.TotalCount())
	}
	// Merging the halves of a split gives the percentiles of the whole.
	a, b := NewHistogram(), NewHistogram()
	for i := int64(1); i <= 1000; i++ {
		if i%2 == 0 {
			Record(a, time.Duration(i)*time.Microsecond)
		} else {
			Record(b, time.Duration(i)*time.Microsecond)
		}
	}
	ea, _ := EncodeHistogram(a)
	eb, _ := EncodeHistogram(b)
	m, err := MergeHistograms(ea, eb, "")
	if err != nil {
		t.Fatal(err)
	}
	if m.TotalCount() != 1000 || m.ValueAtQuantile(50) < 499_000 || m.ValueAtQuantile(50) > 501_000 {
		t.Errorf("merged: count %d p50 %d", m.TotalCount(), m.ValueAtQuantile(50))
	}
	if _, err := DecodeHistogram("HISTFAAAnot-a-histogram"); err == nil {
		t.Error("corrupt histogram decoded without error")
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "r.json")
	h := NewHistogram()
	Record(h, 1234*time.Nanosecond)
	enc, _ := EncodeHistogram(h)
	r := &Report{SchemaVersion: SchemaVersion, Verdict: "pass", Results: []Result{{
		Target: "a", Workload: "scan", Size: 10, Status: "ok", Histogram: enc,
		Figures: map[string]float64{"p50": 1234}, Repeats: []Repeat{{Index: 0, Histogram: enc}},
	}}}
	if err := Write(path, r); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Results[0].Figures["p50"] != 1234 || got.Verdict != "pass" {
		t.Errorf("round trip lost data: %+v", got)
	}
	hb, err := DecodeHistogram(got.Results[0].Histogram)
	if err != nil || hb.ValueAtQuantile(50) != h.ValueAtQuantile(50) {
		t.Errorf("histogram after file round trip: %v %v", hb, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	newer, _ := json.Marshal(map[string]any{"schema_version": SchemaVersion + 1})
	tests := []struct {
		path, want string
	}{
		{filepath.Join(dir, "missing.json"), "cannot read report"},
		{write("corrupt.json", `{"schema_version": 1, "results": [`), "not a dbbench report"},
		{write("other.json", `{"hello": "world"}`), "no schema_version"},
		{write("newer.json", string(newer)), "newer than this dbbench understands"},
		{write("badtype.json", `{"schema_version": 1, "results": 5}`), "not a valid dbbench report"},
	}
	for _, tt := range tests {
		_, err := Read(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", filepath.Base(tt.path), err, tt.want)
		}
	}
}

func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	if err := CheckWritable(filepath.Join(dir, "new", "deeper", "r.json")); err != nil {
		t.Errorf("creatable path refused: %v", err)
	}
	if err := CheckWritable(dir); err == nil {
		t.Error("a directory accepted as report path")
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if err := CheckWritable(filepath.Join(file, "r.json")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("path under a file: %v", err)
	}
	if os.Geteuid() != 0 { // root can write anywhere
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		if err := CheckWritable(filepath.Join(ro, "r.json")); err == nil {
			t.Error("read-only directory accepted")
		}
	}
	if err := CheckWritable("/proc/r.json"); err == nil {
		t.Error("/proc accepted as a report directory")
	}
}

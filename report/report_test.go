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
		{"/dev/zero", "larger than 256 MiB"},
		{write("corrupt.json", `{"schema_version": 1, "results": [`), "not a dbbench report"},
		{write("other.json", `{"hello": "world"}`), "no schema_version"},
		{write("newer.json", string(newer)), "newer than this dbbench understands"},
		{write("badtype.json", `{"schema_version": 1, "results": 5}`), "not a valid dbbench report"},
		{write("empty.json", `{"schema_version": 1, "verdict": "pass"}`), "no results"},
		{write("garbage-verdict.json", `{"schema_version": 1, "verdict": "PASS!", "results": [{"target": "a", "workload": "scan"}]}`), "unknown verdict"},
		{write("noname.json", `{"schema_version": 1, "verdict": "pass", "results": [{}]}`), "names no target"},
		{write("negative.json", `{"schema_version": 1, "verdict": "pass", "results": [{"target": "a", "workload": "scan", "figures": {"p50": -1}}]}`), "figure p50 is -1"},
		{write("badhist.json", `{"schema_version": 1, "verdict": "pass", "results": [{"target": "a", "workload": "scan", "histogram": "HISTFAAAnot"}]}`), "decode histogram"},
		{write("badrepeat.json", `{"schema_version": 1, "verdict": "pass", "results": [{"target": "a", "workload": "scan", "repeats": [{"index": 0, "histogram": "xx"}]}]}`), "repeat 0"},
	}
	for _, tt := range tests {
		_, err := Read(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", filepath.Base(tt.path), err, tt.want)
		}
	}
}

func TestReserve(t *testing.T) {
	dir := t.TempDir()
	earlier := filepath.Join(dir, "earlier.json")
	if err := Write(earlier, &Report{SchemaVersion: SchemaVersion, Tool: Tool{Name: "dbbench"}, Verdict: "pass"}); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "notes.txt")
	os.WriteFile(other, []byte("my notes"), 0o644)
	cfg := filepath.Join(dir, "my.yaml")
	os.WriteFile(cfg, []byte("name: x\n"), 0o644)
	link := filepath.Join(dir, "link.json")
	os.Symlink(earlier, link)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	tests := []struct {
		name, path string
		force      bool
		want       string // "" = reserved
	}{
		{"new path, parents created", filepath.Join(dir, "new", "deeper", "r.json"), false, ""},
		{"earlier report without --force", earlier, false, "pass --force"},
		{"earlier report with --force", earlier, true, ""},
		{"any other file", other, true, "not a dbbench report"},
		{"empty file (another run's reservation)", file, true, "not a dbbench report"},
		{"the config itself", cfg, true, "is the config file"},
		{"symbolic link", link, true, "symbolic link"},
		{"/dev/null", "/dev/null", true, "not a regular file"},
		{"/dev/stdout", "/dev/stdout", true, "symbolic link"},
		{"directory", dir, true, "is a directory"},
		{"under a file", filepath.Join(file, "r.json"), false, "not a directory"},
		{"/proc", "/proc/r.json", false, "cannot write report"},
		{"empty path", "", false, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Reserve(tt.path, ReserveOptions{Force: tt.force, Protect: []string{cfg}})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				res.Release()
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			}
		})
	}
	if b, _ := os.ReadFile(other); string(b) != "my notes" {
		t.Error("another file was touched")
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Error("/dev/null is no longer a device")
	}
}

// TestReserveNew: runs that start at the same second never share a report name, and a released
// reservation leaves nothing behind.
func TestReserveNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reports", "x-1.json")
	seen := map[string]bool{}
	var all []*Reservation
	for i := 0; i < 5; i++ {
		res, err := ReserveNew(path)
		if err != nil {
			t.Fatal(err)
		}
		if seen[res.Path] {
			t.Fatalf("%s reserved twice", res.Path)
		}
		seen[res.Path] = true
		all = append(all, res)
	}
	if err := all[1].Write(&Report{SchemaVersion: SchemaVersion, Tool: Tool{Name: "dbbench"}, Verdict: "pass"}); err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		r.Release()
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 || entries[0].Name() != filepath.Base(all[1].Path) {
		t.Errorf("left in the directory: %v, want only the written report", entries)
	}
}

// TestReservationWriteRefusesSwap: a file swapped in at the reserved path during the run is not
// replaced.
func TestReservationWriteRefusesSwap(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	res, err := Reserve(path, ReserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	os.Symlink("/dev/null", path)
	if err := res.Write(&Report{SchemaVersion: SchemaVersion}); err == nil || !strings.Contains(err.Error(), "replaced by another file") {
		t.Errorf("write over a swapped-in symlink: %v", err)
	}
}

// TestReservationWriteTwice: an interrupted run writes its report as soon as it stops and again once
// cleaning up has finished; the second write replaces the first, and still nothing swapped in.
func TestReservationWriteTwice(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	res, err := Reserve(path, ReserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Write(&Report{SchemaVersion: SchemaVersion, Verdict: "error"}); err != nil {
		t.Fatal(err)
	}
	if err := res.Write(&Report{SchemaVersion: SchemaVersion, Verdict: "pass"}); err != nil {
		t.Fatalf("second write: %v", err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), `"pass"`) {
		t.Errorf("the second write did not replace the first:\n%s", b)
	}
	os.Remove(path)
	os.Symlink("/dev/null", path)
	if err := res.Write(&Report{SchemaVersion: SchemaVersion}); err == nil || !strings.Contains(err.Error(), "replaced by another file") {
		t.Errorf("write over a symlink swapped in after the first write: %v", err)
	}
}

package compare

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseFraction(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		wantErr string
	}{
		{"10%", 0.10, ""},
		{"0.1", 0.10, ""},
		{" 12.5% ", 0.125, ""},
		{"0", 0, ""},
		{"1", 1, ""},
		{"150%", 1.5, ""},
		{"10", 0, "ambiguous: write 10% for a percentage"},
		{"-5%", 0, "is negative"},
		{"abc", 0, "want a percentage like 10% or a fraction like 0.1"},
		{"", 0, "want a percentage"},
		{"%", 0, "want a percentage"},
		{"NaN", 0, "want a percentage"},
		{"Inf%", 0, "want a percentage"},
	}
	for _, tt := range tests {
		got, err := ParseFraction(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseFraction(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseFraction(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestThresholdsSet(t *testing.T) {
	tests := []struct {
		specs   []string
		want    string // String() after all specs
		wantErr string
	}{
		{[]string{"10%"}, "10%", ""},
		{[]string{"0.1"}, "10%", ""},
		{[]string{"p99=20%"}, "p99=20%", ""},
		{[]string{"10%", "p99=20%", "lookup.p99=0.3"}, "10%,lookup.p99=30%,p99=20%", ""},
		{[]string{"10%,p99=20%"}, "10%,p99=20%", ""},
		{[]string{"default=5%"}, "5%", ""},
		{[]string{"10%", "15%"}, "15%", ""}, // the last default wins, like any repeated flag
		{[]string{""}, "", "empty threshold"},
		{[]string{"p99="}, "", "threshold p99:"},
		{[]string{"=10%"}, "", "name a figure before '='"},
		{[]string{"speed=10%"}, "", `unknown figure "speed"`},
		{[]string{"lookup.speed=10%"}, "", `unknown figure "speed"`},
		{[]string{"rows_per_sec=10%"}, "", `unknown figure "rows_per_sec": did you mean rows_per_s?`},
		{[]string{".p99=10%"}, "", "want FIGURE or WORKLOAD.FIGURE"},
		{[]string{"p99=ten"}, "", `threshold p99: threshold "ten"`},
	}
	for _, tt := range tests {
		var th Thresholds
		var err error
		for _, s := range tt.specs {
			if err = th.Set(s); err != nil {
				break
			}
		}
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Set(%q): error %v, want one containing %q", tt.specs, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Set(%q): %v", tt.specs, err)
			continue
		}
		if got := th.String(); got != tt.want {
			t.Errorf("Set(%q) gives %q, want %q", tt.specs, got, tt.want)
		}
	}
}

func TestThresholdsFor(t *testing.T) {
	var th Thresholds
	for _, s := range []string{"10%", "p99=20%", "lookup.p99=30%"} {
		if err := th.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		workload, figure string
		want             float64
	}{
		{"lookup", "p99", 0.30}, // workload.figure beats figure
		{"scan", "p99", 0.20},   // figure beats the default
		{"scan", "rows_per_s", 0.10},
	}
	for _, tt := range tests {
		if got, ok := th.For(tt.workload, tt.figure); !ok || got != tt.want {
			t.Errorf("For(%s, %s) = %v, %t; want %v", tt.workload, tt.figure, got, ok, tt.want)
		}
	}
	var keysOnly Thresholds
	if err := keysOnly.Set("p99=20%"); err != nil {
		t.Fatal(err)
	}
	if _, ok := keysOnly.For("scan", "rows_per_s"); ok {
		t.Error("a figure without its own threshold and no default is gated")
	}
	var none *Thresholds
	if none.Enabled() || keysOnly.Enabled() == false {
		t.Error("Enabled: want false for nil, true with a key")
	}
}

func TestLoadThresholds(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", "# gate thresholds\ndefault: 10%\np99: 25%\nlookup.p99: 0.4\n")
	var th Thresholds
	if err := LoadThresholds(good, &th); err != nil {
		t.Fatal(err)
	}
	if got, want := th.String(), "10%,lookup.p99=40%,p99=25%"; got != want {
		t.Errorf("loaded %q, want %q", got, want)
	}
	tests := []struct {
		name, body, wantErr string
	}{
		{"list.yaml", "- 10%\n", "list.yaml:1: want a mapping"},
		{"badvalue.yaml", "default: 10%\np99: lots\n", `badvalue.yaml:2: threshold p99: threshold "lots"`},
		{"badkey.yaml", "speed: 10%\n", `badkey.yaml:1: threshold key "speed": unknown figure`},
		{"nested.yaml", "p99:\n  a: 1\n", "nested.yaml:2: p99: want a value"},
		{"empty.yaml", "", "empty.yaml is empty"},
		{"syntax.yaml", "default: [10%\n", "syntax.yaml:"},
	}
	for _, tt := range tests {
		var th Thresholds
		err := LoadThresholds(write(tt.name, tt.body), &th)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.wantErr)
		}
	}
	var th2 Thresholds
	if err := LoadThresholds(filepath.Join(dir, "missing.yaml"), &th2); err == nil || !strings.Contains(err.Error(), "cannot read thresholds file") || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}

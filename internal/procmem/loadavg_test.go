package procmem

import "testing"

func TestParseLoadAverage(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0.52 0.58 0.59 1/226 12345\n", 0.52, true},
		{"11.37 15.26 16.70 9/512 777\n", 11.37, true},
		{"", 0, false},
		{"x 1 2", 0, false},
		{"-1 0 0", 0, false},
	} {
		got, err := parseLoadAverage([]byte(tt.in))
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("%q: %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	if v, ok := LoadAverage(); ok && v < 0 {
		t.Errorf("this machine's load average %v", v)
	}
}

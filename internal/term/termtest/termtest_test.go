package termtest

import (
	"strings"
	"testing"
)

func TestProblems(t *testing.T) {
	long := strings.Repeat("x", 121)
	wide := strings.Repeat("µ", 120) // 120 columns, 240 bytes: fits
	tests := []struct {
		name           string
		code           int
		stdout, stderr string
		want           string // a problem containing this; "" for none
	}{
		{"fits", 0, "a\n" + wide + "\n", "  progress\n", ""},
		{"wide stdout", 0, long + "\n", "", "stdout line 1 is 121 columns"},
		{"wide stderr", 0, "", "ok\n" + long + "\n", "stderr line 2 is 121 columns"},
		{"wide progress state", 0, "", "\r\033[K  short\r\033[K  " + long, "stderr line 3 is 123 columns"},
		{"colour takes no column", 0, "\033[1;31mFAIL\033[0m" + strings.Repeat("x", 116) + "\n", "", ""},
		{"long error line", 3, "", "  loading\ndbbench: " + long + "\n", ""},
		{"long error line after a cleanup line", 3, "", "dbbench: " + long + "\ndbbench: cleaning up: " + long + "\n", ""},
		{"long note", 0, "", "dbbench: " + long + "\n", ""},
		{"long dbbench line on stdout", 0, "dbbench: " + long + "\n", "", "stdout line 1 is 130 columns"},
		{"long line after the error", 3, "", "dbbench: x\n" + long + "\n", "does not end with one error line"},
		{"error of two lines", 2, "", "dbbench: bad config\n  at line 3\n", "does not end with one error line"},
		{"no error line", 3, "", "", "without an error line"},
		{"assertion failure without a line", 1, "FAIL x\n", "", ""},
		{"map", 0, "ok   open: info map[batch:0 durable:false]\n", "", "a Go map"},
		{"empty map", 0, "info map[]\n", "", "a Go map"},
		{"struct pointer", 0, "", "got &{a 1}\n", "a Go pointer to a struct"},
		{"struct", 0, "got {Name:a Size:1}\n", "", "a Go struct"},
		{"slice literal", 0, `want []string{"a"}` + "\n", "", "a Go slice literal"},
		{"slice", 0, "workloads [scan lookup insert]\n", "", "a Go slice"},
		{"fmt error", 0, "%!d(string=x)\n", "", "a fmt verb error"},
		{"nil", 0, "error <nil>\n", "", "a Go nil"},
		{"exponent", 0, "map_size=1.073741824e+09\n", "", "a float with an exponent"},
		{"small exponent", 0, "ratio >= 9e-05\n", "", "a float with an exponent"},
		{"pointer", 0, "at 0xc000123456\n", "", "a Go pointer"},
		{"not dumps", 0, "[1/4, ETA 3s] scan  lmdb-c 649µs\nusage: x [--size N] [flags]\n{name: lookup, ops: 200}\nchecksum 00000000000000ff, 1e6 rows\nencoding: ([age uint8][name])\nwrite ${DBBENCH_X:-default}\n", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Problems(tt.code, tt.stdout, tt.stderr)
			if tt.want == "" {
				if len(got) != 0 {
					t.Errorf("problems in good output: %q", got)
				}
				return
			}
			if !strings.Contains(strings.Join(got, "\n"), tt.want) {
				t.Errorf("problems %q, want one with %q", got, tt.want)
			}
		})
	}
}

func TestWider(t *testing.T) {
	got := Wider("short\r\033[K"+strings.Repeat("y", 81)+"\n"+strings.Repeat("é", 80)+"\n", 80)
	if len(got) != 1 || got[0] != strings.Repeat("y", 81) {
		t.Errorf("Wider = %q", got)
	}
}

package engine

import (
	"strings"
	"testing"
)

func TestColdWarning(t *testing.T) {
	for _, tt := range []struct {
		name string
		cold []coldRepeat
		run  int
		want string // the start of the warning; "" for none
	}{
		{"none", nil, 0, ""},
		{"one run", []coldRepeat{{0, 3 << 20}, {2, 90 << 20}}, 0, "timed repeats read from storage (repeat 1 3.0 MiB, repeat 3 90.0 MiB): "},
		{"a run worker's", []coldRepeat{{1, 1<<20 + 1<<19}}, 2, "run 2: timed repeats read from storage (repeat 2 1.5 MiB): "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := coldWarning(tt.cold, tt.run)
			if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
				t.Fatalf("coldWarning = %q, want it to begin %q", got, tt.want)
			}
		})
	}
}

// noteStorage keeps a repeat only above the threshold.
func TestNoteStorage(t *testing.T) {
	var a resultAcc
	for i, n := range []int64{0, coldReadBytes, coldReadBytes + 1, 50 << 20} {
		a.noteStorage(i, n)
	}
	if len(a.cold) != 2 || a.cold[0] != (coldRepeat{2, coldReadBytes + 1}) || a.cold[1] != (coldRepeat{3, 50 << 20}) {
		t.Fatalf("kept %+v, want repeats 2 and 3", a.cold)
	}
}

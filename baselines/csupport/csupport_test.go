package csupport

import (
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// The C loops index buffers with what these checks let through, so each bound is tested on both sides.
func TestChecks(t *testing.T) {
	ds, err := dataset.Generate(10, 1)
	if err != nil {
		t.Fatal(err)
	}
	lat := func(n int) []time.Duration { return make([]time.Duration, n) }
	tests := []struct {
		name string
		err  error
		code int    // 0: no error
		want string // in the message
	}{
		{"readers ok", CheckReaders("x-c", 2, 5, lat(2)), 0, ""},
		{"most readers", CheckReaders("x-c", MaxReaderThreads, 0, lat(MaxReaderThreads)), 0, ""},
		{"no readers", CheckReaders("x-c", 0, 5, lat(0)), exitcode.Usage, "x-c concurrent: want 1 to 4096 readers, got 0"},
		{"too many readers", CheckReaders("x-c", MaxReaderThreads+1, 5, lat(MaxReaderThreads+1)), exitcode.Usage, "got 4097"},
		{"latency slots", CheckReaders("x-c", 2, 5, lat(1)), exitcode.Infra, "1 latency slots for 2 readers"},
		{"negative rows", CheckReaders("x-c", 2, -1, lat(2)), exitcode.Usage, "x-c concurrent: -1 rows"},
		{"insert all", CheckInsert("x-c", ds, 10), 0, ""},
		{"insert none", CheckInsert("x-c", ds, 0), 0, ""},
		{"insert too many", CheckInsert("x-c", ds, 11), exitcode.Usage, "x-c insert of 11 persons from a dataset of 10"},
		{"insert negative", CheckInsert("x-c", ds, -1), exitcode.Usage, "insert of -1 persons"},
		{"lookups ok", CheckLookups("x-c", ds, []int32{0, 9}, lat(2)), 0, ""},
		{"lookup outside", CheckLookups("x-c", ds, []int32{0, 10}, lat(2)), exitcode.Usage, "person index 10 outside the dataset of 10"},
		{"lookup negative", CheckLookups("x-c", ds, []int32{-1}, lat(1)), exitcode.Usage, "person index -1"},
		{"lookup slots", CheckLookups("x-c", ds, []int32{0}, lat(2)), exitcode.Infra, "2 latency slots for 1 keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.code == 0 {
				if tt.err != nil {
					t.Fatalf("unexpected error: %v", tt.err)
				}
				return
			}
			if tt.err == nil {
				t.Fatalf("no error, want one containing %q", tt.want)
			}
			if got := exitcode.Of(tt.err); got != tt.code {
				t.Errorf("exit code %d, want %d (%v)", got, tt.code, tt.err)
			}
			if !strings.Contains(tt.err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", tt.err, tt.want)
			}
		})
	}
}

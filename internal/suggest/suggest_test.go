package suggest

import "testing"

func TestClosest(t *testing.T) {
	keys := []string{"name", "seed", "dataset", "warmup", "repeats", "isolation", "workloads", "targets"}
	tests := []struct {
		s     string
		known []string
		want  string
	}{
		{"repeets", keys, "repeats"},
		{"Repeats", keys, "repeats"},    // case aside
		{"worklods", keys, "workloads"}, // a deletion
		{"taregts", keys, "targets"},    // a swap
		{"lmbd", []string{"memory", "lmdb", "lmdb-c", "sql"}, "lmdb"},
		{"map_sise", []string{"path", "map_size", "batch"}, "map_size"},
		{"rows_per_sec", []string{"rows_per_s", "ops_per_s", "ns_per_row"}, "rows_per_s"},
		{"p42", []string{"p50", "p90", "p99"}, ""},       // two edits in three letters: not close
		{"mongo", []string{"memory", "lmdb", "sql"}, ""}, // nothing close
		{"d", []string{"a"}, ""},                         // too short to guess from
		{"OPS", []string{"ops"}, "ops"},                  // but case aside, it is the same
		{"", nil, ""},
	}
	for _, tt := range tests {
		if got := Closest(tt.s, tt.known); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"lmbd", "lmdb", 1},
		{"ca", "abc", 3}, // the optimal string alignment distance: a swapped pair is not edited again
		{"µs", "ms", 1},
	} {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := distance(tt.b, tt.a); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestHint(t *testing.T) {
	many := []string{"scan", "lookup", "insert", "concurrent", "ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-e", "ycsb-f", "ycsb"}
	for _, tt := range []struct {
		s     string
		known []string
		where string
		want  string
	}{
		{"scna", many, "dbbench list workloads", ": did you mean scan?"},
		{"mongo", []string{"memory", "lmdb"}, "dbbench list", " (known: memory, lmdb)"},
		{"nothing", many, "dbbench list workloads", " (see dbbench list workloads)"},
		{"nothing", many, "", ""},
	} {
		if got := Hint(tt.s, tt.known, tt.where); got != tt.want {
			t.Errorf("Hint(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

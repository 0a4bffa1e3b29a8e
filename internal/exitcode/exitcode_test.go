package exitcode

import "testing"

func TestStrongest(t *testing.T) {
	tests := []struct {
		codes []int
		want  int
	}{
		{nil, OK},
		{[]int{OK, OK}, OK},
		{[]int{Inconclusive, OK}, Inconclusive},
		{[]int{Inconclusive, Failed}, Failed},
		{[]int{Failed, GeneratorSaturated}, GeneratorSaturated},
		{[]int{GeneratorSaturated, MissingShards}, MissingShards},
		{[]int{MissingShards, Infra, Failed}, Infra},
		{[]int{Infra, Usage}, Usage},
	}
	for _, tt := range tests {
		if got := Strongest(tt.codes...); got != tt.want {
			t.Errorf("Strongest(%v) = %d, want %d", tt.codes, got, tt.want)
		}
	}
	// every documented code has a place in the order
	for c := OK; c <= MissingShards; c++ {
		if Strongest(c) != c {
			t.Errorf("code %d is not in Precedence", c)
		}
	}
}

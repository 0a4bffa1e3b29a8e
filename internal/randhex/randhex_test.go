package randhex

import (
	"regexp"
	"testing"
)

func TestString(t *testing.T) {
	for _, n := range []int{0, 3, 6, 32} {
		seen := map[string]bool{}
		for range 100 {
			s := String(n)
			if !regexp.MustCompile(`^[0-9a-f]*$`).MatchString(s) || len(s) != 2*n {
				t.Fatalf("String(%d) = %q", n, s)
			}
			seen[s] = true
		}
		if n >= 3 && len(seen) < 100 {
			t.Errorf("String(%d): %d distinct of 100", n, len(seen))
		}
	}
}

// Package suggest finds the name a misspelt one was meant to be ("repeets": repeats), for the "did
// you mean" of an error about an unknown key, adapter, option, workload or figure.
package suggest

import (
	"strings"
	"unicode/utf8"
)

// Closest returns the name in known that s is most likely a misspelling of, or "" when none is
// close: at most one edit (an insertion, a deletion, a substitution or two neighbours swapped) per
// three characters of s, case aside (a name shorter than three characters is too short to guess
// from). A tie goes to the first in known.
func Closest(s string, known []string) string {
	limit := utf8.RuneCountInString(s) / 3
	best, bestD := "", limit+1
	for _, k := range known {
		if d := distance(strings.ToLower(s), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// maxListed is the longest list of known names a hint spells out; a longer one is named by where
// to find it instead, so that the error stays one short line.
const maxListed = 60

// Hint is what follows a message about an unknown name s: ": did you mean X?" when one of known is
// close; else the known names when they are few (" (known: a, b)"); else " (see WHERE)", where says
// where the list is ("dbbench list figures"; "" for nothing).
func Hint(s string, known []string, where string) string {
	if c := Closest(s, known); c != "" {
		return ": did you mean " + c + "?"
	}
	if list := strings.Join(known, ", "); len(known) > 0 && len(list) <= maxListed {
		return " (known: " + list + ")"
	}
	if where == "" {
		return ""
	}
	return " (see " + where + ")"
}

// distance is the optimal string alignment distance between a and b: the edits of Levenshtein's
// distance plus the swap of two neighbouring characters ("lmbd" is one edit from "lmdb").
func distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	// three rows of the dynamic programme: i-2, i-1 and i
	prev2, prev, cur := make([]int, len(y)+1), make([]int, len(y)+1), make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}

package report

import (
	"fmt"
	"slices"
	"strings"
)

// A figure keeps its meaning within a schema version; a new version may redefine the figures of a
// kind of result (SCHEMA.md). Whatever sets figures of two reports side by side (compare, history)
// must not set one meaning against another: across such a change the figure is "not comparable",
// which is neither a change nor missing evidence. The changes are data, here, so that every reader
// applies the same rule.

// FigureChange is one schema version's change of meaning of a kind of result's figures.
type FigureChange struct {
	// Version is the first schema version with the new meanings.
	Version int
	// Kind names the results it applies to, in messages.
	Kind string
	// Applies says whether a result is of the kind.
	Applies func(*Result) bool
	// Kept are the figures that kept their meaning ("OP.errors": every operation type's errors);
	// every other figure of such a result changed, appeared or went.
	Kept []string
	// What says in a few words what changed.
	What string
}

// FigureChanges are the schema versions' changes of meaning, oldest first.
var FigureChanges = []FigureChange{{
	Version: 3,
	Kind:    "load-model result",
	Applies: func(x *Result) bool { return x != nil && x.Load != nil },
	// Failed and timed-out operations were counted the same way before and after: as errors.
	Kept: []string{"errors", "timed_out", "OP.errors"},
	What: "version 3 counts a load-model result's operations, rates and clocks over successful operations only, " +
		"adds error_rate and generator_late, and gives a closed loop no schedule figures",
}}

// NotComparable says why figure cannot be set side by side across reports of the given schema
// versions (every report compared, on either side) for a result of the kind any of results is;
// "" when it can. Results may be nil (a side without the result).
func NotComparable(figure string, versions []int, results ...*Result) string {
	if len(versions) == 0 {
		return ""
	}
	lo, hi := slices.Min(versions), slices.Max(versions)
	for _, ch := range FigureChanges {
		if !(lo < ch.Version && ch.Version <= hi) || kept(ch.Kept, figure) {
			continue
		}
		if slices.ContainsFunc(results, ch.Applies) {
			return fmt.Sprintf("schema versions %d and %d: %s", lo, hi, ch.What)
		}
	}
	return ""
}

// kept reports whether figure is one of the figures a change kept ("OP.errors" matching any
// operation type's errors).
func kept(list []string, figure string) bool {
	for _, k := range list {
		if k == figure {
			return true
		}
		if f, ok := strings.CutPrefix(k, "OP."); ok {
			if _, fig, isOp := strings.Cut(figure, "."); isOp && fig == f {
				return true
			}
		}
	}
	return false
}

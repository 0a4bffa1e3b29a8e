package report

import "strings"

// Profile says how a result's phase figures were read (dbbench run --profile, docs/profile.md). The
// figures themselves are in Figures like every other: phase_NAME_ns (ns per operation spent in the
// phase), phase_NAME_share (its share of the operation's time), phase_other_ns (the operation's time
// no phase covers), round_trip_ns (dbbench's own timing of a client's request, beside the client's
// phases) and profile_overhead_ns (what the profile's clock reads cost per operation).
type Profile struct {
	// Phases in the order they happen in an operation.
	Phases []ProfilePhase `json:"phases"`
	// ClockNs is what one phase boundary (a clock read) cost, measured at the start of the run.
	ClockNs float64 `json:"clock_ns"`
	// LapsPerOp is the clock reads the profile took per operation (median over repeats).
	LapsPerOp float64 `json:"laps_per_op"`
}

// ProfilePhase is one phase of a result's profile.
type ProfilePhase struct {
	Name string `json:"name"`
	// Method is how its time was read: "timed" (a clock read at both ends of every occurrence),
	// "sampled" (one occurrence in Every timed and the sum scaled up: a phase cheaper than the
	// clock) or "client" (the client in another process timed it and said so).
	Method string `json:"method"`
	Every  int    `json:"every,omitempty"`
}

// How a phase's time was read (ProfilePhase.Method; adapters/phase says the same).
const (
	PhaseTimed   = "timed"
	PhaseSampled = "sampled"
	PhaseClient  = "client"
)

// The figures a profile adds besides each phase's.
const (
	PhaseOther      = "phase_other_ns"
	RoundTrip       = "round_trip_ns"
	ProfileOverhead = "profile_overhead_ns"
)

// PhaseFigure is the figure of ns per operation spent in a phase.
func PhaseFigure(phase string) string { return "phase_" + phase + "_ns" }

// PhaseShareFigure is the figure of a phase's share of the operation's time (0..1).
func PhaseShareFigure(phase string) string { return "phase_" + phase + "_share" }

// profileFigure returns the FigureInfo of a profile figure: the three fixed ones, or phase_NAME_ns
// and phase_NAME_share for any phase name (a client names its own).
func profileFigure(name string) (FigureInfo, bool) {
	switch name {
	case PhaseOther:
		return FigureInfo{name, "ns", false, "ns per operation no phase covers (--profile)"}, true
	case RoundTrip:
		return FigureInfo{name, "ns", false, "ns per request dbbench timed around a client's own time (--profile, exec targets)"}, true
	case ProfileOverhead:
		return FigureInfo{name, "ns", false, "what the profile's clock reads cost per operation (--profile)"}, true
	}
	rest, ok := strings.CutPrefix(name, "phase_")
	if !ok {
		return FigureInfo{}, false
	}
	if p, ok := strings.CutSuffix(rest, "_ns"); ok && ValidPhase(p) {
		return FigureInfo{name, "ns", false, "ns per operation spent in phase " + p + " (--profile)"}, true
	}
	if p, ok := strings.CutSuffix(rest, "_share"); ok && ValidPhase(p) {
		return FigureInfo{name, "ratio", false, "share of the operation's time spent in phase " + p + " (--profile)"}, true
	}
	return FigureInfo{}, false
}

// ValidPhase reports whether a name may name a phase: a client's own phases (docs/protocol.md) too
// become figure names, so they are lower-case letters, digits and '_', starting with a letter, at
// most 32 bytes. "other" is taken: phase_other_ns is the time no phase covers.
func ValidPhase(p string) bool {
	if p == "other" || p == "" || len(p) > 32 || p[0] < 'a' || p[0] > 'z' {
		return false
	}
	return strings.Trim(p, "abcdefghijklmnopqrstuvwxyz0123456789_") == ""
}

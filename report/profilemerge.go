package report

import (
	"slices"
	"strings"
)

// MergeProfiles is the Profile of a result over runs or shards: the phases of all in the order
// first seen, the median clock cost and clock reads per operation. nil when none has one.
func MergeProfiles(ps []*Profile) *Profile {
	var (
		out          Profile
		clocks, laps []float64
	)
	for _, p := range ps {
		if p == nil {
			continue
		}
		for _, ph := range p.Phases {
			if !slices.ContainsFunc(out.Phases, func(x ProfilePhase) bool { return x.Name == ph.Name }) {
				out.Phases = append(out.Phases, ph)
			}
		}
		clocks, laps = append(clocks, p.ClockNs), append(laps, p.LapsPerOp)
	}
	if len(clocks) == 0 {
		return nil
	}
	out.ClockNs, out.LapsPerOp = Median(clocks), Median(laps)
	return &out
}

// isProfileFigure reports whether a figure is one of a profile's (phase_*, round_trip_ns,
// profile_overhead_ns).
func isProfileFigure(name string) bool {
	return strings.HasPrefix(name, "phase_") || name == RoundTrip || name == ProfileOverhead
}

// mergeProfileFigures sets the profile figures of a repeat merged from shards' repeats: each
// per-operation figure the shards' mean weighted by their operations, each share weighted by their
// operations' time (operations × mean latency), so that the merged figure is the one a single
// process doing all the shards' operations would have had.
func mergeProfileFigures(f map[string]float64, reps []Repeat) {
	weights := map[string]float64{}
	for _, r := range reps {
		for name, v := range r.Figures {
			if !isProfileFigure(name) {
				continue
			}
			w := float64(r.Ops)
			if strings.HasSuffix(name, "_share") {
				w *= r.Figures["mean"]
			}
			f[name] += v * w
			weights[name] += w
		}
	}
	for name, w := range weights {
		if w > 0 {
			f[name] /= w
		} else {
			delete(f, name)
		}
	}
}

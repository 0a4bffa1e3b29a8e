package report

import (
	"slices"
	"time"
)

// RunEntry is one run of a schema 2 report: a fresh worker process with fresh stores that ran the
// config (or the workloads and targets named, for a run taken to decide some assertions).
type RunEntry struct {
	Index      int       `json:"index"` // 1-based
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	Workloads  []string  `json:"workloads"`
	Targets    []string  `json:"targets"`
	// Why is "initial" or "to decide: <assertion names>".
	Why string `json:"why"`
	// Interrupted: Ctrl-C stopped this run; what it measured until then is kept.
	Interrupted bool `json:"interrupted,omitempty"`
	// Error: the run failed (its worker process's last line).
	Error string `json:"error,omitempty"`
}

// RunIndex is the run the repeat belongs to: its run field, or 1 in a schema 1 report (one run).
func (r Repeat) RunIndex() int {
	if r.Run <= 0 {
		return 1
	}
	return r.Run
}

// RunIndices lists the runs a report holds, in order: those run.runs names, else those its repeats
// name (a schema 1 report is run 1 alone).
func (r *Report) RunIndices() []int {
	var out []int
	for _, e := range r.Run.Runs {
		out = append(out, e.Index)
	}
	if len(out) == 0 {
		for _, x := range r.Results {
			for _, rep := range x.Repeats {
				out = append(out, rep.RunIndex())
			}
		}
	}
	if len(out) == 0 {
		return []int{1}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

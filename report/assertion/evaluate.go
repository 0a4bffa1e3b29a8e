package assertion

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dbbench/dbbench/report"
)

// Evaluate decides the assertion on a report. It returns one verdict per dataset size it applies to:
// one for a single-size run or when every ref names its size, else one per size of the sweep.
func (a Assertion) Evaluate(r *report.Report, relax float64) []report.Assertion {
	sizes := r.Run.Sizes
	pinned := true
	for _, ref := range a.Refs() {
		if ref.Size == "" {
			pinned = false
		}
	}
	if pinned || len(sizes) <= 1 {
		at := 0
		if len(sizes) == 1 {
			at = sizes[0]
		}
		return []report.Assertion{a.evaluateAt(r, relax, at)}
	}
	out := make([]report.Assertion, 0, len(sizes))
	for _, s := range sizes {
		out = append(out, a.evaluateAt(r, relax, s))
	}
	return out
}

// resolveSize picks the dataset size a ref reads: its own @SIZE, else the size being evaluated.
func resolveSize(ref Ref, sizes []int, at int) (int, error) {
	switch ref.Size {
	case "":
		return at, nil
	case "min", "max":
		if len(sizes) == 0 {
			return 0, fmt.Errorf("no sizes in the report")
		}
		if ref.Size == "min" {
			return slices.Min(sizes), nil
		}
		return slices.Max(sizes), nil
	}
	n, err := strconv.Atoi(strings.ReplaceAll(ref.Size, "_", ""))
	if err != nil || !slices.Contains(sizes, n) {
		return 0, fmt.Errorf("size %s was not run (sizes: %v)", ref.Size, sizes)
	}
	return n, nil
}

func (a Assertion) evaluateAt(r *report.Report, relax float64, at int) report.Assertion {
	def := a.K
	a, keyed := a.ForMachine(r.Environment.MachineClass())
	out := report.Assertion{
		Name:             a.Name,
		Expr:             a.Expr,
		Line:             a.Line,
		Left:             a.Left.String(),
		Form:             string(a.Form),
		Op:               a.Op,
		Threshold:        a.K,
		RelaxedThreshold: a.Relaxed(relax),
	}
	if keyed {
		out.MachineClass, out.DefaultThreshold = r.Environment.MachineClass(), def
	}
	if a.Form != Absolute {
		out.Right = a.Right.String()
	}
	if len(r.Run.Sizes) > 1 {
		out.Left = sizedName(a.Left, r.Run.Sizes, at)
		if a.Form != Absolute {
			out.Right = sizedName(a.Right, r.Run.Sizes, at)
		}
	}
	left, reason := series(r, a.Left, at)
	if reason != "" {
		out.Verdict, out.Reason = report.VerdictSkipped, reason
		return out
	}
	out.LeftValue = report.Median(left)
	if a.Form == Absolute {
		out.PerRepeat = left
		out.Value = out.LeftValue
	} else {
		right, reason := series(r, a.Right, at)
		if reason != "" {
			out.Verdict, out.Reason = report.VerdictSkipped, reason
			return out
		}
		out.RightValue = report.Median(right)
		n := min(len(left), len(right))
		if n == 0 {
			out.Verdict, out.Reason = report.VerdictSkipped, "no repeats to compare"
			return out
		}
		for i := 0; i < n; i++ {
			if a.Form == Ratio {
				if right[i] == 0 {
					out.Verdict, out.Reason = report.VerdictSkipped, fmt.Sprintf("%s is 0 in repeat %d: ratio undefined", out.Right, i+1)
					return out
				}
				out.PerRepeat = append(out.PerRepeat, left[i]/right[i])
			} else {
				out.PerRepeat = append(out.PerRepeat, left[i]-right[i])
			}
		}
		out.Value = report.Median(out.PerRepeat)
	}
	if math.IsNaN(out.Value) || math.IsInf(out.Value, 0) {
		out.Verdict, out.Reason = report.VerdictSkipped, "value is not a number"
		return out
	}
	if Holds(out.Value, a.Op, out.RelaxedThreshold) {
		out.Verdict = report.VerdictPass
	} else {
		out.Verdict = report.VerdictFail
	}
	return out
}

func sizedName(ref Ref, sizes []int, at int) string {
	n, err := resolveSize(ref, sizes, at)
	if err != nil || ref.Size != "" {
		return ref.String()
	}
	ref.Size = strconv.Itoa(n)
	return ref.String()
}

// series returns the per-repeat values of a ref, or a reason why there are none.
func series(r *report.Report, ref Ref, at int) ([]float64, string) {
	size, err := resolveSize(ref, r.Run.Sizes, at)
	if err != nil {
		return nil, err.Error()
	}
	if t := r.TargetByName(ref.Target); t == nil {
		return nil, fmt.Sprintf("no target %q in the report", ref.Target)
	} else if t.Status == report.StatusSkipped {
		return nil, fmt.Sprintf("target %s was skipped: %s", ref.Target, t.Reason)
	}
	res := r.Find(ref.Target, ref.Workload, size)
	if res == nil {
		for _, in := range r.TargetByName(ref.Target).Instances {
			if in.Size == size && in.Skipped != "" {
				return nil, fmt.Sprintf("target %s was skipped at size %d: %s", ref.Target, size, in.Skipped)
			}
		}
		return nil, fmt.Sprintf("%s did not run %s", ref.Target, ref.Workload)
	}
	if res.Status != report.StatusOK {
		return nil, fmt.Sprintf("%s %s failed: %s", ref.Target, ref.Workload, res.Error)
	}
	vals := make([]float64, 0, len(res.Repeats))
	for _, rep := range res.Repeats {
		v, ok := rep.Figures[ref.Figure]
		if !ok {
			return nil, fmt.Sprintf("figure %s missing in %s %s", ref.Figure, ref.Target, ref.Workload)
		}
		vals = append(vals, v)
	}
	return vals, ""
}

package assertion

import (
	"fmt"

	"github.com/dbbench/dbbench/report"
)

// Redecide decides assertions already recorded in a report again, on another report built from
// the same config (a merge of shards): each as written (its expression, name, line and the
// threshold it was held to), relaxed as the run was, as one run's point verdict. A left-out
// assertion stays left out.
func Redecide(prior []report.Assertion, rep *report.Report) ([]report.Assertion, error) {
	out := []report.Assertion{}
	seen := map[string]bool{}
	for _, p := range prior {
		if p.Verdict == report.VerdictLeftOut {
			out = append(out, p)
			continue
		}
		key := fmt.Sprintf("%d %s", p.Line, p.Expr)
		if seen[key] { // one entry per size of the same assertion: decided again together
			continue
		}
		seen[key] = true
		a, err := Parse(p.Expr)
		if err != nil {
			return nil, fmt.Errorf("assertion %q (line %d): %w", p.Expr, p.Line, err)
		}
		a.Name, a.Line, a.K, a.RunValue = p.Name, p.Line, p.Threshold, p.RunValue
		for _, d := range a.Evaluate(rep, rep.Run.Relax, Rule{}) {
			d.MachineClass, d.DefaultThreshold = p.MachineClass, p.DefaultThreshold
			out = append(out, d)
		}
	}
	return out, nil
}

package report

import (
	"cmp"
	"math"
	"slices"
)

// FigureRow is one figure of one result, as the text report shows it: the median over the result's
// runs of each run's median over its repeats (one run: the median over its repeats), or for P99.9
// and MAX the value of the histogram merged over all repeats, where the report has it.
type FigureRow struct {
	Target, Workload string
	Size             int
	Figure, Unit     string
	Value            float64
	// Runs is how many runs the value rests on.
	Runs int
	// Lo and Hi are the interval the report holds for this figure, NaN when it has none: that of an
	// absolute assertion on it (workload.figure[target] <= 2ms) decided over several runs, on the
	// runs' medians.
	Lo, Hi float64
}

// FigureRows returns a row per figure of every result that measured something and did not fail
// (a failed result's figures cannot be trusted), in report order, each result's figures in the
// order of Figures and then by name.
func (r *Report) FigureRows() []FigureRow {
	order := map[string]int{}
	for i, f := range Figures {
		order[f.Name] = i
	}
	var out []FigureRow
	for i := range r.Results {
		x := &r.Results[i]
		if x.Status != StatusOK || len(x.Repeats) == 0 {
			continue
		}
		names := make([]string, 0, len(x.Figures))
		for f := range x.Figures {
			names = append(names, f)
		}
		rank := func(f string) int {
			if i, ok := order[f]; ok {
				return i
			}
			return len(order)
		}
		slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a, b)) })
		runs := len(x.RunIndices())
		for _, f := range names {
			v := x.Figures[f]
			if m, ok := x.MergedTail(f); ok && (f == "p999" || f == "max") {
				v = m
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			info, _ := LookupFigure(f)
			row := FigureRow{Target: x.Target, Workload: x.Workload, Size: x.Size, Figure: f, Unit: info.Unit, Value: v, Runs: runs, Lo: math.NaN(), Hi: math.NaN()}
			if iv := r.figureInterval(x, f); iv != nil {
				row.Lo, row.Hi = iv.Lo, iv.Hi
			}
			out = append(out, row)
		}
	}
	return out
}

// figureInterval is the interval an absolute assertion on the result's figure was decided on, over
// several runs of its median, or nil.
func (r *Report) figureInterval(x *Result, figure string) *Interval {
	for i := range r.Assertions {
		a := &r.Assertions[i]
		if a.Form != "absolute" || a.Interval == nil || a.Interval.Method == "point" || a.Runs < 2 || a.RunValue == RunBest {
			continue
		}
		ref, err := ParseRef(a.Left)
		if err != nil || ref.Target != x.Target || ref.Workload != x.Workload || ref.Figure != figure {
			continue
		}
		if size := ref.SizeIn(r.Run.Sizes); size != 0 && size != x.Size {
			continue
		}
		return a.Interval
	}
	return nil
}

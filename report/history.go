package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/perf/benchmath"
)

var nan = math.NaN()

// History is the trend of each figure across a set of reports of one config, oldest first.
type History struct {
	Config string
	// Runs are the reports in the order they started.
	Runs   []HistoryRun
	Trends []Trend
}

// HistoryRun identifies one report of a history.
type HistoryRun struct {
	Path          string
	Started       string
	Commit        string
	CI            bool
	SchemaVersion int
}

// Trend is one figure of one (target, workload, size) across the runs: Values[i] is run i's median
// over repeats, NaN where that run has no ok result for it.
type Trend struct {
	Target, Workload string
	Size             int
	Figure           string
	Values           []float64
	// RunValues[i] are report i's values of the figure, one per run it holds (a report of
	// dbbench run --runs N holds N): the samples the first and the latest are tested on.
	RunValues [][]float64
	// Change is the latest value over the first, minus 1 (NaN with fewer than two values, or
	// from 0). Verdict is "better" or "worse" when a Mann-Whitney U test over the first and the
	// latest report's runs rejects at HistoryAlpha, "changed" when they differ and the test does
	// not decide (one run a report never does), "" when they are equal or NotComparable.
	Change  float64
	Verdict string
	// NotComparable says why the first and the latest cannot be set side by side (a schema
	// version redefined the figure: report.NotComparable); "" when they can.
	NotComparable string
	// result is a result of the trend, for its kind.
	result *Result
}

// HistoryAlpha is the significance level of a history's test over runs: compare's over runs.
const HistoryAlpha = 0.01

// HistoryFigures picks the figures a history shows by default, as compare does: the throughput
// (rows_per_s, else ops_per_s) and, for results timing many operations, the p50 and p99 latencies.
func HistoryFigures(x *Result) []string {
	var out []string
	if _, ok := x.Figures["rows_per_s"]; ok {
		out = append(out, "rows_per_s")
	} else if _, ok := x.Figures["ops_per_s"]; ok {
		out = append(out, "ops_per_s")
	}
	if x.Unit == "lookup" || x.Unit == "op" {
		for _, f := range []string{"p50", "p99"} {
			if _, ok := x.Figures[f]; ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// ReadDir reads every *.json file in dir that is a dbbench report (JSON documents of other kinds,
// such as compare output, are left out; a corrupt file or a report that cannot be read is an error
// naming it) and returns them with their paths, oldest first.
func ReadDir(dir string) ([]*Report, []string, error) {
	reps, paths, _, err := ReadDirNotes(dir)
	return reps, paths, err
}

// ReadDirNotes is ReadDir that also says, one line each, which reservations of unfinished runs it
// left out (a run still going writes into the same directory; one killed leaves its reservation).
func ReadDirNotes(dir string) (reps []*Report, paths []string, notes []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("cannot read directory %s: %w", dir, unwrapPath(err))
	}
	type item struct {
		r    *Report
		path string
	}
	var items []item
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("cannot read %s: %w", p, unwrapPath(err))
		}
		if rec, ok := parseReservation(b); ok {
			notes = append(notes, fmt.Sprintf("%s: %s: left out", p, rec.describe()))
			continue
		}
		var probe map[string]json.RawMessage
		if json.Unmarshal(b, &probe) == nil && (probe["results"] == nil || probe["run"] == nil) {
			continue // JSON of another kind; corrupt JSON is Read's to name
		}
		r, err := Read(p)
		if err != nil {
			return nil, nil, nil, err
		}
		items = append(items, item{r, p})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].r.Run.StartedAt.Before(items[j].r.Run.StartedAt) })
	reps = make([]*Report, len(items))
	paths = make([]string, len(items))
	for i, it := range items {
		reps[i], paths[i] = it.r, it.path
	}
	return reps, paths, notes, nil
}

// Histories groups reports (oldest first) by config and collects each figure's trend. figures
// overrides HistoryFigures when not empty.
func Histories(reps []*Report, paths []string, figures []string) []History {
	var out []History
	for i, r := range reps {
		j := slices.IndexFunc(out, func(h History) bool { return h.Config == r.Run.ConfigName })
		if j < 0 {
			out = append(out, History{Config: r.Run.ConfigName})
			j = len(out) - 1
		}
		h := &out[j]
		run := len(h.Runs)
		h.Runs = append(h.Runs, HistoryRun{Path: paths[i], Started: r.Run.StartedAt.UTC().Format("2006-01-02 15:04"), Commit: r.Tool.Commit, CI: r.Run.CI,
			SchemaVersion: r.SchemaVersion})
		for k := range h.Trends {
			h.Trends[k].Values = append(h.Trends[k].Values, nan)
			h.Trends[k].RunValues = append(h.Trends[k].RunValues, nil)
		}
		for x := range r.Results {
			res := &r.Results[x]
			if res.Status != StatusOK {
				continue
			}
			figs := figures
			if len(figs) == 0 {
				figs = HistoryFigures(res)
			}
			for _, f := range figs {
				v, ok := res.Figures[f]
				if !ok {
					continue
				}
				k := slices.IndexFunc(h.Trends, func(t Trend) bool {
					return t.Target == res.Target && t.Workload == res.Workload && t.Size == res.Size && t.Figure == f
				})
				if k < 0 {
					vals := make([]float64, run+1)
					for n := range vals {
						vals[n] = nan
					}
					h.Trends = append(h.Trends, Trend{Target: res.Target, Workload: res.Workload, Size: res.Size, Figure: f, Values: vals,
						RunValues: make([][]float64, run+1), result: res})
					k = len(h.Trends) - 1
				}
				h.Trends[k].Values[run] = v
				for _, ri := range res.RunIndices() {
					if rv, ok := res.RunFigure(ri, f); ok {
						h.Trends[k].RunValues[run] = append(h.Trends[k].RunValues[run], rv)
					}
				}
			}
		}
	}
	for i := range out {
		for k := range out[i].Trends {
			out[i].Trends[k].judge(out[i].Runs)
		}
	}
	return out
}

// judge sets the trend's change from its first value to its latest, and what a test over the two
// reports' runs makes of it.
func (t *Trend) judge(runs []HistoryRun) {
	t.Change = nan
	first, last := -1, -1
	for i, v := range t.Values {
		if !math.IsNaN(v) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || first == last {
		return
	}
	if why := NotComparable(t.Figure, []int{runs[first].SchemaVersion, runs[last].SchemaVersion}, t.result); why != "" {
		t.NotComparable = why
		return
	}
	a, b := t.Values[first], t.Values[last]
	if a != 0 {
		t.Change = b/a - 1
	}
	if a == b {
		return
	}
	t.Verdict = "changed"
	xs, ys := t.RunValues[first], t.RunValues[last]
	if len(xs) == 0 || len(ys) == 0 {
		return
	}
	th := &benchmath.Thresholds{CompareAlpha: HistoryAlpha}
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(xs), th), benchmath.NewSample(slices.Clone(ys), th))
	if !(c.P <= HistoryAlpha) {
		return
	}
	info, _ := LookupFigure(t.Figure)
	if (Median(ys) > Median(xs)) == info.HigherBetter {
		t.Verdict = "better"
	} else {
		t.Verdict = "worse"
	}
}

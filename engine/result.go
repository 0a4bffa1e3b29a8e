package engine

import (
	"fmt"
	"maps"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/workloads"
)

// resultAcc accumulates one result over its repeats.
type resultAcc struct {
	key          resultKey
	unit         string
	params       map[string]any
	verification workloads.Expectation // what the result must show before its times count
	merged       *hdrhistogram.Histogram
	errMerged    *hdrhistogram.Histogram
	repeats      []report.Repeat
	sums         []uint64 // checksum of each measured repeat, for cross-checks
	seenSum      *uint64  // sameAcross: the first checksum seen (warm-up included)
	err          error
	info         map[string]any
	warnings     []string
	cold         []coldRepeat // measured repeats that read from storage (storage.go)
	loadAcc                   // a load-model (YCSB) workload's
	prof         profileAcc   // the phases of its profiled repeats (profile: true)
}

func newResultAcc(k resultKey, unit string, params map[string]any) *resultAcc {
	return &resultAcc{key: k, unit: unit, params: params, merged: report.NewHistogram(), errMerged: report.NewHistogram()}
}

func (a *resultAcc) failed() bool { return a.err != nil }

func (a *resultAcc) fail(err error) {
	if a.err == nil {
		a.err = err
	}
}

// verify checks one execution against the expectation.
func (a *resultAcc) verify(m *measurement, w workloads.Run) error {
	v := a.verification
	if v.Rows < 0 {
		return nil // adapter-checked workload
	}
	if v.PerReader {
		for i, t := range m.readers {
			if t.Rows != v.Rows {
				return fmt.Errorf("verification failed: reader %d read %d rows, want %d", i+1, t.Rows, v.Rows)
			}
			if v.HasSum && t.Sum != v.Sum {
				return fmt.Errorf("verification failed: reader %d checksum %016x, want %016x: the rows read are not the dataset's", i+1, t.Sum, v.Sum)
			}
			if v.SameAcross && t.Sum != m.readers[0].Sum {
				return fmt.Errorf("verification failed: readers disagree (checksums %016x and %016x) on the same snapshot", m.readers[0].Sum, t.Sum)
			}
		}
		if v.SameAcross {
			return a.sameAsBefore(m.readers[0].Sum)
		}
		return nil
	}
	if m.rows != v.Rows {
		what := "rows"
		switch w.Name {
		case "lookup":
			what = "persons found"
		case "insert":
			what = "persons read back"
		}
		return fmt.Errorf("verification failed: %d %s, want %d", m.rows, what, v.Rows)
	}
	if v.HasSum && m.sum != v.Sum {
		return fmt.Errorf("verification failed: checksum %016x, want %016x: the rows are not the dataset's", m.sum, v.Sum)
	}
	if v.SameAcross {
		return a.sameAsBefore(m.sum)
	}
	return nil
}

func (a *resultAcc) sameAsBefore(sum uint64) error {
	if a.seenSum == nil {
		a.seenSum = &sum
		return nil
	}
	if *a.seenSum != sum {
		return fmt.Errorf("verification failed: checksum %016x differs from an earlier run's %016x on unchanged data", sum, *a.seenSum)
	}
	return nil
}

// add records one measured repeat.
func (a *resultAcc) add(index int, m *measurement) {
	a.merged.Merge(m.hist)
	a.errMerged.Merge(m.errHist)
	enc, _ := report.EncodeHistogram(m.hist)
	figs := report.RepeatFigures(m.hist, m.ops, m.rows, m.errors, m.elapsed, m.instructions)
	maps.Copy(figs, m.memory)
	if m.profile != nil {
		maps.Copy(figs, m.profile.figures)
		a.prof.add(m.profile)
	}
	a.repeats = append(a.repeats, report.Repeat{
		Index: index, ElapsedNs: m.elapsed.Nanoseconds(), Ops: m.ops, Rows: m.rows, Errors: m.errors,
		Checksum: fmt.Sprintf("%016x", m.sum), Figures: figs, Histogram: enc,
	})
	a.sums = append(a.sums, m.sum)
	a.noteStorage(index, m.storageRead)
}

// noteStorage keeps a measured repeat that read more than coldReadBytes from storage, for the
// result's warning (storage.go).
func (a *resultAcc) noteStorage(index int, read int64) {
	if read > coldReadBytes {
		a.cold = append(a.cold, coldRepeat{index: index, bytes: read})
	}
}

func (a *resultAcc) describe(info map[string]any) {
	if len(info) == 0 {
		return
	}
	a.info = map[string]any{}
	for _, k := range sortedKeys(info) {
		if k == "warnings" {
			switch w := info[k].(type) {
			case []string:
				a.warnings = append(a.warnings, w...)
			case string:
				a.warnings = append(a.warnings, w)
			}
			continue
		}
		a.info[k] = info[k]
	}
}

// finish turns the accumulated repeats into a report result; run is finishAll's.
func (a *resultAcc) finish(run int) report.Result {
	r := report.Result{
		Target: a.key.target, Workload: a.key.workload, Size: a.key.size, Unit: a.unit, Params: a.params,
		Status: report.StatusOK, Repeats: a.repeats, Info: a.info, Warnings: a.warnings,
	}
	if w := coldWarning(a.cold, run); w != "" {
		r.Warnings = append(slices.Clone(r.Warnings), w)
	}
	if r.Repeats == nil {
		r.Repeats = []report.Repeat{}
	}
	if a.err != nil {
		r.Status, r.Error = report.StatusFailed, a.err.Error()
	}
	v := a.verification
	r.Verification = report.Verification{ExpectedRows: v.Rows, Method: v.Method, OK: a.err == nil}
	if v.HasSum {
		r.Verification.Expected = fmt.Sprintf("%016x", v.Sum)
	}
	r.Figures = report.RepeatsMedian(a.repeats)
	r.Profile = a.prof.profile()
	if w := a.prof.warning(); w != "" {
		r.Warnings = append(slices.Clone(r.Warnings), w)
	}
	a.finishLoad(&r)
	r.Merged = report.Percentiles(a.merged)
	r.Histogram, _ = report.EncodeHistogram(a.merged)
	if a.errMerged.TotalCount() > 0 {
		r.ErrorHistogram, _ = report.EncodeHistogram(a.errMerged)
	}
	return r
}

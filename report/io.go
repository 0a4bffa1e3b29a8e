package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
)

// Write stores r at path atomically: it writes a temporary file in the same directory, syncs it and
// renames it over path, so a crash never leaves a half-written report. Missing parent directories are
// created. It does not check what path held: `dbbench run` goes through Reserve, which does.
func Write(path string, r *Report) error {
	b, err := Encode(r)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
	}
	return writeAtomic(path, b, nil)
}

// Encode returns the report as indented JSON. Figures that JSON cannot hold (NaN, infinities) are
// dropped rather than losing the whole report.
func Encode(r *Report) ([]byte, error) {
	for i := range r.Results {
		dropNonFinite(r.Results[i].Figures)
		dropNonFinite(r.Results[i].Merged)
		for j := range r.Results[i].Repeats {
			dropNonFinite(r.Results[i].Repeats[j].Figures)
		}
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode report: %w", err)
	}
	return append(b, '\n'), nil
}

func dropNonFinite(m map[string]float64) {
	for k, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			delete(m, k)
		}
	}
}

// writeAtomic writes b to a temporary file next to path and renames it over path. check, if not nil,
// runs just before the rename and may refuse it.
func writeAtomic(path string, b []byte, check func() error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
	}
	return nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// maxReportBytes bounds what is read as a report (a sweep with histograms per repeat is a few MiB).
const maxReportBytes = 256 << 20

// Read loads a report and checks that this build understands it.
func Read(path string) (*Report, error) {
	b, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// ReadPart loads the report of one run of several (a run's worker process writes it for its parent
// to merge): as Read, except that it may have no results, for its targets' statuses say why.
func ReadPart(path string) (*Report, error) {
	b, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	return parse(path, b, true)
}

// readBounded reads a report file.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read report %s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	// Bounded, so that a device such as /dev/zero is refused instead of filling memory.
	b, err := io.ReadAll(io.LimitReader(f, maxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read report %s: %w", path, unwrapPath(err))
	}
	if len(b) > maxReportBytes {
		return nil, fmt.Errorf("%s is not a dbbench report: larger than %d MiB", path, maxReportBytes>>20)
	}
	return b, nil
}

// Parse decodes a report and checks that it is one: it has results, its figures are finite and not
// negative, its histograms decode and its verdict is known. name is used in error messages.
func Parse(name string, b []byte) (*Report, error) { return parse(name, b, false) }

func parse(name string, b []byte, part bool) (*Report, error) {
	if rec, ok := parseReservation(b); ok {
		return nil, reservationError(name, rec)
	}
	var probe struct {
		SchemaVersion *int `json:"schema_version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("%s is not a dbbench report: %v", name, jsonErr(err))
	}
	if probe.SchemaVersion == nil {
		return nil, fmt.Errorf("%s is not a dbbench report: no schema_version", name)
	}
	if *probe.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("%s has schema version %d, newer than this dbbench understands (%d): upgrade dbbench", name, *probe.SchemaVersion, SchemaVersion)
	}
	if *probe.SchemaVersion < 1 {
		return nil, fmt.Errorf("%s has an invalid schema version %d", name, *probe.SchemaVersion)
	}
	var r Report
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s is not a valid dbbench report: %v", name, jsonErr(err))
	}
	if err := check(&r, part); err != nil {
		return nil, fmt.Errorf("%s is not a valid dbbench report: %v", name, err)
	}
	return &r, nil
}

// check rejects a report whose content cannot be trusted or shown.
func check(r *Report, part bool) error {
	switch r.Verdict {
	case VerdictPass, VerdictFail, VerdictError, VerdictInconclusive, VerdictSaturated:
	default:
		return fmt.Errorf("unknown verdict %q", r.Verdict)
	}
	if len(r.Results) == 0 && !part {
		return errors.New("it has no results")
	}
	for i, x := range r.Results {
		what := fmt.Sprintf("result %d (%s %s)", i+1, x.Target, x.Workload)
		if x.Target == "" || x.Workload == "" {
			return fmt.Errorf("result %d names no target or workload", i+1)
		}
		if err := checkFigures(x.Figures); err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
		if err := checkFigures(x.Merged); err != nil {
			return fmt.Errorf("%s: merged: %v", what, err)
		}
		for _, h := range []string{x.Histogram, x.ErrorHistogram} {
			if h == "" {
				continue
			}
			if _, err := DecodeHistogram(h); err != nil {
				return fmt.Errorf("%s: %v", what, err)
			}
		}
		for _, rep := range x.Repeats {
			if err := checkFigures(rep.Figures); err != nil {
				return fmt.Errorf("%s, repeat %d: %v", what, rep.Index, err)
			}
			if rep.Histogram == "" {
				continue
			}
			if _, err := DecodeHistogram(rep.Histogram); err != nil {
				return fmt.Errorf("%s, repeat %d: %v", what, rep.Index, err)
			}
		}
	}
	return nil
}

func checkFigures(m map[string]float64) error {
	for k, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) || (v < 0 && !Signed(k)) {
			return fmt.Errorf("figure %s is %g", k, v)
		}
	}
	return nil
}

func jsonErr(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	return err.Error()
}

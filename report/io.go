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
	"strings"
	"sync"
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

// Reservation is a report path claimed before a run: either a new empty file this process created
// (so that no other run picks the same name) or an earlier dbbench report the user asked to replace.
type Reservation struct {
	Path string
	// Redact, if set, masks secrets in the report's text before it is written.
	Redact func(string) string

	mu      sync.Mutex  // Release may come from an interrupt watchdog while Write runs
	created bool        // the placeholder is ours; removed again if no report is written
	claimed os.FileInfo // what was at Path when reserved; Write replaces only that file
}

// ReserveOptions say what Reserve may replace.
type ReserveOptions struct {
	// Force allows replacing an earlier dbbench report (never anything else).
	Force bool
	// Protect lists files that must never be replaced, such as the config being run.
	Protect []string
}

// Reserve claims path for a report before a long run. It creates a new regular file with O_EXCL, or
// accepts an existing regular file that is an earlier dbbench report when o.Force is set. It refuses
// symbolic links, devices, pipes, directories, the files in o.Protect and any other existing file.
func Reserve(path string, o ReserveOptions) (*Reservation, error) {
	if path == "" {
		return nil, errors.New("the report path is empty")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
	}
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			fi, serr := f.Stat()
			f.Close()
			if serr != nil {
				os.Remove(path)
				return nil, fmt.Errorf("cannot write report %s: %w", path, unwrapPath(serr))
			}
			return &Reservation{Path: path, created: true, claimed: fi}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
		}
		fi, lerr := os.Lstat(path)
		if errors.Is(lerr, fs.ErrNotExist) && attempt < 3 {
			continue // removed between the two calls: try to create it again
		}
		if lerr != nil {
			return nil, fmt.Errorf("cannot write report %s: %w", path, unwrapPath(lerr))
		}
		if err := replaceable(path, fi, o); err != nil {
			return nil, err
		}
		if err := checkDirWritable(path); err != nil {
			return nil, err
		}
		return &Reservation{Path: path, claimed: fi}, nil
	}
}

// ReserveNew claims the first of path, path-2, path-3 ... that does not exist yet, atomically, so
// that runs started at the same second in one directory never share a report.
func ReserveNew(path string) (*Reservation, error) {
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	for i := 1; i <= 10000; i++ {
		p := path
		if i > 1 {
			p = fmt.Sprintf("%s-%d%s", base, i, ext)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, fmt.Errorf("cannot write report %s: %w", p, unwrapPath(err))
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot write report %s: %w", p, unwrapPath(err))
		}
		fi, err := f.Stat()
		f.Close()
		if err != nil {
			os.Remove(p)
			return nil, fmt.Errorf("cannot write report %s: %w", p, unwrapPath(err))
		}
		return &Reservation{Path: p, created: true, claimed: fi}, nil
	}
	return nil, fmt.Errorf("cannot write report %s: too many reports with that name", path)
}

// replaceable decides whether the existing file at path may be replaced by a report.
func replaceable(path string, fi os.FileInfo, o ReserveOptions) error {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return fmt.Errorf("report path %s is a symbolic link: refusing to replace it (give the real path)", path)
	case m.IsDir():
		return fmt.Errorf("report path %s is a directory", path)
	case !m.IsRegular():
		return fmt.Errorf("report path %s is not a regular file (a device, pipe or socket): refusing to replace it", path)
	}
	for _, p := range o.Protect {
		if pfi, err := os.Stat(p); err == nil && os.SameFile(fi, pfi) {
			return fmt.Errorf("report path %s is the config file %s: refusing to replace it", path, p)
		}
	}
	if !isReportFile(path) {
		return fmt.Errorf("report path %s exists and is not a dbbench report: refusing to replace it", path)
	}
	if !o.Force {
		return fmt.Errorf("report path %s already exists (pass --force to replace an earlier report)", path)
	}
	return nil
}

// maxReportBytes bounds what is read as a report (a sweep with histograms per repeat is a few MiB).
const maxReportBytes = 256 << 20

// isReportFile says whether path holds a dbbench report (any schema version).
func isReportFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var probe struct {
		SchemaVersion *int `json:"schema_version"`
		Tool          struct {
			Name string `json:"name"`
		} `json:"tool"`
	}
	if err := json.NewDecoder(io.LimitReader(f, maxReportBytes)).Decode(&probe); err != nil {
		return false
	}
	return probe.SchemaVersion != nil && probe.Tool.Name == "dbbench"
}

func checkDirWritable(path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".dbbench-probe-*")
	if err != nil {
		return fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// Write stores the report at the reserved path atomically, provided the path still holds what was
// reserved or what the last Write wrote (a file swapped in during the run, such as a symbolic link,
// is never replaced).
func (res *Reservation) Write(r *Report) error {
	b, err := Encode(r)
	if err != nil {
		return err
	}
	if res.Redact != nil {
		b = []byte(res.Redact(string(b)))
	}
	res.mu.Lock()
	defer res.mu.Unlock()
	err = writeAtomic(res.Path, b, func() error {
		fi, err := os.Lstat(res.Path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot write report %s: %w", res.Path, unwrapPath(err))
		}
		if err == nil && (!fi.Mode().IsRegular() || !os.SameFile(fi, res.claimed)) {
			return fmt.Errorf("report path %s was replaced by another file during the run: not overwriting it", res.Path)
		}
		return nil
	})
	if err == nil {
		res.created = false
		// The report now at Path is ours: a later Write (the final report after an interrupted
		// run's first one) may replace it.
		if fi, serr := os.Lstat(res.Path); serr == nil {
			res.claimed = fi
		}
	}
	return err
}

// Release removes the empty placeholder of a run that wrote no report; an existing report stays.
func (res *Reservation) Release() {
	if res == nil {
		return
	}
	res.mu.Lock()
	defer res.mu.Unlock()
	if !res.created {
		return
	}
	if fi, err := os.Lstat(res.Path); err == nil && os.SameFile(fi, res.claimed) && fi.Size() == 0 {
		os.Remove(res.Path)
	}
	res.created = false
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Read loads a report and checks that this build understands it.
func Read(path string) (*Report, error) {
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
	return Parse(path, b)
}

// Parse decodes a report and checks that it is one: it has results, its figures are finite and not
// negative, its histograms decode and its verdict is known. name is used in error messages.
func Parse(name string, b []byte) (*Report, error) {
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
	if err := check(&r); err != nil {
		return nil, fmt.Errorf("%s is not a valid dbbench report: %v", name, err)
	}
	return &r, nil
}

// check rejects a report whose content cannot be trusted or shown.
func check(r *Report) error {
	switch r.Verdict {
	case "pass", "fail", "error":
	default:
		return fmt.Errorf("unknown verdict %q", r.Verdict)
	}
	if len(r.Results) == 0 {
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
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
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

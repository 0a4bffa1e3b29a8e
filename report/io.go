package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write stores r at path atomically: it writes a temporary file in the same directory, syncs it and
// renames it over path, so a crash never leaves a half-written report. Missing parent directories are
// created.
func Write(path string, r *Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	b = append(b, '\n')
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
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
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
	}
	return nil
}

// CheckWritable fails early (before a long run) when the report could not be written at path.
func CheckWritable(path string) error {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("report path %s is a directory", path)
	}
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("cannot write report %s: %s is not a directory", path, d)
			}
			f, err := os.CreateTemp(d, ".dbbench-probe-*")
			if err != nil {
				return fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
			}
			f.Close()
			os.Remove(f.Name())
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) || d == filepath.Dir(d) {
			return fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
		}
	}
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
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read report %s: %w", path, unwrapPath(err))
	}
	return Parse(path, b)
}

// Parse decodes a report; name is used in error messages.
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
	return &r, nil
}

func jsonErr(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	return err.Error()
}

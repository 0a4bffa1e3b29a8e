package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dbbench/dbbench/internal/cleanup"
	"github.com/dbbench/dbbench/internal/randhex"
)

// ReservationFormat is the version of the reservation record (field dbbench_reservation).
const ReservationFormat = 1

// reservationRecord is what a reserved report path holds from the start of a run until its report
// replaces it: enough to tell, after a SIGKILL or the OOM killer, that the file is a dead run's
// reservation and not something of the user's, and whether the run that made it still runs (host,
// pid and the pid's start time, so that a recycled pid is not taken for the owner).
type reservationRecord struct {
	Format int    `json:"dbbench_reservation"`
	About  string `json:"about"`
	RunID  string `json:"run_id"`
	cleanup.Process
	ReservedAt time.Time `json:"reserved_at"`
}

const reservationAbout = "a dbbench run reserved this path for its report; the report replaces this file when the run ends"

func newRecord() reservationRecord {
	return reservationRecord{Format: ReservationFormat, About: reservationAbout, RunID: randhex.String(8),
		Process: cleanup.Self(), ReservedAt: time.Now().UTC().Truncate(time.Second)}
}

func (r reservationRecord) encode() []byte {
	b, _ := json.MarshalIndent(r, "", "  ")
	return append(b, '\n')
}

// owner says whose the reservation is, for messages: "pid 123 on host ci-7 since 2026-05-04 10:00:03 UTC".
func (r reservationRecord) owner() string {
	return fmt.Sprintf("dbbench pid %d on host %s since %s", r.PID, r.Host, r.ReservedAt.UTC().Format("2006-01-02 15:04:05 MST"))
}

// maxReservationBytes bounds what is read as a reservation record (one is about 300 bytes).
const maxReservationBytes = 4 << 10

// parseReservation reads a reservation record; ok is false for anything else.
func parseReservation(b []byte) (reservationRecord, bool) {
	var r reservationRecord
	if len(b) > maxReservationBytes || !bytes.Contains(b, []byte(`"dbbench_reservation"`)) {
		return r, false
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Format < 1 || r.Host == "" || r.PID <= 0 {
		return r, false
	}
	return r, true
}

// readReservation reads the reservation record at path, if that is what it holds.
func readReservation(path string) (reservationRecord, bool) {
	f, err := os.Open(path)
	if err != nil {
		return reservationRecord{}, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxReservationBytes+1))
	if err != nil {
		return reservationRecord{}, false
	}
	return parseReservation(b)
}

// reservationError is what a reader of reports says about a reservation record.
func reservationError(name string, r reservationRecord) error {
	return fmt.Errorf("%s holds %s, no report", name, r.describe())
}

// describe says what a reservation is: "an unfinished run's reservation (dbbench pid 123 on host
// ci-7 since ...; its process is gone)".
func (r reservationRecord) describe() string {
	state := "still running"
	switch r.State() {
	case cleanup.Gone:
		state = "its process is gone"
	case cleanup.Foreign:
		state = "on another host"
	}
	return fmt.Sprintf("an unfinished run's reservation (%s; %s)", r.owner(), state)
}

// Reservation is a report path claimed before a run: either a reservation record this process wrote
// (so that no other run picks the same name, and so that a run killed before it wrote its report
// leaves a file that says what it is) or an earlier dbbench report the user asked to replace.
type Reservation struct {
	Path string
	// Redact, if set, masks secrets in the report's text before it is written.
	Redact func(string) string
	// Replaced, when not empty, says whose reservation this one replaced (a run that is gone, or
	// any run with --force): one line for the user.
	Replaced string

	mu      sync.Mutex  // Release may come from an interrupt watchdog while Write runs
	record  []byte      // the reservation record written at Path; nil when Path holds an earlier report
	claimed os.FileInfo // what was at Path when reserved; Write replaces only that file
}

// ReserveOptions say what Reserve may replace.
type ReserveOptions struct {
	// Force allows replacing an earlier dbbench report or any run's reservation (never anything else).
	Force bool
	// Protect lists files that must never be replaced, such as the config being run.
	Protect []string
}

// Reserve claims path for a report before a long run by writing a reservation record there, created
// exclusively. An existing file is taken only if it is a reservation whose run is gone from this
// host, or, with o.Force, any reservation or an earlier dbbench report (which stays until the new
// report replaces it). It refuses symbolic links, devices, pipes, directories, the files in
// o.Protect, a reservation of a run still going or of another host (without o.Force) and any other
// existing file.
func Reserve(path string, o ReserveOptions) (*Reservation, error) {
	if path == "" {
		return nil, errors.New("the report path is empty")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
	}
	record := newRecord().encode()
	for attempt := 0; ; attempt++ {
		fi, err := createExclusive(path, record)
		if err == nil {
			return &Reservation{Path: path, record: record, claimed: fi}, nil
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
		held, replaced, err := replaceable(path, fi, o)
		if err != nil {
			return nil, err
		}
		if !held {
			// An earlier report: it stays until the new one replaces it, so a run that writes no
			// report leaves it as it was.
			if err := checkDirWritable(path); err != nil {
				return nil, err
			}
			return &Reservation{Path: path, claimed: fi}, nil
		}
		// A reservation: ours replaces it at once, provided the path still holds what was judged.
		err = writeAtomic(path, record, func() error {
			if now, err := os.Lstat(path); err != nil || !os.SameFile(now, fi) {
				return errRaced
			}
			return nil
		})
		if errors.Is(err, errRaced) && attempt < 3 {
			continue // another run took it first: judge again what is there now
		}
		if err != nil {
			return nil, err
		}
		mine, err := os.Lstat(path)
		if err != nil {
			return nil, fmt.Errorf("cannot write report %s: %w", path, unwrapPath(err))
		}
		return &Reservation{Path: path, record: record, claimed: mine, Replaced: replaced}, nil
	}
}

var errRaced = errors.New("the file changed while it was being reserved")

// ReserveNew claims the first of path, path-2, path-3 ... that does not exist yet, atomically, so
// that runs started at the same second in one directory never share a report.
func ReserveNew(path string) (*Reservation, error) {
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	record := newRecord().encode()
	for i := 1; i <= 10000; i++ {
		p := path
		if i > 1 {
			p = fmt.Sprintf("%s-%d%s", base, i, ext)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, fmt.Errorf("cannot write report %s: %w", p, unwrapPath(err))
		}
		fi, err := createExclusive(p, record)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot write report %s: %w", p, unwrapPath(err))
		}
		return &Reservation{Path: p, record: record, claimed: fi}, nil
	}
	return nil, fmt.Errorf("cannot write report %s: too many reports with that name", path)
}

// createExclusive creates path holding b, failing with fs.ErrExist if path exists. The content is
// written to a temporary file first and hard-linked into place, so that path never exists empty,
// not even for a moment a SIGKILL could hit; where the file system has no hard links it is created
// with O_EXCL and written.
func createExclusive(path string, b []byte) (os.FileInfo, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err != nil {
		return nil, err
	}
	switch err := os.Link(tmp, path); {
	case err == nil:
		return os.Lstat(path)
	case errors.Is(err, fs.ErrExist):
		return nil, err
	}
	g, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	_, err = g.Write(b)
	if cerr := g.Close(); err == nil {
		err = cerr
	}
	var fi os.FileInfo
	if err == nil {
		fi, err = os.Lstat(path)
	}
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	return fi, nil
}

// replaceable decides whether the existing file at path may be replaced by a report. held is true
// when it is a reservation record that may be replaced at once, and replaced then says whose it was.
func replaceable(path string, fi os.FileInfo, o ReserveOptions) (held bool, replaced string, err error) {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return false, "", fmt.Errorf("report path %s is a symbolic link: refusing to replace it (give the real path)", path)
	case m.IsDir():
		return false, "", fmt.Errorf("report path %s is a directory", path)
	case !m.IsRegular():
		return false, "", fmt.Errorf("report path %s is not a regular file (a device, pipe or socket): refusing to replace it", path)
	}
	for _, p := range o.Protect {
		if pfi, err := os.Stat(p); err == nil && os.SameFile(fi, pfi) {
			return false, "", fmt.Errorf("report path %s is the config file %s: refusing to replace it", path, p)
		}
	}
	if rec, ok := readReservation(path); ok {
		switch state := rec.State(); {
		case state == cleanup.Gone:
			return true, fmt.Sprintf("report path %s held the reservation of a run that is gone (%s): replacing it", path, rec.owner()), nil
		case o.Force && state == cleanup.Running:
			return true, fmt.Sprintf("report path %s held the reservation of a run still going (%s): replacing it (--force)", path, rec.owner()), nil
		case o.Force:
			return true, fmt.Sprintf("report path %s held the reservation of a run on another host (%s): replacing it (--force)", path, rec.owner()), nil
		case state == cleanup.Running:
			return false, "", fmt.Errorf("report path %s is reserved by a run still going (%s): give another path, or pass --force to take it over", path, rec.owner())
		default:
			return false, "", fmt.Errorf("report path %s is reserved by a run on another host (%s): pass --force if that run is over", path, rec.owner())
		}
	}
	if !isReportFile(path) {
		return false, "", fmt.Errorf("report path %s exists and is not a dbbench report: refusing to replace it", path)
	}
	if !o.Force {
		return false, "", fmt.Errorf("report path %s already exists (pass --force to replace an earlier report)", path)
	}
	return false, "", nil
}

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
// is never replaced). The report replaces the reservation record.
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
		res.record = nil
		// The report now at Path is ours: a later Write (the final report after an interrupted
		// run's first one) may replace it.
		if fi, serr := os.Lstat(res.Path); serr == nil {
			res.claimed = fi
		}
	}
	return err
}

// Release removes the reservation record of a run that wrote no report, if the path still holds it
// unchanged; an earlier report, or anything put there since, stays.
func (res *Reservation) Release() {
	if res == nil {
		return
	}
	res.mu.Lock()
	defer res.mu.Unlock()
	if res.record == nil {
		return
	}
	if fi, err := os.Lstat(res.Path); err == nil && os.SameFile(fi, res.claimed) && fi.Size() == int64(len(res.record)) {
		if b, err := os.ReadFile(res.Path); err == nil && bytes.Equal(b, res.record) {
			os.Remove(res.Path)
		}
	}
	res.record = nil
}

// HeldReservation says what path holds when it is a reservation record rather than a report (a run
// killed before it wrote one): its description, and true.
func HeldReservation(path string) (string, bool) {
	r, ok := readReservation(path)
	if !ok {
		return "", false
	}
	return r.describe(), true
}

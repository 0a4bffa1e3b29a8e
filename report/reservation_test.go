package report

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/internal/cleanup"
)

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// writeRecord puts a reservation record of process p at path, as a run of p would have.
func writeRecord(t *testing.T, path string, p cleanup.Process, at time.Time) {
	t.Helper()
	rec := reservationRecord{Format: ReservationFormat, About: reservationAbout, RunID: "0123456789abcdef", Process: p, ReservedAt: at}
	if err := os.WriteFile(path, rec.encode(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func passReport() *Report {
	return &Report{SchemaVersion: SchemaVersion, Tool: Tool{Name: "dbbench"}, Verdict: "pass",
		Results: []Result{{Target: "a", Workload: "scan", Status: "ok"}}}
}

// TestReservationRecord: a reserved path is never an empty file: it says that it is a dbbench
// reservation, whose (run, host, pid, the pid's start time) and since when; readers of reports call
// it an unfinished run's reservation.
func TestReservationRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	before := time.Now().UTC().Add(-time.Second)
	res, err := Reserve(path, ReserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("the reservation is not JSON: %v\n%s", err, b)
	}
	for _, k := range []string{"dbbench_reservation", "run_id", "host", "pid", "process_start", "reserved_at"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("the reservation has no %s:\n%s", k, b)
		}
	}
	rec, ok := parseReservation(b)
	self := cleanup.Self()
	if !ok || rec.PID != os.Getpid() || rec.Host != self.Host || rec.Start != self.Start || len(rec.RunID) != 16 ||
		rec.ReservedAt.Before(before) || rec.ReservedAt.After(time.Now().Add(time.Second)) {
		t.Errorf("record %+v (parsed %v), want this process now", rec, ok)
	}
	for _, read := range []func() error{
		func() error { _, err := Read(path); return err },
		func() error { _, err := Parse("r.json", b); return err },
	} {
		err := read()
		if err == nil || !strings.Contains(err.Error(), "unfinished run's reservation") || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) ||
			!strings.Contains(err.Error(), "still running") || strings.Contains(err.Error(), "not a dbbench report") {
			t.Errorf("reading the reservation: %v", err)
		}
	}
	if err := res.Write(passReport()); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err != nil {
		t.Errorf("the report did not replace the reservation: %v", err)
	}
	res.Release()
	if _, err := Read(path); err != nil {
		t.Errorf("Release removed the written report: %v", err)
	}
}

// TestReserveOverReservations: the reservation of a run that is gone from this host (exited, its
// pid recycled, the host rebooted) is taken over with a note; a live one, or one from another host,
// is refused saying whose it is, unless --force.
func TestReserveOverReservations(t *testing.T) {
	self := cleanup.Self()
	recycled := self
	recycled.Start++
	rebooted := self
	rebooted.BootID = "an-earlier-boot"
	foreign := self
	foreign.Host = "build-box-9"
	at := time.Date(2026, 5, 4, 10, 0, 3, 0, time.UTC)
	dead := cleanup.Process{Host: self.Host, BootID: self.BootID, PID: deadPID(t), Start: 7}
	cases := []struct {
		name  string
		owner cleanup.Process
		force bool
		want  string // "" = reserved, with a note that holds note
		note  string
	}{
		{"an exited run", dead, false, "", "a run that is gone (dbbench pid " + strconv.Itoa(dead.PID)},
		{"a recycled pid", recycled, false, "", "a run that is gone"},
		{"a live run", self, false, "reserved by a run still going (dbbench pid " + strconv.Itoa(self.PID) + " on host " + self.Host + " since 2026-05-04 10:00:03 UTC)", ""},
		{"a live run, --force", self, true, "", "a run still going"},
		{"another host", foreign, false, "reserved by a run on another host (dbbench pid " + strconv.Itoa(self.PID) + " on host build-box-9 since 2026-05-04 10:00:03 UTC)", ""},
		{"another host, --force", foreign, true, "", "another host"},
	}
	if self.BootID != "" {
		cases = append(cases, struct {
			name  string
			owner cleanup.Process
			force bool
			want  string
			note  string
		}{"an earlier boot", rebooted, false, "", "a run that is gone"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.json")
			writeRecord(t, path, c.owner, at)
			before, _ := os.ReadFile(path)
			res, err := Reserve(path, ReserveOptions{Force: c.force})
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("got %v, want an error with %q", err, c.want)
				}
				if after, _ := os.ReadFile(path); string(after) != string(before) {
					t.Error("a refused reservation was changed")
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !strings.Contains(res.Replaced, c.note) || !strings.Contains(res.Replaced, path) || strings.Contains(res.Replaced, "\n") {
				t.Errorf("note %q, want one line with %q", res.Replaced, c.note)
			}
			// The path now holds this run's own reservation, so that a third run sees a live one.
			rec, ok := readReservation(path)
			if !ok || rec.PID != self.PID || rec.Start != self.Start || rec.RunID == "0123456789abcdef" {
				t.Errorf("the path holds %+v (%v), want this run's reservation", rec, ok)
			}
			if _, err := Reserve(path, ReserveOptions{}); err == nil || !strings.Contains(err.Error(), "still going") {
				t.Errorf("a second run took the new reservation: %v", err)
			}
			// A run that writes no report leaves nothing behind, not even the old reservation.
			res.Release()
			if _, err := os.Lstat(path); err == nil {
				t.Error("Release left the reservation behind")
			}
		})
	}
}

// TestReleaseKeepsWhatIsNotItsOwn: Release removes only the reservation it wrote, unchanged: a file
// written over it in place or swapped in stays, and so does an earlier report reserved with --force.
func TestReleaseKeepsWhatIsNotItsOwn(t *testing.T) {
	dir := t.TempDir()
	inPlace := filepath.Join(dir, "in-place.json")
	res, err := Reserve(inPlace, ReserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inPlace, []byte("the user's notes"), 0o644); err != nil { // same inode
		t.Fatal(err)
	}
	res.Release()
	if b, _ := os.ReadFile(inPlace); string(b) != "the user's notes" {
		t.Error("Release removed a file written over the reservation")
	}

	earlier := filepath.Join(dir, "earlier.json")
	if err := Write(earlier, passReport()); err != nil {
		t.Fatal(err)
	}
	res, err = Reserve(earlier, ReserveOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(earlier); err != nil {
		t.Errorf("reserving with --force replaced the earlier report before the run wrote one: %v", err)
	}
	res.Release()
	if _, err := Read(earlier); err != nil {
		t.Errorf("Release removed the earlier report: %v", err)
	}
}

// TestReadDirLeavesOutReservations: history over a directory where a run is going (or one was
// killed) reads the reports and names the reservation it left out.
func TestReadDirLeavesOutReservations(t *testing.T) {
	dir := t.TempDir()
	r := passReport()
	r.Run.ConfigName = "c"
	if err := Write(filepath.Join(dir, "a.json"), r); err != nil {
		t.Fatal(err)
	}
	res, err := Reserve(filepath.Join(dir, "b.json"), ReserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	reps, paths, notes, err := ReadDirNotes(dir)
	if err != nil || len(reps) != 1 || paths[0] != filepath.Join(dir, "a.json") {
		t.Fatalf("ReadDirNotes: %d reports %v, %v", len(reps), paths, err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "b.json") || !strings.Contains(notes[0], "unfinished run's reservation") {
		t.Errorf("notes %q, want one naming b.json's reservation", notes)
	}
	if reps, _, err := ReadDir(dir); err != nil || len(reps) != 1 {
		t.Errorf("ReadDir: %d reports, %v", len(reps), err)
	}
}

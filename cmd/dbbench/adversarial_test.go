package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/dbbench/dbbench/report"
)

// TestBadInputs feeds the built binary inputs that have broken it before: every one is answered by
// exactly one line on stderr, prefixed "dbbench: ", with the documented exit code, no stack trace and
// no secret; nothing the user owns is changed.
func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := "name: g\ndataset: {persons: 200}\nrepeats: 1\nworkloads: [scan]\ntargets: [{name: m, adapter: memory}]\n"
	cfg := write("g.yaml", good)
	notes := write("notes.txt", "keep me")
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o644)
	link := filepath.Join(dir, "link.json")
	os.Symlink(notes, link)
	bomb := write("bomb.yaml", `name: b
dataset: {persons: 10}
workloads: [scan]
targets:
  - name: m
    adapter: memory
    options:
      a: &a [x, x, x, x, x, x, x, x, x, x]
      b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
      c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
      d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
      e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
      f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
      g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
`)
	unsetDSN := write("unset.yaml", strings.Replace(good, "{name: m, adapter: memory}", `{name: t, adapter: triplex, options: {backend: postgres, dsn: "${DBBENCH_SURELY_UNSET}"}}`, 1))
	leak := write("leak.yaml", strings.Replace(good, "{name: m, adapter: memory}", `{name: t, adapter: triplex, options: {backend: postgres, dsn: "host=127.0.0.1 port=1 user=u password='a\\' tail_of_secret'"}}`, 1))
	huge := write("huge.yaml", strings.Replace(good, "workloads: [scan]", "workloads: [{name: concurrent, readers: 10000000, rows: 10}]", 1))
	emptyRep := write("empty.json", `{"schema_version": 1, "tool": {"name": "dbbench"}, "verdict": "pass"}`)

	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"out is /dev/null", []string{"run", "-c", cfg, "--out", "/dev/null"}, 2, "not a regular file"},
		{"out is /dev/stdout", []string{"run", "-c", cfg, "--out", "/dev/stdout"}, 2, "symbolic link"},
		{"out is a fifo", []string{"run", "-c", cfg, "--out", fifo}, 2, "not a regular file"},
		{"out is a symlink", []string{"run", "-c", cfg, "--out", link, "--force"}, 2, "symbolic link"},
		{"out is another file", []string{"run", "-c", cfg, "--out", notes, "--force"}, 2, "not a dbbench report"},
		{"out is the config", []string{"run", "-c", cfg, "--out", cfg, "--force"}, 2, "is the config file"},
		{"alias bomb", []string{"validate", "-c", bomb}, 2, "expands to more than 10000 values"},
		{"unset variable in a dsn", []string{"validate", "-c", unsetDSN}, 2, "${DBBENCH_SURELY_UNSET} is not set"},
		{"readers without bound", []string{"run", "-c", huge}, 2, "readers must be at most 1024"},
		{"escaped quote in a password", []string{"run", "-q", "-c", leak, "--out", filepath.Join(dir, "l.json")}, 3, "password=***"},
		{"empty config flag", []string{"run", "-c", ""}, 2, "--config: empty value"},
		{"empty out flag", []string{"run", "--out", ""}, 2, "--out: empty value"},
		{"alpha zero", []string{"compare", emptyRep, emptyRep, "--alpha", "0"}, 2, "--alpha"},
		{"report without results", []string{"report", emptyRep}, 2, "no results"},
		{"report from /dev/zero", []string{"report", "/dev/zero"}, 2, "larger than 256 MiB"},
		{"config from /dev/zero", []string{"run", "-c", "/dev/zero"}, 2, "larger than 4 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := dbbench(t, t.TempDir(), tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d: %s", code, tt.code, errOut)
			}
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "dbbench: ") || !strings.Contains(lines[0], tt.want) {
				t.Errorf("stderr %q, want one line with %q", errOut, tt.want)
			}
			for _, bad := range []string{"panic", "goroutine", "tail_of_secret"} {
				if strings.Contains(errOut, bad) {
					t.Errorf("stderr has %q: %s", bad, errOut)
				}
			}
		})
	}
	if b, _ := os.ReadFile(notes); string(b) != "keep me" {
		t.Error("a file of the user's was changed")
	}
	if b, _ := os.ReadFile(cfg); string(b) != good {
		t.Error("the config was changed")
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Error("/dev/null is no longer a device")
	}
}

// TestKilledRunReservation: a run killed with SIGKILL (a CI timeout, the OOM killer) leaves at its
// --out path a reservation that says whose it is. While that run is alive a second run with the same
// --out is refused naming it (exit 2); once it is gone the reservation reads as an unfinished run's,
// and the next run takes it over with a note and writes its report there.
func TestKilledRunReservation(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.yaml")
	os.WriteFile(long, []byte("name: long\ndataset: {persons: 200000}\nwarmup: 0\nrepeats: 1000\n"+
		"workloads: [scan, {name: lookup, ops: 100000}]\ntargets: [{name: memory, adapter: memory}]\n"), 0o644)
	short := filepath.Join(dir, "short.yaml")
	os.WriteFile(short, []byte("name: short\ndataset: {persons: 200}\nrepeats: 1\nworkloads: [scan]\ntargets: [{name: m, adapter: memory}]\n"), 0o644)
	out := filepath.Join(dir, "r.json")

	cmd, _, lines := startUntil(t, t.TempDir(), "loaded memory", "run", "-c", long, "--out", out)
	killed := false
	defer func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	pid := strconv.Itoa(cmd.Process.Pid)
	host, _ := os.Hostname()
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Fatalf("no reservation at %s once the run loaded (%v)\n%s", out, err, strings.Join(lines, "\n"))
	}

	// Alive: refused, saying whose the reservation is.
	code, _, errOut := dbbench(t, t.TempDir(), "run", "-q", "-c", short, "--out", out)
	if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "dbbench: ") ||
		!strings.Contains(errOut, "reserved by a run still going (dbbench pid "+pid+" on host "+host+" since ") {
		t.Errorf("a live reservation: exit %d, stderr %q; want exit 2 and one line naming pid %s", code, errOut, pid)
	}

	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	killed = true
	b, _ := os.ReadFile(out)
	if len(b) == 0 {
		t.Fatal("the killed run left an empty file")
	}

	// Readers of reports say what it is.
	for _, args := range [][]string{{"report", out}, {"compare", out, out}, {"history", dir}} {
		code, _, errOut := dbbench(t, t.TempDir(), args...)
		if code != 2 || !strings.Contains(errOut, "unfinished run's reservation (dbbench pid "+pid) ||
			!strings.Contains(errOut, "its process is gone") || strings.Contains(errOut, "not a dbbench report") {
			t.Errorf("dbbench %s: exit %d, stderr %q", args[0], code, errOut)
		}
	}

	code, stdout, errOut := dbbench(t, t.TempDir(), "run", "-q", "-c", short, "--out", out)
	if code != 0 {
		t.Fatalf("the run after the killed one: exit %d\n%s%s", code, stdout, errOut)
	}
	want := "dbbench: report path " + out + " held the reservation of a run that is gone (dbbench pid " + pid + " on host " + host + " since "
	if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, want) {
		t.Errorf("stderr %q, want the one-line note %q...", errOut, want)
	}
	if r, err := report.Read(out); err != nil || r.Run.ConfigName != "short" {
		t.Errorf("the new run's report: %v", err)
	}
}

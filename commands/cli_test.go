package commands

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/configs"
	"github.com/dbbench/dbbench/internal/callgrind"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/term/termtest"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/schema"
	"github.com/dbbench/dbbench/workloads"
)

// missingServer is an adapter whose server is never there, for the infrastructure exit code.
type missingServer struct{}

func (missingServer) Info() adapters.Info {
	return adapters.Info{Name: "missing", Summary: "a server that is not there", Builtin: []string{workloads.Scan}}
}

func (missingServer) Open(context.Context, adapters.Options, adapters.Env) (adapters.Target, error) {
	return nil, adapters.Unavailable("no server: set ADDRESS or install Docker")
}

// execute runs dbbench in-process with the real built-in adapters plus test ones.
func execute(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	f := &Factory{
		Out: &out, Err: &errb, TempDir: t.TempDir(),
		Registry: func() (*adapters.Registry, error) {
			return adapters.NewRegistry(append(builtinAdapters(), missingServer{})...)
		},
	}
	code = Execute(context.Background(), f, args)
	// every command's output, in every test: lines that fit, no Go value dumps, a one-line error
	// (a file format on stdout, JSON, HTML, a completion script, is not read on a terminal)
	stdout = out.String()
	if machineFormat(args) {
		stdout = ""
	}
	termtest.Check(t, "dbbench "+strings.Join(args, " "), code, stdout, errb.String())
	if code != exitcode.Usage { // a refused run writes nothing (and --out may name what must not be read)
		validateOutputs(t, args, out.Bytes())
	}
	return code, out.String(), errb.String()
}

// machineFormat says whether a command prints a file format rather than text for people: --format
// other than text, a completion script, Kubernetes manifests.
func machineFormat(args []string) bool {
	if len(args) > 0 && (args[0] == "completion" || args[0] == "kube" || strings.HasPrefix(args[0], "__complete")) {
		return true
	}
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--format="); ok {
			return v != "text"
		}
		if (a == "--format" || a == "-f") && i+1 < len(args) {
			return args[i+1] != "text"
		}
	}
	return false
}

// validateOutputs checks every report a test run writes (--out) and every compare JSON it prints
// against the published JSON Schemas.
func validateOutputs(t *testing.T, args []string, stdout []byte) {
	t.Helper()
	for i, a := range args {
		if (a == "--out" || a == "-o") && i+1 < len(args) {
			if st, err := os.Lstat(args[i+1]); err != nil || !st.Mode().IsRegular() {
				continue
			}
			if b, err := os.ReadFile(args[i+1]); err == nil {
				if err := schema.Validate(schema.Report, b); err != nil {
					t.Errorf("the report %s does not match its schema: %v", args[i+1], err)
				}
			}
		}
	}
	if len(args) > 0 && args[0] == "report" && slices.Contains(args, "json") && len(stdout) > 0 {
		if err := schema.Validate(schema.Report, stdout); err != nil {
			t.Errorf("report --format json does not match the report schema: %v", err)
		}
	}
	if len(args) > 0 && args[0] == "compare" && slices.Contains(args, "json") && len(stdout) > 0 {
		if err := schema.Validate(schema.Compare, stdout); err != nil {
			t.Errorf("compare's JSON does not match its schema: %v", err)
		}
	}
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const tiny = `name: tiny
dataset: {persons: 300}
warmup: 0
repeats: 2
workloads:
  - scan
  - {name: lookup, ops: 50}
  - {name: insert, ops: 50}
  - {name: concurrent, readers: 2, rows: 100}
targets:
  - {name: a, adapter: memory}
  - {name: b, adapter: memory}
assertions:
  - ASSERTION
ci:
  dataset: {persons: 200}
  relax: 10%
`

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	passing := writeFile(t, dir, "pass.yaml", strings.Replace(tiny, "ASSERTION", "scan.rows_per_s[a] >= 0.0001 * scan.rows_per_s[b]", 1))
	failing := writeFile(t, dir, "fail.yaml", strings.Replace(tiny, "ASSERTION", "scan.rows_per_s[a] >= 10000 * scan.rows_per_s[b]", 1))
	twins := writeFile(t, dir, "twins.yaml", strings.Replace(tiny, "ASSERTION", "scan.ns_per_row[a] <= 2 * scan.ns_per_row[b]", 1))
	noCI := writeFile(t, dir, "noci.yaml", strings.Split(strings.Replace(tiny, "ASSERTION", "scan.p50[a] > 0", 1), "ci:")[0])
	broken := writeFile(t, dir, "broken.yaml", "name: x\ndataset: {persons: 10\n")
	missing := writeFile(t, dir, "missing.yaml", strings.Replace(strings.Replace(tiny, "ASSERTION", "scan.p50[a] > 0", 1), "adapter: memory}\n  - {name: b, adapter: memory}", "adapter: memory}\n  - {name: b, adapter: missing, workloads: [scan]}", 1))
	notADir := writeFile(t, dir, "file", "")
	memory := writeFile(t, dir, "memory.yaml", strings.Replace(tiny, "ASSERTION", "lookup.bytes_retained_per_op[a] <= 1000000", 1))
	profiled := writeFile(t, dir, "profile.yaml", strings.Replace(tiny, "ASSERTION", "lookup.phase_get_ns[a] <= 1000000000", 1))
	interleaved := writeFile(t, dir, "ops.yaml", strings.Replace(strings.Replace(tiny, "ASSERTION", "scan.p50[a] > 0", 1), "targets:", "interleave: ops\ntargets:", 1))

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"pass", []string{"run", "-q", "-c", passing, "--out", filepath.Join(dir, "p.json")}, exitcode.OK, "verdict: PASS", ""},
		{"assertion fails", []string{"run", "-q", "-c", failing, "--out", filepath.Join(dir, "f.json")}, exitcode.Failed, "verdict: FAIL: 1 of 1 assertion failed", "dbbench: 1 of 1 assertion failed, first: scan.rows_per_s[a] >= 10000 * scan.rows_per_s[b]: mean ratio "},
		{"ci mode", []string{"run", "-q", "--ci", "-c", passing, "--out", filepath.Join(dir, "ci.json")}, exitcode.OK, " >= 0.00009 required (relaxed from 0.0001; 3 runs, ", ""},
		{"ci without section", []string{"run", "--ci", "-c", noCI}, exitcode.Usage, "", "--ci needs a ci: section"},
		{"missing config", []string{"run", "-c", filepath.Join(dir, "nope.yaml")}, exitcode.Usage, "", "cannot read config"},
		{"malformed config", []string{"run", "-c", broken}, exitcode.Usage, "", "broken.yaml:1: YAML syntax error"},
		{"unwritable report path", []string{"run", "-c", passing, "--out", filepath.Join(notADir, "r.json")}, exitcode.Usage, "", "not a directory"},
		{"required target unavailable", []string{"run", "-q", "-c", missing, "--out", filepath.Join(dir, "m.json")}, exitcode.Infra, "", "target b: unavailable on this machine: no server: set ADDRESS or install Docker"},
		{"empty config flag", []string{"run", "-c", ""}, exitcode.Usage, "", "--config: empty value"},
		{"empty out flag", []string{"run", "-c", passing, "--out", ""}, exitcode.Usage, "", "--out: empty value"},
		{"out is /dev/null", []string{"run", "-c", passing, "--out", "/dev/null"}, exitcode.Usage, "", "not a regular file"},
		{"out is the config", []string{"run", "-c", passing, "--out", passing, "--force"}, exitcode.Usage, "", "is the config file"},
		{"out is an earlier report", []string{"run", "-q", "-c", passing, "--out", filepath.Join(dir, "p.json")}, exitcode.Usage, "", "pass --force"},
		{"out replaces an earlier report with --force", []string{"run", "-q", "-c", passing, "--out", filepath.Join(dir, "p.json"), "--force"}, exitcode.OK, "verdict: PASS", ""},
		{"empty validate config", []string{"validate", "-c", ""}, exitcode.Usage, "", "--config: empty value"},
		{"config is an endless device", []string{"validate", "-c", "/dev/zero"}, exitcode.Usage, "", "larger than 4 MiB"},
		{"one target alone", []string{"run", "-c", failing, "--targets", "a", "--isolation", "rewarm", "--out", filepath.Join(dir, "alone.json")}, exitcode.OK, "verdict: PASS (no assertions decided: 1 left out)", "--targets: left out 1 assertion that names other targets"},
		{"unknown target", []string{"run", "-c", passing, "--targets", "c"}, exitcode.Usage, "", `--targets: the config has no target "c" (targets: a, b)`},
		{"unknown slowdown target", []string{"run", "-c", passing, "--slowdown", "c=10%"}, exitcode.Usage, "", `--slowdown: no target "c" in the config (targets: a, b)`},
		{"slowdown without a fraction", []string{"run", "-c", passing, "--slowdown", "a"}, exitcode.Usage, "", `--slowdown "a": write NAME=FRACTION`},
		{"slowdown out of range", []string{"run", "-c", passing, "--slowdown", "a=-5%"}, exitcode.Usage, "", `--slowdown "a=-5%": write NAME=FRACTION`},
		// the same store as b, 9x slower: scans take more than twice as long (run workers get the flag too)
		{"slowdown caught", []string{"run", "-q", "-c", twins, "--slowdown", "a=800%", "--out", filepath.Join(dir, "slow.json")}, exitcode.Failed, "verdict: FAIL", ""},
		{"unknown isolation", []string{"run", "-c", passing, "--isolation", "vm"}, exitcode.Usage, "", `--isolation "vm": want one of none, rewarm, process`},
		{"instructions without a callgrind build", []string{"run", "-c", passing, "--instructions"}, exitcode.Usage, "", "--instructions: this dbbench was built without callgrind support"},
		// the memory figures exist in every run's worker only if the workers get the flag too
		{"memory figures", []string{"run", "-q", "-c", memory, "--memory", "--out", filepath.Join(dir, "mem.json")}, exitcode.OK, "verdict: PASS", ""},
		{"memory figures not asked for", []string{"run", "-q", "-c", memory, "--out", filepath.Join(dir, "nomem.json")}, exitcode.Infra, "", "figure bytes_retained_per_op is missing"},
		{"memory with interleave ops", []string{"run", "-c", interleaved, "--memory"}, exitcode.Usage, "", "--memory measures each target's repeat on its own: it does not combine with interleave: ops"},
		// the profile figures exist in every run's worker only if the workers get the flag too
		{"profile figures", []string{"run", "-q", "-c", profiled, "--profile", "--out", filepath.Join(dir, "prof.json")}, exitcode.OK, "verdict: PASS", ""},
		{"profile figures in isolation: process workers", []string{"run", "-q", "-c", profiled, "--profile", "--isolation", "process", "--runs", "1", "--out", filepath.Join(dir, "prof-proc.json")}, exitcode.OK, "verdict: PASS", ""},
		{"profile figures not asked for", []string{"run", "-q", "-c", profiled, "--out", filepath.Join(dir, "noprof.json")}, exitcode.Infra, "", "figure phase_get_ns is missing"},
		{"profile with a YCSB workload", []string{"run", "-c", "ycsb-c", "--profile"}, exitcode.Usage, "", "--profile: profile: true does not split the operations of YCSB workloads (ycsb-c)"},
		{"unknown flag", []string{"run", "--fast"}, exitcode.Usage, "", "unknown flag: --fast (see 'dbbench run --help')"},
		{"unknown command", []string{"sprint"}, exitcode.Usage, "", `unknown command "sprint"`},
		{"extra argument", []string{"run", "extra"}, exitcode.Usage, "", "unknown command"},
		{"validate ok", []string{"validate", "-c", passing}, exitcode.OK, "ok with --ci", ""},
		{"validate broken", []string{"validate", "-c", broken}, exitcode.Usage, "", "YAML syntax error"},
		{"list", []string{"list"}, exitcode.OK, "memory: in-process", ""},
		{"list one", []string{"list", "memory"}, exitcode.OK, "workloads: scan, lookup, insert, concurrent", ""},
		{"list unknown", []string{"list", "mongo"}, exitcode.Usage, "", `unknown adapter "mongo"`},
		{"version", []string{"version"}, exitcode.OK, "dbbench ", ""},
		{"help", []string{"run", "--help"}, exitcode.OK, "Examples:", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if callgrind.Available && strings.HasPrefix(tt.name, "instructions") {
				t.Skip("built with -tags callgrind: --instructions would restart the test binary under valgrind")
			}
			code, out, errOut := execute(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			// long lines wrap at 120 columns: look for the words, not where the lines break
			if !strings.Contains(strings.Join(strings.Fields(out), " "), tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, out)
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errOut)
			}
			if tt.code == exitcode.Usage || tt.code == exitcode.Infra {
				if lines := strings.Count(strings.TrimSpace(errOut), "\n"); lines != 0 {
					t.Errorf("error output is %d lines, want one:\n%s", lines+1, errOut)
				}
				if strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
					t.Errorf("stack trace in error output:\n%s", errOut)
				}
			}
		})
	}
	// The passing run wrote a readable report; a failed-to-start run wrote none.
	if r, err := report.Read(filepath.Join(dir, "p.json")); err != nil || r.Verdict != "pass" || len(r.Results) != 8 {
		t.Errorf("report: %v", err)
	}
	if r, err := report.Read(filepath.Join(dir, "alone.json")); err != nil || r.Run.Isolation != "rewarm" || len(r.Targets) != 1 {
		t.Errorf("report of --targets a --isolation rewarm: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "m.json")); err == nil {
		t.Error("a run that could not start wrote a report")
	}
}

func TestDefaultReportPathNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", strings.Replace(tiny, "ASSERTION", "scan.p50[a] > 0", 1))
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	for i := 0; i < 2; i++ {
		if code, _, errOut := execute(t, "run", "-q", "-c", cfg); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, DefaultReportDir))
	if len(entries) != 2 {
		t.Errorf("%d reports in %s, want 2 distinct files", len(entries), DefaultReportDir)
	}
}

// TestShippedConfigsValidate keeps every built-in config valid against the real adapters, in both
// forms, from the repository's root (where those that run its clients are run).
func TestShippedConfigsValidate(t *testing.T) {
	t.Chdir("..")
	for _, name := range configs.Names() {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := execute(t, "validate", "-c", name)
			if code != 0 {
				t.Errorf("%s: exit %d: %s%s", name, code, out, errOut)
			}
		})
	}
}

func TestValgrindNotesAreDropped(t *testing.T) {
	var b bytes.Buffer
	v := &valgrindNotes{w: &b}
	io.WriteString(v, "--123-- WARNING: unhandled amd64-linux syscall: 434\n--123-- You may be able to")
	io.WriteString(v, " write your own handler.\nTARGET  WORKLOAD\n==123== Invalid read\ndbbench: no")
	v.flush()
	if got, want := b.String(), "TARGET  WORKLOAD\n==123== Invalid read\ndbbench: no"; got != want {
		t.Errorf("passed on %q, want %q", got, want)
	}
}

// An error of several lines (a driver's, a server's) is printed as one line, whole: nothing is cut
// off with a pointer to a report that may not exist.
func TestMultiLineErrorIsOneWholeLine(t *testing.T) {
	var out, errb bytes.Buffer
	f := &Factory{
		Out: &out, Err: &errb, TempDir: t.TempDir(),
		Registry: func() (*adapters.Registry, error) {
			return nil, errors.New("first line\nsecond line: password=hunter2")
		},
	}
	code := Execute(context.Background(), f, []string{"list"})
	want := "dbbench: adapter registry: first line second line: password=***\n"
	if code != exitcode.Infra || errb.String() != want {
		t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errb.String(), exitcode.Infra, want)
	}
}

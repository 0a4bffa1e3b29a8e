package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbbench/dbbench/commands"
	"github.com/dbbench/dbbench/internal/examples"
)

// exampleSkips are the documented examples this test does not run, each with the reason: those that
// need a server (TypeDB, a DSN you give, Docker) or take over a minute. Reviewed by hand: an example
// that is neither runnable nor listed here fails the test, and so does an entry that names no example.
// Keys are the example's line as written, trimmed. Every example in a code block today runs.
var exampleSkips = map[string]string{}

// exampleNeeds are examples that need a runtime the machine may lack: without it they skip with the
// reason, or fail with DBBENCH_REQUIRE_CLIENTS=1 (as .ci/test sets it). Keyed by a part of the line.
var exampleNeeds = map[string]func(root string) string{
	"node clients/node/": func(root string) string {
		if _, err := exec.LookPath("node"); err != nil {
			return "no node on PATH"
		}
		if _, err := os.Stat(filepath.Join(root, "clients", "node", "node_modules")); err != nil {
			return "clients/node/node_modules is missing: run npm ci in clients/node"
		}
		return ""
	},
}

// verdict is what a run or a gate prints when the machine measured slower than a threshold: exit 1
// then says the run itself was fine (README, exit codes), and whether a shared machine meets a
// performance threshold is no unit test's to decide.
var verdict = regexp.MustCompile(`(?m)\d+ of \d+ assertions? failed|^gate: FAIL:`)

// undecided is what a run prints when its runs could not decide an assertion within the budget
// (exit 4): on a shared machine that is an honest answer, as a failed verdict is.
var undecided = regexp.MustCompile(`(?m)\d+ of \d+ assertions? inconclusive|^gate: INCONCLUSIVE`)

// saturated is what a load run prints when dbbench's own dispatcher could not keep its schedule
// (exit 5): a shared machine that cannot schedule it in time says so honestly, as with a verdict.
var saturated = regexp.MustCompile(`(?m)^dbbench: generator saturated: `)

// documentedExit is an exit code an example's comment announces (`# exit 2: ...`).
var documentedExit = regexp.MustCompile(`#.*\bexit (\d+)\b`)

// TestReadmeExamples runs every example command in the code blocks of README.md and docs/*.md as
// written, in order, with the built binary as `dbbench` (and for `go run ./cmd/dbbench`), in a copy
// of the repository's files as a fresh clone has them, so that later examples read what earlier
// ones wrote. A non-zero exit fails the test unless it is a performance verdict (see verdict,
// undecided and saturated) or the example's comment documents it.
func TestReadmeExamples(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash: the examples are bash")
	}
	const root = "../.."
	work := freshClone(t, root)
	tmp := t.TempDir()
	wrap := t.TempDir()
	log := filepath.Join(tmp, "exits.log")
	// Every dbbench the line starts (in a loop, a pipe, a process substitution) logs its exit code,
	// so that a failure the shell would hide (source <(dbbench completion bash)) is seen, and a line
	// that never ran dbbench (a loop over nothing) is too.
	script := "#!/bin/sh\n\"$DBBENCH_EXAMPLE_BIN\" \"$@\"\nrc=$?\necho \"$rc\" >> \"$DBBENCH_EXAMPLE_LOG\"\nexit $rc\n"
	if err := os.WriteFile(filepath.Join(wrap, "dbbench"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+wrap+string(os.PathListSeparator)+os.Getenv("PATH"), "TMPDIR="+tmp,
		"DBBENCH_EXAMPLE_BIN="+binary, "DBBENCH_EXAMPLE_LOG="+log)

	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	sort.Strings(docs)
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	subcommands := map[string]bool{}
	for _, c := range commands.NewRootCmd(&commands.Factory{}).Commands() {
		subcommands[c.Name()] = true
	}
	listed := map[string]bool{}
	ran, skipped := 0, 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, doc)
		var found []examples.Line
		for _, l := range examples.ShellLines(string(b)) {
			if len(examples.Commands(l.Text)) > 0 {
				found = append(found, l)
			}
		}
		// The count to expect, found another way: every line of the file, in a code block or not,
		// that starts with dbbench and one of its commands. Each must be an example found above.
		inBlock := map[int]bool{}
		for _, l := range found {
			inBlock[l.N] = true
		}
		want := 0
		for i, l := range strings.Split(string(b), "\n") {
			f := strings.Fields(strings.Replace(strings.TrimSpace(l), "go run ./cmd/dbbench ", "dbbench ", 1))
			if len(f) >= 2 && f[0] == "dbbench" && (subcommands[f[1]] || strings.HasPrefix(f[1], "-")) {
				want++
				if !inBlock[i+1] {
					t.Errorf("%s:%d starts with a dbbench command outside a shell code block, where no test runs it: %s", name, i+1, l)
				}
			}
		}
		if name == "README.md" && (want == 0 || len(found) < want) {
			t.Fatalf("README.md: found %d examples, want at least the %d lines that start with a dbbench command", len(found), want)
		}
		t.Logf("%s: %d examples (%d lines start with a dbbench command)", name, len(found), want)

		for _, l := range found {
			if reason, ok := exampleSkips[l.Text]; ok {
				listed[l.Text] = true
				skipped++
				t.Logf("%s:%d skipped (%s): %s", name, l.N, reason, l.Text)
				continue
			}
			missing := ""
			for part, need := range exampleNeeds {
				if m := need(root); m != "" && strings.Contains(l.Text, part) {
					missing = m
				}
			}
			if missing != "" {
				if os.Getenv("DBBENCH_REQUIRE_CLIENTS") == "1" {
					t.Errorf("%s:%d cannot run (%s) and DBBENCH_REQUIRE_CLIENTS=1: %s", name, l.N, missing, l.Text)
				} else {
					t.Logf("%s:%d skipped: %s: %s", name, l.N, missing, l.Text)
				}
				skipped++
				continue
			}
			runExample(t, bash, work, env, log, fmt.Sprintf("%s:%d", name, l.N), l.Text)
			ran++
		}
	}
	for ex := range exampleSkips {
		if !listed[ex] {
			t.Errorf("exampleSkips lists %q, which is no example any more: remove it", ex)
		}
	}
	if ran == 0 {
		t.Fatalf("no example ran (%d skipped)", skipped)
	}
	t.Logf("%d examples ran, %d skipped", ran, skipped)
}

// runExample runs one example line in bash in work and checks how every dbbench it started exited.
func runExample(t *testing.T, bash, work string, env []string, log, where, line string) {
	t.Helper()
	if err := os.WriteFile(log, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard, not a limit on speed
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-c", "set -o pipefail\n"+strings.ReplaceAll(line, "go run ./cmd/dbbench", "dbbench"))
	cmd.Dir, cmd.Env = work, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start).Round(time.Millisecond)
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if ctx.Err() != nil {
		t.Errorf("%s: still running after %v, killed: %s\nstderr:\n%s", where, took, line, tail(errb.String()))
		return
	}
	b, _ := os.ReadFile(log)
	var exits []int
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		exits = append(exits, n)
	}
	t.Logf("%s (%v, exits %v): %s", where, took, exits, line)
	if n := len(examples.Commands(line)); len(exits) < n {
		t.Errorf("%s: names %d dbbench commands but started dbbench %d times: %s\nstderr:\n%s", where, n, len(exits), line, tail(errb.String()))
	}
	allowed := map[int]bool{0: true}
	if m := documentedExit.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		allowed[n] = true
	}
	if verdict.MatchString(out.String() + errb.String()) {
		allowed[1] = true
	}
	if undecided.MatchString(out.String() + errb.String()) {
		allowed[4] = true
	}
	if saturated.MatchString(errb.String()) {
		allowed[5] = true
	}
	for _, c := range append(exits, code) {
		if !allowed[c] {
			t.Errorf("%s: exit %d (the example documents none): %s\nstdout:\n%s\nstderr:\n%s", where, c, line, tail(out.String()), tail(errb.String()))
			return
		}
	}
}

// tail is the end of an output, enough to see why a command failed.
func tail(s string) string {
	if len(s) > 3000 {
		return "..." + s[len(s)-3000:]
	}
	return s
}

// freshClone copies the files a fresh clone of the repository has (git's tracked files: not what
// following the README in this checkout left, which the examples would refuse to overwrite) into a
// temporary directory; Node's packages, which npm ci installs and git ignores, are linked in when
// present.
func freshClone(t *testing.T, root string) string {
	t.Helper()
	list, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("cannot list the repository's files with git (%v): the examples need a fresh clone's files", err)
	}
	dst := t.TempDir()
	copied := 0
	for _, p := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		src := filepath.Join(root, p)
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() { // deleted in the worktree, or a link git keeps as such
			continue
		}
		if err := copyFile(src, filepath.Join(dst, p), st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
		copied++
	}
	if copied == 0 {
		t.Fatalf("git ls-files in %s listed no files", root)
	}
	if abs, err := filepath.Abs(filepath.Join(root, "clients", "node", "node_modules")); err == nil {
		if _, err := os.Stat(abs); err == nil {
			if err := os.Symlink(abs, filepath.Join(dst, "clients", "node", "node_modules")); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dst
}

func copyFile(src, dst string, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

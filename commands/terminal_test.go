package commands

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/configs"
	"github.com/dbbench/dbbench/internal/examples"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// repoRoot is the repository, one level up from commands: help examples name its files.
const repoRoot = ".."

// TestOutputFits120Columns runs every command a user reads; execute checks that no line wraps in a
// 120-column terminal (termtest).
func TestOutputFits120Columns(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "tiny.yaml", strings.Replace(strings.Replace(tiny, "ASSERTION",
		"scan.ns_per_row[a-target-with-a-long-name-to-see-it-fit] - scan.ns_per_row[b] <= 1000000", 1),
		"{name: a, adapter: memory}", "{name: a-target-with-a-long-name-to-see-it-fit, adapter: memory}", 1))
	rep := filepath.Join(dir, "r.json")
	runs := [][]string{
		{"run", "-q", "-c", cfg, "--out", rep},
		{"list"}, {"list", "lmdb"}, {"list", "triplex"}, {"version"}, {"--version"}, {"version", "--machine-class"},
		{"report", rep}, {"report", filepath.Join(repoRoot, "report", "render", "testdata", "sweep.json")},
		{"compare", filepath.Join(repoRoot, "report", "render", "testdata", "lmdb.json"), filepath.Join(repoRoot, "report", "render", "testdata", "lmdb-2.json"), "--normalize-by", "lmdb-c", "--threshold", "15%", "--per-repeat"},
		{"validate", "-c", cfg}, {"validate", "--ci", "-c", cfg}, {"history", dir},
	}
	root := NewRootCmd(&Factory{})
	for _, c := range root.Commands() {
		runs = append(runs, []string{c.Name(), "--help"})
	}
	runs = append(runs, []string{"--help"})
	for _, args := range runs {
		code, out, errOut := execute(t, args...)
		if code != exitcode.OK && code != exitcode.Failed && code != exitcode.Inconclusive {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if out == "" {
			t.Errorf("%v printed nothing", args)
		}
	}
}

// TestHelpExamples checks that every example in --help works as written: it names a command, its
// flags parse, its argument count is accepted, and the repository files and built-in configs it
// names exist.
func TestHelpExamples(t *testing.T) {
	root := NewRootCmd(&Factory{})
	var all []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		all = append(all, c)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	n := 0
	for _, c := range all {
		for _, ex := range strings.Split(c.Example, "\n") {
			for _, args := range examples.Commands(ex) {
				n++
				checkExample(t, root, c.CommandPath(), args)
			}
		}
	}
	if n < 15 {
		t.Errorf("only %d examples found", n)
	}
}

func checkExample(t *testing.T, root *cobra.Command, from string, args []string) {
	t.Helper()
	for i := range args {
		args[i] = strings.Trim(args[i], `"'`)
	}
	cmd, rest, err := root.Find(args)
	if err != nil {
		t.Errorf("%s example %v: %v", from, args, err)
		return
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Errorf("%s example %v: %v", from, args, err)
		return
	}
	if cmd.Args != nil {
		if err := cmd.Args(cmd, cmd.Flags().Args()); err != nil {
			t.Errorf("%s example %v: %v", from, args, err)
		}
	}
	if c := cmd.Flags().Lookup("config"); c != nil && c.Changed {
		v := c.Value.String()
		if _, builtin := configs.Read(v); !builtin {
			if _, err := os.Stat(filepath.Join(repoRoot, v)); err != nil {
				t.Errorf("%s example %v: config %s is neither built in nor in the repository", from, args, v)
			}
		}
	}
	for _, a := range cmd.Flags().Args() {
		for _, dir := range []string{"configs/", "baselines/", "docs/"} {
			if strings.HasPrefix(a, dir) {
				if _, err := os.Stat(filepath.Join(repoRoot, a)); err != nil {
					t.Errorf("%s example %v: %s does not exist in the repository", from, args, a)
				}
			}
		}
	}
}

func TestVersionFlag(t *testing.T) {
	_, v, _ := execute(t, "version")
	code, flag, errOut := execute(t, "--version")
	if code != exitcode.OK || flag != v || !strings.HasPrefix(flag, "dbbench ") {
		t.Errorf("--version: exit %d, %q (stderr %q), want what version prints: %q", code, flag, errOut, v)
	}
}

// TestCompletion: scripts for bash, zsh and fish, and the completions they ask dbbench for.
func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{"bash": "complete -o default -F __start_dbbench dbbench", "zsh": "#compdef dbbench", "fish": "complete -c dbbench"} {
		code, out, errOut := execute(t, "completion", shell)
		if code != exitcode.OK || !strings.Contains(out, want) {
			t.Errorf("completion %s: exit %d, stderr %q; script lacks %q", shell, code, errOut, want)
			continue
		}
		if shell == "bash" {
			if bash, err := exec.LookPath("bash"); err == nil {
				p := writeFile(t, t.TempDir(), "dbbench.bash", out)
				if msg, err := exec.Command(bash, "-n", p).CombinedOutput(); err != nil {
					t.Errorf("bash -n rejects the completion script: %v\n%s", err, msg)
				}
			}
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "r"}, "report"},
		{[]string{"__complete", "run", "-c", "l"}, "lmdb"},
		{[]string{"__complete", "k"}, "kube"},
		{[]string{"__complete", "kube", "-c", "l"}, "lmdb"},
		{[]string{"__complete", "report", "x.json", "--format", ""}, "html"},
		{[]string{"__complete", "compare", "a.json", "b.json", "--format", ""}, "markdown"},
	} {
		_, out, _ := execute(t, tt.args...)
		if !strings.Contains("\n"+out, "\n"+tt.want+"\n") && !strings.Contains("\n"+out, "\n"+tt.want+"\t") {
			t.Errorf("%v offers %q, want %s among them", tt.args, out, tt.want)
		}
	}
}

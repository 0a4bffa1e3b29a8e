package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/internal/term/termtest"
)

// TestBuiltinConfigsNeedACheckout: a built-in config whose targets run the repository's clients
// (go run ./clients/..., node or python on a file there), run or validated from a directory without
// them, is refused before anything starts with one line saying what it needs (exit 2), never an
// empty table after "go.mod file not found"; from the repository's root it validates.
func TestBuiltinConfigsNeedACheckout(t *testing.T) {
	elsewhere := t.TempDir()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	run := func(dir string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(binary, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		termtest.Check(t, "dbbench "+strings.Join(args, " "), code, out.String(), errb.String())
		return code, out.String(), errb.String()
	}
	for _, name := range []string{"clients-sqlite", "clients-lmdb", "clients-postgres"} {
		report := filepath.Join(elsewhere, name+".json")
		for _, args := range [][]string{{"validate", "-c", name}, {"run", "-c", name, "--ci", "--out", report}} {
			code, out, errOut := run(elsewhere, args...)
			want := "dbbench: (built-in) " + name + ":"
			if code != 2 || out != "" || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 ||
				!strings.Contains(errOut, "run it from a dbbench checkout: "+name+"'s targets run ./clients/... from the repository") {
				t.Errorf("%v from elsewhere: exit %d, stdout %q, stderr %q; want exit 2 and one line %q...", args, code, out, errOut, want)
			}
		}
		if _, err := os.Lstat(report); err == nil {
			t.Errorf("%s: the refused run wrote %s", name, report)
		}
		if code, out, errOut := run(root, "validate", "-c", name); code != 0 {
			t.Errorf("validate -c %s from the repository: exit %d\n%s%s", name, code, out, errOut)
		}
	}
	// A built-in config of in-process targets runs anywhere.
	if code, out, errOut := run(elsewhere, "validate", "-c", "lmdb"); code != 0 {
		t.Errorf("validate -c lmdb from elsewhere: exit %d\n%s%s", code, out, errOut)
	}
}

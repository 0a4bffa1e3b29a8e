package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/internal/exitcode"
)

func TestHistoryCommand(t *testing.T) {
	dir := t.TempDir()
	testdata := filepath.Join(repoRoot, "report", "render", "testdata")
	for _, n := range []string{"lmdb.json", "lmdb-2.json"} {
		b, err := os.ReadFile(filepath.Join(testdata, n))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, n, string(b))
	}
	empty := t.TempDir()
	corrupt := t.TempDir()
	writeFile(t, corrupt, "bad.json", `{"schema_version": 1, "run": {}, "results": [}`)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"text", []string{dir}, exitcode.OK, "config lmdb: 2 reports", ""},
		{"html", []string{dir, "--format", "html"}, exitcode.OK, `<figure class="chart" id="history-lmdb-lookup-100000-p50"`, ""},
		{"figures", []string{dir, "--figures", "ns_per_row"}, exitcode.OK, "lmdb-go-batched  insert      ns_per_row", ""},
		{"missing dir", []string{filepath.Join(dir, "nope")}, exitcode.Usage, "", "dbbench: cannot read directory"},
		{"no reports", []string{empty}, exitcode.Usage, "", "holds no dbbench report"},
		{"corrupt report", []string{corrupt}, exitcode.Usage, "", "bad.json is not a dbbench report"},
		{"bad format", []string{dir, "--format", "pdf"}, exitcode.Usage, "", `unknown format "pdf" (formats: text, html)`},
		{"bad figure", []string{dir, "--figures", "speed"}, exitcode.Usage, "", `unknown figure "speed"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := execute(t, append([]string{"history"}, tt.args...)...)
			if code != tt.code || !strings.Contains(out, tt.stdout) || !strings.Contains(errOut, tt.stderr) {
				t.Errorf("exit %d (want %d)\nstdout:\n%s\nstderr: %s\nwant stdout with %q, stderr with %q", code, tt.code, out, errOut, tt.stdout, tt.stderr)
			}
			if tt.code != exitcode.OK && (out != "" || strings.Count(errOut, "\n") != 1) {
				t.Errorf("an error printed more than one line: stdout %q stderr %q", out, errOut)
			}
		})
	}
}

package commands

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dbbench/dbbench/internal/exitcode"
)

// TestReportCSVAndMarkdown: `dbbench report --format csv|markdown` writes what the renderers'
// golden files hold, for a report of several runs, one of an open loop and one with phases.
func TestReportCSVAndMarkdown(t *testing.T) {
	testdata := filepath.Join("..", "report", "render", "testdata")
	for _, tt := range []struct{ report, format, golden string }{
		{"runs.json", "csv", "runs.csv.golden"},
		{"load.json", "csv", "load.csv.golden"},
		{"runs.json", "markdown", "runs.md.golden"},
		{"load.json", "markdown", "load.md.golden"},
		{"profile.json", "markdown", "profile.md.golden"},
	} {
		want, err := os.ReadFile(filepath.Join(testdata, tt.golden))
		if err != nil {
			t.Fatal(err)
		}
		code, out, errOut := execute(t, "report", filepath.Join(testdata, tt.report), "--format", tt.format)
		if code != exitcode.OK || out != string(want) || errOut != "" {
			t.Errorf("report %s --format %s: exit %d, stderr %q, stdout:\n%s\nwant %s", tt.report, tt.format, code, errOut, out, tt.golden)
		}
	}
}

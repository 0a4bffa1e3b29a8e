package render

import (
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/report"
)

// TestInconclusiveRemedy: an INCONCLUSIVE verdict line names how busy the machine was when the run
// ended and what would decide, in the one line scripts read.
func TestInconclusiveRemedy(t *testing.T) {
	at := time.Date(2026, 12, 7, 1, 0, 0, 0, time.UTC)
	load := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		name  string
		load  *float64
		took  time.Duration
		want  string
		avoid string
	}{
		{"busy", load(3.9), 40 * time.Second, "; load average 3.9 on 2 cores: a busy machine, so rerun on a quieter one, or give it more time (--budget 2m)", ""},
		{"idle", load(0.4), 90 * time.Second, "; load average 0.4 on 2 cores: give it more time (--budget 3m)", "busy"},
		{"unknown load", nil, 10 * time.Second, "; give it more time (--budget 20s)", "load average"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &report.Report{Verdict: report.VerdictInconclusive, Environment: report.Environment{Cores: 2},
				Run:        report.Run{StartedAt: at, FinishedAt: at.Add(tt.took), LoadAverage: tt.load},
				Results:    []report.Result{{Target: "a", Workload: "scan", Status: report.StatusOK}},
				Assertions: []report.Assertion{{Expr: "scan.p50[a] <= 1ms", Verdict: report.VerdictInconclusive}}}
			var b strings.Builder
			VerdictLine(&b, r, Style{Width: 1000})
			line := strings.TrimSpace(b.String())
			if !strings.HasPrefix(line, "verdict: INCONCLUSIVE: ") || !strings.HasSuffix(line, tt.want) || strings.Count(line, "\n") > 0 {
				t.Errorf("%q, want one line ending %q", line, tt.want)
			}
			if tt.avoid != "" && strings.Contains(line, tt.avoid) {
				t.Errorf("%q says %q", line, tt.avoid)
			}
		})
	}
}

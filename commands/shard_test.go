package commands

import (
	"strings"
	"testing"

	"github.com/dbbench/dbbench/internal/exitcode"
)

// TestShardFlagsRefused: every mistake in naming a shard is one line and exit 2, before anything
// runs. A lie that would pass: accepting an index out of range, or JOB_COMPLETION_INDEX alone.
func TestShardFlagsRefused(t *testing.T) {
	cases := []struct {
		name string
		env  string // JOB_COMPLETION_INDEX; "-": unset
		args []string
		want string
	}{
		{"index past the total", "-", []string{"--shard", "4/4"}, "0 <= I < N"},
		{"negative index", "-", []string{"--shard", "-1/4"}, "0 <= I < N"},
		{"not I/N", "-", []string{"--shard", "2"}, "write I/N"},
		{"zero total", "-", []string{"--shard", "0/0"}, "0 <= I < N"},
		{"totals disagree", "-", []string{"--shard", "1/4", "--shards", "3"}, "disagree"},
		{"index from the environment without a total", "2", nil, "JOB_COMPLETION_INDEX=2 is set but the shard total is not"},
		{"environment index past the total", "4", []string{"--shards", "4"}, "want an index from 0 to 3"},
		{"environment index not a number", "x", []string{"--shards", "4"}, "want an index from 0 to 3"},
		{"a total without an index", "-", []string{"--shards", "4"}, "needs this shard's index"},
		{"start without a shard", "-", []string{"--start-at", "2026-12-02T14:00:00Z"}, "--start-at starts shards together"},
		{"start not RFC 3339", "-", []string{"--shard", "0/2", "--start-at", "14:00"}, "want RFC 3339"},
		{"several runs", "-", []string{"--shard", "0/2", "--runs", "3"}, "a shard is one run"},
		{"process isolation", "-", []string{"--shard", "0/2", "--isolation", "process"}, "isolation: process is not supported"},
		{"a server given by dsn without a schema of the user's", "-", []string{"-c", "testdata/dsn.yaml", "--shard", "0/2"}, "give schema"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "-" {
				t.Setenv(jobIndexEnv, c.env)
			}
			args := append([]string{"run", "-q", "--out", t.TempDir() + "/r.json"}, c.args...)
			code, _, stderr := execute(t, args...)
			if code != exitcode.Usage || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line with %q", code, stderr, c.want)
			}
		})
	}
}

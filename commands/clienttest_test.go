package commands

import (
	"os"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters/exec/exectest"
)

// TestMain lets the test binary serve as a fake protocol client for client-test, and as dbbench for
// run's worker processes.
func TestMain(m *testing.M) {
	exectest.Main()
	runWorkerMain()
	os.Exit(m.Run())
}

func TestClientTestCommand(t *testing.T) {
	fake := exectest.Command()
	tests := []struct {
		name      string
		behaviour string
		args      []string
		code      int
		out, err  string
	}{
		{"conforming", exectest.OK, append([]string{"client-test", "--size", "100", "--client", "flavour=x", "--"}, fake...), 0, "18 passed, 0 failed\n", ""},
		{"answers from the formula", exectest.Formula, append([]string{"client-test", "--size", "100", "--"}, fake...), 1, "FAIL loaded store verified by dbbench: client commands.test: challenge:", ""},
		{"reports 1 ns", exectest.OneNs, append([]string{"client-test", "--size", "100", "--"}, fake...), 1, "is implausibly short", ""},
		{"protocol 1 only", exectest.V1, append([]string{"client-test", "--size", "100", "--"}, fake...), 1, "FAIL hello: the client does not speak protocol 2", ""},
		{"wrong checksum", exectest.Checksum, append([]string{"client-test", "--size", "100", "--"}, fake...), 1, "FAIL scan all: scan: 100 rows, checksum 0000000000003039", ""},
		{"no command", exectest.OK, []string{"client-test"}, 2, "", "dbbench: give the client's command after --"},
		{"no dash", exectest.OK, []string{"client-test", "node"}, 2, "", "dbbench: give the client's command after --"},
		{"bad client option", exectest.OK, []string{"client-test", "--client", "flavour", "--", "x"}, 2, "", `dbbench: --client "flavour": want KEY=VALUE`},
		{"bad size", exectest.OK, []string{"client-test", "--size", "0", "--", "x"}, 2, "", "dbbench: --size must be at least 1"},
		{"cannot start", exectest.OK, []string{"client-test", "--", "no-such-dbbench-client"}, 3, "", "dbbench: the client could not be started: cannot start no-such-dbbench-client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(exectest.FakeEnv, tt.behaviour)
			code, out, errOut := execute(t, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.out) || !strings.Contains(errOut, tt.err) {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
		})
	}
}

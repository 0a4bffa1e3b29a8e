package commands

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbbench/dbbench/internal/exitcode"
)

// numberTypes are the pflag types of flags whose value is a number or a duration.
var numberTypes = []string{"duration", "float64", "float32", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64"}

// TestFlagValuesNameTheirForm: a duration or number flag of any command given a value of the wrong
// form is refused in one line that names the form it wants (exit 2), never with the parser's own
// words (strconv, time.ParseDuration).
func TestFlagValuesNameTheirForm(t *testing.T) {
	type flagCase struct {
		args []string
		want string
	}
	var cases []flagCase
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if !slices.Contains(numberTypes, fl.Value.Type()) {
				return
			}
			bad := "500/s" // a rate as a person might write it
			if fl.Value.Type() == "duration" {
				bad = "10" // pgbench's -T 10
			}
			path := strings.Fields(c.CommandPath())[1:]
			cases = append(cases, flagCase{append(path, "--"+fl.Name, bad), "dbbench: --" + fl.Name + " " + bad + ": want "})
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRootCmd(&Factory{}))
	if len(cases) < 10 {
		t.Fatalf("found %d duration and number flags, want every one (run, compare, kube, client-test have them)", len(cases))
	}
	cases = append(cases,
		flagCase{[]string{"run", "--duration", "10"}, "dbbench: --duration 10: want a duration such as 10s; pgbench's -T 10 is --duration 10s\n"},
		flagCase{[]string{"run", "--rate", "500/s"}, "dbbench: --rate 500/s: want a number of operations per second such as 500\n"},
		flagCase{[]string{"run", "--runs", "three"}, "dbbench: --runs three: want a number of runs such as 5\n"},
		flagCase{[]string{"run", "--rate="}, "dbbench: --rate \"\": want a number of operations per second such as 500\n"},
	)
	for _, tt := range cases {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := execute(t, tt.args...)
			ok := strings.HasPrefix(errOut, tt.want) && strings.Count(errOut, "\n") == 1
			if strings.HasSuffix(tt.want, "\n") {
				ok = errOut == tt.want
			}
			if code != exitcode.Usage || out != "" || !ok || strings.Contains(errOut, "strconv") || strings.Contains(errOut, "time:") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line %q", code, out, errOut, tt.want)
			}
		})
	}
}

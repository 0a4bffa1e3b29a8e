package engine

import (
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters/exec/exectest"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
)

// TestLyingClients: a client in another process that lies fails the run (exit 3) with one line
// naming what was wrong, whatever its lie; one that holds the data it was given in memory passes.
// The run is salted, as dbbench run's always are: the formula over the seed does not predict it.
func TestLyingClients(t *testing.T) {
	for _, tt := range []struct{ behaviour, want string }{
		{exectest.Formula, "checksum"},
		{exectest.OneNs, "implausibly short"},
		{exectest.Zero, "is 0: no work takes no time"},
		{exectest.ClaimInserts, "insert: dbbench cannot read back the fresh store the client kept"},
		{exectest.NoChallenge, "challenge: looking up the 16 challenge persons by email gave 0 rows"},
		{exectest.Short, "rows"},
	} {
		t.Run(tt.behaviour, func(t *testing.T) {
			p := execPlan(t, tt.behaviour)
			p.Salt = 0x5eed5a17
			rep, err := run(t, p)
			msg := failure(rep, err)
			if msg == "" {
				t.Fatalf("the lying client passed: verdict %s", rep.Verdict)
			}
			if !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("failure %q, want one line with %q", msg, tt.want)
			}
			if err != nil && exitcode.Of(err) != exitcode.Infra {
				t.Errorf("exit %d, want %d: %v", exitcode.Of(err), exitcode.Infra, err)
			}
		})
	}
}

// failure is why a run failed: its error, or the first failed result's; "" when it passed.
func failure(rep *report.Report, err error) string {
	if err != nil {
		return err.Error()
	}
	for _, r := range rep.Results {
		if r.Status != "ok" {
			return r.Error
		}
	}
	if rep.Verdict != "pass" {
		return "verdict " + string(rep.Verdict)
	}
	return ""
}

// TestMemoryClientPasses: a client that holds the salted dataset in memory (the fake, a store like
// the memory adapter) passes, verified by the challenge, and the report says so.
func TestMemoryClientPasses(t *testing.T) {
	p := execPlan(t, exectest.OK)
	p.Salt = 0x5eed5a17
	rep, err := run(t, p)
	if err != nil || rep.Verdict != "pass" {
		t.Fatalf("verdict %v, %v", rep.Verdict, err)
	}
	if rep.Run.Salt != "000000005eed5a17" {
		t.Errorf("report salt %q", rep.Run.Salt)
	}
	if v := rep.Targets[1].Instances[0].Info["verification"]; v != "challenge" {
		t.Errorf("verification %v, want challenge", v)
	}
}

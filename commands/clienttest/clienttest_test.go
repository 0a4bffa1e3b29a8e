package clienttest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters/exec/exectest"
	"github.com/dbbench/dbbench/internal/term/termtest"
)

func TestMain(m *testing.M) {
	exectest.Main()
	os.Exit(m.Run())
}

// fake runs the kit against the fake client with a behaviour (set through the environment, which the
// kit's client inherits).
func fake(t *testing.T, behaviour, at string) (*Result, string, error) {
	t.Helper()
	for k, v := range exectest.Env(behaviour, at) {
		t.Setenv(k, v.(string))
	}
	var out bytes.Buffer
	res, err := Run(context.Background(), Options{
		Command: exectest.Command(), Size: 200, Timeout: 20 * time.Second, TempDir: t.TempDir(), Out: &out,
	})
	termtest.Check(t, "client-test ("+behaviour+"@"+at+")", 0, out.String(), "")
	return res, out.String(), err
}

func TestConformingClientPasses(t *testing.T) {
	res, out, err := fake(t, exectest.OK, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 0 || !strings.HasSuffix(out, "18 passed, 0 failed\n") {
		t.Fatalf("%+v\n%s", res, out)
	}
	for _, check := range []string{"hello", "open", "load", "ping", "loaded store verified by dbbench", "scan all", "scan partial", "lookup", "insert", "plausible times",
		"insert again (a fresh store each time)", "concurrent", "run echo", "unknown op", "malformed request",
		"close", "hello with protocol 99", "end of input"} {
		if !strings.Contains(out, "ok   "+check+":") {
			t.Errorf("no passing line for %q:\n%s", check, out)
		}
	}
}

func TestBrokenClientsFail(t *testing.T) {
	tests := []struct {
		behaviour, at string
		failed        int
		want          []string // FAIL lines (prefixes)
	}{
		{exectest.Checksum, "", 2, []string{"FAIL scan all: scan: 200 rows, checksum 0000000000003039; want 200 rows, checksum "}},
		{exectest.Checksum, "insert", 2, []string{"FAIL insert: insert read-back: 100 rows, checksum 0000000000003039"}},
		{exectest.IgnoreEOF, "", 2, []string{"FAIL close: client clienttest.test: did not exit within 5s", "FAIL end of input: did not exit within 5s"}},
		{exectest.NoVersionOK, "", 1, []string{"FAIL hello with protocol 99: want an error reply refusing the version, got a normal reply"}},
		{exectest.Missing, "", 11, []string{"FAIL scan all: client clienttest.test: scan reply lacks checksum", "FAIL scan partial: not run"}},
		{exectest.ExitMid, "lookup", 9, []string{"FAIL lookup: client clienttest.test: exited before replying to lookup (exit status 3)", "FAIL close: not run"}},
		{exectest.ErrorReply, "concurrent", 1, []string{"FAIL concurrent: client clienttest.test: concurrent failed: the fake fails concurrent"}},
	}
	for _, tt := range tests {
		t.Run(tt.behaviour+"@"+tt.at, func(t *testing.T) {
			res, out, err := fake(t, tt.behaviour, tt.at)
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed != tt.failed {
				t.Errorf("%d failed, want %d:\n%s", res.Failed, tt.failed, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("no line %q in:\n%s", w, out)
				}
			}
		})
	}
}

func TestClientThatCannotStart(t *testing.T) {
	_, err := Run(context.Background(), Options{Command: []string{"no-such-dbbench-client"}, TempDir: t.TempDir(), Out: &bytes.Buffer{}})
	if !errors.Is(err, ErrStart) || !strings.Contains(err.Error(), "no-such-dbbench-client") {
		t.Fatalf("got %v", err)
	}
}

// TestLyingClientsFail: each client that lies fails client-test with a line naming the lie, and a
// client that speaks only protocol 1 is refused at hello.
func TestLyingClientsFail(t *testing.T) {
	tests := []struct{ behaviour, want string }{
		{exectest.Formula, "FAIL loaded store verified by dbbench: client clienttest.test: challenge: a scan of the whole store"},
		{exectest.OneNs, "is implausibly short: the round trip was"},
		{exectest.Zero, "FAIL scan all: client clienttest.test: scan reply: elapsed_ns is 0: no work takes no time"},
		{exectest.ClaimInserts, "FAIL insert: client clienttest.test: insert: dbbench cannot read back the fresh store the client kept"},
		{exectest.NoChallenge, "FAIL loaded store verified by dbbench: client clienttest.test: challenge: looking up the 16"},
		{exectest.Short, "FAIL loaded store verified by dbbench: client clienttest.test: challenge: a scan of the whole store"},
		{exectest.V1, "FAIL hello: the client does not speak protocol 2"},
	}
	for _, tt := range tests {
		t.Run(tt.behaviour, func(t *testing.T) {
			res, out, err := fake(t, tt.behaviour, "")
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed == 0 || !strings.Contains(out, tt.want) {
				t.Errorf("want a failed check %q in:\n%s", tt.want, out)
			}
		})
	}
}

// TestRecordChecks: a client serving records (capability ops) gets the record checks and passes
// them; one that answers reads from the formula, or reports 1 ns for its operations, fails them
// with a line naming the lie; a client without ops is told they are skipped.
func TestRecordChecks(t *testing.T) {
	tests := []struct{ behaviour, want string }{
		{exectest.OK, ""},
		{exectest.RecordsFormula, "FAIL record reads: pass 1: read of"},
		{exectest.RecordsOneNs, "FAIL record reads: client clienttest.test: do read replies: median ns 1ns over the last 1000 is implausibly short"},
	}
	for _, tt := range tests {
		t.Run(tt.behaviour, func(t *testing.T) {
			t.Setenv(exectest.RecordsEnv, "1")
			res, out, err := fake(t, tt.behaviour, "none")
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				for _, check := range []string{"load records", "record reads", "record updates read back", "record inserts read back", "record scans"} {
					if !strings.Contains(out, "ok   "+check+":") {
						t.Errorf("no passing line for %q:\n%s", check, out)
					}
				}
				if res.Failed != 0 {
					t.Errorf("%d failed:\n%s", res.Failed, out)
				}
				return
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("want a failed check %q in:\n%s", tt.want, out)
			}
		})
	}
	_, out, err := fake(t, exectest.OK, "")
	if err != nil || !strings.Contains(out, "skip records: the client does not list capability ops") {
		t.Errorf("a client without ops: %v\n%s", err, out)
	}
}

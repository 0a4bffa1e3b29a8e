package exec

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/adapters/exec/exectest"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// recordFake is the record check's target on the fake client serving records with a behaviour.
func recordFake(behaviour string) adaptertest.Target {
	env := exectest.Env(behaviour, "none")
	env[exectest.RecordsEnv] = "1"
	raw := map[string]any{"command": toAny(exectest.Command()), "env": env, "timeout": "10s", "startup_timeout": "10s"}
	return adaptertest.Target{Open: adaptertest.Opener(New(), raw), Size: 1000, RecordOps: ycsb.Ops(),
		LeavesTempDir: "docs/protocol.md: a client's temp_dir is removed by dbbench after the client closes"}
}

// TestRecordClients: the fake serving records from a store passes the record check through the
// protocol; one that answers from the formula without a store, or reports 1 ns or 0 for real work,
// fails it saying why.
func TestRecordClients(t *testing.T) {
	tests := []struct{ behaviour, want string }{
		{exectest.OK, ""},
		{exectest.Formula, "after update 1 of"},
		{exectest.OneNs, "implausibly short"},
		{exectest.Zero, "ns 0: no work takes no time"},
	}
	for _, tt := range tests {
		t.Run(tt.behaviour, func(t *testing.T) {
			r := adaptertest.Record(t, func(tb testing.TB) { adaptertest.CheckRecords(tb, recordFake(tt.behaviour)) })
			switch {
			case tt.want == "" && (r.Failed() || r.Skipped()):
				t.Errorf("correct record client: skipped %v, failures %q", r.Skipped(), r.Failures())
			case tt.want != "" && !slices.ContainsFunc(r.Failures(), func(f string) bool { return strings.Contains(f, tt.want) }):
				t.Errorf("record client %s: failures %q; want one containing %q", tt.behaviour, r.Failures(), tt.want)
			}
		})
	}
}

// TestRecordCapabilityFollowsTheClient: a client without ops gets a target without the record
// capabilities (the adapter claims nothing its client lacks); one with ops gets them all.
func TestRecordCapabilityFollowsTheClient(t *testing.T) {
	ds, err := dataset.Generate(10, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, records := range []bool{false, true} {
		env := exectest.Env(exectest.OK, "none")
		if records {
			env[exectest.RecordsEnv] = "1"
		}
		raw := map[string]any{"command": toAny(exectest.Command()), "env": env}
		dir := t.TempDir()
		tg, err := adaptertest.Opener(New(), raw)(context.Background(), adapters.Env{TempDir: dir, Size: 10, Seed: 1,
			DatasetFile: func() (string, error) { p := filepath.Join(dir, "persons.bin"); return p, ds.WriteFile(p) }})
		if err != nil {
			t.Fatal(err)
		}
		got := adapters.RecordOps(tg)
		if err := tg.Close(); err != nil {
			t.Fatal(err)
		}
		if want := map[bool][]ycsb.Op{false: nil, true: ycsb.Ops()}[records]; !slices.Equal(got, want) {
			t.Errorf("client with ops %v: record operations %v, want %v", records, got, want)
		}
	}
}

// TestRecordBytesAreASCII: a key or value with a byte the protocol does not carry is refused before
// it is sent.
func TestRecordBytesAreASCII(t *testing.T) {
	for _, b := range [][]byte{{'u', 0}, []byte("caf\xc3\xa9"), {0x7f}} {
		if _, err := asciiString("key", b); err == nil {
			t.Errorf("asciiString(%q): no error", b)
		}
	}
	if s, err := asciiString("key", []byte(` user'"\~`)); err != nil || s != ` user'"\~` {
		t.Errorf("printable ASCII refused: %q, %v", s, err)
	}
}

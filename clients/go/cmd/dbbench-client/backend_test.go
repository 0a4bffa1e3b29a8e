package main

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/dataset"
)

// echoAdapter has one adapter-specific workload, echo, whose operation i returns i+rows rows.
type echoAdapter struct{}

func (echoAdapter) Info() adapters.Info {
	return adapters.Info{Name: "echo", Workloads: []adapters.WorkloadSpec{{Name: "echo", Params: []adapters.OptionSpec{
		{Name: "rows", Kind: adapters.Int, Default: "1"}}}}}
}

func (echoAdapter) Open(context.Context, adapters.Options, adapters.Env) (adapters.Target, error) {
	return echoTarget{}, nil
}

type echoTarget struct{}

func (echoTarget) Load(context.Context, *dataset.Persons) error { return nil }
func (echoTarget) Info() map[string]any                         { return map[string]any{} }
func (echoTarget) Close() error                                 { return nil }

func (echoTarget) PrepareWorkload(_ context.Context, name string, p adapters.Options) (adapters.Op, error) {
	return echoOp(p.Int("rows")), nil
}

type echoOp int64

func (o echoOp) Do(_ context.Context, i int) (adapters.Tally, error) {
	if i == 99 {
		return adapters.Tally{}, errors.New("operation 99 fails")
	}
	return adapters.Tally{Rows: int64(i) + int64(o), Sum: 1}, nil
}

// TestRun: adapter-specific workloads go through the adapter's CustomRunner, each operation timed,
// and only the workloads the adapter declares (with its parameter specs) are accepted.
func TestRun(t *testing.T) {
	ctx := context.Background()
	b := &adapterBackend{adapter: echoAdapter{}, library: "echo"}
	if h := b.Hello(); !slices.Contains(h.Workloads, "echo") {
		t.Errorf("hello workloads %v, want echo among them", h.Workloads)
	}
	if _, err := b.Open(ctx, protocol.Open{TempDir: t.TempDir(), Dataset: personFile}); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	lat := make([]time.Duration, 4)
	got, err := b.Run(ctx, "echo", map[string]any{"rows": 10}, lat)
	if want := (protocol.Tally{Rows: 10 + 11 + 12 + 13, Sum: 4}); err != nil || got != want {
		t.Errorf("run echo = %+v, %v; want %+v", got, err, want)
	}
	if slices.Min(lat) < 0 || slices.Max(lat) <= 0 {
		t.Errorf("latencies %v: want each operation's time", lat)
	}
	for _, tt := range []struct {
		workload string
		params   map[string]any
		ops      int
		want     string
	}{
		{"nope", nil, 1, `unknown workload "nope"`},
		{"echo", map[string]any{"rows": "many"}, 1, `run echo: option "rows"`},
		{"echo", nil, 100, "operation 100 of 100: operation 99 fails"},
	} {
		_, err := b.Run(ctx, tt.workload, tt.params, make([]time.Duration, tt.ops))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run %s %v: %v, want an error containing %q", tt.workload, tt.params, err, tt.want)
		}
	}
}

// TestPhasesOffered: the client offers capability phases exactly for the libraries whose
// adapter's targets split their operations into phases.
func TestPhasesOffered(t *testing.T) {
	for _, name := range []string{"lmdb", "sqlite"} {
		b := libraries[name]()
		if _, err := b.Open(context.Background(), protocol.Open{TempDir: t.TempDir(), Dataset: personFile}); err != nil {
			t.Fatal(err)
		}
		_, profiles := b.t.(adapters.Profiler)
		b.Close()
		if b.OffersPhases() != profiles {
			t.Errorf("%s: the client offers phases: %v; its adapter's target is a Profiler: %v", name, b.OffersPhases(), profiles)
		}
	}
}

// profEcho is echoAdapter whose target and ops mark one phase, get, per call.
type profEcho struct{ echoAdapter }

func (profEcho) Open(context.Context, adapters.Options, adapters.Env) (adapters.Target, error) {
	return &profTarget{}, nil
}

type profTarget struct {
	echoTarget
	r *phase.Recorder
}

func (p *profTarget) Profile(r *phase.Recorder) { p.r = r }

func (p *profTarget) Scan(_ context.Context, n int) (adapters.Tally, error) {
	m := p.r.Start()
	time.Sleep(time.Millisecond)
	p.r.Lap(m, phase.Get)
	return adapters.Tally{Rows: int64(n)}, nil
}

// TestPhasesLent: a profiled request's recorder reaches the target only around its timed region,
// and its phases come back in the reply within the reported time; unasked, nothing is marked.
func TestPhasesLent(t *testing.T) {
	ctx := context.Background()
	b := &adapterBackend{adapter: profEcho{}, library: "echo", phases: true}
	if _, err := b.Open(ctx, protocol.Open{TempDir: t.TempDir(), Dataset: personFile}); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tg := b.t.(*profTarget)
	r := phase.New()
	b.Profile(r)
	_, d, err := b.Scan(ctx, 3)
	b.Profile(nil)
	if err != nil {
		t.Fatal(err)
	}
	if tg.r != nil {
		t.Error("the target keeps the recorder after the timed region")
	}
	tt := r.Totals()
	if len(tt.Phases) != 1 || tt.Phases[0].Name != "get" || time.Duration(tt.Phases[0].Ns) > d || tt.Phases[0].Ns < int64(time.Millisecond) {
		t.Errorf("phases %+v for a scan of %v", tt.Phases, d)
	}
	if _, _, err := b.Scan(ctx, 3); err != nil || r.Totals().Laps != tt.Laps {
		t.Errorf("marked outside a profiled request (%v)", err)
	}
}

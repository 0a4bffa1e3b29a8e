package adaptertest_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/dataset"
)

// sampler is a profiled target whose operation spins for a while and records it as one sampled
// phase, scaled by scale: 1 for a correct sampling, the sampling factor for one that counts every
// sample as the whole operation and scales it up too.
type sampler struct {
	rec   atomic.Pointer[phase.Recorder]
	scale time.Duration
}

func (s *sampler) Load(context.Context, *dataset.Persons) error { return nil }
func (s *sampler) Info() map[string]any                         { return nil }
func (s *sampler) Close() error                                 { return nil }
func (s *sampler) Profile(r *phase.Recorder)                    { s.rec.Store(r) }

const every = 64

// op spins for 200 µs and records it as the get phase, sampled one in every.
func (s *sampler) op(int) error {
	start := time.Now()
	for time.Since(start) < 200*time.Microsecond {
	}
	s.rec.Load().AddSampled(phase.Get, time.Since(start)*s.scale/every, every)
	return nil
}

// TestCheckPhasesSampledScale: the kit lets a correctly scaled sampled phase through and refuses one
// scaled up twice, which the slack for sampling noise must not hide.
func TestCheckPhasesSampledScale(t *testing.T) {
	for _, tt := range []struct {
		name  string
		scale time.Duration
		fails bool
	}{
		{"scaled once", 1, false},
		{"scaled twice", every, true},
		{"scaled two times over", 2, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tg := &sampler{scale: tt.scale}
			r := adaptertest.Record(t, func(tb testing.TB) { adaptertest.CheckPhases(tb, tg, 20, tg.op, "get") })
			failed := len(r.Failures()) > 0
			if failed != tt.fails {
				t.Fatalf("failures %q, want failing %v", r.Failures(), tt.fails)
			}
			if failed && !strings.Contains(r.Failures()[0], "phases sum to") {
				t.Errorf("failure %q, want the phases' sum refused", r.Failures()[0])
			}
		})
	}
}

package load

import (
	"math"
	"sort"
	"strings"
	"testing"
	"time"
)

func collect(t *testing.T, s Schedule) []time.Duration {
	t.Helper()
	it, err := s.Times()
	if err != nil {
		t.Fatal(err)
	}
	var out []time.Duration
	for {
		at, ok := it.Next()
		if !ok {
			return out
		}
		if len(out) > 0 && at < out[len(out)-1] {
			t.Fatalf("time %d (%v) before the previous %v", len(out), at, out[len(out)-1])
		}
		out = append(out, at)
	}
}

// TestConstant: evenly spaced, starting at 0, stopping at the duration or the op count.
func TestConstant(t *testing.T) {
	got := collect(t, Schedule{Rate: 1000, Duration: time.Second})
	if len(got) != 1000 {
		t.Fatalf("%d times in 1 s at 1000/s", len(got))
	}
	for k, at := range got {
		if at != time.Duration(k)*time.Millisecond {
			t.Fatalf("time %d = %v, want %v", k, at, time.Duration(k)*time.Millisecond)
		}
	}
	if got := collect(t, Schedule{Rate: 1000, Ops: 7}); len(got) != 7 || got[6] != 6*time.Millisecond {
		t.Errorf("7 ops: %v", got)
	}
	if got := collect(t, Schedule{Rate: 1000, Ops: 5000, Duration: 2 * time.Millisecond}); len(got) != 2 {
		t.Errorf("the duration bounds an op count: %v", got)
	}
}

// TestRamp: 1,000 to 10,000 ops/s over 20 s: each second holds the integral of the rate over it
// (within one operation), and the gaps shrink as the rate grows.
func TestRamp(t *testing.T) {
	s := Schedule{Stages: []Stage{{0, 1000}, {20 * time.Second, 10000}}, Duration: 20 * time.Second}
	got := collect(t, s)
	perSec := make([]int, 20)
	for _, at := range got {
		perSec[at/time.Second]++
	}
	for i, n := range perSec {
		want := 1000 + 450*float64(2*i+1)/2*1 // the mean rate over second i
		if math.Abs(float64(n)-want) > 1 {
			t.Errorf("second %d: %d ops, want %.0f", i, n, want)
		}
	}
	if r := s.RateAt(10 * time.Second); r != 5500 {
		t.Errorf("RateAt(10s) = %g", r)
	}
	if n := s.Intended(20 * time.Second); n != 110000 {
		t.Errorf("Intended(20s) = %g, want 110000", n)
	}
	// A ramp down to 0 and a hold: nothing after the rate reaches 0.
	down := collect(t, Schedule{Stages: []Stage{{0, 100}, {time.Second, 0}}, Duration: 5 * time.Second})
	if len(down) != 50 || down[len(down)-1] >= time.Second {
		t.Errorf("ramp to 0: %d ops, last at %v", len(down), down[len(down)-1])
	}
	// A pause in the middle.
	pause := collect(t, Schedule{Stages: []Stage{{0, 10}, {time.Second, 10}, {time.Second + 1, 0}, {2 * time.Second, 0}, {2*time.Second + 1, 10}},
		Duration: 3 * time.Second})
	for _, at := range pause {
		if at > time.Second+time.Microsecond && at < 2*time.Second {
			t.Errorf("an op at %v, in the pause", at)
		}
	}
}

// TestPoisson: the count over 10 s at 1,000/s within 4 standard deviations of 10,000, gaps
// exponential with mean 1 ms (KS at 0.001), and evenly spaced times fail the gap test.
func TestPoisson(t *testing.T) {
	got := collect(t, Schedule{Rate: 1000, Duration: 10 * time.Second, Arrival: Poisson, Seed: 3})
	if n := float64(len(got)); math.Abs(n-10000) > 400 {
		t.Errorf("%d arrivals in 10 s at 1000/s", len(got))
	}
	expKS := func(times []time.Duration) float64 {
		gaps := make([]float64, len(times)-1)
		for i := range gaps {
			gaps[i] = (times[i+1] - times[i]).Seconds() * 1000
		}
		sort.Float64s(gaps)
		var d float64
		for i, g := range gaps {
			f := 1 - math.Exp(-g)
			d = math.Max(d, math.Max(math.Abs(float64(i+1)/float64(len(gaps))-f), math.Abs(float64(i)/float64(len(gaps))-f)))
		}
		return d
	}
	crit := 1.95 / math.Sqrt(float64(len(got)))
	if d := expKS(got); d > crit {
		t.Errorf("gaps: KS distance %.4f from Exp(1 ms), critical %.4f", d, crit)
	}
	if d := expKS(collect(t, Schedule{Rate: 1000, Duration: 10 * time.Second})); d < crit {
		t.Errorf("constant gaps pass as exponential: %.4f", d)
	}
	a := collect(t, Schedule{Rate: 1000, Ops: 50, Arrival: Poisson, Seed: 3})
	b := collect(t, Schedule{Rate: 1000, Ops: 50, Arrival: Poisson, Seed: 4})
	if a[10] == b[10] || a[10] != got[10] {
		t.Error("Poisson times do not follow the seed")
	}
	// A Poisson ramp keeps each second's count near its integral (4 sd).
	ramp := collect(t, Schedule{Stages: []Stage{{0, 1000}, {10 * time.Second, 5000}}, Duration: 10 * time.Second, Arrival: Poisson, Seed: 9})
	perSec := make([]float64, 10)
	for _, at := range ramp {
		perSec[at/time.Second]++
	}
	for i, n := range perSec {
		want := 1000 + 200*float64(2*i+1)
		if math.Abs(n-want) > 4*math.Sqrt(want) {
			t.Errorf("Poisson ramp second %d: %.0f, want about %.0f", i, n, want)
		}
	}
}

func TestScheduleValidate(t *testing.T) {
	tests := []struct {
		s    Schedule
		want string
	}{
		{Schedule{Rate: 0, Duration: time.Second}, "rate must be a positive"},
		{Schedule{Rate: math.Inf(1), Duration: time.Second}, "rate must be a positive"},
		{Schedule{Rate: 10}, "needs a duration or an operation count"},
		{Schedule{Rate: 10, Ops: 1, Arrival: "burst"}, "constant or poisson"},
		{Schedule{Stages: []Stage{{time.Second, 10}}, Ops: 1}, "first stage must be at 0s"},
		{Schedule{Stages: []Stage{{0, 10}, {0, 20}}, Ops: 1}, "not after"},
		{Schedule{Stages: []Stage{{0, -1}}, Ops: 1}, "rate must be >= 0"},
		{Schedule{Stages: []Stage{{0, 0}, {time.Second, 0}}, Duration: time.Second}, "every stage has rate 0"},
		{Schedule{Stages: []Stage{{0, 10}, {time.Second, 0}}, Ops: 100}, "needs a duration"},
		{Schedule{Rate: 10, Duration: -1}, "must not be negative"},
	}
	for _, tt := range tests {
		err := tt.s.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.s, err, tt.want)
		}
	}
}

// TestMeanRate: the schedule's rate whatever ends the run: the rate; a ramp's mean over its
// duration, or, ended by an operation count alone, up to its last stage.
func TestMeanRate(t *testing.T) {
	ramp := []Stage{{0, 1000}, {10 * time.Second, 3000}}
	for _, tt := range []struct {
		name string
		s    Schedule
		want float64
	}{
		{"a rate and a count", Schedule{Rate: 200000, Ops: 3000}, 200000},
		{"a rate and a duration", Schedule{Rate: 500, Duration: time.Second}, 500},
		{"a ramp over its duration", Schedule{Stages: ramp, Duration: 10 * time.Second}, 2000},
		{"a ramp held past its last stage", Schedule{Stages: ramp, Duration: 20 * time.Second}, 2500},
		{"a ramp ended by a count", Schedule{Stages: ramp, Ops: 10}, 2000},
		{"one stage and a count", Schedule{Stages: []Stage{{0, 700}}, Ops: 10}, 700},
	} {
		if got := tt.s.MeanRate(); math.Abs(got-tt.want) > 1e-9*tt.want {
			t.Errorf("%s: %g, want %g", tt.name, got, tt.want)
		}
	}
}

package phase

import (
	"sync"
	"testing"
	"time"
)

func TestNilRecorderReadsNoClock(t *testing.T) {
	var r *Recorder
	m := r.Start()
	m = r.Lap(m, Send)
	m = r.LapSampled(m, Get, 64)
	r.Add(Decode, time.Second)
	r.AddSampled(Get, time.Second, 64)
	r.AddRoundTrip(time.Second)
	if !m.t.IsZero() {
		t.Fatal("a nil recorder read the clock")
	}
	if err := r.AddClient("BAD", 1); err == nil {
		t.Fatal("a bad client phase name passed on a nil recorder")
	}
}

func TestTotals(t *testing.T) {
	r := New()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range 1000 {
				r.Add(Decode, 3)
				if Sample(i, 10) {
					r.AddSampled(Get, 2, 10)
				}
			}
		})
	}
	wg.Wait()
	for _, c := range []struct {
		name string
		d    time.Duration
	}{{"encode", 5}, {"execute_2", 7}, {"encode", 1}} {
		if err := r.AddClient(c.name, c.d); err != nil {
			t.Fatal(err)
		}
	}
	r.AddRoundTrip(100)
	got := r.Totals()
	want := []Phase{
		{Name: "decode", Ns: 8 * 1000 * 3, Method: Timed},
		{Name: "get", Ns: 8 * 100 * 2 * 10, Method: Sampled, Every: 10},
		{Name: "encode", Ns: 6, Method: Client},
		{Name: "execute_2", Ns: 7, Method: Client},
	}
	if len(got.Phases) != len(want) {
		t.Fatalf("phases %+v, want %+v", got.Phases, want)
	}
	for i := range want {
		if got.Phases[i] != want[i] {
			t.Errorf("phase %d: %+v, want %+v", i, got.Phases[i], want[i])
		}
	}
	if got.RoundTripNs != 100 || got.RoundTrips != 1 {
		t.Errorf("round trips %d over %d, want 100 over 1", got.RoundTripNs, got.RoundTrips)
	}
}

func TestClientPhaseNames(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"encode", true}, {"a1_b", true}, {"", false}, {"1a", false}, {"Decode", false}, {"other", false},
		{"a-b", false}, {"a.b", false}, {"abcdefghijabcdefghijabcdefghijabc", false},
	} {
		err := New().AddClient(c.name, 1)
		if (err == nil) != c.ok {
			t.Errorf("AddClient(%q) error %v, want ok=%v", c.name, err, c.ok)
		}
	}
	if err := New().AddClient("x", -1); err == nil {
		t.Error("a negative phase time passed")
	}
}

func TestLapsCounted(t *testing.T) {
	r := New()
	m := r.Start()
	m = r.Lap(m, Send)
	r.Lap(m, Wait)
	if got := r.Totals(); got.Laps != 3 || len(got.Phases) != 2 {
		t.Fatalf("laps %d phases %d, want 3 and 2", got.Laps, len(got.Phases))
	}
	if c := ClockCost(1000); c <= 0 {
		t.Fatalf("clock cost %v", c)
	}
}

// TestLapSampled: a sampled lap counts as every occurrences, marks the phase sampled, and is a clock
// read of the profile's.
func TestLapSampled(t *testing.T) {
	r := New()
	m := r.Start()
	time.Sleep(time.Millisecond)
	r.LapSampled(m, Get, 64)
	got := r.Totals()
	if got.Laps != 2 || len(got.Phases) != 1 {
		t.Fatalf("laps %d phases %+v, want 2 and 1", got.Laps, got.Phases)
	}
	p := got.Phases[0]
	if p.Name != "get" || p.Method != Sampled || p.Every != 64 || p.Ns < 64*int64(time.Millisecond-lapCost()) {
		t.Errorf("phase %+v, want get sampled one in 64, at least 64 × (1 ms less a lap)", p)
	}
	// The lap's own cost is taken off each sample (here made an hour, to see it).
	cost := lapCost
	defer func() { lapCost = cost }()
	lapCost = func() time.Duration { return time.Hour }
	r = New()
	r.LapSampled(r.Start(), Copy, 2)
	if ns := r.Totals().Phases[0].Ns; ns > -2*int64(time.Hour-time.Second) {
		t.Errorf("a sample of a lap costing an hour: %d ns, want about -2 h", ns)
	}
}

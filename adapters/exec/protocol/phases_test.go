package protocol

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters/phase"
)

// phaseBackend is fakeBackend with phases: its scans mark a timed "get" of half their time and a
// sampled "copy" that overshoots (one in 4, scaled up), as a cheap phase's estimate may.
type phaseBackend struct {
	fakeBackend
	offers bool
	r      *phase.Recorder
	lent   int // Profile calls with a recorder
}

func (p *phaseBackend) OffersPhases() bool { return p.offers }
func (p *phaseBackend) Profile(r *phase.Recorder) {
	if r != nil {
		p.lent++
	}
	p.r = r
}

func (p *phaseBackend) Scan(ctx context.Context, rows int) (Tally, time.Duration, error) {
	t, d, err := p.fakeBackend.Scan(ctx, rows)
	p.r.Add(phase.Get, d/2)
	p.r.AddSampled(phase.Copy, d/2, 4)
	return t, d, err
}

// serveLines runs a session of request lines and returns the reply lines.
func serveLines(t *testing.T, b Backend, lines ...string) []string {
	t.Helper()
	var out strings.Builder
	if err := Serve(context.Background(), strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, b); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

// TestServePhases: a backend offering phases is listed with capability phases, is lent a recorder
// only for timed requests once open asked for profile, and its totals come back as phases_ns in
// order, a sampled estimate cut back to the reply's own time; unasked there are none, and a
// backend without phases refuses profile.
func TestServePhases(t *testing.T) {
	open := fmt.Sprintf(`{"id":2,"op":"open","options":{},"temp_dir":"/tmp","dataset":%q,"profile":%%v}`, personFile)
	for _, tc := range []struct {
		offers, profile bool
		caps, phases    string
		lent            int
	}{
		{true, true, `"phases"`, `"phases_ns":{"get":50000,"copy":50000}`, 1},
		{true, false, `"phases"`, "", 0},
		{false, true, "", "", 0},
	} {
		b := &phaseBackend{offers: tc.offers}
		got := serveLines(t, b, `{"id":1,"op":"hello","protocol":2}`, fmt.Sprintf(open, tc.profile), `{"id":3,"op":"load"}`,
			`{"id":4,"op":"scan","rows":100}`, `{"id":5,"op":"ping"}`)
		var h HelloReply
		if err := json.Unmarshal([]byte(got[0]), &h); err != nil {
			t.Fatal(err)
		}
		if offered := strings.Contains(fmt.Sprint(h.Capabilities), "phases"); offered != (tc.caps != "") {
			t.Errorf("offers %v: capabilities %v", tc.offers, h.Capabilities)
		}
		if !tc.offers && tc.profile {
			if !strings.Contains(got[1], `"error":"open: profile asks for phases, which this client does not offer`) {
				t.Errorf("profile to a backend without phases: %s", got[1])
			}
			continue
		}
		if has := strings.Contains(got[3], "phases_ns"); has != (tc.phases != "") || tc.phases != "" && !strings.Contains(got[3], tc.phases) {
			t.Errorf("offers %v, profile %v: scan reply %s, want %s", tc.offers, tc.profile, got[3], tc.phases)
		}
		if strings.Contains(got[2], "phases_ns") || strings.Contains(got[4], "phases_ns") || b.lent != tc.lent {
			t.Errorf("phases outside a timed request (%d lent): %s %s", b.lent, got[2], got[4])
		}
		var r TimedReply
		if err := json.Unmarshal([]byte(got[3]), &r); err != nil || r.PhasesNs.Sum() > r.ElapsedNs {
			t.Errorf("scan reply %s: %v", got[3], err)
		}
	}
}

// TestPhasesJSON: phases_ns keeps its order both ways; a name twice or a fraction is an error.
func TestPhasesJSON(t *testing.T) {
	var p Phases
	if err := json.Unmarshal([]byte(`{"txn":3,"get":1,"decode":2}`), &p); err != nil || fmt.Sprint(p) != "[{txn 3} {get 1} {decode 2}]" {
		t.Errorf("decoded %v, %v", p, err)
	}
	if b, err := json.Marshal(p); err != nil || string(b) != `{"txn":3,"get":1,"decode":2}` {
		t.Errorf("encoded %s, %v", b, err)
	}
	for _, bad := range []string{`{"get":1,"get":2}`, `{"get":1.5}`, `[1]`, `{"get":"1"}`} {
		if err := json.Unmarshal([]byte(bad), &p); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/dbbench/dbbench/adapters/phase"
)

// PhaseNs is one phase of a client's timed region: its name and its time in ns.
type PhaseNs struct {
	Name string
	Ns   int64
}

// Phases is a reply's phases_ns (capability phases, docs/protocol.md): a JSON object of name to
// ns whose members keep the order the client wrote them in, the order its phases happen.
type Phases []PhaseNs

// MarshalJSON writes the phases as one object, in order.
func (p Phases) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, ph := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(ph.Name)
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(ph.Ns, 10))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object of integer ns, in order; a name twice is an error.
func (p *Phases) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return errors.New("phases_ns is not an object")
	}
	out := Phases{}
	seen := map[string]bool{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return fmt.Errorf("phases_ns: %w", err)
		}
		name := t.(string) // an object's keys are strings
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return fmt.Errorf("phases_ns: %w", err)
		}
		ns, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return fmt.Errorf("phases_ns: phase %q: %s is not a whole number of ns", name, raw)
		}
		if seen[name] {
			return fmt.Errorf("phases_ns: phase %q twice", name)
		}
		seen[name] = true
		out = append(out, PhaseNs{name, ns})
	}
	*p = out
	return nil
}

// Sum is the phases' total ns.
func (p Phases) Sum() int64 {
	var s int64
	for _, ph := range p {
		s += ph.Ns
	}
	return s
}

// PhaseBackend is a Backend that can split its timed regions into phases (protocol 2, capability
// phases): Serve offers them when OffersPhases says so and, once open asked for them, hands it a
// fresh recorder before each timed request (Profile) and takes it back after (Profile(nil)). The
// backend gives the recorder to what it measures only around its timed regions, so that the
// phases fall inside the time it reports, and Serve puts their totals in the reply's phases_ns.
type PhaseBackend interface {
	Backend
	// OffersPhases says whether the backend's timed regions mark phases (asked at hello, before
	// open: it may depend on the library, not on the store open makes).
	OffersPhases() bool
	Profile(r *phase.Recorder)
}

func offersPhases(b Backend, version int) bool {
	pb, ok := b.(PhaseBackend)
	return ok && version >= 2 && pb.OffersPhases()
}

// profiled runs one timed request with a recorder lent to the backend and puts what it recorded
// in the reply's phases_ns.
func (s *server) profiled(work func() (any, error)) (any, error) {
	pb := s.b.(PhaseBackend) // open refused profile otherwise
	r := phase.New()
	pb.Profile(r)
	reply, err := work()
	pb.Profile(nil)
	if err != nil {
		return reply, err
	}
	tt := r.Totals()
	switch x := reply.(type) {
	case TimedReply:
		x.PhasesNs = fit(tt, x.ElapsedNs)
		return x, nil
	case KeptReply:
		x.PhasesNs = fit(tt, x.ElapsedNs)
		return x, nil
	case LatenciesReply:
		var own int64
		for _, ns := range x.LatenciesNs {
			own += ns
		}
		x.PhasesNs = fit(tt, own)
		return x, nil
	case ConcurrentReply:
		var own int64
		for _, rd := range x.Readers {
			own += rd.ElapsedNs
		}
		x.PhasesNs = fit(tt, own)
		return x, nil
	case DoReply:
		x.PhasesNs = fit(tt, x.Ns)
		return x, nil
	}
	return reply, nil
}

// fit turns a recorder's totals into phases_ns for a reply whose own time is own ns. A sampled
// phase is an estimate (one occurrence in Every timed, scaled up) and may overshoot: where the
// phases would sum to more than the reply's time, the sampled ones are cut back first, so that the
// client never claims more time than it reports. Timed phases are left as measured.
func fit(tt phase.Totals, own int64) Phases {
	out := Phases{}
	var sum int64
	for _, p := range tt.Phases {
		out = append(out, PhaseNs{p.Name, p.Ns})
		sum += p.Ns
	}
	for i := len(out) - 1; i >= 0 && sum > own; i-- {
		if tt.Phases[i].Method != phase.Sampled {
			continue
		}
		cut := min(sum-own, out[i].Ns)
		out[i].Ns -= cut
		sum -= cut
	}
	return out
}

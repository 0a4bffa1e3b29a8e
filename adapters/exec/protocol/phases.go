package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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
	d.UseNumber()
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
		var n json.Number
		if err := d.Decode(&n); err != nil {
			return fmt.Errorf("phases_ns: phase %q: not a number", name)
		}
		ns, err := n.Int64()
		if err != nil {
			return fmt.Errorf("phases_ns: phase %q: %s is not a whole number of ns", name, n)
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

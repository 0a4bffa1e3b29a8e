package clienttest

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"

	"github.com/dbbench/dbbench/adapters/exec"
	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/dataset"
)

// The record checks (capability ops): YCSB's records through load_records and do. The protocol
// describes no record store dbbench could open, so what the client wrote is read back through its
// own reads and scans; the record set's seed is random and never sent (the file is all the client
// gets), so a client answering from dataset.YCSB's formula reads wrong values, and one that stores
// no write reads the old ones back.
const (
	checkRecords = 1000 // enough reads of a kind for the protocol's time check of do (every 1,000)
	checkUpdates = 3    // versions written to each sampled record
)

// recordModel is what the client's records must be: every key's fields, kept up to date.
type recordModel struct {
	c    *exec.Client
	s    *clientSession
	y    dataset.YCSB
	recs map[string][]string
}

// records runs the record checks when the client lists ops, and says it skips them otherwise.
func (s *clientSession) records(dir string) {
	if !s.c.Has(protocol.CapOps) {
		s.skip("records", "the client does not list capability ops (YCSB's records)")
		return
	}
	y, err := dataset.NewYCSB(int64(dataset.NewSalt()>>1), 0, 0, false)
	if err != nil {
		s.fail("load records", err)
		return
	}
	m := &recordModel{c: s.c, s: s, y: y, recs: map[string][]string{}}
	if !s.check(s.c, "load records", func() (string, error) { return m.load(filepath.Join(dir, "records.bin")) }) {
		return
	}
	s.check(s.c, "record reads", m.reads)
	s.check(s.c, "record updates read back", m.updates)
	s.check(s.c, "record inserts read back", m.inserts)
	s.check(s.c, "record scans", m.scans)
}

func (m *recordModel) load(path string) (string, error) {
	err := protocol.WriteRecordFile(path, checkRecords, m.y.FieldCount, func(i int64) ([]byte, [][]byte) {
		return m.y.Key(i), m.y.Fields(i)
	})
	if err != nil {
		return "", err
	}
	if err := m.c.LoadRecords(m.s.ctx, path, checkRecords, m.y.FieldCount, m.y.FieldLength); err != nil {
		return "", err
	}
	for i := range int64(checkRecords) {
		m.recs[string(m.y.Key(i))] = texts(m.y.Fields(i))
	}
	return fmt.Sprintf("%d records of %d fields of %d bytes, from a record file of a seed the client is not told", checkRecords, m.y.FieldCount, m.y.FieldLength), nil
}

func texts(fields [][]byte) []string {
	out := make([]string, len(fields))
	for f, v := range fields {
		out[f] = string(v)
	}
	return out
}

// expect reads key and compares it with the model.
func (m *recordModel) expect(key, what string) error {
	r, err := m.c.Do(m.s.ctx, &protocol.DoRequest{Kind: protocol.KindRead, Key: key})
	if err != nil {
		return err
	}
	want, exists := m.recs[key]
	found := r.Found != nil && *r.Found
	switch {
	case found != exists:
		return fmt.Errorf("%s: read of %q found %v, want %v", what, key, found, exists)
	case found && !slices.Equal(r.Fields, want):
		return fmt.Errorf("%s: read of %q returned other fields than the record holds", what, key)
	}
	return nil
}

// reads reads every record (twice, so that the time check of do judges at least one window) and
// keys no record has.
func (m *recordModel) reads() (string, error) {
	for pass := range 2 {
		for i := range int64(checkRecords) {
			if err := m.expect(string(m.y.Key(i)), fmt.Sprintf("pass %d", pass+1)); err != nil {
				return "", err
			}
		}
	}
	k := string(m.y.Key(0))
	for _, key := range []string{"user", k[:len(k)-1], k + "x", `user'"\5`} {
		if err := m.expect(key, "a missing key"); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%d reads, each record's fields as loaded; missing keys not found", 2*checkRecords), nil
}

// updates writes versions of sampled records' fields and reads each back; an update of a missing
// key must fail.
func (m *recordModel) updates() (string, error) {
	n := 0
	for i := int64(0); i < checkRecords; i += checkRecords / 20 {
		key := string(m.y.Key(i))
		for v := int64(1); v <= checkUpdates; v++ {
			f, value := m.y.Update(i, v)
			val := string(value)
			if _, err := m.c.Do(m.s.ctx, &protocol.DoRequest{Kind: protocol.KindUpdate, Key: key, Field: &f, Value: &val}); err != nil {
				return "", err
			}
			m.recs[key][f] = val
			if err := m.expect(key, fmt.Sprintf("after update %d of %s", v, dataset.FieldName(f))); err != nil {
				return "", err
			}
			n++
		}
	}
	zero, val := 0, "x"
	_, err := m.c.Do(m.s.ctx, &protocol.DoRequest{Kind: protocol.KindUpdate, Key: "nouser", Field: &zero, Value: &val})
	if !errors.As(err, new(*exec.ReplyError)) {
		return "", fmt.Errorf("an update of a missing key: want an error reply, got %v", gotReply(err))
	}
	return fmt.Sprintf("%d updates, each read back; an update of a missing key refused", n), nil
}

// inserts adds records and reads them back; a duplicate must fail.
func (m *recordModel) inserts() (string, error) {
	for i := int64(checkRecords); i < checkRecords+10; i++ {
		key, fields := string(m.y.Key(i)), texts(m.y.Fields(i))
		if _, err := m.c.Do(m.s.ctx, &protocol.DoRequest{Kind: protocol.KindInsert, Key: key, Fields: fields}); err != nil {
			return "", err
		}
		m.recs[key] = fields
		if err := m.expect(key, "an inserted record"); err != nil {
			return "", err
		}
	}
	_, err := m.c.Do(m.s.ctx, &protocol.DoRequest{Kind: protocol.KindInsert, Key: string(m.y.Key(0)), Fields: texts(m.y.Fields(5))})
	if !errors.As(err, new(*exec.ReplyError)) {
		return "", fmt.Errorf("an insert of an existing key: want an error reply, got %v", gotReply(err))
	}
	if err := m.expect(string(m.y.Key(0)), "after an insert of its key again"); err != nil {
		return "", err
	}
	return "10 inserts, each read back; a duplicate key refused and the record unchanged", nil
}

// scans scans from several keys for several lengths, each against the model's range.
func (m *recordModel) scans() (string, error) {
	keys := slices.Sorted(maps.Keys(m.recs))
	n := 0
	for _, start := range []string{"", "user", keys[0], keys[len(keys)/3], keys[len(keys)/2] + "!", keys[len(keys)-1], "zzzz"} {
		for _, count := range []int{1, 10, 100, len(keys) + 1} {
			r, err := m.c.Do(m.s.ctx, &protocol.DoRequest{Kind: protocol.KindScan, Key: start, Count: &count})
			if err != nil {
				return "", err
			}
			i := sort.SearchStrings(keys, start)
			var rows int64
			var sum uint64
			for _, k := range keys[i:min(i+count, len(keys))] {
				rows++
				sum += dataset.RecordSum(k, m.recs[k])
			}
			if r.Rows == nil || *r.Rows != rows || r.Checksum != protocol.Checksum(sum) {
				return "", fmt.Errorf("scan of %d from %q: rows %v, checksum %s; want %d, %s (the records from that key in key byte order, as they are now)",
					count, start, deref(r.Rows), r.Checksum, rows, protocol.Checksum(sum))
			}
			n++
		}
	}
	return fmt.Sprintf("%d scans, each the records of its range in key byte order, updates and inserts included", n), nil
}

func deref(p *int64) any {
	if p == nil {
		return "none"
	}
	return *p
}

package exec

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/dataset"
)

// recordTarget is a target whose client listed capability ops: it serves YCSB's records through
// load_records and do (docs/protocol.md). Open returns it only for such a client, so that
// adapters.RecordOps of a target never claims what its client lacks. Each operation is one request
// and one reply under the target's mutex: one client process serves one operation at a time,
// whatever in_flight it says.
type recordTarget struct {
	*target
	tempDir string
	files   int // record files written, for their names
}

// The record capabilities of a client with ops: removing a method fails the build.
var (
	_ adapters.RecordStore = (*recordTarget)(nil)
	_ adapters.RecordTimer = (*recordTarget)(nil)
)

// LoadRecords writes the records to a record file in the target's temp_dir and has the client
// store them; then, if the persons' load has not done it, measures the protocol's own round trip.
func (t *recordTarget) LoadRecords(ctx context.Context, y dataset.YCSB, n int64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n < 0 {
		return fmt.Errorf("exec: %d records to load", n)
	}
	t.files++
	path := filepath.Join(t.tempDir, fmt.Sprintf("records-%d.bin", t.files))
	err := protocol.WriteRecordFile(path, n, y.FieldCount, func(i int64) ([]byte, [][]byte) {
		return y.Key(i), y.Fields(i)
	})
	if err != nil {
		return fmt.Errorf("exec: write the record file: %w", err)
	}
	if err := t.c.LoadRecords(ctx, path, n, y.FieldCount, y.FieldLength); err != nil {
		return err
	}
	if len(t.c.RoundTrips[protocol.OpPing]) == 0 {
		return t.measurePings(ctx)
	}
	return nil
}

// TimesRecords: every do reply carries the client's own time of the operation.
func (t *recordTarget) TimesRecords() bool { return true }

func (t *recordTarget) ReadRecord(ctx context.Context, key []byte, dst [][]byte) ([][]byte, bool, error) {
	k, err := asciiString("key", key)
	if err != nil {
		return dst, false, err
	}
	t.mu.Lock()
	r, err := t.c.Do(ctx, &protocol.DoRequest{Kind: protocol.KindRead, Key: k})
	t.mu.Unlock()
	if err != nil {
		return dst, false, err
	}
	adapters.SetRecordTime(ctx, time.Duration(r.Ns))
	if r.Found == nil || !*r.Found {
		return dst, false, nil
	}
	if cap(dst) < len(r.Fields) {
		dst = append(dst[:cap(dst)], make([][]byte, len(r.Fields)-cap(dst))...)
	}
	dst = dst[:len(r.Fields)]
	for f, v := range r.Fields {
		dst[f] = append(dst[f][:0], v...)
	}
	return dst, true, nil
}

func (t *recordTarget) UpdateRecord(ctx context.Context, key []byte, field int, value []byte) error {
	k, err := asciiString("key", key)
	if err != nil {
		return err
	}
	v, err := asciiString("value", value)
	if err != nil {
		return err
	}
	return t.do(ctx, &protocol.DoRequest{Kind: protocol.KindUpdate, Key: k, Field: &field, Value: &v})
}

func (t *recordTarget) InsertRecord(ctx context.Context, key []byte, fields [][]byte) error {
	k, err := asciiString("key", key)
	if err != nil {
		return err
	}
	fs := make([]string, len(fields))
	for i, f := range fields {
		if fs[i], err = asciiString("field", f); err != nil {
			return err
		}
	}
	return t.do(ctx, &protocol.DoRequest{Kind: protocol.KindInsert, Key: k, Fields: fs})
}

func (t *recordTarget) ScanRecords(ctx context.Context, start []byte, n int) (adapters.Tally, error) {
	k, err := asciiString("key", start)
	if err != nil {
		return adapters.Tally{}, err
	}
	t.mu.Lock()
	r, err := t.c.Do(ctx, &protocol.DoRequest{Kind: protocol.KindScan, Key: k, Count: &n})
	t.mu.Unlock()
	if err != nil {
		return adapters.Tally{}, err
	}
	adapters.SetRecordTime(ctx, time.Duration(r.Ns))
	if r.Rows == nil {
		return adapters.Tally{}, t.c.fail("do scan reply lacks rows")
	}
	return t.c.tally(protocol.OpDo+" scan", *r.Rows, r.Checksum)
}

// do sends a write and gives its time to the caller that asked for it.
func (t *recordTarget) do(ctx context.Context, req *protocol.DoRequest) error {
	t.mu.Lock()
	r, err := t.c.Do(ctx, req)
	t.mu.Unlock()
	if err == nil {
		adapters.SetRecordTime(ctx, time.Duration(r.Ns))
	}
	return err
}

// asciiString is b as the protocol carries keys and values: a string of printable ASCII
// (docs/protocol.md, "Keys and values are JSON strings"). Another byte is refused before sending.
func asciiString(what string, b []byte) (string, error) {
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			return "", fmt.Errorf("exec: a record %s with byte 0x%02x at %d: the protocol carries printable ASCII only", what, c, i)
		}
	}
	return string(b), nil
}

// LoadRecords asks the client to store the records of a record file.
func (c *Client) LoadRecords(ctx context.Context, path string, n int64, fieldCount, fieldLength int) error {
	if !c.Has(protocol.CapOps) {
		return c.fail("load_records: the client did not list capability ops")
	}
	var r protocol.LoadRecordsReply
	req := &protocol.LoadRecordsRequest{Header: protocol.Header{Op: protocol.OpLoadRecords},
		File: path, Count: n, FieldCount: fieldCount, FieldLength: fieldLength}
	if _, err := c.call(ctx, req, &r); err != nil {
		return err
	}
	if r.Rows != n {
		return c.fail("load_records stored %d records, the file has %d", r.Rows, n)
	}
	return nil
}

// Do sends one do request and checks its time: positive, within the round trip, and (doTimes)
// plausible for its kind as a whole. An error reply is returned as a *ReplyError: the operation
// failed, the client is still usable.
func (c *Client) Do(ctx context.Context, req *protocol.DoRequest) (*protocol.DoReply, error) {
	req.Header = protocol.Header{Op: protocol.OpDo}
	var r protocol.DoReply
	rtt, err := c.call(ctx, req, &r)
	if err != nil {
		return nil, err
	}
	what := protocol.OpDo + " " + req.Kind
	switch {
	case r.Ns <= 0:
		return nil, c.fail("%s reply: ns %d: no work takes no time (a client reports the time its work took)", what, r.Ns)
	case time.Duration(r.Ns) > rtt:
		return nil, c.fail("%s reply: ns %s is longer than the %s round trip dbbench measured around it", what, time.Duration(r.Ns), rtt)
	}
	if err := c.phases(what, r.PhasesNs, r.Ns, rtt); err != nil {
		return nil, err
	}
	c.cost(what, rtt, time.Duration(r.Ns))
	if err := c.doTimes(req.Kind, time.Duration(r.Ns), rtt-c.waited); err != nil {
		return nil, err
	}
	return &r, nil
}

// A single do's round trip is mostly the protocol, under the floor where one reply is judged; a
// kind is judged as a whole instead, every doWindow replies: the median reported time must be at
// least doShare of the median round trip less the median ping's, once that difference is at least
// doVisible (docs/protocol.md, "Times"). The share is small because a read's reply carries its
// fields (1 KB by default), whose encoding and decoding the round trip holds and the client's time
// does not: measured, the Go client on LMDB reports 2.4 us of a read whose round trip is 54 us
// above a ping's (4%). It catches a token time (ns 1), not a modest under-report.
const (
	doWindow  = 1000
	doShare   = 0.01
	doVisible = 5 * time.Microsecond
)

// doTimes adds one do's reported time and round trip (less the client's wait for a CPU) to its
// kind's window and judges the window when it is full.
func (c *Client) doTimes(kind string, ns, rtt time.Duration) error {
	if c.doWin == nil {
		c.doWin = map[string]*doWindowTimes{}
	}
	w := c.doWin[kind]
	if w == nil {
		w = &doWindowTimes{}
		c.doWin[kind] = w
	}
	w.ns, w.rtt = append(w.ns, ns), append(w.rtt, rtt)
	if len(w.ns) < doWindow {
		return nil
	}
	defer func() { w.ns, w.rtt = w.ns[:0], w.rtt[:0] }()
	pings := c.RoundTrips[protocol.OpPing]
	if len(pings) == 0 {
		return nil
	}
	ping := median(pings)
	work := exactMedian(w.rtt) - ping
	if got := exactMedian(w.ns); work >= doVisible && float64(got) < doShare*float64(work) {
		return c.fail("do %s replies: median ns %s over the last %d is implausibly short: their median round trip less the ping's is %s, and a client's time must be at least %.0f%% of it",
			kind, got, len(w.ns), work, doShare*100)
	}
	return nil
}

// doWindowTimes is one do kind's reported times and round trips since its last judgement.
type doWindowTimes struct{ ns, rtt []time.Duration }

// exactMedian is the median of d (sorted in place).
func exactMedian(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

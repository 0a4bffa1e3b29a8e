package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	osexec "os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/internal/buildinfo"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// Config says how to start a client.
type Config struct {
	Command        []string // program and arguments
	Dir            string   // working directory ("" = dbbench's)
	Env            []string // KEY=VALUE added to dbbench's environment
	Timeout        time.Duration
	StartupTimeout time.Duration // for hello
	Logf           func(format string, args ...any)
}

// Client drives one client process through the protocol (the messages of package protocol): one
// request, one reply, each checked for the protocol's rules (its id, its fields, times that can be
// true, stores read back by dbbench itself; verify.go). It is what the exec adapter and `dbbench
// client-test` share. A Client is not safe for concurrent use.
type Client struct {
	cfg    Config
	name   string // the program, for messages
	p      *proc
	id     int64
	broken error // the first fatal protocol error (or cancellation); later requests are not sent
	exited bool  // the client exited by itself before a reply

	// Per op: every round trip, and the round trip minus the time the client reported.
	RoundTrips map[string][]time.Duration
	Cost       map[string][]time.Duration

	version int                // the protocol version hello agreed (0 before)
	caps    []string           // the capabilities the client listed (protocol 2)
	pg      *protocol.Postgres // the schema open handed the client, for reading its stores back
	// pingP99 is the protocol's own round trip (Calibrate); 0 until measured: no lower bound yet.
	pingP99  time.Duration
	last     protocol.Request       // the last request sent through call
	pingWork []time.Duration        // until Calibrate: each ping's round trip less the client's wait for a CPU (verify.go)
	waited   time.Duration          // how long the client's main thread waited for a CPU in the last round trip
	short    map[string]*shortCount // per op: replies whose time was implausibly short
	// loaded is the store the load reply described (capability store), nil if none.
	loaded *protocol.Store
	// verified says, per what was verified (load, insert), how.
	verified map[string]string
	wait     waitClock // the client's main thread's wait for a CPU (waited.go)
	// doWin holds, per do kind, the times to judge together (records.go).
	doWin map[string]*doWindowTimes
	// askedPhases: open asked the client to time its phases (capability phases). prof is the
	// profiled repeat's recorder (the target's Profile), nil between them.
	askedPhases bool
	prof        *phase.Recorder
}

// ReplyError is a client's {"error": ...} reply: the request failed, the client is still usable.
type ReplyError struct {
	Client string
	Op     string
	Msg    string
}

func (e *ReplyError) Error() string {
	return fmt.Sprintf("client %s: %s failed: %s", e.Client, e.Op, exitcode.OneLine(e.Msg))
}

// Start starts the client process. A command that cannot be found or run is a usage error (exit 2).
func Start(cfg Config) (*Client, error) {
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return nil, exitcode.Usagef("no command")
	}
	argv := slices.Clone(cfg.Command)
	if cfg.Dir != "" && strings.Contains(argv[0], "/") && !filepath.IsAbs(argv[0]) {
		argv[0] = filepath.Join(cfg.Dir, argv[0]) // relative to dir, as the user wrote it
	}
	p, err := startProc(argv, cfg.Dir, cfg.Env, cfg.Logf)
	if err != nil {
		return nil, exitcode.Usagef("cannot start %s: %v", cfg.Command[0], unwrapExec(err))
	}
	return &Client{
		cfg: cfg, name: filepath.Base(cfg.Command[0]), p: p,
		RoundTrips: map[string][]time.Duration{}, Cost: map[string][]time.Duration{},
		short: map[string]*shortCount{}, verified: map[string]string{},
	}, nil
}

// unwrapExec drops os/exec's repetition of the program's name from its errors.
func unwrapExec(err error) error {
	var ee *osexec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// PGID is the client's process group.
func (c *Client) PGID() int { return c.p.pgid }

// fail records a fatal protocol error, ends the process group and returns the error (exit 3).
func (c *Client) fail(format string, args ...any) error {
	err := exitcode.Infraf("client %s: %s", c.name, fmt.Sprintf(format, args...))
	if c.broken == nil {
		c.broken = err
	}
	c.p.kill()
	return err
}

// Err is the fatal protocol error that ended the client, if any.
func (c *Client) Err() error { return c.broken }

// Kill ends the client's process group at once.
func (c *Client) Kill() { c.p.kill() }

// call sends one request of the protocol and decodes its reply into reply (a pointer to one of
// package protocol's reply types, whose fields without omitempty are required). It returns the round
// trip dbbench measured.
func (c *Client) call(ctx context.Context, req protocol.Request, reply any) (time.Duration, error) {
	h := req.Head()
	c.id++
	h.ID = c.id
	c.last = req // a read that looks implausibly short is asked again (verify.go, again)
	b, err := json.Marshal(req)
	if err != nil {
		return 0, fmt.Errorf("encode %s request: %w", h.Op, err)
	}
	return c.roundTrip(ctx, h.Op, append(b, '\n'), c.id, reply)
}

// Call sends any request (for conformance checks: an op the protocol does not have).
func (c *Client) Call(ctx context.Context, op string, req map[string]any, reply any) error {
	if req == nil {
		req = map[string]any{}
	}
	c.id++
	req["id"], req["op"] = c.id, op
	b, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encode %s request: %w", op, err)
	}
	_, err = c.roundTrip(ctx, op, append(b, '\n'), c.id, reply)
	return err
}

// Raw sends a line as it is (for conformance checks of bad requests) and decodes the reply, which
// must carry id.
func (c *Client) Raw(ctx context.Context, line []byte, id int64, reply any) error {
	_, err := c.roundTrip(ctx, "the raw request", append(slices.Clone(line), '\n'), id, reply)
	return err
}

// roundTrip sends one request line, waits for the reply line and checks it: the round trip, timed
// from the write to the reply's arrival.
func (c *Client) roundTrip(ctx context.Context, op string, msg []byte, id int64, reply any) (time.Duration, error) {
	if err := c.usable(op); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err // a cancelled run sends nothing more (a fast reply could otherwise win the race)
	}
	timeout := c.cfg.Timeout
	if op == protocol.OpHello {
		timeout = c.cfg.StartupTimeout
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	w0, waitedOK := c.wait.read(c.pid())
	start := time.Now()
	if err := c.send(op, msg, start.Add(timeout)); err != nil {
		return 0, err
	}
	b, err := c.receive(ctx, op, timer.C, timeout)
	if err != nil {
		return 0, err
	}
	rtt := time.Since(start)
	c.waited = 0
	if w1, ok := c.wait.read(c.pid()); ok && waitedOK {
		c.waited = min(rtt, w1-w0)
	}
	if err := c.decode(op, b, id, reply); err != nil {
		if errors.As(err, new(*ReplyError)) {
			return rtt, err // the request failed; the client is still usable
		}
		return 0, err
	}
	c.RoundTrips[op] = append(c.RoundTrips[op], rtt)
	if op == protocol.OpPing && c.pingP99 == 0 { // until Calibrate has taken the protocol's cost
		c.pingWork = append(c.pingWork, rtt-c.waited)
	}
	return rtt, nil
}

// pid is the client process's id (its main thread's).
func (c *Client) pid() int { return c.p.cmd.Process.Pid }

// usable refuses a request once the client is broken: the cancellation that ended it, or a line
// saying an earlier failure did.
func (c *Client) usable(op string) error {
	switch {
	case c.broken == nil:
		return nil
	case errors.Is(c.broken, context.Canceled) || errors.Is(c.broken, context.DeadlineExceeded):
		return c.broken
	}
	return exitcode.Infraf("client %s: %s not sent: the client was ended by an earlier failure", c.name, op)
}

// send writes a request line, by deadline.
func (c *Client) send(op string, msg []byte, deadline time.Time) error {
	c.p.stdin.SetWriteDeadline(deadline)
	if _, err := c.p.stdin.Write(msg); err != nil {
		if st := c.exitWait(); st != "" {
			c.exited = true
			return c.fail("exited before %s (%s)", op, st)
		}
		return c.fail("does not read its input: sending %s: %v", op, err)
	}
	return nil
}

// receive waits for the reply line until timedOut fires, the client exits or ctx is done.
func (c *Client) receive(ctx context.Context, op string, timedOut <-chan time.Time, timeout time.Duration) ([]byte, error) {
	var l line
	var ok bool
	select {
	case l, ok = <-c.p.lines:
	case <-c.p.exited:
		// Its output may outlive it (a child holds the pipe), so its exit ends the wait; a reply
		// written just before it is still read.
		select {
		case l, ok = <-c.p.lines:
		case <-time.After(100 * time.Millisecond):
			c.exited = true
			return nil, c.fail("exited before replying to %s (%s)", op, c.p.exitStatus())
		}
	case <-timedOut:
		return nil, c.fail("no reply to %s within %s (timeout); killed it", op, timeout)
	case <-ctx.Done():
		c.broken = ctx.Err()
		c.p.kill()
		return nil, ctx.Err()
	}
	switch {
	case !ok:
		st := c.exitWait()
		if st == "" {
			st = "closed its output"
		} else {
			c.exited = true
		}
		return nil, c.fail("exited before replying to %s (%s)", op, st)
	case l.err != nil:
		return nil, c.fail("%s reply: %v", op, l.err)
	}
	return l.b, nil
}

// decode checks a reply line (a JSON object with the request's id) and decodes it into reply, whose
// required fields it must have. An error reply is a *ReplyError; anything else that is wrong ends
// the client.
func (c *Client) decode(op string, line []byte, id int64, reply any) error {
	b := bytes.TrimSpace(line)
	var fields map[string]json.RawMessage
	var gotID json.Number // "" when missing or null
	var msg *string
	if json.Unmarshal(b, &fields) != nil || b[0] != '{' || field(fields, "id", &gotID) != nil || field(fields, "error", &msg) != nil {
		return c.fail("printed %q on stdout, which is not a protocol reply (a JSON object); logs belong on stderr", abbrev(line))
	}
	if gotID == "" {
		return c.fail("%s reply has no id", op)
	}
	if n, err := gotID.Int64(); err != nil || n != id {
		return c.fail("replied with id %s to request %d (%s)", gotID, id, op)
	}
	if msg != nil {
		return &ReplyError{Client: c.name, Op: op, Msg: *msg}
	}
	if reply == nil {
		return nil
	}
	if err := json.Unmarshal(b, reply); err != nil {
		return c.fail("%s reply: %v", op, err)
	}
	if missing := missingFields(fields, reflect.TypeOf(reply).Elem(), ""); len(missing) > 0 {
		return c.fail("%s reply lacks %s", op, strings.Join(missing, ", "))
	}
	return nil
}

// field decodes the named field of a reply into v, if the reply has it.
func field(fields map[string]json.RawMessage, name string, v any) error {
	if raw, ok := fields[name]; ok {
		return json.Unmarshal(raw, v)
	}
	return nil
}

// exitWait gives an exiting client a moment to be reaped and says how it ended ("" if it still runs).
func (c *Client) exitWait() string {
	select {
	case <-c.p.exited:
	case <-time.After(time.Second):
	}
	return c.p.exitStatus()
}

// missingFields lists the required fields of a reply of type t (those without omitempty; fields of
// embedded structs count as the reply's own) that fields lacks or holds null, and those of the
// structs in its lists, as "readers[1].checksum".
func missingFields(fields map[string]json.RawMessage, t reflect.Type, prefix string) []string {
	if t.Kind() != reflect.Struct {
		return nil // a reply decoded into a map or any: nothing is required
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, missingFields(fields, f.Type, prefix)...)
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		v, ok := fields[name]
		if !ok || string(v) == "null" {
			if !slices.Contains(strings.Split(opts, ","), "omitempty") {
				out = append(out, prefix+name)
			}
			continue
		}
		if f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct {
			var elems []map[string]json.RawMessage
			_ = json.Unmarshal(v, &elems) // it decoded into the reply already
			for j, e := range elems {
				out = append(out, missingFields(e, f.Type.Elem(), fmt.Sprintf("%s%s[%d].", prefix, name, j))...)
			}
		}
	}
	return out
}

// DBBenchVersion is what hello says this dbbench is.
func DBBenchVersion() string {
	if v := buildinfo.Read().Version; v != "" {
		return v
	}
	return "devel"
}

// helloFacts returns the handshake for a report.
func helloFacts(h *protocol.HelloReply) map[string]any {
	return map[string]any{
		"client": h.Client + " " + h.ClientVersion, "language": h.Language, "runtime": h.Runtime,
		"library": h.Library, "library_version": h.LibraryVersion,
	}
}

// Hello performs the handshake asking for protocol version v. A reply naming another version than
// v is refused (exit 3).
func (c *Client) Hello(ctx context.Context, v int, dbbenchVersion string) (*protocol.HelloReply, error) {
	var h protocol.HelloReply
	req := &protocol.HelloRequest{Header: protocol.Header{Op: protocol.OpHello}, Protocol: v, DBBench: dbbenchVersion}
	if _, err := c.call(ctx, req, &h); err != nil {
		return nil, err
	}
	if h.Protocol != v {
		return nil, c.fail("speaks protocol version %d; dbbench asked for %d (it speaks %d to %d)", h.Protocol, v, protocol.MinVersion, protocol.Version)
	}
	c.version = v
	if v >= 2 {
		c.caps = h.Capabilities
	}
	return &h, nil
}

// Negotiate performs the handshake for dbbench run: it offers protocol.Version, and a client that
// refuses it with an error reply is asked for version 1 (accepted, with weaker verification).
func (c *Client) Negotiate(ctx context.Context, dbbenchVersion string) (*protocol.HelloReply, error) {
	h, err := c.Hello(ctx, protocol.Version, dbbenchVersion)
	if errors.As(err, new(*ReplyError)) {
		return c.Hello(ctx, protocol.MinVersion, dbbenchVersion)
	}
	return h, err
}

// Version is the protocol version hello agreed (0 before hello).
func (c *Client) Version() int { return c.version }

// Has says whether the client listed a capability (protocol 2).
func (c *Client) Has(capability string) bool { return slices.Contains(c.caps, capability) }

// Open prepares the client's store.
func (c *Client) Open(ctx context.Context, r protocol.Open) (*protocol.Opened, error) {
	if r.Options == nil {
		r.Options = map[string]any{}
	}
	var o protocol.OpenReply
	if _, err := c.call(ctx, &protocol.OpenRequest{Header: protocol.Header{Op: protocol.OpOpen}, Open: r}, &o); err != nil {
		return nil, err
	}
	c.pg = r.Postgres
	c.askedPhases = r.Profile
	return &o.Opened, nil
}

// Load asks the client to store the dataset and returns the persons it stored.
func (c *Client) Load(ctx context.Context) (int64, error) {
	var r protocol.LoadReply
	rtt, err := c.call(ctx, &protocol.Header{Op: protocol.OpLoad}, &r)
	if err != nil {
		return 0, err
	}
	if r.ElapsedNs != 0 { // 0: not reported
		if err := c.checkTime(protocol.OpLoad, "elapsed_ns", r.ElapsedNs, rtt); err != nil {
			return 0, err
		}
	}
	if r.Store != nil {
		if !c.Has(protocol.CapStore) {
			return 0, c.fail("load reply describes its store, but the client did not list capability store")
		}
		c.loaded = r.Store
	}
	return r.Rows, nil
}

// Ping measures one round trip with no work.
func (c *Client) Ping(ctx context.Context) (time.Duration, error) {
	var r protocol.Reply
	return c.call(ctx, &protocol.Header{Op: protocol.OpPing}, &r)
}

func (c *Client) tally(op string, rows int64, checksum string) (adapters.Tally, error) {
	if rows < 0 {
		return adapters.Tally{}, c.fail("%s reply: negative rows %d", op, rows)
	}
	sum, err := protocol.ParseChecksum(checksum)
	if err != nil {
		return adapters.Tally{}, c.fail("%s reply: %v", op, err)
	}
	return adapters.Tally{Rows: rows, Sum: sum}, nil
}

// checkTime refuses a reported time that cannot be true: zero or negative, longer than the round
// trip measured around it, or (plausible, verify.go) far shorter than the round trip less the
// protocol's own cost.
func (c *Client) checkTime(op, field string, ns int64, rtt time.Duration) error {
	if ns < 0 {
		return c.fail("%s reply: negative %s %d", op, field, ns)
	}
	if ns == 0 {
		return c.fail("%s reply: %s is 0: no work takes no time (a client reports the time its work took)", op, field)
	}
	if time.Duration(ns) > rtt {
		return c.fail("%s reply: %s %s is longer than the %s round trip dbbench measured around it", op, field, time.Duration(ns), rtt)
	}
	return c.plausible(op, field, time.Duration(ns), rtt)
}

func (c *Client) cost(op string, rtt, reported time.Duration) {
	c.Cost[op] = append(c.Cost[op], rtt-reported)
}

// Scan reads rows persons in one read transaction; the client's time comes back.
func (c *Client) Scan(ctx context.Context, rows int) (adapters.Tally, time.Duration, error) {
	return c.timedRows(ctx, protocol.OpScan, rows)
}

// Insert inserts the first rows persons into a fresh store in one transaction. The tally is
// dbbench's own read-back of the store the client kept (capability keep_store; verify.go), else the
// client's.
func (c *Client) Insert(ctx context.Context, rows int) (adapters.Tally, time.Duration, error) {
	if c.Has(protocol.CapKeepStore) {
		return c.insertKept(ctx, rows)
	}
	return c.timedRows(ctx, protocol.OpInsert, rows)
}

// timedRows sends a scan or an insert of rows persons and checks its timed reply.
func (c *Client) timedRows(ctx context.Context, op string, rows int) (adapters.Tally, time.Duration, error) {
	var r protocol.TimedReply
	rtt, err := c.call(ctx, &protocol.RowsRequest{Header: protocol.Header{Op: op}, Rows: rows}, &r)
	if err != nil {
		return adapters.Tally{}, 0, err
	}
	t, err := c.timed(op, r.Timed, rtt)
	if err != nil {
		return t, 0, err
	}
	if err := c.phases(op, r.PhasesNs, r.ElapsedNs, rtt); err != nil {
		return t, 0, err
	}
	d := time.Duration(r.ElapsedNs)
	c.cost(op, rtt, d)
	return t, d, nil
}

// timed checks one timed tally: a time that can be true, a count and a checksum.
func (c *Client) timed(op string, r protocol.Timed, rtt time.Duration) (adapters.Tally, error) {
	if err := c.checkTime(op, "elapsed_ns", r.ElapsedNs, rtt); err != nil {
		return adapters.Tally{}, err
	}
	return c.tally(op, r.Rows, r.Checksum)
}

// perOpReply checks a reply with one latency per operation and copies them into lat.
func (c *Client) perOpReply(op string, r protocol.LatenciesReply, rtt time.Duration, lat []time.Duration) (adapters.Tally, error) {
	if len(r.LatenciesNs) != len(lat) {
		return adapters.Tally{}, c.fail("%s reply: %d latencies for %d operations", op, len(r.LatenciesNs), len(lat))
	}
	var total int64
	for i, ns := range r.LatenciesNs {
		if ns < 0 {
			return adapters.Tally{}, c.fail("%s reply: negative latency %d", op, ns)
		}
		if ns == 0 {
			return adapters.Tally{}, c.fail("%s reply: latency %d of %d is 0: no work takes no time", op, i+1, len(lat))
		}
		lat[i] = time.Duration(ns)
		total += ns
	}
	if err := c.checkTime(op, "sum of latencies_ns", total, rtt); err != nil {
		return adapters.Tally{}, err
	}
	t, err := c.tally(op, r.Rows, r.Checksum)
	if err != nil {
		return t, err
	}
	if err := c.phases(op, r.PhasesNs, total, rtt); err != nil {
		return t, err
	}
	c.cost(op, rtt, time.Duration(total))
	return t, nil
}

// Lookup looks up the persons of the given dataset indices, one read transaction each, filling lat.
func (c *Client) Lookup(ctx context.Context, keys []int32, lat []time.Duration) (adapters.Tally, error) {
	var r protocol.LatenciesReply
	rtt, err := c.call(ctx, &protocol.LookupRequest{Header: protocol.Header{Op: protocol.OpLookup}, Keys: keys}, &r)
	if err != nil {
		return adapters.Tally{}, err
	}
	return c.perOpReply(protocol.OpLookup, r, rtt, lat)
}

// Concurrent runs readers concurrent scans of rows persons, filling lat with each reader's time.
func (c *Client) Concurrent(ctx context.Context, readers, rows int, lat []time.Duration) ([]adapters.Tally, time.Duration, error) {
	const op = protocol.OpConcurrent
	var r protocol.ConcurrentReply
	rtt, err := c.call(ctx, &protocol.ConcurrentRequest{Header: protocol.Header{Op: op}, Readers: readers, Rows: rows}, &r)
	if err != nil {
		return nil, 0, err
	}
	if len(r.Readers) != readers {
		return nil, 0, c.fail("%s reply: %d readers for %d", op, len(r.Readers), readers)
	}
	if err := c.checkTime(op, "wall_ns", r.WallNs, rtt); err != nil {
		return nil, 0, err
	}
	tallies := make([]adapters.Tally, readers)
	var own int64
	for i, rd := range r.Readers {
		if tallies[i], err = c.readerTally(op, rd, rtt); err != nil {
			return nil, 0, err
		}
		lat[i] = time.Duration(rd.ElapsedNs)
		own += rd.ElapsedNs
	}
	if err := c.wallCoversReaders(r.WallNs, r.Readers); err != nil {
		return nil, 0, err
	}
	if err := c.phases(op, r.PhasesNs, own, rtt); err != nil {
		return nil, 0, err
	}
	wall := time.Duration(r.WallNs)
	c.cost(op, rtt, wall)
	return tallies, wall, nil
}

// Run runs len(lat) operations of a workload the client declared.
func (c *Client) Run(ctx context.Context, workload string, params map[string]any, lat []time.Duration) (adapters.Tally, error) {
	if params == nil {
		params = map[string]any{}
	}
	var r protocol.LatenciesReply
	req := &protocol.RunRequest{Header: protocol.Header{Op: protocol.OpRun}, Workload: workload, Params: params, Ops: len(lat)}
	rtt, err := c.call(ctx, req, &r)
	if err != nil {
		return adapters.Tally{}, err
	}
	return c.perOpReply(protocol.OpRun, r, rtt, lat)
}

// Close sends close, closes the client's input and waits up to 5 s for it to exit; then its process
// group is killed. A client that did not exit by itself is an error.
func (c *Client) Close(ctx context.Context) error {
	defer c.wait.close()
	var err error
	if c.broken == nil {
		var r protocol.Reply
		_, err = c.call(ctx, &protocol.Header{Op: protocol.OpClose}, &r)
	}
	if c.broken != nil {
		c.p.kill()
		return err
	}
	if !c.p.shutdown() {
		return exitcode.Infraf("client %s: did not exit within %s of the end of its input; killed its process group", c.name, exitGrace)
	}
	if err == nil && !c.p.state.Success() {
		return exitcode.Infraf("client %s: exited with %s after close", c.name, c.p.state)
	}
	return err
}

// EndInput closes the client's input without a close request and reports whether it exited within
// 5 s (its process group is killed either way).
func (c *Client) EndInput() bool { return c.p.shutdown() }

// phases checks a timed reply's phases_ns (capability phases) against the reply's own time (own ns:
// its elapsed time, the sum of its latencies or of its readers' times) and, in a profiled repeat,
// adds them to the recorder with dbbench's own round trip beside them (a reply without phases, a
// client's that offers none, adds nothing: a result without phases has no profile). Phases open did not ask
// for are refused: a client times its phases only when asked, so that its timed regions are
// otherwise those of a run without --profile.
func (c *Client) phases(op string, ph protocol.Phases, own int64, rtt time.Duration) error {
	if ph != nil && !c.askedPhases {
		return c.fail("%s reply carries phases_ns, which open did not ask for (profile): a client times its phases only when asked", op)
	}
	var sum int64
	for _, p := range ph {
		switch {
		case !phase.ValidName(p.Name):
			return c.fail("%s reply: phase name %q: want lower-case letters, digits and '_', starting with a letter, at most 32 bytes", op, p.Name)
		case p.Ns < 0:
			return c.fail("%s reply: phase %s: negative time %d ns", op, p.Name, p.Ns)
		case p.Ns > own-sum:
			return c.fail("%s reply: phases_ns sum to more than the reply's own time %s (at phase %s, %d ns)", op, time.Duration(own), p.Name, p.Ns)
		}
		sum += p.Ns
	}
	if c.prof == nil || len(ph) == 0 {
		return nil // a reply without phases adds nothing: no round trip beside no phase
	}
	for _, p := range ph {
		_ = c.prof.AddClient(p.Name, time.Duration(p.Ns)) // checked above
	}
	c.prof.AddRoundTrip(rtt)
	return nil
}

// Profile hands the client the recorder of a profiled repeat (nil after it).
func (c *Client) Profile(r *phase.Recorder) { c.prof = r }

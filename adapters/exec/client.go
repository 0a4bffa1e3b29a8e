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
	"strconv"
	"strings"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/internal/buildinfo"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// ProtocolVersion is the version of docs/protocol.md this driver speaks.
const ProtocolVersion = 1

// Config says how to start a client.
type Config struct {
	Command        []string // program and arguments
	Dir            string   // working directory ("" = dbbench's)
	Env            []string // KEY=VALUE added to dbbench's environment
	Timeout        time.Duration
	StartupTimeout time.Duration // for hello
	Logf           func(format string, args ...any)
}

// Client drives one client process through protocol v1: one request, one reply, each checked for the
// protocol's rules (its id, its fields, times that can be true). It is what the exec adapter and
// `dbbench client-test` share. A Client is not safe for concurrent use.
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

// call sends one request and decodes its reply into reply (a pointer to a struct whose pointer fields
// are required unless tagged omitempty). It returns the round trip dbbench measured.
func (c *Client) call(ctx context.Context, op string, req map[string]any, reply any) (time.Duration, error) {
	if req == nil {
		req = map[string]any{}
	}
	c.id++
	req["id"], req["op"] = c.id, op
	b, err := json.Marshal(req)
	if err != nil {
		return 0, fmt.Errorf("encode %s request: %w", op, err)
	}
	return c.roundTrip(ctx, op, append(b, '\n'), c.id, reply)
}

// Call sends any request (for conformance checks: an op the protocol does not have).
func (c *Client) Call(ctx context.Context, op string, req map[string]any, reply any) error {
	_, err := c.call(ctx, op, req, reply)
	return err
}

// Raw sends a line as it is (for conformance checks of bad requests) and decodes the reply, which
// must carry id.
func (c *Client) Raw(ctx context.Context, line []byte, id int64, reply any) error {
	_, err := c.roundTrip(ctx, "the raw request", append(slices.Clone(line), '\n'), id, reply)
	return err
}

func (c *Client) roundTrip(ctx context.Context, op string, msg []byte, id int64, reply any) (time.Duration, error) {
	if c.broken != nil {
		if ctxErr := c.broken; errors.Is(ctxErr, context.Canceled) || errors.Is(ctxErr, context.DeadlineExceeded) {
			return 0, ctxErr
		}
		return 0, exitcode.Infraf("client %s: %s not sent: the client was ended by an earlier failure", c.name, op)
	}
	timeout := c.cfg.Timeout
	if op == "hello" {
		timeout = c.cfg.StartupTimeout
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	start := time.Now()
	c.p.stdin.SetWriteDeadline(start.Add(timeout))
	if _, err := c.p.stdin.Write(msg); err != nil {
		if st := c.exitWait(); st != "" {
			c.exited = true
			return 0, c.fail("exited before %s (%s)", op, st)
		}
		return 0, c.fail("does not read its input: sending %s: %v", op, err)
	}
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
			return 0, c.fail("exited before replying to %s (%s)", op, c.p.exitStatus())
		}
	case <-timer.C:
		return 0, c.fail("no reply to %s within %s (timeout); killed it", op, timeout)
	case <-ctx.Done():
		c.broken = ctx.Err()
		c.p.kill()
		return 0, ctx.Err()
	}
	rtt := time.Since(start)
	switch {
	case !ok:
		st := c.exitWait()
		if st == "" {
			st = "closed its output"
		} else {
			c.exited = true
		}
		return 0, c.fail("exited before replying to %s (%s)", op, st)
	case l.err != nil:
		return 0, c.fail("%s reply: %v", op, l.err)
	}
	var head struct {
		ID    *json.Number `json:"id"`
		Error *string      `json:"error"`
	}
	b := bytes.TrimSpace(l.b)
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&head); err != nil || d.More() || b[0] != '{' {
		return 0, c.fail("printed %q on stdout, which is not a protocol reply (a JSON object); logs belong on stderr", abbrev(l.b))
	}
	if head.ID == nil {
		return 0, c.fail("%s reply has no id", op)
	}
	if got, err := head.ID.Int64(); err != nil || got != id {
		return 0, c.fail("replied with id %s to request %d (%s)", head.ID, id, op)
	}
	if head.Error != nil {
		return rtt, &ReplyError{Client: c.name, Op: op, Msg: *head.Error}
	}
	if reply != nil {
		if err := json.Unmarshal(b, reply); err != nil {
			return 0, c.fail("%s reply: %v", op, err)
		}
		if missing := missingFields(reply); len(missing) > 0 {
			return 0, c.fail("%s reply lacks %s", op, strings.Join(missing, ", "))
		}
	}
	c.RoundTrips[op] = append(c.RoundTrips[op], rtt)
	return rtt, nil
}

// exitWait gives an exiting client a moment to be reaped and says how it ended ("" if it still runs).
func (c *Client) exitWait() string {
	select {
	case <-c.p.exited:
	case <-time.After(time.Second):
	}
	return c.p.exitStatus()
}

// missingFields lists the required fields (nil pointers without omitempty) of a reply struct,
// including those of structs in a slice field.
func missingFields(v any) []string {
	var out []string
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	rt := rv.Type()
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		fv := rv.Field(i)
		if fv.Kind() == reflect.Pointer && fv.IsNil() && !strings.Contains(opts, "omitempty") {
			out = append(out, tag)
			continue
		}
		if fv.Kind() == reflect.Pointer && !fv.IsNil() && fv.Elem().Kind() == reflect.Slice {
			s := fv.Elem()
			for j := 0; j < s.Len(); j++ {
				if s.Index(j).Kind() == reflect.Struct {
					for _, m := range missingFields(s.Index(j).Addr().Interface()) {
						out = append(out, fmt.Sprintf("%s[%d].%s", tag, j, m))
					}
				}
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

// Hello is the client's handshake reply.
type Hello struct {
	Protocol       *int      `json:"protocol"`
	Client         *string   `json:"client"`
	ClientVersion  *string   `json:"client_version"`
	Language       *string   `json:"language"`
	Runtime        *string   `json:"runtime"`
	Library        *string   `json:"library"`
	LibraryVersion *string   `json:"library_version"`
	Workloads      *[]string `json:"workloads"`
	Options        *[]string `json:"options"`
}

// Facts returns the handshake for a report.
func (h *Hello) Facts() map[string]any {
	return map[string]any{
		"client": *h.Client + " " + *h.ClientVersion, "language": *h.Language, "runtime": *h.Runtime,
		"library": *h.Library, "library_version": *h.LibraryVersion,
	}
}

// Hello performs the handshake asking for protocol version v. A reply naming another version than
// ProtocolVersion is refused (exit 3).
func (c *Client) Hello(ctx context.Context, v int, dbbenchVersion string) (*Hello, error) {
	var h Hello
	if _, err := c.call(ctx, "hello", map[string]any{"protocol": v, "dbbench": dbbenchVersion}, &h); err != nil {
		return nil, err
	}
	if *h.Protocol != ProtocolVersion {
		return nil, c.fail("speaks protocol version %d; this dbbench speaks %d", *h.Protocol, ProtocolVersion)
	}
	return &h, nil
}

// OpenRequest is what open sends.
type OpenRequest struct {
	Options  map[string]any
	Size     int
	Seed     int64
	TempDir  string
	Dataset  string
	Postgres *Postgres
}

// Postgres is a server and a schema a client must keep to.
type Postgres struct {
	DSN    string `json:"dsn"`
	Schema string `json:"schema"`
}

// Opened is the reply to open.
type Opened struct {
	Info            *map[string]any `json:"info"`
	ScansInKeyOrder *bool           `json:"scans_in_key_order"`
}

// Open prepares the client's store.
func (c *Client) Open(ctx context.Context, r OpenRequest) (*Opened, error) {
	req := map[string]any{
		"options": r.Options, "size": r.Size, "seed": r.Seed, "temp_dir": r.TempDir, "dataset": r.Dataset,
	}
	if r.Options == nil {
		req["options"] = map[string]any{}
	}
	if r.Postgres != nil {
		req["postgres"] = r.Postgres
	}
	var o Opened
	if _, err := c.call(ctx, "open", req, &o); err != nil {
		return nil, err
	}
	return &o, nil
}

// Load asks the client to store the dataset and returns the persons it stored.
func (c *Client) Load(ctx context.Context) (int64, error) {
	var r struct {
		Rows      *int64 `json:"rows"`
		ElapsedNs *int64 `json:"elapsed_ns,omitempty"`
	}
	rtt, err := c.call(ctx, "load", nil, &r)
	if err != nil {
		return 0, err
	}
	if r.ElapsedNs != nil {
		if err := c.checkTime("load", "elapsed_ns", *r.ElapsedNs, rtt); err != nil {
			return 0, err
		}
	}
	return *r.Rows, nil
}

// Ping measures one round trip with no work.
func (c *Client) Ping(ctx context.Context) (time.Duration, error) {
	var r struct{}
	return c.call(ctx, "ping", nil, &r)
}

// Tallied is the tally and time a client reports for one piece of work.
type tallied struct {
	Rows      *int64  `json:"rows"`
	Checksum  *string `json:"checksum"`
	ElapsedNs *int64  `json:"elapsed_ns"`
}

func (c *Client) tally(op string, rows int64, checksum string) (adapters.Tally, error) {
	if rows < 0 {
		return adapters.Tally{}, c.fail("%s reply: negative rows %d", op, rows)
	}
	sum, err := ParseChecksum(checksum)
	if err != nil {
		return adapters.Tally{}, c.fail("%s reply: %v", op, err)
	}
	return adapters.Tally{Rows: rows, Sum: sum}, nil
}

// ParseChecksum reads a checksum as the protocol sends it: 16 lowercase hexadecimal digits.
func ParseChecksum(s string) (uint64, error) {
	if len(s) != 16 || strings.ToLower(s) != s {
		return 0, fmt.Errorf("checksum %q is not 16 lowercase hexadecimal digits", s)
	}
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("checksum %q is not 16 lowercase hexadecimal digits", s)
	}
	return v, nil
}

// FormatChecksum writes a checksum as the protocol sends it.
func FormatChecksum(v uint64) string { return fmt.Sprintf("%016x", v) }

// checkTime refuses a reported time that cannot be true: negative, or longer than the round trip
// measured around it.
func (c *Client) checkTime(op, field string, ns int64, rtt time.Duration) error {
	if ns < 0 {
		return c.fail("%s reply: negative %s %d", op, field, ns)
	}
	if time.Duration(ns) > rtt {
		return c.fail("%s reply: %s %s is longer than the %s round trip dbbench measured around it", op, field, time.Duration(ns), rtt)
	}
	return nil
}

func (c *Client) cost(op string, rtt, reported time.Duration) {
	c.Cost[op] = append(c.Cost[op], rtt-reported)
}

// Scan reads rows persons in one read transaction; the client's time comes back.
func (c *Client) Scan(ctx context.Context, rows int) (adapters.Tally, time.Duration, error) {
	var r tallied
	rtt, err := c.call(ctx, "scan", map[string]any{"rows": rows}, &r)
	if err != nil {
		return adapters.Tally{}, 0, err
	}
	return c.timedTally("scan", r, rtt)
}

func (c *Client) timedTally(op string, r tallied, rtt time.Duration) (adapters.Tally, time.Duration, error) {
	if err := c.checkTime(op, "elapsed_ns", *r.ElapsedNs, rtt); err != nil {
		return adapters.Tally{}, 0, err
	}
	t, err := c.tally(op, *r.Rows, *r.Checksum)
	if err != nil {
		return t, 0, err
	}
	d := time.Duration(*r.ElapsedNs)
	c.cost(op, rtt, d)
	return t, d, nil
}

type latencies struct {
	Rows        *int64   `json:"rows"`
	Checksum    *string  `json:"checksum"`
	LatenciesNs *[]int64 `json:"latencies_ns"`
}

// perOpReply checks a reply with one latency per operation and copies them into lat.
func (c *Client) perOpReply(op string, r latencies, rtt time.Duration, lat []time.Duration) (adapters.Tally, error) {
	if len(*r.LatenciesNs) != len(lat) {
		return adapters.Tally{}, c.fail("%s reply: %d latencies for %d operations", op, len(*r.LatenciesNs), len(lat))
	}
	var total int64
	for i, ns := range *r.LatenciesNs {
		if ns < 0 {
			return adapters.Tally{}, c.fail("%s reply: negative latency %d", op, ns)
		}
		lat[i] = time.Duration(ns)
		total += ns
	}
	if err := c.checkTime(op, "sum of latencies_ns", total, rtt); err != nil {
		return adapters.Tally{}, err
	}
	t, err := c.tally(op, *r.Rows, *r.Checksum)
	if err != nil {
		return t, err
	}
	c.cost(op, rtt, time.Duration(total))
	return t, nil
}

// Lookup looks up the persons of the given dataset indices, one read transaction each, filling lat.
func (c *Client) Lookup(ctx context.Context, keys []int32, lat []time.Duration) (adapters.Tally, error) {
	var r latencies
	rtt, err := c.call(ctx, "lookup", map[string]any{"keys": keys}, &r)
	if err != nil {
		return adapters.Tally{}, err
	}
	return c.perOpReply("lookup", r, rtt, lat)
}

// Insert inserts the first rows persons into a fresh store in one transaction; the tally is the
// client's read-back.
func (c *Client) Insert(ctx context.Context, rows int) (adapters.Tally, time.Duration, error) {
	var r tallied
	rtt, err := c.call(ctx, "insert", map[string]any{"rows": rows}, &r)
	if err != nil {
		return adapters.Tally{}, 0, err
	}
	return c.timedTally("insert", r, rtt)
}

// Concurrent runs readers concurrent scans of rows persons, filling lat with each reader's time.
func (c *Client) Concurrent(ctx context.Context, readers, rows int, lat []time.Duration) ([]adapters.Tally, time.Duration, error) {
	var r struct {
		WallNs  *int64     `json:"wall_ns"`
		Readers *[]tallied `json:"readers"`
	}
	const op = "concurrent"
	rtt, err := c.call(ctx, op, map[string]any{"readers": readers, "rows": rows}, &r)
	if err != nil {
		return nil, 0, err
	}
	if len(*r.Readers) != readers {
		return nil, 0, c.fail("%s reply: %d readers for %d", op, len(*r.Readers), readers)
	}
	if err := c.checkTime(op, "wall_ns", *r.WallNs, rtt); err != nil {
		return nil, 0, err
	}
	tallies := make([]adapters.Tally, readers)
	for i, rd := range *r.Readers {
		if err := c.checkTime(op, "elapsed_ns", *rd.ElapsedNs, rtt); err != nil {
			return nil, 0, err
		}
		if tallies[i], err = c.tally(op, *rd.Rows, *rd.Checksum); err != nil {
			return nil, 0, err
		}
		lat[i] = time.Duration(*rd.ElapsedNs)
	}
	wall := time.Duration(*r.WallNs)
	c.cost(op, rtt, wall)
	return tallies, wall, nil
}

// Run runs len(lat) operations of a workload the client declared.
func (c *Client) Run(ctx context.Context, workload string, params map[string]any, lat []time.Duration) (adapters.Tally, error) {
	if params == nil {
		params = map[string]any{}
	}
	var r latencies
	rtt, err := c.call(ctx, "run", map[string]any{"workload": workload, "params": params, "ops": len(lat)}, &r)
	if err != nil {
		return adapters.Tally{}, err
	}
	return c.perOpReply("run", r, rtt, lat)
}

// Close sends close, closes the client's input and waits up to 5 s for it to exit; then its process
// group is killed. A client that did not exit by itself is an error.
func (c *Client) Close(ctx context.Context) error {
	var err error
	if c.broken == nil {
		var r struct{}
		_, err = c.call(ctx, "close", nil, &r)
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

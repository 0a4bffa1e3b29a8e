package protocol

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// MaxLine bounds one request line (docs/protocol.md: 64 MiB).
const MaxLine = 64 << 20

// request is every field any request carries; each op reads its own.
type request struct {
	ID       *int64         `json:"id"`
	Op       string         `json:"op"`
	Protocol int            `json:"protocol"`
	Options  map[string]any `json:"options"`
	Size     int            `json:"size"`
	Seed     int64          `json:"seed"`
	TempDir  string         `json:"temp_dir"`
	Dataset  string         `json:"dataset"`
	Postgres *Postgres      `json:"postgres"`
	Rows     *int           `json:"rows"`
	Keys     []int          `json:"keys"`
	Readers  *int           `json:"readers"`
	Workload string         `json:"workload"`
	Params   map[string]any `json:"params"`
	Ops      *int           `json:"ops"`
}

// Replies. The id is set by Serve; omitted fields follow docs/protocol.md.
type (
	idReply struct {
		ID int64 `json:"id"`
	}
	errorReply struct {
		ID    int64  `json:"id"`
		Error string `json:"error"`
	}
	helloReply struct {
		ID       int64 `json:"id"`
		Protocol int   `json:"protocol"`
		Hello
	}
	openReply struct {
		ID              int64          `json:"id"`
		Info            map[string]any `json:"info"`
		ScansInKeyOrder bool           `json:"scans_in_key_order"`
	}
	loadReply struct {
		ID        int64 `json:"id"`
		Rows      int64 `json:"rows"`
		ElapsedNs int64 `json:"elapsed_ns,omitempty"`
	}
	timedReply struct {
		ID        int64  `json:"id"`
		Rows      int64  `json:"rows"`
		Checksum  string `json:"checksum"`
		ElapsedNs int64  `json:"elapsed_ns"`
	}
	latenciesReply struct {
		ID          int64   `json:"id"`
		Rows        int64   `json:"rows"`
		Checksum    string  `json:"checksum"`
		LatenciesNs []int64 `json:"latencies_ns"`
	}
	readerReply struct {
		Rows      int64  `json:"rows"`
		Checksum  string `json:"checksum"`
		ElapsedNs int64  `json:"elapsed_ns"`
	}
	concurrentReply struct {
		ID      int64         `json:"id"`
		WallNs  int64         `json:"wall_ns"`
		Readers []readerReply `json:"readers"`
	}
)

// Checksum formats a tally's sum the protocol's way: 16 lowercase hexadecimal digits.
func Checksum(sum uint64) string { return fmt.Sprintf("%016x", sum) }

// Serve answers requests from r on w until r ends, then closes the backend if it is still open and
// returns nil. It returns an error only when it can no longer speak the protocol (r or w failed, or a
// request line is longer than MaxLine); every failed request gets an error reply and serving goes on.
func Serve(ctx context.Context, r io.Reader, w io.Writer, b Backend) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	in := &requests{sc: sc}
	s := &server{b: b}
	out := bufio.NewWriter(w)
	for in.next() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var reply any
		req, bad := decode(line)
		if bad != nil {
			reply = *bad
		} else {
			if req.Op != "hello" && req.Op != "ping" && req.Op != "close" {
				in.watch(cancel) // req holds no reference to line: the next read may reuse its buffer
			}
			reply = s.handle(ctx, req)
		}
		enc, err := json.Marshal(reply)
		if err != nil {
			return fmt.Errorf("encode a reply: %w", err)
		}
		if _, err := out.Write(append(enc, '\n')); err != nil {
			return fmt.Errorf("write a reply: %w", err)
		}
		if err := out.Flush(); err != nil {
			return fmt.Errorf("write a reply: %w", err)
		}
	}
	err := sc.Err()
	if err != nil {
		err = fmt.Errorf("read requests: %w", err)
	}
	if s.open {
		err = errors.Join(err, b.Close())
	}
	return err
}

// requests reads request lines. Between requests it reads on the serving goroutine, so that a quick
// request (ping) costs one read and one write and no hand-over between goroutines. While a request
// does work, watch reads the next line ahead on a goroutine of its own, so that the end of input
// cancels the work in progress: the protocol is strictly alternating, so nothing but the next
// request, or the end of input, can arrive meanwhile.
type requests struct {
	sc    *bufio.Scanner
	ahead chan bool // set while a line is read ahead; receives its Scan result
}

func (q *requests) next() bool {
	if q.ahead != nil {
		ok := <-q.ahead
		q.ahead = nil
		return ok
	}
	return q.sc.Scan()
}

// watch starts reading the next line ahead, calling cancel if the input ends instead.
func (q *requests) watch(cancel context.CancelFunc) {
	ahead := make(chan bool, 1)
	q.ahead = ahead
	go func() {
		ok := q.sc.Scan()
		if !ok {
			cancel()
		}
		ahead <- ok
	}()
}

// server is the protocol state of one session.
type server struct {
	b    Backend
	open bool
}

// decode reads one request line; a line that is not a request gets an error reply, with id 0 when
// no id can be read from it.
func decode(line []byte) (*request, *errorReply) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		var id struct{ ID int64 }
		_ = json.Unmarshal(line, &id)
		return nil, &errorReply{ID: id.ID, Error: "bad request: " + oneLine(err.Error())}
	}
	if req.ID == nil {
		return nil, &errorReply{Error: "bad request: no id"}
	}
	return &req, nil
}

// handle answers one request. A failed request, and a panic in the backend, become an error reply.
func (s *server) handle(ctx context.Context, req *request) (reply any) {
	id := *req.ID
	defer func() {
		if p := recover(); p != nil {
			reply = errorReply{ID: id, Error: oneLine(fmt.Sprintf("%s failed: panic: %v", req.Op, p))}
		}
	}()
	r, err := s.dispatch(ctx, id, req)
	if err != nil {
		return errorReply{ID: id, Error: oneLine(err.Error())}
	}
	return r
}

func (s *server) dispatch(ctx context.Context, id int64, req *request) (any, error) {
	switch req.Op {
	case "hello":
		if req.Protocol != Version {
			return nil, fmt.Errorf("protocol version %d is not supported: this client speaks version %d", req.Protocol, Version)
		}
		return helloReply{ID: id, Protocol: Version, Hello: s.b.Hello()}, nil
	case "ping":
		return idReply{ID: id}, nil
	case "close":
		if s.open {
			s.open = false
			if err := s.b.Close(); err != nil {
				return nil, err
			}
		}
		return idReply{ID: id}, nil
	case "open":
		if s.open {
			return nil, errors.New("open: a store is open already (send close first)")
		}
		o, err := s.b.Open(ctx, Open{Options: req.Options, Size: req.Size, Seed: req.Seed,
			TempDir: req.TempDir, Dataset: req.Dataset, Postgres: req.Postgres})
		if err != nil {
			return nil, err
		}
		s.open = true
		if o.Info == nil {
			o.Info = map[string]any{}
		}
		return openReply{ID: id, Info: o.Info, ScansInKeyOrder: o.ScansInKeyOrder}, nil
	case "load", "scan", "lookup", "insert", "concurrent", "run":
		if !s.open {
			return nil, fmt.Errorf("%s: no store is open (send open first)", req.Op)
		}
		return s.work(ctx, id, req)
	case "":
		return nil, errors.New("bad request: no op")
	}
	return nil, fmt.Errorf("unknown op %q", req.Op)
}

// work runs one workload request on the open backend.
func (s *server) work(ctx context.Context, id int64, req *request) (any, error) {
	switch req.Op {
	case "load":
		rows, d, err := s.b.Load(ctx)
		return loadReply{ID: id, Rows: rows, ElapsedNs: d.Nanoseconds()}, err
	case "scan":
		rows, err := count("rows", req.Rows)
		if err != nil {
			return nil, err
		}
		t, d, err := s.b.Scan(ctx, rows)
		return timedReply{ID: id, Rows: t.Rows, Checksum: Checksum(t.Sum), ElapsedNs: d.Nanoseconds()}, err
	case "lookup":
		if req.Keys == nil {
			return nil, errors.New("lookup: missing keys")
		}
		lat := make([]time.Duration, len(req.Keys))
		t, err := s.b.Lookup(ctx, req.Keys, lat)
		return latenciesReply{ID: id, Rows: t.Rows, Checksum: Checksum(t.Sum), LatenciesNs: nanos(lat)}, err
	case "insert":
		rows, err := count("rows", req.Rows)
		if err != nil {
			return nil, err
		}
		t, d, err := s.b.Insert(ctx, rows)
		return timedReply{ID: id, Rows: t.Rows, Checksum: Checksum(t.Sum), ElapsedNs: d.Nanoseconds()}, err
	case "concurrent":
		readers, err := count("readers", req.Readers)
		if err == nil && readers == 0 {
			err = errors.New("concurrent: readers must be at least 1")
		}
		if err != nil {
			return nil, err
		}
		rows, err := count("rows", req.Rows)
		if err != nil {
			return nil, err
		}
		lat := make([]time.Duration, readers)
		tallies, wall, err := s.b.Concurrent(ctx, rows, lat)
		if err != nil {
			return nil, err
		}
		if len(tallies) != readers {
			return nil, fmt.Errorf("concurrent: the backend returned %d readers' results for %d readers", len(tallies), readers)
		}
		rs := make([]readerReply, readers)
		for i, t := range tallies {
			rs[i] = readerReply{Rows: t.Rows, Checksum: Checksum(t.Sum), ElapsedNs: lat[i].Nanoseconds()}
		}
		return concurrentReply{ID: id, WallNs: wall.Nanoseconds(), Readers: rs}, nil
	default: // run
		ops, err := count("ops", req.Ops)
		if err != nil {
			return nil, err
		}
		if req.Workload == "" {
			return nil, errors.New("run: missing workload")
		}
		lat := make([]time.Duration, ops)
		t, err := s.b.Run(ctx, req.Workload, req.Params, lat)
		return latenciesReply{ID: id, Rows: t.Rows, Checksum: Checksum(t.Sum), LatenciesNs: nanos(lat)}, err
	}
}

// count reads a required non-negative count field.
func count(name string, v *int) (int, error) {
	switch {
	case v == nil:
		return 0, fmt.Errorf("missing %s", name)
	case *v < 0:
		return 0, fmt.Errorf("%s must not be negative, got %d", name, *v)
	}
	return *v, nil
}

func nanos(d []time.Duration) []int64 {
	ns := make([]int64, len(d))
	for i, v := range d {
		ns[i] = v.Nanoseconds()
	}
	return ns
}

// oneLine keeps an error message on one line, as replies must be.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

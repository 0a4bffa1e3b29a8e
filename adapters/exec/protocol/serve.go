package protocol

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/dbbench/dbbench/internal/exitcode"
)

// MaxLine bounds one line of the protocol, a request or a reply (docs/protocol.md: 64 MiB).
const MaxLine = 64 << 20

// request is what Serve reads of any request: every op's fields (the request types' of
// messages.go), with pointers where a missing field must be told from a zero.
type request struct {
	ID       *int64 `json:"id"`
	Op       string `json:"op"`
	Protocol int    `json:"protocol"`
	Open
	Rows     *int           `json:"rows"`
	Keep     bool           `json:"keep"`
	Keys     []int          `json:"keys"`
	Readers  *int           `json:"readers"`
	Workload string         `json:"workload"`
	Params   map[string]any `json:"params"`
	Ops      *int           `json:"ops"`
	// load_records and do (capability ops)
	File       string   `json:"file"`
	Count      *int64   `json:"count"`
	FieldCount int      `json:"fieldcount"`
	Kind       string   `json:"kind"`
	Key        *string  `json:"key"`
	Field      *int     `json:"field"`
	Value      *string  `json:"value"`
	Fields     []string `json:"fields"`
}

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
			// A do is one short operation: reading ahead for it (a hand-over between goroutines per
			// request) cost the Go client a third of its record rate (BenchmarkRecordRead, go/lmdb:
			// 6,400-7,400 reads/s with it, 10,800-14,300 without), and the end of input still ends
			// the session right after it.
			if req.Op != OpHello && req.Op != OpPing && req.Op != OpClose && req.Op != OpDo {
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
	b       Backend
	open    bool
	version int  // what hello agreed (0 before hello: version 1's requests)
	kept    bool // an insert's fresh store is kept, until drop
	profile bool // open asked for phases (capability phases)
	// keptOther: the kept store was of kind other (dbbench cannot open it): the insert read it back
	// itself and dropped it, and drop has nothing left to do.
	keptOther bool
}

// decode reads one request line; a line that is not a request gets an error reply, with id 0 when
// no id can be read from it.
func decode(line []byte) (*request, *ErrorReply) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		var id struct{ ID int64 }
		_ = json.Unmarshal(line, &id)
		return nil, &ErrorReply{ID: id.ID, Error: "bad request: " + exitcode.OneLine(err.Error())}
	}
	if req.ID == nil {
		return nil, &ErrorReply{Error: "bad request: no id"}
	}
	return &req, nil
}

// handle answers one request. A failed request, and a panic in the backend, become an error reply.
func (s *server) handle(ctx context.Context, req *request) (reply any) {
	id := *req.ID
	defer func() {
		if p := recover(); p != nil {
			reply = ErrorReply{ID: id, Error: exitcode.OneLine(fmt.Sprintf("%s failed: panic: %v", req.Op, p))}
		}
	}()
	r, err := s.dispatch(ctx, id, req)
	if err != nil {
		return ErrorReply{ID: id, Error: exitcode.OneLine(err.Error())}
	}
	return r
}

func (s *server) dispatch(ctx context.Context, id int64, req *request) (any, error) {
	switch req.Op {
	case OpHello:
		if req.Protocol < MinVersion || req.Protocol > Version {
			return nil, fmt.Errorf("protocol version %d is not supported: this client speaks versions %d to %d", req.Protocol, MinVersion, Version)
		}
		s.version = req.Protocol
		h := s.b.Hello()
		if s.version >= 2 {
			h.Capabilities = capabilities(s.b)
		} else {
			h.Capabilities, h.InFlight = nil, 0
		}
		return HelloReply{ID: id, Protocol: s.version, Hello: h}, nil
	case OpPing:
		return Reply{ID: id}, nil
	case OpClose:
		if s.open {
			s.open = false
			if err := s.b.Close(); err != nil {
				return nil, err
			}
		}
		return Reply{ID: id}, nil
	case OpOpen:
		if s.open {
			return nil, errors.New("open: a store is open already (send close first)")
		}
		if req.Profile && !offersPhases(s.b, s.version) {
			return nil, errors.New("open: profile asks for phases, which this client does not offer (protocol 2, capability phases)")
		}
		o, err := s.b.Open(ctx, req.Open)
		if err != nil {
			return nil, err
		}
		s.open, s.profile = true, req.Profile
		if o.Info == nil {
			o.Info = map[string]any{}
		}
		return OpenReply{ID: id, Opened: o}, nil
	case OpDrop:
		k, ok := s.b.(Keeper)
		if !ok || s.version < 2 {
			return nil, errors.New("drop: this client keeps no store (protocol 2, capability keep_store)")
		}
		if !s.kept {
			return nil, errors.New("drop: no insert kept its store")
		}
		s.kept = false
		if s.keptOther {
			s.keptOther = false
			return Reply{ID: id}, nil
		}
		return Reply{ID: id}, k.Drop()
	case OpLoad, OpScan, OpLookup, OpInsert, OpConcurrent, OpRun:
		if !s.open {
			return nil, fmt.Errorf("%s: no store is open (send open first)", req.Op)
		}
		if s.profile && req.Op != OpLoad {
			return s.profiled(func() (any, error) { return s.work(ctx, id, req) })
		}
		return s.work(ctx, id, req)
	case OpLoadRecords, OpDo:
		if !s.open {
			return nil, fmt.Errorf("%s: no store is open (send open first)", req.Op)
		}
		if s.profile && req.Op == OpDo {
			return s.profiled(func() (any, error) { return s.records(ctx, id, req) })
		}
		return s.records(ctx, id, req)
	case "":
		return nil, errors.New("bad request: no op")
	}
	return nil, fmt.Errorf("unknown op %q", req.Op)
}

// work runs one workload request on the open backend.
func (s *server) work(ctx context.Context, id int64, req *request) (any, error) {
	switch req.Op {
	case OpLoad:
		rows, d, err := s.b.Load(ctx)
		r := LoadReply{ID: id, Rows: rows, ElapsedNs: d.Nanoseconds()}
		if sd, ok := s.b.(StoreDescriber); ok && s.version >= 2 && err == nil {
			st := sd.LoadedStore()
			r.Store = &st
		}
		return r, err
	case OpInsert:
		if req.Keep {
			return s.keep(ctx, id, req)
		}
		fallthrough
	case OpScan:
		rows, err := count("rows", req.Rows)
		if err != nil {
			return nil, err
		}
		read := s.b.Scan
		if req.Op == OpInsert {
			read = s.b.Insert
		}
		t, d, err := read(ctx, rows)
		return TimedReply{ID: id, Timed: timed(t, d)}, err
	case OpLookup:
		if req.Keys == nil {
			return nil, errors.New("lookup: missing keys")
		}
		lat := make([]time.Duration, len(req.Keys))
		t, err := s.b.Lookup(ctx, req.Keys, lat)
		return latencies(id, t, lat), err
	case OpConcurrent:
		return s.concurrent(ctx, id, req)
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
		return latencies(id, t, lat), err
	}
}

// keep runs an insert with keep: the fresh store stays until drop.
func (s *server) keep(ctx context.Context, id int64, req *request) (any, error) {
	k, ok := s.b.(Keeper)
	if !ok || s.version < 2 {
		return nil, errors.New("insert: keep needs protocol 2 and capability keep_store, which this client does not offer")
	}
	if s.kept {
		return nil, errors.New("insert: the last insert's store is still kept (send drop first)")
	}
	rows, err := count("rows", req.Rows)
	if err != nil {
		return nil, err
	}
	if sd, ok := s.b.(StoreDescriber); ok && sd.LoadedStore().Kind == StoreOther {
		// dbbench cannot open this store: the client's own read-back, as in version 1.
		t, d, err := s.b.Insert(ctx, rows)
		if err != nil {
			return nil, err
		}
		s.kept, s.keptOther = true, true
		return KeptReply{ID: id, ElapsedNs: d.Nanoseconds(), Store: Store{Kind: StoreOther}, Rows: &t.Rows, Checksum: Checksum(t.Sum)}, nil
	}
	st, d, err := k.InsertKeep(ctx, rows)
	if err != nil {
		return nil, err
	}
	s.kept = true
	return KeptReply{ID: id, ElapsedNs: d.Nanoseconds(), Store: st}, nil
}

// concurrent runs the concurrent request: its readers at once, each with its own tally and time.
func (s *server) concurrent(ctx context.Context, id int64, req *request) (any, error) {
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
	rs := make([]Timed, readers)
	for i, t := range tallies {
		rs[i] = timed(t, lat[i])
	}
	return ConcurrentReply{ID: id, WallNs: wall.Nanoseconds(), Readers: rs}, nil
}

func timed(t Tally, d time.Duration) Timed {
	return Timed{Rows: t.Rows, Checksum: Checksum(t.Sum), ElapsedNs: d.Nanoseconds()}
}

func latencies(id int64, t Tally, lat []time.Duration) LatenciesReply {
	ns := make([]int64, len(lat))
	for i, v := range lat {
		ns[i] = v.Nanoseconds()
	}
	return LatenciesReply{ID: id, Rows: t.Rows, Checksum: Checksum(t.Sum), LatenciesNs: ns}
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

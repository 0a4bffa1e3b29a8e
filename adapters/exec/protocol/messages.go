package protocol

import (
	"fmt"
	"strconv"
)

// The messages of docs/protocol.md, as both sides use them: dbbench (adapters/exec) encodes requests
// and decodes replies; a Go client (Serve) decodes requests and encodes replies. Fields stand in the
// order docs/protocol.md writes them. A reply field without omitempty is required: dbbench refuses a
// reply that lacks it.

// The ops.
const (
	OpHello      = "hello"
	OpOpen       = "open"
	OpLoad       = "load"
	OpPing       = "ping"
	OpScan       = "scan"
	OpLookup     = "lookup"
	OpInsert     = "insert"
	OpConcurrent = "concurrent"
	OpRun        = "run"
	OpClose      = "close"
	// Protocol 2.
	OpDrop      = "drop"      // drop the fresh store an insert kept (capability keep_store)
	OpChallenge = "challenge" // insert, or remove, persons chosen at run time (capability challenge)
)

// The capabilities a version 2 client may list in its hello reply (docs/protocol.md).
const (
	CapKeepStore = "keep_store" // insert with keep: the fresh store stays for dbbench to read, until drop
	CapStore     = "store"      // the load reply describes the loaded store, for dbbench to read
	CapChallenge = "challenge"  // challenge persons inserted, looked up by email, scanned, removed
	CapOps       = "ops"        // YCSB records: load_records and do requests (records.go)
	CapPhases    = "phases"     // phases_ns on timed replies, when open asked for profile
)

// The kinds of store a Store describes.
const (
	StoreLMDB     = "lmdb"
	StoreSQLite   = "sqlite"
	StorePostgres = "postgres"
	StoreOther    = "other" // dbbench cannot open it: it gets the challenge instead
)

// Store describes a store in the person layout of docs/protocol.md, so that dbbench can read it
// itself: an LMDB environment (Path, its unnamed database), a SQLite file (Path) or a table of the
// PostgreSQL schema dbbench handed the client (Schema); Table ("persons" when empty) for SQL.
type Store struct {
	Kind   string `json:"kind"`
	Path   string `json:"path,omitempty"`
	Schema string `json:"schema,omitempty"`
	Table  string `json:"table,omitempty"`
}

// Person is a challenge person, chosen by dbbench at run time.
type Person struct {
	Email string `json:"email"`
	Name  string `json:"name"`
	Age   int    `json:"age"`
}

// Header starts every request: its id (1, 2, 3, ... within a session) and its op. On its own it is
// the request of load, ping and close.
type Header struct {
	ID int64  `json:"id"`
	Op string `json:"op"`
}

// Head returns the header, so that every request type (each embeds Header) is a Request.
func (h *Header) Head() *Header { return h }

// Request is a request of any op.
type Request interface{ Head() *Header }

// Requests, beyond Header.
type (
	HelloRequest struct {
		Header
		Protocol int    `json:"protocol"`
		DBBench  string `json:"dbbench"`
	}
	OpenRequest struct {
		Header
		Open
	}
	// RowsRequest is the request of scan and insert.
	RowsRequest struct {
		Header
		Rows int `json:"rows"`
	}
	// InsertRequest is insert with keep (protocol 2, capability keep_store).
	InsertRequest struct {
		Header
		Rows int  `json:"rows"`
		Keep bool `json:"keep"`
	}
	LookupRequest struct {
		Header
		Keys []int32 `json:"keys"`
	}
	// EmailLookupRequest is lookup by email (protocol 2, capability challenge).
	EmailLookupRequest struct {
		Header
		Emails []string `json:"emails"`
	}
	// ChallengeRequest inserts Persons, or removes those it inserted (Remove).
	ChallengeRequest struct {
		Header
		Persons []Person `json:"persons,omitempty"`
		Remove  bool     `json:"remove,omitempty"`
	}
	ConcurrentRequest struct {
		Header
		Readers int `json:"readers"`
		Rows    int `json:"rows"`
	}
	RunRequest struct {
		Header
		Workload string         `json:"workload"`
		Params   map[string]any `json:"params"`
		Ops      int            `json:"ops"`
	}
)

// Replies. Each carries the id of its request; a timed one may carry the client's phases
// (PhasesNs, capability phases, when open asked for profile), whose sum is at most its own time.
type (
	// Reply is the reply to ping and close.
	Reply struct {
		ID int64 `json:"id"`
	}
	// ErrorReply answers a failed request; the client stays usable.
	ErrorReply struct {
		ID    int64  `json:"id"`
		Error string `json:"error"`
	}
	HelloReply struct {
		ID       int64 `json:"id"`
		Protocol int   `json:"protocol"`
		Hello
	}
	OpenReply struct {
		ID int64 `json:"id"`
		Opened
	}
	LoadReply struct {
		ID        int64  `json:"id"`
		Rows      int64  `json:"rows"`
		ElapsedNs int64  `json:"elapsed_ns,omitempty"`
		Store     *Store `json:"store,omitempty"` // protocol 2, capability store
	}
	// KeptReply is the reply of insert with keep: the time and the fresh store; the client's own
	// read-back (rows and checksum) is optional, and checked against dbbench's when given.
	KeptReply struct {
		ID        int64  `json:"id"`
		ElapsedNs int64  `json:"elapsed_ns"`
		Store     Store  `json:"store"`
		Rows      *int64 `json:"rows,omitempty"`
		Checksum  string `json:"checksum,omitempty"`
		PhasesNs  Phases `json:"phases_ns,omitempty"`
	}
	// Timed is what one read reports with the client's time: the reply of scan and insert (TimedReply),
	// and each reader of concurrent.
	Timed struct {
		Rows      int64  `json:"rows"`
		Checksum  string `json:"checksum"`
		ElapsedNs int64  `json:"elapsed_ns"`
	}
	TimedReply struct {
		ID int64 `json:"id"`
		Timed
		PhasesNs Phases `json:"phases_ns,omitempty"`
	}
	// LatenciesReply is the reply of lookup and run: one latency per operation.
	LatenciesReply struct {
		ID          int64   `json:"id"`
		Rows        int64   `json:"rows"`
		Checksum    string  `json:"checksum"`
		LatenciesNs []int64 `json:"latencies_ns"`
		PhasesNs    Phases  `json:"phases_ns,omitempty"` // over all its operations
	}
	ConcurrentReply struct {
		ID       int64   `json:"id"`
		WallNs   int64   `json:"wall_ns"`
		Readers  []Timed `json:"readers"`
		PhasesNs Phases  `json:"phases_ns,omitempty"` // over all its readers
	}
)

// Checksum formats a tally's sum the protocol's way: 16 lowercase hexadecimal digits.
func Checksum(sum uint64) string { return fmt.Sprintf("%016x", sum) }

// ParseChecksum reads a checksum as the protocol sends it: 16 lowercase hexadecimal digits.
func ParseChecksum(s string) (uint64, error) {
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil || len(s) != 16 || Checksum(v) != s {
		return 0, fmt.Errorf("checksum %q is not 16 lowercase hexadecimal digits", s)
	}
	return v, nil
}

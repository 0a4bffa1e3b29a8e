// Package protocol is dbbench's client protocol, versions 1 and 2 (docs/protocol.md): its messages, which
// dbbench's exec adapter and Go clients share, and Serve, which serves it for clients written in Go.
// A client implements Backend for the library it measures and calls Serve with its stdin and stdout;
// Serve decodes requests, calls the backend, and writes one reply per request.
//
// Timing is the backend's: it reads its own monotonic clock around exactly the work and returns
// the durations, so that neither JSON nor pipes are ever inside a timed region.
package protocol

import (
	"context"
	"time"
)

// Version is the newest protocol version this package speaks, on both sides; it speaks MinVersion
// too (dbbench run accepts a version 1 client, with weaker verification).
const (
	Version    = 2
	MinVersion = 1
)

// Hello describes the client in its reply to the hello request.
type Hello struct {
	Client         string   `json:"client"`
	ClientVersion  string   `json:"client_version"`
	Language       string   `json:"language"`
	Runtime        string   `json:"runtime"`
	Library        string   `json:"library"`
	LibraryVersion string   `json:"library_version"`
	Workloads      []string `json:"workloads"`
	Options        []string `json:"options"`
	// Capabilities (protocol 2): what the client offers beyond version 1 (Cap*). Serve fills them
	// from the interfaces the backend implements.
	Capabilities []string `json:"capabilities,omitempty"`
	// InFlight (protocol 2, capability ops): how many do requests the client holds at once.
	InFlight int `json:"in_flight,omitempty"`
}

// Open is what the open request carries: where the store goes and what it holds.
type Open struct {
	// Options is the target's client options from the config, verbatim (JSON-decoded values).
	Options map[string]any `json:"options"`
	Size    int            `json:"size"`
	Seed    int64          `json:"seed"`
	TempDir string         `json:"temp_dir"`
	// Dataset is the path of the person file (dataset.ReadFile reads it).
	Dataset string `json:"dataset"`
	// Postgres is set for targets with a PostgreSQL server: create tables in Schema only.
	Postgres *Postgres `json:"postgres,omitempty"`
	// Profile asks a client offering capability phases to time its phases (phases_ns); without it
	// the client's timed regions stay as they are, with no clock read for phases.
	Profile bool `json:"profile,omitempty"`
}

// Postgres is a server and a schema dbbench created for the target. The DSN is a secret.
type Postgres struct {
	DSN    string `json:"dsn"`
	Schema string `json:"schema"`
}

// Opened is what the reply to open says.
type Opened struct {
	Info            map[string]any `json:"info"`
	ScansInKeyOrder bool           `json:"scans_in_key_order"`
}

// Tally is what a read produced: rows decoded and the sum of their dataset.RowSum (mod 2^64).
type Tally struct {
	Rows int64
	Sum  uint64
}

// Backend is the library a client measures. Serve calls it from one goroutine, one request at a
// time, and only in a sensible order: Open before any work, Close at most once after a successful
// Open. ctx is cancelled when stdin ends; long work should give up then.
type Backend interface {
	Hello() Hello
	Open(ctx context.Context, req Open) (Opened, error)
	// Load stores the whole dataset with the fastest bulk path. elapsed may be 0 (not reported).
	Load(ctx context.Context) (rows int64, elapsed time.Duration, err error)
	// Scan reads the first rows persons in one read transaction, timed from its begin to its end.
	Scan(ctx context.Context, rows int) (Tally, time.Duration, error)
	// Lookup looks up the persons of the given dataset indices, each in its own read transaction,
	// and times each one into lat (len(lat) == len(keys)).
	Lookup(ctx context.Context, keys []int, lat []time.Duration) (Tally, error)
	// Insert inserts the first rows persons into a fresh store in one write transaction, timed from
	// begin to commit, then reads the fresh store back (untimed), drops it and returns what it held.
	Insert(ctx context.Context, rows int) (Tally, time.Duration, error)
	// Concurrent runs len(lat) readers at once, each scanning rows persons, puts reader i's time
	// into lat[i] and returns each reader's tally and the wall time from release to the last end.
	Concurrent(ctx context.Context, rows int, lat []time.Duration) ([]Tally, time.Duration, error)
	// Run performs len(lat) operations of an adapter-specific workload, timing each into lat.
	Run(ctx context.Context, workload string, params map[string]any, lat []time.Duration) (Tally, error)
	// Close releases everything Open created.
	Close() error
}

// StoreDescriber is a Backend whose loaded store dbbench can open itself, read-only, to check it
// (protocol 2, capability store).
type StoreDescriber interface {
	// LoadedStore describes the store Load filled.
	LoadedStore() Store
}

// Keeper is a Backend that keeps an insert's fresh store until dbbench has read it (protocol 2,
// capability keep_store).
type Keeper interface {
	// InsertKeep is Insert without the read-back and the drop: it times the same region and returns
	// the fresh store, still there.
	InsertKeep(ctx context.Context, rows int) (Store, time.Duration, error)
	// Drop drops the store the last InsertKeep kept.
	Drop() error
}

// capabilities lists what b offers beyond version 1.
func capabilities(b Backend) []string {
	caps := []string{}
	if _, ok := b.(Keeper); ok {
		caps = append(caps, CapKeepStore)
	}
	if _, ok := b.(StoreDescriber); ok {
		caps = append(caps, CapStore)
	}
	if _, ok := b.(RecordBackend); ok {
		caps = append(caps, CapOps)
	}
	if offersPhases(b, 2) {
		caps = append(caps, CapPhases)
	}
	return caps
}

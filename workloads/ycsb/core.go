package ycsb

import (
	"fmt"
	"math/rand/v2"

	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/workloads"
)

// Request distributions (YCSB's requestdistribution). Exponential is YCSB's too and not built here.
const (
	DistUniform    = "uniform"
	DistZipfian    = "zipfian"
	DistLatest     = "latest"
	DistHotspot    = "hotspot"
	DistSequential = "sequential"
)

// Distributions lists the request distributions built here.
var Distributions = []string{DistUniform, DistZipfian, DistLatest, DistHotspot, DistSequential}

// Workload is one of YCSB's workloads as its CoreWorkload properties describe it.
type Workload struct {
	Name                string // the built-in config's name: ycsb-a ... ycsb-f
	Description         string
	Mix                 Mix
	RequestDistribution string
	MaxScanLength       int64 // maxscanlength (scans are uniform in 1..MaxScanLength)
	FieldCount          int   // fieldcount
	FieldLength         int   // fieldlength
	Ordered             bool  // insertorder=ordered (false: hashed, YCSB's default)
	HotspotDataFraction float64
	HotspotOpnFraction  float64
	ReadAllFields       bool // readallfields (default true)
	WriteAllFields      bool // writeallfields (default false: an update writes one field)
}

// Defaults of CoreWorkload's properties.
const (
	DefaultMaxScanLength       = 1000 // CoreWorkload's default; workload E sets 100
	DefaultHotspotDataFraction = 0.2
	DefaultHotspotOpnFraction  = 0.8
)

func core(name, desc string, mix Mix, dist string) Workload {
	return Workload{
		Name: name, Description: desc, Mix: mix, RequestDistribution: dist,
		MaxScanLength: DefaultMaxScanLength, FieldCount: dataset.YCSBFieldCount, FieldLength: dataset.YCSBFieldLength,
		HotspotDataFraction: DefaultHotspotDataFraction, HotspotOpnFraction: DefaultHotspotOpnFraction,
		ReadAllFields: true,
	}
}

// Core holds YCSB's core workloads A-F (workloads/workloada ... workloadf in YCSB's repository).
var Core = func() []Workload {
	e := core("ycsb-e", "short ranges: 95% scans of up to 100 records, 5% inserts", Mix{Scan: 0.95, Insert: 0.05}, DistZipfian)
	e.MaxScanLength = 100
	return []Workload{
		core("ycsb-a", "update heavy: 50% reads, 50% updates", Mix{Read: 0.5, Update: 0.5}, DistZipfian),
		core("ycsb-b", "read mostly: 95% reads, 5% updates", Mix{Read: 0.95, Update: 0.05}, DistZipfian),
		core("ycsb-c", "read only", Mix{Read: 1}, DistZipfian),
		core("ycsb-d", "read latest: 95% reads, 5% inserts, the newest records most", Mix{Read: 0.95, Insert: 0.05}, DistLatest),
		e,
		core("ycsb-f", "read-modify-write: 50% reads, 50% read-modify-writes", Mix{Read: 0.5, ReadModifyWrite: 0.5}, DistZipfian),
	}
}()

// Lookup returns the core workload of that name.
func Lookup(name string) (Workload, bool) {
	for _, w := range Core {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
}

// Operation is one drawn operation: its type, the record it addresses (the scan's first record; for
// an insert the new record's number) and, for a scan, how many records it reads.
type Operation struct {
	Type    Op
	Record  int64
	ScanLen int64
}

// Generator draws a workload's run phase: operation types in the mix's proportions, records from
// the request distribution, scan lengths, and inserts numbered after the records that exist. It is
// deterministic from its seed and safe for one goroutine (the dispatcher's).
//
// Operation k draws from a stream of its own, seeded from (seed, k): its type, and so the records
// inserts take, and its scan length are a function of k alone, whatever earlier operations drew. A
// record drawn again (Rekey, YCSB's nextKeynum loop) changes that operation's record and nothing
// after it, so one process that redraws and a shard that never does follow one sequence.
type Generator struct {
	seed    uint64
	src     rand.PCG // re-seeded for each operation
	r       *rand.Rand
	k       uint64 // the next operation's place in the sequence
	ops     *OpChooser
	keys    KeyChooser
	scan    ScanLength
	records int64 // records that exist: loaded plus inserted so far
}

// NewGenerator returns the run-phase generator of w over records loaded records and operations
// operations (the zipfian key space counts the inserts expected, as YCSB does, with its fudge factor
// of 2).
func NewGenerator(w Workload, records, operations int64, seed int64) (*Generator, error) {
	if records <= 0 {
		return nil, fmt.Errorf("%s: recordcount must be positive, got %d", w.Name, records)
	}
	ops, err := NewOpChooser(w.Mix)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.Name, err)
	}
	var total float64
	for _, v := range w.Mix {
		total += v
	}
	expectedInserts := int64(float64(operations) * w.Mix[Insert] / total * 2)
	var keys KeyChooser
	switch w.RequestDistribution {
	case DistUniform:
		keys = Uniform{N: records}
	case DistSequential:
		keys = &Sequential{N: records}
	case DistZipfian:
		keys, err = NewScrambledZipfian(records + expectedInserts)
	case DistLatest:
		keys, err = NewLatest(records)
	case DistHotspot:
		keys, err = NewHotspot(records, w.HotspotDataFraction, w.HotspotOpnFraction)
	default:
		err = fmt.Errorf("unknown request distribution %q (known: %v)", w.RequestDistribution, Distributions)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.Name, err)
	}
	if w.Mix[Scan] > 0 && w.MaxScanLength <= 0 {
		return nil, fmt.Errorf("%s: maxscanlength must be positive, got %d", w.Name, w.MaxScanLength)
	}
	g := &Generator{seed: dataset.Mix64(uint64(seed) ^ 0x79c5b2a1d3e0f417), ops: ops, keys: keys, scan: ScanLength{Max: w.MaxScanLength}, records: records}
	g.r = rand.New(&g.src)
	return g, nil
}

// Records is the number of records that exist after the inserts drawn so far.
func (g *Generator) Records() int64 { return g.records }

// Next draws the next operation. An insert takes the next record number; the records it adds are
// counted from the draw on (an integration that verifies reads of them must let an insert finish
// before a read can address it, as YCSB's acknowledged counter does: Rekey).
func (g *Generator) Next() Operation {
	g.src.Seed(workloads.OpStream(g.seed, g.k))
	g.k++
	op := Operation{Type: g.ops.Next(g.r)}
	switch op.Type {
	case Insert:
		op.Record = g.records
		g.records++
	case Scan:
		op.Record = g.keys.Next(g.r, g.records)
		op.ScanLen = g.scan.Next(g.r)
	default:
		op.Record = g.keys.Next(g.r, g.records)
	}
	return op
}

// Rekey draws the record of op, the operation Next has just drawn (a read, update, scan or
// read-modify-write), again: YCSB's CoreWorkload draws a key again while it is beyond the last
// acknowledged insert. It goes on with op's own stream, so the operations after op are the same
// whether it is called or not; call it before the next Next.
func (g *Generator) Rekey(op *Operation) {
	if op.Type != Insert {
		op.Record = g.keys.Next(g.r, g.records)
	}
}

// Package workloads says what a workload is: the common workloads' names, their parameters and the
// defaults those take for a dataset size, the keys a lookup reads and the persons an insert writes,
// and what a correct result holds (rows and checksum). The engine runs workloads, adapters and
// clients implement them, and the config validates them; all of them read the definition here, so
// none of them needs the others for it.
package workloads

import (
	"hash/fnv"

	"github.com/dbbench/dbbench/dataset"
)

// The four common workloads.
const (
	Scan       = "scan"
	Lookup     = "lookup"
	Insert     = "insert"
	Concurrent = "concurrent"
)

// Builtins lists the common workloads in their canonical order.
var Builtins = []string{Scan, Lookup, Insert, Concurrent}

// Defaults of a workload's sizes that the config leaves out (see Params).
const (
	DefaultLookups = 1000  // lookup: keys looked up (at most the dataset size)
	DefaultInserts = 10000 // insert: persons inserted in one transaction (at most the dataset size)
	DefaultReaders = 4     // concurrent: readers
	DefaultRows    = 10000 // concurrent: rows each reader scans (at most the dataset size)
	DefaultOps     = 100   // an adapter's own workload: operations
)

// Params resolves a workload's sizes for a dataset of size persons: a zero rows, ops or readers
// takes the workload's default (scan reads the whole dataset).
func Params(name string, rows, ops, readers, size int) (int, int, int) {
	switch name {
	case Scan:
		if rows == 0 {
			rows = size
		}
	case Lookup:
		if ops == 0 {
			ops = min(DefaultLookups, size)
		}
	case Insert:
		if ops == 0 {
			ops = min(DefaultInserts, size)
		}
	case Concurrent:
		if readers == 0 {
			readers = DefaultReaders
		}
		if rows == 0 {
			rows = min(DefaultRows, size)
		}
	default:
		if ops == 0 {
			ops = DefaultOps
		}
	}
	return rows, ops, readers
}

// Seed derives a workload's own seed from the run's seed and the workload's name: its key sample is
// drawn from it, identical for every target, so that all of them do the same work.
func Seed(runSeed int64, name string) int64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return runSeed ^ int64(h.Sum64()>>1)
}

// OpStream is the seed of operation k's random stream in a sequence whose base seed is base (a
// workload's seed, mixed with a constant of its generator's own): operation k draws from it alone,
// whatever the operations before it drew, so one process and every shard of a sharded run draw the
// same operation k. YCSB's generator (ycsb.Generator.Next), a pgbench script's
// (pgbench.Generator.Draw) and the sql workload's mix seed their streams here, as
// rand.NewPCG(OpStream(base, k)).
func OpStream(base, k uint64) (seed1, seed2 uint64) {
	x := base + k*0x9e3779b97f4a7c15
	return dataset.Mix64(x), dataset.Mix64(x ^ 0x5851f42d4c957f2d)
}

// Unit is what one latency sample of a workload times: one scan, one lookup, one insert transaction,
// one concurrent reader, or one operation of an adapter's own (custom) workload.
func Unit(name string, custom bool) string {
	switch {
	case custom:
		return "op"
	case name == Scan:
		return "scan"
	case name == Lookup:
		return "lookup"
	case name == Insert:
		return "insert-txn"
	}
	return "reader"
}

// Run is a workload resolved for one dataset: its sizes and the data its operations use.
type Run struct {
	Name    string
	Rows    int
	Ops     int
	Readers int
	DS      *dataset.Persons
	Keys    []int32          // lookup: dataset indices to look up
	Emails  [][]byte         // lookup: the keys' emails
	Persons []dataset.Person // insert: what to insert
}

// Resolve makes the run of a workload on ds with its sizes (as Params resolved them): a lookup's
// keys are a sample drawn with the workload's Seed, an insert's persons are the dataset's first ones.
func Resolve(name string, rows, ops, readers int, ds *dataset.Persons, runSeed int64) Run {
	r := Run{Name: name, Rows: rows, Ops: ops, Readers: readers, DS: ds}
	switch name {
	case Lookup:
		r.Keys = ds.Sample(ops, Seed(runSeed, name))
		r.Emails = make([][]byte, len(r.Keys))
		for i, k := range r.Keys {
			r.Emails[i] = ds.Email(int(k))
		}
	case Insert:
		r.Persons = make([]dataset.Person, ops)
		for i := range r.Persons {
			r.Persons[i] = ds.Person(i)
		}
	}
	return r
}

// ReportParams are the parameters a result of the run shows in the report: the sizes that matter
// to the workload.
func (r Run) ReportParams() map[string]any {
	params := map[string]any{}
	switch r.Name {
	case Scan:
		params["rows"] = r.Rows
	case Lookup, Insert:
		params["ops"] = r.Ops
	case Concurrent:
		params["readers"], params["rows"] = r.Readers, r.Rows
	default:
		params["ops"] = r.Ops
	}
	return params
}

// Expectation is what a correct result of a workload holds, checked before its times count.
type Expectation struct {
	Rows       int64 // rows read, found or read back (per reader for concurrent); -1: the adapter checks
	Sum        uint64
	HasSum     bool // Sum is known exactly
	PerReader  bool // Rows and Sum hold for each concurrent reader
	SameAcross bool // no exact expectation: every repeat (and target) must agree
	Method     string
}

// Expect says what a correct result of the run holds on a target. ordered: the target scans in key
// (email) order, so a partial scan has a known checksum; crossCheck: an adapter's own workload whose
// checksums are compared across targets.
func (r Run) Expect(ordered, crossCheck bool) Expectation {
	v := Expectation{}
	switch r.Name {
	case Scan:
		v.Rows, v.PerReader = int64(r.Rows), false
		switch {
		case r.Rows == r.DS.Len():
			v.Sum, v.HasSum, v.Method = r.DS.SumFirst(r.DS.Len()), true, "rows == N and checksum == the whole dataset"
		case ordered:
			v.Sum, v.HasSum, v.Method = r.DS.SumSortedPrefix(r.Rows), true, "rows == N and checksum == the first N persons in email order"
		default:
			v.Method = "rows == N; checksum identical across repeats and targets"
			v.SameAcross = true
		}
	case Lookup:
		v.Rows, v.Sum, v.HasSum = int64(len(r.Keys)), r.DS.SumOf(r.Keys), true
		v.Method = "every key found; checksum == the looked-up persons"
	case Insert:
		v.Rows, v.Sum, v.HasSum = int64(len(r.Persons)), r.DS.SumFirst(len(r.Persons)), true
		v.Method = "fresh store read back after commit: rows == N and checksum == the inserted persons"
	case Concurrent:
		v.Rows, v.PerReader = int64(r.Rows), true
		if r.Rows == r.DS.Len() {
			v.Sum, v.HasSum = r.DS.SumFirst(r.DS.Len()), true
			v.Method = "each reader: rows == R and checksum == the whole dataset"
		} else if ordered {
			v.Sum, v.HasSum = r.DS.SumSortedPrefix(r.Rows), true
			v.Method = "each reader: rows == R and checksum == the first R persons in email order"
		} else {
			v.Method = "each reader: rows == R; checksums identical across readers, repeats and targets"
			v.SameAcross = true
		}
	default:
		v.Rows = -1
		v.Method = "checked by the adapter on every operation"
		if crossCheck {
			v.Method += "; checksums identical across targets, repeat by repeat"
		}
	}
	return v
}

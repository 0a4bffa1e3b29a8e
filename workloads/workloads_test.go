package workloads

import (
	"bytes"
	"slices"
	"testing"

	"github.com/dbbench/dbbench/dataset"
)

// TestParams: a size left at zero takes the workload's default, capped at the dataset where a
// workload reads or writes that many persons; a size given is kept as it is.
func TestParams(t *testing.T) {
	tests := []struct {
		what, workload                 string
		rows, ops, readers, size       int
		wantRows, wantOps, wantReaders int
	}{
		{"scan reads the dataset", Scan, 0, 0, 0, 5000, 5000, 0, 0},
		{"scan rows given", Scan, 70, 0, 0, 5000, 70, 0, 0},
		{"lookup default", Lookup, 0, 0, 0, 50000, 0, DefaultLookups, 0},
		{"lookup capped at the dataset", Lookup, 0, 0, 0, 300, 0, 300, 0},
		{"lookup ops given", Lookup, 0, 20, 0, 300, 0, 20, 0},
		{"insert default", Insert, 0, 0, 0, 50000, 0, DefaultInserts, 0},
		{"insert capped at the dataset", Insert, 0, 0, 0, 300, 0, 300, 0},
		{"concurrent defaults", Concurrent, 0, 0, 0, 50000, DefaultRows, 0, DefaultReaders},
		{"concurrent rows capped", Concurrent, 0, 0, 0, 300, 300, 0, DefaultReaders},
		{"concurrent given", Concurrent, 9, 0, 2, 300, 9, 0, 2},
		{"an adapter's own workload", "page_all", 0, 0, 0, 300, 0, DefaultOps, 0},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			rows, ops, readers := Params(tt.workload, tt.rows, tt.ops, tt.readers, tt.size)
			if rows != tt.wantRows || ops != tt.wantOps || readers != tt.wantReaders {
				t.Errorf("Params(%s, %d, %d, %d, size %d) = rows %d, ops %d, readers %d; want %d, %d, %d", tt.workload,
					tt.rows, tt.ops, tt.readers, tt.size, rows, ops, readers, tt.wantRows, tt.wantOps, tt.wantReaders)
			}
		})
	}
}

// TestResolve: a lookup's keys are drawn with the workload's seed (the same for every target, other
// for another run seed or workload) and come with their emails; an insert writes the first persons.
func TestResolve(t *testing.T) {
	ds, err := dataset.Generate(500, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := Resolve(Lookup, 0, 40, 0, ds, 7)
	if len(r.Keys) != 40 || len(r.Emails) != 40 {
		t.Fatalf("lookup of 40: %d keys, %d emails", len(r.Keys), len(r.Emails))
	}
	for i, k := range r.Keys {
		if !bytes.Equal(r.Emails[i], ds.Email(int(k))) {
			t.Fatalf("email %d is not key %d's", i, k)
		}
	}
	same := Resolve(Lookup, 0, 40, 0, ds, 7)
	other := Resolve(Lookup, 0, 40, 0, ds, 8)
	if !slices.Equal(r.Keys, same.Keys) || slices.Equal(r.Keys, other.Keys) {
		t.Errorf("keys: not the same for the same seed, or the same for another seed")
	}
	if Seed(7, Lookup) == Seed(7, Scan) || Seed(7, Lookup) != Seed(7, Lookup) {
		t.Errorf("Seed does not depend on the workload alone: %d %d", Seed(7, Lookup), Seed(7, Scan))
	}
	in := Resolve(Insert, 0, 30, 0, ds, 7)
	if len(in.Persons) != 30 || !bytes.Equal(in.Persons[29].Email, ds.Email(29)) || in.Keys != nil {
		t.Errorf("insert of 30: %d persons, keys %v", len(in.Persons), in.Keys)
	}
}

// TestExpect: what a correct result holds, workload by workload: the exact checksum where the rows
// read are known (the whole dataset, a prefix in key order, the keys looked up, the persons
// inserted), agreement across repeats where they are not, and the adapter's own check for its own
// workloads.
func TestExpect(t *testing.T) {
	ds, err := dataset.Generate(300, 1)
	if err != nil {
		t.Fatal(err)
	}
	lookup := Resolve(Lookup, 0, 25, 0, ds, 1)
	tests := []struct {
		what    string
		run     Run
		ordered bool
		want    Expectation
	}{
		{"full scan", Run{Name: Scan, Rows: 300, DS: ds}, false,
			Expectation{Rows: 300, Sum: ds.SumFirst(300), HasSum: true, Method: "rows == N and checksum == the whole dataset"}},
		{"partial scan in key order", Run{Name: Scan, Rows: 40, DS: ds}, true,
			Expectation{Rows: 40, Sum: ds.SumSortedPrefix(40), HasSum: true, Method: "rows == N and checksum == the first N persons in email order"}},
		{"partial scan in no order", Run{Name: Scan, Rows: 40, DS: ds}, false,
			Expectation{Rows: 40, SameAcross: true, Method: "rows == N; checksum identical across repeats and targets"}},
		{"lookup", lookup, false,
			Expectation{Rows: 25, Sum: ds.SumOf(lookup.Keys), HasSum: true, Method: "every key found; checksum == the looked-up persons"}},
		{"insert", Resolve(Insert, 0, 12, 0, ds, 1), false,
			Expectation{Rows: 12, Sum: ds.SumFirst(12), HasSum: true, Method: "fresh store read back after commit: rows == N and checksum == the inserted persons"}},
		{"concurrent, partial, in key order", Run{Name: Concurrent, Rows: 50, Readers: 3, DS: ds}, true,
			Expectation{Rows: 50, Sum: ds.SumSortedPrefix(50), HasSum: true, PerReader: true, Method: "each reader: rows == R and checksum == the first R persons in email order"}},
		{"an adapter's own workload", Run{Name: "page_all", Ops: 5, DS: ds}, false,
			Expectation{Rows: -1, Method: "checked by the adapter on every operation"}},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			if got := tt.run.Expect(tt.ordered, false); got != tt.want {
				t.Errorf("Expect = %+v\nwant     %+v", got, tt.want)
			}
		})
	}
	if got := (Run{Name: "page_all", DS: ds}).Expect(false, true).Method; got != "checked by the adapter on every operation; checksums identical across targets, repeat by repeat" {
		t.Errorf("cross-checked own workload: method %q", got)
	}
}

// TestUnitAndReportParams: the unit of a latency sample and the parameters a result shows.
func TestUnitAndReportParams(t *testing.T) {
	for _, tt := range []struct {
		name   string
		custom bool
		unit   string
		params map[string]any
	}{
		{Scan, false, "scan", map[string]any{"rows": 10}},
		{Lookup, false, "lookup", map[string]any{"ops": 20}},
		{Insert, false, "insert-txn", map[string]any{"ops": 20}},
		{Concurrent, false, "reader", map[string]any{"rows": 10, "readers": 3}},
		{"page_all", true, "op", map[string]any{"ops": 20}},
	} {
		if got := Unit(tt.name, tt.custom); got != tt.unit {
			t.Errorf("Unit(%s) = %s, want %s", tt.name, got, tt.unit)
		}
		got := Run{Name: tt.name, Rows: 10, Ops: 20, Readers: 3}.ReportParams()
		if len(got) != len(tt.params) {
			t.Errorf("%s: params %v, want %v", tt.name, got, tt.params)
		}
		for k, v := range tt.params {
			if got[k] != v {
				t.Errorf("%s: params %v, want %v", tt.name, got, tt.params)
			}
		}
	}
}

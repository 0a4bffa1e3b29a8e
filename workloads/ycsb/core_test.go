package ycsb

import (
	"fmt"
	"testing"
)

func fmtf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// TestCore: the six workloads as YCSB's workloada ... workloadf define them.
func TestCore(t *testing.T) {
	tests := []struct {
		name string
		mix  Mix
		dist string
		scan int64
	}{
		{"ycsb-a", Mix{Read: 0.5, Update: 0.5}, DistZipfian, 1000},
		{"ycsb-b", Mix{Read: 0.95, Update: 0.05}, DistZipfian, 1000},
		{"ycsb-c", Mix{Read: 1}, DistZipfian, 1000},
		{"ycsb-d", Mix{Read: 0.95, Insert: 0.05}, DistLatest, 1000},
		{"ycsb-e", Mix{Scan: 0.95, Insert: 0.05}, DistZipfian, 100},
		{"ycsb-f", Mix{Read: 0.5, ReadModifyWrite: 0.5}, DistZipfian, 1000},
	}
	if len(Core) != len(tests) {
		t.Fatalf("%d core workloads, want %d", len(Core), len(tests))
	}
	for _, tt := range tests {
		w, ok := Lookup(tt.name)
		if !ok {
			t.Errorf("%s missing", tt.name)
			continue
		}
		if w.Mix != tt.mix || w.RequestDistribution != tt.dist || w.MaxScanLength != tt.scan {
			t.Errorf("%s = %v %s scan %d, want %v %s scan %d", tt.name, w.Mix, w.RequestDistribution, w.MaxScanLength, tt.mix, tt.dist, tt.scan)
		}
		if w.FieldCount != 10 || w.FieldLength != 100 || w.Ordered || !w.ReadAllFields || w.WriteAllFields ||
			w.HotspotDataFraction != 0.2 || w.HotspotOpnFraction != 0.8 {
			t.Errorf("%s: defaults %+v", tt.name, w)
		}
	}
	if _, ok := Lookup("ycsb-g"); ok {
		t.Error("ycsb-g found")
	}
}

// TestGenerator: one seed, one sequence; inserts take the next record numbers and what follows may
// address them; reads stay within the records there are; every distribution builds.
func TestGenerator(t *testing.T) {
	d, _ := Lookup("ycsb-d")
	a, err := NewGenerator(d, 100, 1000, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewGenerator(d, 100, 1000, 7)
	c, _ := NewGenerator(d, 100, 1000, 8)
	next := int64(100)
	differs := false
	for range 1000 {
		x, y, z := a.Next(), b.Next(), c.Next()
		if x != y {
			t.Fatalf("same seed, different operations: %+v, %+v", x, y)
		}
		differs = differs || x != z
		switch x.Type {
		case Insert:
			if x.Record != next {
				t.Fatalf("insert of record %d, want %d", x.Record, next)
			}
			next++
		case Read:
			if x.Record < 0 || x.Record >= next {
				t.Fatalf("read of record %d with %d records", x.Record, next)
			}
		default:
			t.Fatalf("ycsb-d drew %v", x.Type)
		}
	}
	if !differs || a.Records() != next || next < 130 || next > 175 {
		t.Errorf("seeds 7 and 8 differ: %v; records after 1000 ops: %d (5%% inserts)", differs, next)
	}
	for _, dist := range Distributions {
		w, _ := Lookup("ycsb-e")
		w.RequestDistribution = dist
		g, err := NewGenerator(w, 50, 100, 1)
		if err != nil {
			t.Fatalf("%s: %v", dist, err)
		}
		for range 200 {
			op := g.Next()
			if op.Type == Scan && (op.Record < 0 || op.Record >= g.Records() || op.ScanLen < 1 || op.ScanLen > 100) {
				t.Fatalf("%s: %+v with %d records", dist, op, g.Records())
			}
		}
	}
	w, _ := Lookup("ycsb-a")
	w.RequestDistribution = "exponential"
	if _, err := NewGenerator(w, 10, 10, 1); err == nil {
		t.Error("an unknown distribution was accepted")
	}
	if _, err := NewGenerator(w, 0, 10, 1); err == nil {
		t.Error("zero records accepted")
	}
}

// TestSequential wraps around.
func TestSequential(t *testing.T) {
	s := &Sequential{N: 3}
	var got []int64
	for range 7 {
		got = append(got, s.Next(nil, 3))
	}
	if fmt.Sprint(got) != "[0 1 2 0 1 2 0]" {
		t.Errorf("sequential = %v", got)
	}
}

// TestGeneratorRekey: drawing a record again changes that operation's record only: the types, the
// records inserts take, the scan lengths and every other operation's record are those of a
// generator of the same seed that never redraws.
func TestGeneratorRekey(t *testing.T) {
	for _, w := range Core {
		t.Run(w.Name, func(t *testing.T) {
			a, err := NewGenerator(w, 100, 3000, 5)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := NewGenerator(w, 100, 3000, 5)
			var rekeyed, moved int
			for k := range 3000 {
				x, y := a.Next(), b.Next()
				redraw := x.Type != Insert && k%3 == 0
				if redraw {
					before := x.Record
					for range 1 + k%4 {
						a.Rekey(&x)
					}
					rekeyed++
					if x.Record != before {
						moved++
					}
					if x.Record < 0 || x.Record >= a.Records() {
						t.Fatalf("op %d: rekeyed to record %d with %d records", k, x.Record, a.Records())
					}
					x.Record = y.Record
				}
				if x != y {
					t.Fatalf("op %d: %+v after redraws, %+v without (redrew op %d: %v)", k, x, y, k, redraw)
				}
			}
			if rekeyed == 0 || moved < rekeyed/2 {
				t.Errorf("%d redraws moved %d records: Rekey draws nothing new", rekeyed, moved)
			}
		})
	}
	// An insert keeps its record: it is the sequence's.
	g, _ := NewGenerator(Core[3], 100, 3000, 5)
	for range 3000 {
		if op := g.Next(); op.Type == Insert {
			want := op.Record
			g.Rekey(&op)
			if op.Record != want {
				t.Fatalf("an insert rekeyed from %d to %d", want, op.Record)
			}
		}
	}
}

package client

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/dbbench/dbbench/adapters/typedb/typedbtest"
	"github.com/dbbench/dbbench/dataset"
)

// BenchmarkDecodeInMemory is the decoder alone, on a 10,000-row answer held in memory: the part of
// BenchmarkDecodeScan that is the client's own work (the rest is the loopback transfer). keys=sorted
// is the order TypeDB sends; keys=kind-first the order a server built with preserve_order would.
func BenchmarkDecodeInMemory(b *testing.B) {
	const n = 10_000
	ds, err := dataset.Generate(n, 1)
	if err != nil {
		b.Fatal(err)
	}
	persons := make([]typedbtest.Person, n)
	for i := range persons {
		persons[i] = typedbtest.Person{Email: string(ds.Email(i)), Name: string(ds.Name(i)), Age: int64(ds.Age(i))}
	}
	for _, keys := range []typedbtest.KeyOrder{typedbtest.KeysSorted, typedbtest.KeysKindFirst} {
		var body bytes.Buffer
		if err := typedbtest.EncodeScanAnswer(&body, persons, typedbtest.AnswerOptions{Keys: keys}); err != nil {
			b.Fatal(err)
		}
		b.Run("keys="+keyOrderName(keys), func(b *testing.B) {
			d := newDecoder()
			var sum uint64
			h := func(r *Row) error {
				age, err := r.Get("a").Int()
				sum += dataset.RowSum(r.Get("e").Bytes(), r.Get("n").Bytes(), int(age))
				return err
			}
			b.SetBytes(int64(body.Len()))
			b.ReportAllocs()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu0, okCPU := ThreadCPU()
			for b.Loop() {
				d.s.reset(bytes.NewReader(body.Bytes()))
				var a Answer
				if err := d.answer(&a, h); err != nil || a.Rows != n {
					b.Fatal(a, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
			if cpu1, ok := ThreadCPU(); ok && okCPU {
				b.ReportMetric(float64(cpu1-cpu0)/float64(b.N)/n, "cpu-ns/row")
			}
			if sum != uint64(b.N)*ds.SumFirst(n) && b.N > 0 {
				b.Fatalf("checksum %x, want %x per pass", sum, ds.SumFirst(n))
			}
			if d.slow != 0 || d.fastMisses != 0 {
				b.Fatalf("%d rows left the row fast path, %d concepts took the slow path", d.fastMisses, d.slow)
			}
		})
	}
}

func keyOrderName(k typedbtest.KeyOrder) string {
	if k == typedbtest.KeysSorted {
		return "sorted"
	}
	return "kind-first"
}

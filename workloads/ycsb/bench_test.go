package ycsb

import "testing"

// BenchmarkGenerator is the run-phase generator's cost per operation for each core workload over
// 100,000 loaded records (the dispatcher's share of the generator's work per op in docs/load.md).
func BenchmarkGenerator(b *testing.B) {
	for _, w := range Core {
		b.Run(w.Name, func(b *testing.B) {
			g, err := NewGenerator(w, 100_000, int64(b.N), 1)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			var sink int64
			for range b.N {
				sink += g.Next().Record
			}
			if sink < 0 {
				b.Fatal(sink)
			}
		})
	}
}

package exec

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/clients/refclient"
	"github.com/dbbench/dbbench/dataset"
)

// BenchmarkRecordRead is the closed-loop rate of YCSB reads one client process reaches through the
// protocol, for each reference client serving records (1,000 records of YCSB's default shape, keys
// in a fixed pseudo-random order): the round trip, not the store, sets it.
//
//	go test ./adapters/exec -run '^$' -bench RecordRead -benchtime 20000x
func BenchmarkRecordRead(b *testing.B) {
	root, goBin := refClients(b)
	y, err := dataset.NewYCSB(1, 0, 0, false)
	if err != nil {
		b.Fatal(err)
	}
	const records = 1000
	for _, c := range refclient.All {
		if !c.Records || c.Postgres {
			continue
		}
		b.Run(c.Name, func(b *testing.B) {
			raw := map[string]any{"command": toAny(c.Command(b, goBin)), "dir": root}
			opts, err := adapters.ParseOptions(New().Info().Options, raw)
			if err != nil {
				b.Fatal(err)
			}
			ds, err := dataset.Generate(10, 1)
			if err != nil {
				b.Fatal(err)
			}
			dir := b.TempDir()
			ctx := context.Background()
			tg, err := New().Open(ctx, opts, adapters.Env{TempDir: dir, Size: ds.Len(), Seed: 1,
				DatasetFile: func() (string, error) { p := filepath.Join(dir, "persons.bin"); return p, ds.WriteFile(p) }})
			if err != nil {
				b.Fatal(err)
			}
			defer tg.Close()
			if err := tg.(adapters.RecordLoader).LoadRecords(ctx, y, records); err != nil {
				b.Fatal(err)
			}
			r := tg.(adapters.RecordReader)
			dst := make([][]byte, y.FieldCount)
			b.ResetTimer()
			for i := range b.N {
				var found bool
				if dst, found, err = r.ReadRecord(ctx, y.Key(int64(i*7919%records)), dst); err != nil || !found {
					b.Fatalf("read %d: found %v, %v", i, found, err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
			// What the protocol costs beside: an empty round trip, and a read's round trip less the
			// client's own time (the reply's 1 KB of fields, encoded and decoded).
			c := tg.(*recordTarget).c
			b.ReportMetric(float64(median(c.RoundTrips[protocol.OpPing]).Microseconds()), "ping-p50-us")
			b.ReportMetric(float64(median(c.Cost[protocol.OpDo+" "+protocol.KindRead]).Microseconds()), "rtt-minus-ns-p50-us")
		})
	}
}

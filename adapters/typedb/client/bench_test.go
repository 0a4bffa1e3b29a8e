package client_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"

	"github.com/dbbench/dbbench/adapters/typedb/client"
	"github.com/dbbench/dbbench/adapters/typedb/typedbtest"
	"github.com/dbbench/dbbench/dataset"
)

// BenchmarkDecodeScan measures the client's cost per answer row: a fake endpoint serves a
// pre-encoded answer of n person rows over loopback HTTP, in the key order TypeDB sends (sorted),
// and each row is decoded into a dataset.Person and checksummed, as the adapter's scan does. B/op
// and allocs/op must stay flat as n grows (the answer is never held in memory); a first, untimed
// query pays the one-time setup (connection, decoder buffer). See the package doc for what the
// CPU metrics hold.
//
//	go test -run '^$' -bench DecodeScan -benchmem ./adapters/typedb/client/
func BenchmarkDecodeScan(b *testing.B) {
	ds, err := dataset.Generate(100_000, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1_000, 10_000, 100_000} {
		persons := make([]typedbtest.Person, n)
		for i := range persons {
			persons[i] = typedbtest.Person{Email: string(ds.Email(i)), Name: string(ds.Name(i)), Age: int64(ds.Age(i))}
		}
		var body bytes.Buffer
		if err := typedbtest.EncodeScanAnswer(&body, persons, typedbtest.AnswerOptions{Keys: typedbtest.KeysSorted}); err != nil {
			b.Fatal(err)
		}
		answer := body.Bytes()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/signin" {
				_, _ = w.Write([]byte(`{"token":"t"}`))
				return
			}
			// The server builds the whole answer and sends it as one body of known length (axum's
			// Json response), so not chunked.
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
			_, _ = w.Write(answer)
		}))
		c, err := client.New(client.Config{Address: srv.URL})
		if err != nil {
			b.Fatal(err)
		}
		q := client.OneShot{Database: "bench", Type: client.Read, Query: "match …",
			QueryOptions: client.QueryOptions{AnswerCountLimit: n}}
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(answer)))
			b.ReportAllocs()
			var sum uint64
			// The client's own CPU time: this goroutine reads the body (net/http hands it the
			// connection) and decodes it, so on a thread of its own its thread's CPU clock holds the
			// client's per-row work, and not the fake server's encoding or writing on other threads.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			thread0, okThread := client.ThreadCPU()
			proc0, okProc := client.ProcessCPU()
			scan := func() {
				rows := 0
				a, err := c.Query(context.Background(), q, func(r *client.Row) error {
					e, nm, ag := r.Get("e"), r.Get("n"), r.Get("a")
					age, err := ag.Int()
					if err != nil {
						return err
					}
					p := dataset.Person{Email: e.Bytes(), Name: nm.Bytes(), Age: int(age)}
					sum += dataset.RowSum(p.Email, p.Name, p.Age)
					rows++
					return nil
				})
				if err != nil || rows != n || a.Truncated() {
					b.Fatalf("%d rows, %+v, %v", rows, a, err)
				}
			}
			// One query before the timed loop (b.Loop resets the timer and the memory counts)
			// opens the connection and allocates the decoder and its buffer, which the client then
			// reuses: B/op and allocs/op are what every further query costs.
			scan()
			for b.Loop() {
				scan()
			}
			perRow := func(ns int64) float64 { return float64(ns) / float64(b.N) / float64(n) }
			b.ReportMetric(perRow(b.Elapsed().Nanoseconds()), "ns/row")
			if thread1, ok := client.ThreadCPU(); ok && okThread {
				b.ReportMetric(perRow(thread1-thread0), "client-cpu-ns/row")
			}
			if proc1, ok := client.ProcessCPU(); ok && okProc {
				b.ReportMetric(perRow(proc1-proc0), "process-cpu-ns/row")
			}
			if sum == 0 {
				b.Fatal("no checksum")
			}
		})
		c.Close()
		srv.Close()
	}
}

// Package client is a small Go client for the TypeDB 3.x HTTP API (/v1, TypeDB 3.2 and later).
//
// It covers what a benchmark needs: sign-in with the bearer token kept and renewed once when the
// server rejects it (AUT2/AUT3), databases (list, exists, create, delete, schema), transactions
// (open with type and options, query, commit, rollback, close), one-shot queries (POST /v1/query)
// and schema definition. Server errors are *Error values carrying the HTTP status, TypeDB's root
// error code and the whole error chain; HasCode matches a code anywhere in the chain.
//
// Answers are decoded as a stream: a purpose-built JSON tokenizer (jsonscan.go) reads the response
// through one reusable buffer and hands each row to a RowHandler as soon as it is complete, with byte
// slices that point into that buffer. No answer is ever held in memory whole, and decoding a row
// allocates nothing. The body is read from the socket straight into that 256 KiB buffer (the HTTP
// transport's own read buffer is 8 KiB, so bufio passes the scanner's larger reads through): the
// answer is copied once, by the read system call. A row fast path (rowfast.go) decodes a whole row
// of the usual shape straight from the buffer, in the key order the server sends (sorted:
// {"iid","kind","type","value","valueType"}, as serde_json writes maps without preserve_order) and
// in the kind-first order; at the first byte that differs (an escape, instance types, another
// member, whitespace) it gives the row back untouched to the tokenizer, whose concept fast path and
// general decoding read members in any order. FuzzRowFast checks that both give the same rows and
// errors (go test -run '^$' -fuzz FuzzRowFast -fuzztime 30s -fuzzminimizetime 2s
// ./adapters/typedb/client/; minimizing with the default 60 s stalls the progress report).
//
// # Cost per row, and how it is measured
//
// BenchmarkDecodeScan (bench_test.go) serves a pre-encoded answer of n person rows in the server's
// sorted key order from an httptest server, as the server sends it: one body with Content-Length,
// written from memory in one Write (axum's Json response; no chunking, no gzip). The fake runs in
// the same process on the same 2 shared cores, so its writing competes with the client; the
// benchmark therefore reports, beside wall time per row (ns/row), the client goroutine's own CPU
// time per row (client-cpu-ns/row: the goroutine is locked to its OS thread and that thread's CPU
// clock is read around the loop; net/http has the caller's goroutine read the body, so this is the
// read system calls plus decoding plus the row handler, not the fake's encoding or writing) and the
// whole process's (process-cpu-ns/row: client, fake and runtime). BenchmarkDecodeInMemory is the
// decoder alone on a 10,000-row answer in memory, with its CPU time per row (cpu-ns/row).
//
// On 2026-12-01, 05:59-06:04 UTC, load average 2.8-3.2 on the shared 2-core VM, five runs
// interleaved with the code before this work (main at 8cb09f1 with the same benchmarks), medians
// and ranges in µs per row:
//
//	                               before                 after
//	loopback 100,000 rows, wall    0.89 (0.85-1.01)       0.45 (0.39-0.52)
//	            client CPU         0.73 (0.70-0.74)       0.35 (0.31-0.35)
//	            process CPU        0.89 (0.84-1.01)       0.46 (0.44-0.51)
//	loopback 10,000 rows, wall     0.80 (0.78-0.87)       0.41 (0.39-0.46)
//	            client CPU         0.66 (0.65-0.69)       0.30 (0.29-0.32)
//	loopback 1,000 rows, wall      0.81 (0.77-0.88)       0.43 (0.40-0.44)
//	            client CPU         0.61 (0.59-0.63)       0.26 (0.25-0.26)
//	in memory, sorted keys, CPU    0.54 (0.53-0.55)       0.21 (0.21-0.22)
//	in memory, kind-first, CPU     0.55 (0.52-0.56)       0.22 (0.22-0.22)
//
//	go test -c -o new.test ./adapters/typedb/client/
//	flock /tmp/dbbench-measure.lock ./new.test -test.run '^$' -test.bench 'DecodeScan|DecodeInMemory' -test.benchmem -test.count 1
//
// (five times, alternating with the old binary). Where the time went before: a CPU profile of the
// 100,000-row case (go test -run '^$' -bench DecodeScan/rows=100000 -benchtime 40x -cpuprofile)
// put about 0.55 µs per row in the tokenizer, 0.15 in the client's read system calls (64 KiB reads
// into the transport's bufio buffer) plus 0.03 copying out of that buffer, and 0.17 in the fake's
// write system calls. After: about 0.24 µs per row decoding (a third of it finding string ends),
// 0.05 in read system calls (reads of up to 256 KiB straight into the scanner's buffer) and 0.11
// in the fake's writes. The wall time exceeds the client's CPU time by what the fake's writing and
// the scheduling of both on two cores shared with other work cost; the process's CPU time per row
// is about the wall time, i.e. about one core busy. An earlier series of the same comparison at
// load 4.0-5.6 (05:43-05:51) gave the same picture: 0.45 (0.44-0.50) wall and 0.32 client CPU for
// 100,000 rows, against 0.84 and 0.70 before. Memory stays flat: after one untimed query (the
// connection, the decoder and its buffer, kept for the next queries) every query allocates about
// 8 KiB in about 100 allocations whether it returns 1,000, 10,000 or 100,000 rows (-benchtime 5x
// -count 3: 7.9-8.8 KiB, once 15 KiB, and 101-104 allocations at every size).
//
// # Why the tokenizer is hand-written
//
// The client's budget was 1 µs per answer row (0.5 µs over loopback since issue 10) with memory
// flat in the row count. encoding/json misses
// it by far (Decoder.Token about 23 µs per row, Decode per row about 5.5 µs). The streaming tokenizer
// of encoding/json/v2, github.com/go-json-experiment/json/jsontext v1.27.2, was tried in its place
// (the same decoding on Decoder.ReadToken, ReadValue and PeekKind, same API, all tests passing): its
// memory stays flat, but a row of the person scan is about 50 tokens and its per-token cost puts it
// at 2.3 µs per row on a 100,000-row answer over loopback, against 0.84 µs for this tokenizer, and
// 3.9 µs against 0.65 µs per row in memory (medians of 5 runs interleaved old/new, ranges 2.1-3.0 µs
// and 0.70-1.14 µs over loopback; 2 shared cores at load average 4.5-4.9, so the figures are noisy
// but the gap is not):
//
//	go test -run '^$' -bench 'DecodeScan|DecodeInMemory' -benchmem ./adapters/typedb/client/
//
// Worth measuring again once encoding/json/jsontext is a standard package (it is behind
// GOEXPERIMENT=jsonv2 in Go 1.26), as it would then cost no dependency.
//
// Every request is bounded by Config.RequestTimeout, which includes reading the whole answer: a
// server that stalls or dies mid-answer gives an error, never a hang. The HTTP transport keeps
// Config.MaxConns idle keep-alive connections and speaks HTTP/1.1 without compression, so that
// concurrent callers each get a connection of their own.
//
// Query options default to what a benchmark wants, not to the server's HTTP defaults: instance
// types and the query structure are off unless asked for. The server always applies an answer
// limit (10,000 rows unless QueryOptions.AnswerCountLimit says otherwise) and answers HTTP 206
// with a warning when it cuts an answer: check Answer.Truncated.
package client

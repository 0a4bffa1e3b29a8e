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
// allocates nothing. A fast path matches the usual concept shapes byte for byte, in the key order
// the server sends (sorted: {"iid","kind","type","value","valueType"}, as serde_json writes maps
// without preserve_order) and in the kind-first order, and falls back to reading members in any
// order at the first difference.
//
// # Why the tokenizer is hand-written
//
// The client's budget is 1 µs per answer row with memory flat in the row count. encoding/json misses
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

// Package client is a small Go client for the TypeDB 3.x HTTP API (/v1, TypeDB 3.2 and later).
//
// It covers what a benchmark needs: sign-in with the bearer token kept and renewed once when the
// server rejects it (AUT2/AUT3), databases (list, exists, create, delete, schema), transactions
// (open with type and options, query, commit, rollback, close), one-shot queries (POST /v1/query)
// and schema definition. Server errors are *Error values carrying the HTTP status, TypeDB's root
// error code and the whole error chain; HasCode matches a code anywhere in the chain.
//
// Answers are decoded as a stream: a purpose-built JSON tokenizer reads the response through one
// reusable buffer and hands each row to a RowHandler as soon as it is complete, with byte slices
// that point into that buffer. No answer is ever held in memory whole, and decoding a row allocates
// nothing. (encoding/json's token API allocates per token and costs tens of microseconds per row;
// see BenchmarkDecodeScan and BenchmarkDecodeInMemory.)
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

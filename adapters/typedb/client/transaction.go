package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Databases lists the server's databases.
func (c *Client) Databases(ctx context.Context) ([]string, error) {
	resp, done, err := c.call(ctx, "list databases", http.MethodGet, "/v1/databases", nil, true)
	if err != nil {
		return nil, err
	}
	defer done()
	var body struct {
		Databases []struct {
			Name string `json:"name"`
		} `json:"databases"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&body); err != nil {
		return nil, fmt.Errorf("typedb list databases: decoding the answer: %w", err)
	}
	names := make([]string, len(body.Databases))
	for i, d := range body.Databases {
		names[i] = d.Name
	}
	return names, nil
}

// DatabaseExists reports whether the database exists.
func (c *Client) DatabaseExists(ctx context.Context, name string) (bool, error) {
	_, done, err := c.call(ctx, "get database", http.MethodGet, "/v1/databases/"+url.PathEscape(name), nil, true)
	if err == nil {
		done()
		return true, nil
	}
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusNotFound {
		return false, nil
	}
	return false, err
}

// CreateDatabase creates a database; if it exists the error has code DBC6.
func (c *Client) CreateDatabase(ctx context.Context, name string) error {
	return c.simple(ctx, "create database", http.MethodPost, "/v1/databases/"+url.PathEscape(name), nil)
}

// DeleteDatabase deletes a database; DBD1 if absent, DBD2 while transactions use it.
func (c *Client) DeleteDatabase(ctx context.Context, name string) error {
	return c.simple(ctx, "delete database", http.MethodDelete, "/v1/databases/"+url.PathEscape(name), nil)
}

// Schema returns the database's schema as TypeQL define text.
func (c *Client) Schema(ctx context.Context, name string) (string, error) {
	resp, done, err := c.call(ctx, "get schema", http.MethodGet, "/v1/databases/"+url.PathEscape(name)+"/schema", nil, true)
	if err != nil {
		return "", err
	}
	defer done()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return "", fmt.Errorf("typedb get schema: %w", err)
	}
	return string(b), nil
}

// TransactionType is read, write or schema.
type TransactionType string

// Transaction types.
const (
	Read   TransactionType = "read"
	Write  TransactionType = "write"
	Schema TransactionType = "schema"
)

// TransactionOptions are sent when a transaction opens. Zero values leave the server defaults
// (a 5-minute transaction timeout, counted from open; a 10-second schema lock wait).
type TransactionOptions struct {
	Timeout           time.Duration
	SchemaLockTimeout time.Duration
}

func (o TransactionOptions) payload() *txOptionsPayload {
	if o.Timeout <= 0 && o.SchemaLockTimeout <= 0 {
		return nil
	}
	p := &txOptionsPayload{}
	if o.Timeout > 0 {
		ms := o.Timeout.Milliseconds()
		p.TransactionTimeoutMillis = &ms
	}
	if o.SchemaLockTimeout > 0 {
		ms := o.SchemaLockTimeout.Milliseconds()
		p.SchemaLockAcquireTimeoutMillis = &ms
	}
	return p
}

type txOptionsPayload struct {
	TransactionTimeoutMillis       *int64 `json:"transactionTimeoutMillis,omitempty"`
	SchemaLockAcquireTimeoutMillis *int64 `json:"schemaLockAcquireTimeoutMillis,omitempty"`
}

// QueryOptions are sent with each query. Unlike the server's HTTP defaults (both true), the zero
// value turns instance types and the query structure off: a benchmark wants neither.
type QueryOptions struct {
	IncludeInstanceTypes  bool
	IncludeQueryStructure bool
	// AnswerCountLimit caps the rows the server returns (HTTP 206 and a warning beyond it). It
	// cannot be switched off; 0 leaves the server default of 10,000.
	AnswerCountLimit int
}

type queryOptionsPayload struct {
	IncludeInstanceTypes  bool `json:"includeInstanceTypes"`
	IncludeQueryStructure bool `json:"includeQueryStructure"`
	AnswerCountLimit      int  `json:"answerCountLimit,omitempty"`
}

func (o QueryOptions) payload() queryOptionsPayload {
	return queryOptionsPayload(o)
}

// Transaction is an open transaction. Its methods may be called from several goroutines, but the
// server runs the requests of one transaction one at a time.
type Transaction struct {
	c        *Client
	ID       string
	Type     TransactionType
	Database string
}

// OpenTransaction opens a transaction on the database.
func (c *Client) OpenTransaction(ctx context.Context, database string, typ TransactionType, opts TransactionOptions) (*Transaction, error) {
	body := struct {
		DatabaseName       string            `json:"databaseName"`
		TransactionType    TransactionType   `json:"transactionType"`
		TransactionOptions *txOptionsPayload `json:"transactionOptions,omitempty"`
	}{database, typ, opts.payload()}
	resp, done, err := c.call(ctx, "open transaction", http.MethodPost, "/v1/transactions/open", body, true)
	if err != nil {
		return nil, err
	}
	defer done()
	var res struct {
		TransactionID string `json:"transactionId"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&res); err != nil || res.TransactionID == "" {
		return nil, fmt.Errorf("typedb open transaction: the answer holds no transaction id")
	}
	return &Transaction{c: c, ID: res.TransactionID, Type: typ, Database: database}, nil
}

func (t *Transaction) path(action string) string {
	return "/v1/transactions/" + url.PathEscape(t.ID) + "/" + action
}

// Query runs a query in the transaction and streams the answer's rows to h (nil skips them).
func (t *Transaction) Query(ctx context.Context, query string, opts QueryOptions, h RowHandler) (Answer, error) {
	body := struct {
		Query        string              `json:"query"`
		QueryOptions queryOptionsPayload `json:"queryOptions"`
	}{query, opts.payload()}
	return t.c.query(ctx, "query", t.path("query"), body, h)
}

// Commit commits the transaction, which then no longer exists.
func (t *Transaction) Commit(ctx context.Context) error {
	return t.c.simple(ctx, "commit", http.MethodPost, t.path("commit"), nil)
}

// Rollback discards the transaction's writes; the transaction stays open.
func (t *Transaction) Rollback(ctx context.Context) error {
	return t.c.simple(ctx, "rollback", http.MethodPost, t.path("rollback"), nil)
}

// Close closes the transaction. The server accepts closing an unknown or closed transaction.
func (t *Transaction) Close(ctx context.Context) error {
	return t.c.simple(ctx, "close transaction", http.MethodPost, t.path("close"), nil)
}

// OneShot is a query in a transaction of its own (POST /v1/query): the server opens the
// transaction, runs the query, then commits (write and schema, unless Commit says otherwise) or
// closes it.
type OneShot struct {
	Database           string
	Type               TransactionType
	TransactionOptions TransactionOptions
	Query              string
	QueryOptions       QueryOptions
	// Commit overrides the default (commit write and schema queries); ignored for reads.
	Commit *bool
}

// Query runs a one-shot query and streams the answer's rows to h (nil skips them).
func (c *Client) Query(ctx context.Context, q OneShot, h RowHandler) (Answer, error) {
	body := struct {
		DatabaseName       string              `json:"databaseName"`
		TransactionType    TransactionType     `json:"transactionType"`
		TransactionOptions *txOptionsPayload   `json:"transactionOptions,omitempty"`
		Query              string              `json:"query"`
		QueryOptions       queryOptionsPayload `json:"queryOptions"`
		Commit             *bool               `json:"commit,omitempty"`
	}{q.Database, q.Type, q.TransactionOptions.payload(), q.Query, q.QueryOptions.payload(), q.Commit}
	return c.query(ctx, "query", "/v1/query", body, h)
}

// Define runs a define query in a schema transaction of its own and commits it.
func (c *Client) Define(ctx context.Context, database, schema string) error {
	_, err := c.Query(ctx, OneShot{Database: database, Type: Schema, Query: schema}, nil)
	return err
}

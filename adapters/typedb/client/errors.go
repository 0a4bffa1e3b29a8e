package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Error is an error answered by the server: its HTTP status and TypeDB's error body.
type Error struct {
	// Op is what the client was doing, e.g. "open transaction".
	Op string
	// Status is the HTTP status code.
	Status int
	// Code is TypeDB's root-cause code, e.g. "TSV12", "AUT3", "DBC6".
	Code string
	// Message is the server's error chain, root cause first, one "[CODE] text" line per error.
	Message string
}

// Error returns the whole chain on one line.
func (e *Error) Error() string {
	msg := strings.Join(strings.Fields(strings.ReplaceAll(e.Message, "\n", " <- ")), " ")
	if msg == "" {
		msg = "[" + e.Code + "]"
	}
	return fmt.Sprintf("typedb %s: %s (HTTP %d)", e.Op, msg, e.Status)
}

// Has reports whether code is the root code or appears anywhere in the error chain.
func (e *Error) Has(code string) bool {
	return e.Code == code || strings.Contains(e.Message, "["+code+"]")
}

// HasCode reports whether err is a server *Error whose chain contains code.
func HasCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Has(code)
}

// Error codes the client and its callers act on.
const (
	CodeInvalidCredential = "AUT1"  // sign-in with a wrong user name or password
	CodeMissingToken      = "AUT2"  // no bearer token
	CodeInvalidToken      = "AUT3"  // bearer token unknown or expired
	CodeNotFound          = "HSR4"  // requested resource (e.g. database) not found
	CodeDatabaseExists    = "DBC6"  // create: the database already exists
	CodeDatabaseMissing   = "DBD1"  // delete: no such database
	CodeDatabaseInUse     = "DBD2"  // delete: transactions are open on it
	CodeNoTransaction     = "TSV12" // the transaction is gone (committed, closed, timed out)
	CodeTxTimeout         = "TSV17" // the transaction's deadline passed during the request
	CodeQueryFailed       = "TSV11" // a query failed to parse or run
)

// Transport-level failures the caller may want to explain to a user.
var (
	// ErrTLSRequired: the server answered a plain-HTTP request as a TLS server would.
	ErrTLSRequired = errors.New("the server speaks TLS (use an https:// address)")
	// ErrNotTLS: a TLS handshake got a plain-HTTP answer.
	ErrNotTLS = errors.New("the server does not speak TLS (use an http:// address)")
	// ErrNoHTTPAPI: the server has no TypeDB HTTP API (TypeDB before 3.2, or not TypeDB).
	ErrNoHTTPAPI = errors.New("no TypeDB HTTP API here: TypeDB 3.2 or later is needed (it serves the API on port 8000 by default)")
)

// readError turns a failed response into an *Error. The body is read up to 1 MiB.
func readError(op string, resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var eb struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(body, &eb); err != nil || eb.Code == "" {
		text := strings.TrimSpace(string(body))
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		if text == "" {
			text = http.StatusText(resp.StatusCode)
		}
		return &Error{Op: op, Status: resp.StatusCode, Message: text}
	}
	return &Error{Op: op, Status: resp.StatusCode, Code: eb.Code, Message: eb.Message}
}

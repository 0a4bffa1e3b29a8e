package typedbtest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// apiError is an error answer: TypeDB's body is {"code": root code, "message": the chain, root cause
// first, one "[CODE] text" line per error}.
type apiError struct {
	status int
	lines  []string // "[CODE] text", root cause first
}

func newError(status int, lines ...string) *apiError { return &apiError{status: status, lines: lines} }

func (e *apiError) code() string {
	root := e.lines[0]
	return root[1:strings.IndexByte(root, ']')]
}

func (e *apiError) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(map[string]string{"code": e.code(), "message": strings.Join(e.lines, "\n")})
}

// Wrapper lines the server adds around a root cause.
const (
	lineTxError    = "[HSR16] Transaction error."
	lineStateError = "[HSR8] State error."
	lineAuthError  = "[HSR9] Authentication error."
	lineQueryFail  = "[TSV11] Query failed."
	lineOneShotCmt = "[HSR18] Error while committing single-query transaction."
)

func errBadJSON(details string) *apiError {
	return newError(http.StatusBadRequest, "[HSR2] Cannot parse expected JSON body: "+details)
}

func errNotFound() *apiError {
	return newError(http.StatusNotFound, "[HSR4] Requested resource not found.")
}

func errUnknownVersion(v string) *apiError {
	return newError(http.StatusNotFound, "[HSR5] Unknown API version '"+v+"'.")
}

func errBadPathParam(name string) *apiError {
	return newError(http.StatusBadRequest, "[HSR7] Requested resource not found: invalid path parameter "+name+".")
}

func errNoTransaction() *apiError {
	return newError(http.StatusNotFound, "[TSV12] Operation failed: no open transaction.", lineTxError)
}

func errTxTimeout() *apiError {
	return newError(http.StatusRequestTimeout, "[TSV17] Operation failed: transaction timeout.", lineTxError)
}

// errQueryParse is what the server answers for a query it cannot parse; the fake answers it for
// every query outside the project's fixed shapes.
func errQueryParse(details string) *apiError {
	return newError(http.StatusBadRequest, "[TQL0] Error parsing query: "+details, lineQueryFail, lineTxError)
}

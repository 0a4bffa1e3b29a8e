// Package typedbtest is an in-process fake of the TypeDB 3.x HTTP API (/v1) for tests: sign-in and
// bearer tokens, databases, read/write/schema transactions with snapshot isolation and deadlines,
// one-shot queries, the answer envelope and concept encoding, the answer-count limit with HTTP 206,
// and TypeDB's error bodies and codes. It understands only the query shapes dbbench sends (see
// typeql.go) and answers any other query as a parse failure, as a real server answers a query it
// cannot parse. Hooks let tests expire tokens, slow queries down, make the server stall or die in the
// middle of an answer, and echo a request's bearer token in an error. Rows and concepts come with their keys sorted, as the server writes
// them (serde_json maps without preserve_order); Config.Keys selects the kind-first order instead.
package typedbtest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log"
	"maps"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbbench/dbbench/internal/randhex"
)

// Config configures a fake server. Zero values get the defaults noted.
type Config struct {
	// Version is what /v1/version reports (default "3.14.0").
	Version string
	// Users maps user names to passwords (default admin/password, the server's default user).
	Users map[string]string
	// TLS serves HTTPS with httptest's self-signed certificate.
	TLS bool
	// NoHTTPAPI makes every route answer 404 with no body, as a server without the HTTP API (TypeDB
	// before 3.2, or some other web server) would.
	NoHTTPAPI bool
	// NoTableLock turns off the imitation of the server's transaction-table lock, under which opening
	// a transaction waits for every running query on other transactions to finish.
	NoTableLock bool
	// Keys is the key order of answer rows and concepts (default KeysSorted, the server's).
	Keys KeyOrder
}

// Server is a running fake. Close it when done.
type Server struct {
	// URL is the base address, e.g. "http://127.0.0.1:34567".
	URL string

	cfg Config
	ts  *httptest.Server

	mu     sync.Mutex
	tokens map[string]string // token -> user
	dbs    map[string]*database
	txs    map[string]*transaction
	hook   *answerHook
	echo   map[string]string // route -> transaction type ("" any) of requests answered by an error echoing their Authorization
	echoed []string          // the Authorization headers echoed so far

	queryDelay atomic.Int64 // nanoseconds each query takes, at least
	table      sync.RWMutex // the transaction table: open takes it exclusively, other requests shared
	dead       chan struct{}
	dieOnce    sync.Once

	// onQuery, if set (by this package's tests), is called when a query starts running.
	onQuery    func()
	queriesRun atomic.Int64 // queries that finished running

	signIns  atomic.Int64
	requests sync.Map // route -> *atomic.Int64
}

// NewServer starts a fake server on a loopback port.
func NewServer(cfg Config) *Server {
	if cfg.Version == "" {
		cfg.Version = "3.14.0"
	}
	if cfg.Users == nil {
		cfg.Users = map[string]string{"admin": "password"}
	}
	s := &Server{
		cfg: cfg, tokens: map[string]string{}, dbs: map[string]*database{}, txs: map[string]*transaction{},
		dead: make(chan struct{}),
	}
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	// Tests provoke TLS mismatches and aborted answers on purpose: keep the server's log quiet.
	s.ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	if cfg.TLS {
		s.ts.StartTLS()
	} else {
		s.ts.Start()
	}
	s.URL = s.ts.URL
	return s
}

// Client returns an http.Client that trusts the fake's TLS certificate.
func (s *Server) Client() *http.Client { return s.ts.Client() }

// Close shuts the server down.
func (s *Server) Close() {
	s.dieOnce.Do(func() { close(s.dead) })
	s.ts.CloseClientConnections()
	s.ts.Close()
}

// ExpireTokens invalidates every token handed out so far, as a token expiry or a server restart
// would: the next request with one gets 401 AUT3.
func (s *Server) ExpireTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
}

// SetQueryDelay makes every query take at least d (0 turns it off).
func (s *Server) SetQueryDelay(d time.Duration) { s.queryDelay.Store(int64(d)) }

// DieMidAnswer arms a one-shot failure: the next query answer stops after afterBytes bytes and the
// whole server dies (its listener and every connection close).
func (s *Server) DieMidAnswer(afterBytes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = &answerHook{after: afterBytes, die: true}
}

// StallMidAnswer arms a one-shot stall: the next query answer stops after afterBytes bytes and the
// connection stays open, silent, until the client gives up or the server closes.
func (s *Server) StallMidAnswer(afterBytes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = &answerHook{after: afterBytes}
}

// EchoAuthorization makes every later authenticated request to route ("oneshot", "open", "query", ...,
// as in Requests) fail with HTTP 400 and an error body that quotes its Authorization header, bearer
// token and all, as a careless proxy or server might: the client must not pass the token on. With
// txType ("read", "write", "schema") only the requests for that type of transaction fail (a one-shot
// query or the opening of a transaction), so that a test can let the load through.
func (s *Server) EchoAuthorization(route, txType string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.echo == nil {
		s.echo = map[string]string{}
	}
	s.echo[route] = txType
}

// Echoed returns the Authorization headers the server has echoed in error bodies.
func (s *Server) Echoed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.echoed)
}

// SignIns counts successful sign-ins.
func (s *Server) SignIns() int { return int(s.signIns.Load()) }

// Requests counts requests to a route: "signin", "open", "query" (in a transaction), "commit",
// "rollback", "close", "oneshot", "databases", "version", "health".
func (s *Server) Requests(route string) int {
	if v, ok := s.requests.Load(route); ok {
		return int(v.(*atomic.Int64).Load())
	}
	return 0
}

func (s *Server) count(route string) {
	v, _ := s.requests.LoadOrStore(route, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

// Databases lists the databases, sorted.
func (s *Server) Databases() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.dbs))
}

// OpenTransactions counts the transactions open now (expired ones excluded).
func (s *Server) OpenTransactions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked()
	return len(s.txs)
}

// Persons returns the committed persons of a database (nil if it does not exist).
func (s *Server) Persons(db string) []Person {
	s.mu.Lock()
	d := s.dbs[db]
	s.mu.Unlock()
	if d == nil {
		return nil
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]Person, len(d.persons))
	for i, p := range d.persons {
		out[i] = Person{Email: p.email, Name: p.name, Age: p.age}
	}
	return out
}

type answerHook struct {
	after int
	die   bool
}

func (s *Server) takeHook() *answerHook {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hook
	s.hook = nil
	return h
}

// kill makes the server unreachable: no new connections, existing ones closed.
func (s *Server) kill() {
	s.dieOnce.Do(func() { close(s.dead) })
	_ = s.ts.Listener.Close()
	s.ts.CloseClientConnections()
}

// ---- routing ----

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.cfg.NoHTTPAPI {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(segs) == 1 && segs[0] == "" {
		http.Redirect(w, r, "/v1/version", http.StatusSeeOther)
		return
	}
	if segs[len(segs)-1] == "health" && len(segs) <= 2 {
		s.count("health")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if segs[0] != "v1" {
		errUnknownVersion(segs[0]).write(w)
		return
	}
	rest := segs[1:]
	route := func(method string, n int, parts ...string) bool {
		if len(rest) != n {
			return false
		}
		for i, p := range parts {
			if p != "*" && rest[i] != p {
				return false
			}
		}
		if r.Method != method {
			return false
		}
		return true
	}
	switch {
	case len(rest) == 0:
		http.Redirect(w, r, "/v1/version", http.StatusSeeOther)
	case route("GET", 1, "version"):
		s.count("version")
		writeJSON(w, http.StatusOK, map[string]string{"distribution": "TypeDB CE", "version": s.cfg.Version})
	case route("POST", 1, "signin"):
		s.count("signin")
		s.signIn(w, r)
	case route("GET", 1, "databases"):
		s.authed(w, r, "databases", s.listDatabases)
	case route("GET", 2, "databases"):
		s.authed(w, r, "databases", func(w http.ResponseWriter, r *http.Request, _ string) { s.getDatabase(w, rest[1]) })
	case route("POST", 2, "databases"):
		s.authed(w, r, "databases", func(w http.ResponseWriter, r *http.Request, _ string) { s.createDatabase(w, rest[1]) })
	case route("DELETE", 2, "databases"):
		s.authed(w, r, "databases", func(w http.ResponseWriter, r *http.Request, _ string) { s.deleteDatabase(w, rest[1]) })
	case route("GET", 3, "databases", "*", "schema"), route("GET", 3, "databases", "*", "type-schema"):
		s.authed(w, r, "databases", func(w http.ResponseWriter, r *http.Request, _ string) { s.schema(w, rest[1]) })
	case route("POST", 2, "transactions", "open"):
		s.authed(w, r, "open", s.open)
	case route("POST", 3, "transactions", "*", "query"), route("POST", 3, "transactions", "*", "commit"),
		route("POST", 3, "transactions", "*", "rollback"), route("POST", 3, "transactions", "*", "close"):
		s.authed(w, r, rest[2], func(w http.ResponseWriter, r *http.Request, user string) { s.txRequest(w, r, user, rest[1], rest[2]) })
	case route("POST", 1, "query"):
		s.authed(w, r, "oneshot", s.oneShot)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// readBody decodes a JSON request body as the server does: Content-Type must be application/json,
// unknown fields are ignored.
func readBody(r *http.Request, v any) *apiError {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/json" {
		return errBadJSON("Expected request with `Content-Type: application/json`.")
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, 2<<20+1))
	if err != nil {
		return errBadJSON(err.Error())
	}
	if len(b) > 2<<20 {
		return newError(http.StatusRequestEntityTooLarge, "[HSR2] Cannot parse expected JSON body: length limit exceeded")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return errBadJSON(err.Error())
	}
	return nil
}

func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Username *string `json:"username"`
		Password *string `json:"password"`
	}
	if e := readBody(r, &body); e != nil {
		e.write(w)
		return
	}
	if body.Username == nil || body.Password == nil {
		errBadJSON("missing field `username` or `password`").write(w)
		return
	}
	if pw, ok := s.cfg.Users[*body.Username]; !ok || pw != *body.Password {
		newError(http.StatusUnauthorized, "[AUT1] Invalid credential supplied.", lineAuthError).write(w)
		return
	}
	token := randhex.String(32)
	s.mu.Lock()
	s.tokens[token] = *body.Username
	s.mu.Unlock()
	s.signIns.Add(1)
	writeJSON(w, http.StatusOK, map[string]string{"token": token})
}

// authed checks the bearer token, then calls h with the user name.
func (s *Server) authed(w http.ResponseWriter, r *http.Request, route string, h func(http.ResponseWriter, *http.Request, string)) {
	s.count(route)
	auth := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || token == "" {
		newError(http.StatusUnauthorized, "[AUT2] Missing token (expected as the authorization bearer).", lineAuthError).write(w)
		return
	}
	s.mu.Lock()
	user, ok := s.tokens[token]
	txType, echo := s.echo[route]
	s.mu.Unlock()
	echo = echo && ok && (txType == "" || requestTxType(r) == txType)
	if echo {
		s.mu.Lock()
		s.echoed = append(s.echoed, auth)
		s.mu.Unlock()
	}
	if !ok {
		newError(http.StatusUnauthorized, "[AUT3] Invalid token supplied.", lineAuthError).write(w)
		return
	}
	if echo {
		newError(http.StatusBadRequest, "[HSR3] Request not accepted: authorization: "+auth).write(w)
		return
	}
	h(w, r, user)
}

// requestTxType reads the transactionType of a request's JSON body and puts the body back.
func requestTxType(r *http.Request) string {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 2<<20+1))
	r.Body = io.NopCloser(bytes.NewReader(b))
	var body struct {
		TransactionType string `json:"transactionType"`
	}
	_ = json.Unmarshal(b, &body)
	return body.TransactionType
}

func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// ---- databases ----

func (s *Server) listDatabases(w http.ResponseWriter, _ *http.Request, _ string) {
	type db struct {
		Name string `json:"name"`
	}
	list := []db{}
	for _, n := range s.Databases() {
		list = append(list, db{n})
	}
	writeJSON(w, http.StatusOK, map[string]any{"databases": list})
}

func (s *Server) getDatabase(w http.ResponseWriter, name string) {
	s.mu.Lock()
	_, ok := s.dbs[name]
	s.mu.Unlock()
	if !ok {
		errNotFound().write(w)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"name": name})
}

func (s *Server) createDatabase(w http.ResponseWriter, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.dbs[name]; ok {
		newError(http.StatusBadRequest, "[DBC6] Database '"+name+"' already exists.",
			"[SRV5] Unable to create database.", lineStateError).write(w)
		return
	}
	if name == "" || strings.HasPrefix(name, "_") {
		newError(http.StatusBadRequest, "[DBC1] Database name '"+name+"' is invalid.",
			"[SRV5] Unable to create database.", lineStateError).write(w)
		return
	}
	s.dbs[name] = newDatabase(name)
	w.WriteHeader(http.StatusOK)
}

func (s *Server) deleteDatabase(w http.ResponseWriter, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.dbs[name]
	if !ok {
		newError(http.StatusBadRequest, "[DBD1] Database '"+name+"' not found.",
			"[SRV13] Unable to delete database.", lineStateError).write(w)
		return
	}
	s.sweepLocked()
	if d.inUse.Load() > 0 {
		newError(http.StatusBadRequest, "[DBD2] Cannot delete database since it is in use.",
			"[SRV13] Unable to delete database.", lineStateError).write(w)
		return
	}
	delete(s.dbs, name)
	w.WriteHeader(http.StatusOK)
}

func (s *Server) schema(w http.ResponseWriter, name string) {
	s.mu.Lock()
	d, ok := s.dbs[name]
	s.mu.Unlock()
	if !ok {
		newError(http.StatusNotFound, "[SRV3] Database '"+name+"' not found.", lineStateError).write(w)
		return
	}
	d.mu.RLock()
	text := d.schema.define()
	d.mu.RUnlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, text)
}

// ---- transactions ----

type txOptions struct {
	TransactionTimeoutMillis       *int64 `json:"transactionTimeoutMillis"`
	SchemaLockAcquireTimeoutMillis *int64 `json:"schemaLockAcquireTimeoutMillis"`
}

type openBody struct {
	DatabaseName       *string    `json:"databaseName"`
	TransactionType    *string    `json:"transactionType"`
	TransactionOptions *txOptions `json:"transactionOptions"`
}

type queryOptions struct {
	IncludeInstanceTypes  *bool `json:"includeInstanceTypes"`
	IncludeQueryStructure *bool `json:"includeQueryStructure"`
	AnswerCountLimit      *int  `json:"answerCountLimit"`
}

type queryBody struct {
	Query        *string       `json:"query"`
	QueryOptions *queryOptions `json:"queryOptions"`
}

// validate checks the open fields as the server's deserialiser does.
func (b *openBody) validate() *apiError {
	if b.DatabaseName == nil || b.TransactionType == nil {
		return errBadJSON("missing field `databaseName` or `transactionType`")
	}
	switch *b.TransactionType {
	case "read", "write", "schema":
	default:
		return errBadJSON("unknown variant `" + *b.TransactionType + "`, expected one of `read`, `write`, `schema`")
	}
	return nil
}

// openTx opens a transaction without registering it in the table.
func (s *Server) openTx(b *openBody, user string) (*transaction, *apiError) {
	s.mu.Lock()
	d, ok := s.dbs[*b.DatabaseName]
	s.mu.Unlock()
	if !ok {
		return nil, newError(http.StatusNotFound, "[SRV3] Database '"+*b.DatabaseName+"' not found.",
			"[TSV21] Could not open transaction.", lineTxError)
	}
	timeout := 300 * time.Second
	if o := b.TransactionOptions; o != nil && o.TransactionTimeoutMillis != nil {
		timeout = time.Duration(*o.TransactionTimeoutMillis) * time.Millisecond
	}
	return newTransaction(d, *b.TransactionType, user, timeout), nil
}

func (s *Server) open(w http.ResponseWriter, r *http.Request, user string) {
	var body openBody
	if e := readBody(r, &body); e != nil {
		e.write(w)
		return
	}
	if e := body.validate(); e != nil {
		e.write(w)
		return
	}
	if !s.cfg.NoTableLock {
		s.table.Lock()
		defer s.table.Unlock()
	}
	tx, e := s.openTx(&body, user)
	if e != nil {
		e.write(w)
		return
	}
	s.mu.Lock()
	s.txs[tx.id] = tx
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{"transactionId": tx.id})
}

// sweepLocked forgets expired transactions.
func (s *Server) sweepLocked() {
	now := time.Now()
	for id, tx := range s.txs {
		if now.After(tx.deadline) {
			delete(s.txs, id)
			tx.finish()
		}
	}
}

func (s *Server) removeTx(tx *transaction) {
	s.mu.Lock()
	if s.txs[tx.id] == tx {
		delete(s.txs, tx.id)
	}
	s.mu.Unlock()
	tx.finish()
}

// txRequest handles query, commit, rollback and close on a registered transaction. Requests to one
// transaction run one at a time; a request still queued when the deadline passes gets TSV12.
func (s *Server) txRequest(w http.ResponseWriter, r *http.Request, user, id, action string) {
	if !isUUID(id) {
		errBadPathParam("transaction_id").write(w)
		return
	}
	var body queryBody
	if action == "query" {
		if e := readBody(r, &body); e != nil {
			e.write(w)
			return
		}
		if body.Query == nil {
			errBadJSON("missing field `query`").write(w)
			return
		}
	}
	if !s.cfg.NoTableLock {
		s.table.RLock()
	}
	res := s.txRequestLocked(r, user, id, action, &body)
	if !s.cfg.NoTableLock {
		s.table.RUnlock()
	}
	res.write(s, w, r)
}

func (s *Server) txRequestLocked(r *http.Request, user, id, action string, body *queryBody) result {
	s.mu.Lock()
	tx, ok := s.txs[id]
	if ok && time.Now().After(tx.deadline) {
		delete(s.txs, id)
		tx.finish()
		ok = false
	}
	s.mu.Unlock()
	if !ok {
		if action == "close" {
			return result{status: http.StatusOK}
		}
		return result{err: errNoTransaction()}
	}
	if tx.user != user {
		return result{err: newError(http.StatusForbidden, "[SRV2] Operation not permitted.", lineStateError)}
	}
	if e := tx.acquire(r); e != nil {
		return result{err: e}
	}
	defer tx.release()
	if tx.done.Load() {
		if action == "close" {
			return result{status: http.StatusOK}
		}
		return result{err: errNoTransaction()}
	}
	switch action {
	case "close":
		s.removeTx(tx)
		return result{status: http.StatusOK}
	case "commit":
		e := tx.commit()
		s.removeTx(tx) // a commit ends the transaction, whether it worked or not
		if e != nil {
			return result{err: e}
		}
		return result{status: http.StatusOK}
	case "rollback":
		if tx.typ == "read" {
			s.removeTx(tx)
			return result{err: newError(http.StatusBadRequest, "[TSV3] Read transactions cannot be rolled back, since they never contain writes.", lineTxError)}
		}
		tx.rollback()
		return result{status: http.StatusOK}
	}
	res := s.runQuery(r, tx, *body.Query, body.QueryOptions)
	if res.closeTx {
		s.removeTx(tx)
	}
	return res
}

// runQuery runs a query in tx (whose request slot the caller holds), honouring the query delay and
// the transaction deadline.
func (s *Server) runQuery(r *http.Request, tx *transaction, text string, opts *queryOptions) result {
	if s.onQuery != nil {
		s.onQuery()
	}
	if d := time.Duration(s.queryDelay.Load()); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		deadline := time.NewTimer(time.Until(tx.deadline))
		defer deadline.Stop()
		select {
		case <-t.C:
		case <-deadline.C:
			return result{err: errTxTimeout(), closeTx: true}
		case <-r.Context().Done():
		case <-s.dead:
		}
	}
	if time.Now().After(tx.deadline) {
		return result{err: errTxTimeout(), closeTx: true}
	}
	defer s.queriesRun.Add(1)
	return tx.query(text, opts)
}

// oneShot runs POST /v1/query: open, query, then commit or close, outside the transaction table.
func (s *Server) oneShot(w http.ResponseWriter, r *http.Request, user string) {
	var body struct {
		openBody
		queryBody
		Commit *bool `json:"commit"`
	}
	if e := readBody(r, &body); e != nil {
		e.write(w)
		return
	}
	if e := body.openBody.validate(); e != nil {
		e.write(w)
		return
	}
	if body.Query == nil {
		errBadJSON("missing field `query`").write(w)
		return
	}
	tx, e := s.openTx(&body.openBody, user)
	if e != nil {
		e.write(w)
		return
	}
	tx.slot <- struct{}{}
	res := s.runQuery(r, tx, *body.Query, body.QueryOptions)
	if res.err == nil && tx.typ != "read" && (body.Commit == nil || *body.Commit) {
		if ce := tx.commit(); ce != nil {
			ce.lines = append(ce.lines, lineOneShotCmt)
			res = result{err: ce}
		}
	}
	<-tx.slot
	tx.finish()
	res.write(s, w, r)
}

// result is a transaction request's outcome, written after the table lock is released (the
// server builds the answer under the lock and sends it afterwards).
type result struct {
	err     *apiError
	status  int
	answer  *answer
	closeTx bool
}

func (res result) write(s *Server, w http.ResponseWriter, r *http.Request) {
	switch {
	case res.err != nil:
		res.err.write(w)
	case res.answer != nil:
		res.answer.write(s, w, r)
	default:
		w.WriteHeader(res.status)
	}
}

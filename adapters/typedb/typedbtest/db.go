package typedbtest

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type person struct {
	email, name string
	age         int64
	iid         uint64
}

// schemaState is a database's types: attribute label -> value type, entity label -> owned attributes.
type schemaState struct {
	attrs    map[string]string
	entities map[string][]owns
}

func (sc schemaState) clone() schemaState {
	c := schemaState{attrs: maps.Clone(sc.attrs), entities: map[string][]owns{}}
	for k, v := range sc.entities {
		c.entities[k] = slices.Clone(v)
	}
	return c
}

// merge applies a define. Defining what exists is a no-op, as in TypeDB 3.
func (sc *schemaState) merge(q *query) *apiError {
	for label, vt := range q.attrs {
		if old, ok := sc.attrs[label]; ok && old != vt {
			return newError(http.StatusBadRequest, "[DEX14] Attribute type '"+label+"' already has a different value type.", lineQueryFail, lineTxError)
		}
		sc.attrs[label] = vt
	}
	for label, list := range q.entities {
		cur := sc.entities[label]
		for _, o := range list {
			if _, ok := sc.attrs[o.attr]; !ok {
				return errQueryParse("attribute type '" + o.attr + "' is not defined")
			}
			i := slices.IndexFunc(cur, func(c owns) bool { return c.attr == o.attr })
			if i < 0 {
				cur = append(cur, o)
			} else if o.key {
				cur[i].key = true
			}
		}
		sc.entities[label] = cur
	}
	return nil
}

// personReady reports whether the schema has person owning email @key, name and age with the
// value types the fake stores.
func (sc schemaState) personReady() bool {
	list, ok := sc.entities["person"]
	if !ok || sc.attrs["email"] != "string" || sc.attrs["name"] != "string" || sc.attrs["age"] != "integer" {
		return false
	}
	need := map[string]bool{"email": true, "name": false, "age": false}
	found := 0
	for _, o := range list {
		if key, ok := need[o.attr]; ok && (!key || o.key) {
			found++
		}
	}
	return found == len(need)
}

// define renders the schema as TypeQL.
func (sc schemaState) define() string {
	if len(sc.attrs) == 0 && len(sc.entities) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("define\n")
	for _, label := range slices.Sorted(maps.Keys(sc.attrs)) {
		fmt.Fprintf(&b, "  attribute %s, value %s;\n", label, sc.attrs[label])
	}
	for _, label := range slices.Sorted(maps.Keys(sc.entities)) {
		fmt.Fprintf(&b, "  entity %s", label)
		for _, o := range sc.entities[label] {
			fmt.Fprintf(&b, ", owns %s", o.attr)
			if o.key {
				b.WriteString(" @key")
			}
		}
		b.WriteString(";\n")
	}
	return b.String()
}

type database struct {
	name  string
	inUse atomic.Int64 // open transactions

	mu      sync.RWMutex
	schema  schemaState
	persons []person // committed; append-only, so a snapshot is a prefix
	byEmail map[string]int
	nextIID atomic.Uint64
}

func newDatabase(name string) *database {
	return &database{name: name, schema: schemaState{attrs: map[string]string{}, entities: map[string][]owns{}},
		byEmail: map[string]int{}}
}

type transaction struct {
	id, typ, user string
	db            *database
	deadline      time.Time
	slot          chan struct{} // holds a token while a request runs
	done          atomic.Bool
	finishOnce    sync.Once

	snapshot    []person // committed persons at open (capacity-capped: appends copy)
	schema      schemaState
	pending     []person
	pendingKeys map[string]bool
	schemaDirty bool
}

func newTransaction(d *database, typ, user string, timeout time.Duration) *transaction {
	d.mu.RLock()
	snap := d.persons[:len(d.persons):len(d.persons)]
	sc := d.schema.clone()
	d.mu.RUnlock()
	d.inUse.Add(1)
	return &transaction{
		id: newUUID(), typ: typ, user: user, db: d, deadline: time.Now().Add(timeout),
		slot: make(chan struct{}, 1), snapshot: snap, schema: sc, pendingKeys: map[string]bool{},
	}
}

// finish marks the transaction closed (once).
func (t *transaction) finish() {
	t.finishOnce.Do(func() {
		t.done.Store(true)
		t.db.inUse.Add(-1)
	})
}

// acquire waits for the transaction's request slot. A request still waiting when the deadline
// passes gets TSV12, as on the server.
func (t *transaction) acquire(r *http.Request) *apiError {
	timer := time.NewTimer(time.Until(t.deadline))
	defer timer.Stop()
	select {
	case t.slot <- struct{}{}:
		return nil
	case <-timer.C:
		return errNoTransaction()
	case <-r.Context().Done():
		return errNoTransaction()
	}
}

func (t *transaction) release() { <-t.slot }

func (t *transaction) rollback() {
	t.pending = nil
	clear(t.pendingKeys)
	if t.schemaDirty {
		t.db.mu.RLock()
		t.schema = t.db.schema.clone()
		t.db.mu.RUnlock()
		t.schemaDirty = false
	}
}

func (t *transaction) commit() *apiError {
	if t.typ == "read" {
		return newError(http.StatusBadRequest, "[TSV2] Read transactions cannot be committed.", lineTxError)
	}
	d := t.db
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, p := range t.pending {
		if _, taken := d.byEmail[p.email]; taken {
			return newError(http.StatusBadRequest,
				"[STC2] Commit failed: a concurrent transaction committed the key '"+p.email+"' of type 'person'.",
				"[TSV5] Data transaction commit failed.", lineTxError)
		}
	}
	if t.schemaDirty {
		d.schema = t.schema.clone()
	}
	for _, p := range t.pending {
		d.byEmail[p.email] = len(d.persons)
		d.persons = append(d.persons, p)
	}
	t.pending = nil
	return nil
}

// answer is a query answer to send.
type answer struct {
	status    int
	queryType string
	ansType   string // "ok" or "conceptRows"
	enc       answerEncoder
	rows      []person
	insertRow []string // insert: the entity variables of the single row
	iids      []uint64
}

// query runs a query in the transaction.
func (t *transaction) query(text string, opts *queryOptions) result {
	q, err := parseQuery(text)
	if err != nil {
		return result{err: errQueryParse(err.Error())}
	}
	ao := AnswerOptions{IncludeInstanceTypes: true, IncludeQueryStructure: true}
	limit := 10000
	if opts != nil {
		if opts.IncludeInstanceTypes != nil {
			ao.IncludeInstanceTypes = *opts.IncludeInstanceTypes
		}
		if opts.IncludeQueryStructure != nil {
			ao.IncludeQueryStructure = *opts.IncludeQueryStructure
		}
		if opts.AnswerCountLimit != nil {
			limit = *opts.AnswerCountLimit
		}
	}
	switch q.kind {
	case "define":
		if t.typ != "schema" {
			return result{err: newError(http.StatusBadRequest, "[TSV8] Schema modification queries require schema transactions.", lineTxError)}
		}
		if e := t.schema.merge(q); e != nil {
			return result{err: e}
		}
		t.schemaDirty = true
		return result{answer: &answer{status: http.StatusOK, queryType: "schema", ansType: "ok"}}
	case "insert":
		return t.insert(q, ao)
	}
	return t.match(q, ao, limit)
}

func (t *transaction) insert(q *query, ao AnswerOptions) result {
	if t.typ == "read" {
		return result{err: newError(http.StatusBadRequest, "[TSV9] Data modification queries require either write or schema transactions.", lineTxError)}
	}
	if !t.schema.personReady() {
		return result{err: errQueryParse("type 'person' with email @key, name and age is not defined")}
	}
	seen := map[string]bool{}
	for _, st := range q.inserts {
		if seen[st.variable] {
			return result{err: newError(http.StatusBadRequest,
				"[WCP1] The variable '"+st.variable+"' is declared as the subject of more than one 'isa' in the same insert.",
				lineQueryFail, lineTxError)}
		}
		seen[st.variable] = true
	}
	a := &answer{status: http.StatusOK, queryType: "write", ansType: "conceptRows", enc: answerEncoder{opts: ao}}
	added := make([]person, 0, len(q.inserts))
	keys := map[string]bool{}
	for _, st := range q.inserts {
		p := st.p
		_, committed := t.snapshotIndex(p.email)
		if committed || t.pendingKeys[p.email] || keys[p.email] {
			// A key violation fails the write, and the transaction with it.
			return result{closeTx: true, err: newError(http.StatusBadRequest,
				"[CNT9] Constraint @key violated: an instance of 'person' already has the key email \""+p.email+"\".",
				"[TSV16] Pipeline execution failed.", lineTxError)}
		}
		keys[p.email] = true
		p.iid = t.db.nextIID.Add(1)
		added = append(added, p)
		a.insertRow = append(a.insertRow, st.variable)
		a.iids = append(a.iids, p.iid)
	}
	t.pending = append(t.pending, added...)
	for k := range keys {
		t.pendingKeys[k] = true
	}
	return result{answer: a}
}

// snapshotIndex finds a committed person visible in the transaction's snapshot.
func (t *transaction) snapshotIndex(email string) (int, bool) {
	t.db.mu.RLock()
	i, ok := t.db.byEmail[email]
	t.db.mu.RUnlock()
	return i, ok && i < len(t.snapshot)
}

func (t *transaction) match(q *query, ao AnswerOptions, limit int) result {
	if !t.schema.personReady() {
		return result{err: errQueryParse("type 'person' with email @key, name and age is not defined")}
	}
	want := q.limit
	if want < 0 {
		want = len(t.snapshot) + len(t.pending)
	}
	var rows []person
	if q.email != nil {
		if i, ok := t.snapshotIndex(*q.email); ok {
			rows = append(rows, t.snapshot[i])
		}
		for _, p := range t.pending {
			if p.email == *q.email {
				rows = append(rows, p)
			}
		}
		rows = rows[:min(len(rows), want)]
	} else {
		rows = t.snapshot[:min(len(t.snapshot), want):min(len(t.snapshot), want)]
		if len(rows) < want {
			rows = append(rows, t.pending[:min(len(t.pending), want-len(rows))]...)
		}
	}
	a := &answer{status: http.StatusOK, queryType: "read", ansType: "conceptRows", rows: rows,
		enc: answerEncoder{opts: ao, vars: q.vars, entityVar: q.entityVar}}
	if len(rows) > limit {
		a.rows = rows[:limit]
		a.status = http.StatusPartialContent
		a.enc.opts.Warning = "Read query results limit (" + strconv.Itoa(limit) + ") exceeded. Not all answers are returned."
	}
	return result{answer: a}
}

// write sends the answer, honouring an armed stall or death hook. Like the server, which builds the
// whole answer in memory and sends it as axum's Json response, it sends one body of known length
// (Content-Length, not chunked).
func (a *answer) write(s *Server, w http.ResponseWriter, r *http.Request) {
	var out writerFunc = func(p []byte) error { _, err := w.Write(p); return err }
	if h := s.takeHook(); h != nil {
		out = hookWriter(s, w, r, h)
	}
	var buf []byte
	if a.ansType == "ok" {
		buf = append(buf, `{"queryType":"schema","answerType":"ok","answers":null,"query":null,"warning":null}`...)
	} else {
		buf = a.enc.start(buf, a.queryType, a.ansType)
		a.enc.opts.Keys = s.cfg.Keys
		if a.insertRow != nil {
			buf = a.enc.insertRow(buf, a.insertRow, a.iids)
		}
		for i := range a.rows {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = a.enc.row(buf, &a.rows[i])
		}
		buf = a.enc.end(buf)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(buf)))
	w.WriteHeader(a.status)
	_ = out(buf)
}

type writerFunc func([]byte) error

// hookWriter passes the first h.after bytes, flushes them, then stalls or kills the server and
// aborts the handler.
func hookWriter(s *Server, w http.ResponseWriter, r *http.Request, h *answerHook) writerFunc {
	left := h.after
	return func(p []byte) error {
		if len(p) < left {
			left -= len(p)
			_, err := w.Write(p)
			return err
		}
		_, _ = w.Write(p[:left])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		if h.die {
			s.kill()
		} else {
			select {
			case <-r.Context().Done():
			case <-s.dead:
			}
		}
		panic(http.ErrAbortHandler)
	}
}

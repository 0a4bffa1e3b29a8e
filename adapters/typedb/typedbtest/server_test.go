package typedbtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// call sends a raw request to the fake and returns the status, the error code (if the body is an
// error) and the body.
func call(t *testing.T, s *Server, method, path, token, contentType, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var e struct{ Code, Message string }
	_ = json.Unmarshal(b, &e)
	return resp.StatusCode, e.Code, string(b)
}

const jsonType = "application/json"

func signIn(t *testing.T, s *Server) string {
	t.Helper()
	st, _, body := call(t, s, "POST", "/v1/signin", "", jsonType, `{"username":"admin","password":"password"}`)
	if st != 200 {
		t.Fatalf("sign-in: %d %s", st, body)
	}
	var tok struct{ Token string }
	_ = json.Unmarshal([]byte(body), &tok)
	return tok.Token
}

func openTx(t *testing.T, s *Server, token, body string) string {
	t.Helper()
	st, _, out := call(t, s, "POST", "/v1/transactions/open", token, jsonType, body)
	if st != 200 {
		t.Fatalf("open: %d %s", st, out)
	}
	var r struct{ TransactionID string }
	_ = json.Unmarshal([]byte(out), &r)
	if !isUUID(r.TransactionID) {
		t.Fatalf("transaction id %q is not a UUID", r.TransactionID)
	}
	return r.TransactionID
}

const schema = `define attribute email, value string; attribute name, value string; attribute age, value integer; entity person, owns email @key, owns name, owns age;`

func TestChecklist(t *testing.T) {
	s := NewServer(Config{})
	defer s.Close()
	tok := signIn(t, s)
	q := func(tx, query string, opts string) (int, string, string) {
		body := `{"query":` + jsonString(query) + opts + `}`
		return call(t, s, "POST", "/v1/transactions/"+tx+"/query", tok, jsonType, body)
	}
	if st, _, _ := call(t, s, "POST", "/v1/databases/db", tok, "", ""); st != 200 {
		t.Fatal("create")
	}
	st, _, body := call(t, s, "POST", "/v1/query", tok, jsonType,
		`{"databaseName":"db","transactionType":"schema","query":`+jsonString(schema)+`}`)
	if st != 200 || body != `{"queryType":"schema","answerType":"ok","answers":null,"query":null,"warning":null}` {
		t.Fatalf("define: %d %s", st, body)
	}
	w := openTx(t, s, tok, `{"databaseName":"db","transactionType":"write"}`)
	st, _, body = q(w, `insert $a isa person, has email "a@x", has name "A", has age 1; $b isa person, has email "b@x", has name "B", has age 2;`, `,"queryOptions":{"includeInstanceTypes":false,"includeQueryStructure":false}`)
	var ins struct {
		QueryType, AnswerType string
		Answers               []struct{ Data map[string]map[string]any }
	}
	_ = json.Unmarshal([]byte(body), &ins)
	if st != 200 || ins.QueryType != "write" || len(ins.Answers) != 1 || len(ins.Answers[0].Data) != 2 ||
		ins.Answers[0].Data["a"]["kind"] != "entity" || !strings.HasPrefix(ins.Answers[0].Data["b"]["iid"].(string), "0x1e") {
		t.Fatalf("insert answer: %d %s", st, body)
	}
	if st, _, _ := call(t, s, "POST", "/v1/transactions/"+w+"/commit", tok, "", ""); st != 200 {
		t.Fatal("commit")
	}
	r := openTx(t, s, tok, `{"databaseName":"db","transactionType":"read","transactionOptions":{"transactionTimeoutMillis":60000}}`)

	cases := []struct {
		name         string
		method, path string
		token, ctype string
		body         string
		status       int
		code         string
	}{
		{"health", "GET", "/health", "", "", "", 204, ""},
		{"versioned health", "GET", "/v7/health", "", "", "", 204, ""},
		{"unknown API version", "GET", "/v2/databases", tok, "", "", 404, "HSR5"},
		{"version", "GET", "/v1/version", "", "", "", 200, ""},
		{"wrong password", "POST", "/v1/signin", "", jsonType, `{"username":"admin","password":"x"}`, 401, "AUT1"},
		{"sign-in without JSON type", "POST", "/v1/signin", "", "text/plain", `{"username":"admin","password":"password"}`, 400, "HSR2"},
		{"sign-in with bad JSON", "POST", "/v1/signin", "", jsonType, `{"username":`, 400, "HSR2"},
		{"missing token", "GET", "/v1/databases", "", "", "", 401, "AUT2"},
		{"unknown token", "GET", "/v1/databases", "nope", "", "", 401, "AUT3"},
		{"get missing database", "GET", "/v1/databases/zz", tok, "", "", 404, "HSR4"},
		{"create existing database", "POST", "/v1/databases/db", tok, "", "", 400, "DBC6"},
		{"delete missing database", "DELETE", "/v1/databases/zz", tok, "", "", 400, "DBD1"},
		{"delete database in use", "DELETE", "/v1/databases/db", tok, "", "", 400, "DBD2"},
		{"open on a missing database", "POST", "/v1/transactions/open", tok, jsonType, `{"databaseName":"zz","transactionType":"read"}`, 404, "SRV3"},
		{"open with a bad type", "POST", "/v1/transactions/open", tok, jsonType, `{"databaseName":"db","transactionType":"sideways"}`, 400, "HSR2"},
		{"transaction id not a UUID", "POST", "/v1/transactions/xyz/query", tok, jsonType, `{"query":"match"}`, 400, "HSR7"},
		{"close an unknown transaction", "POST", "/v1/transactions/00000000-0000-4000-8000-000000000000/close", tok, "", "", 200, ""},
		{"commit an unknown transaction", "POST", "/v1/transactions/00000000-0000-4000-8000-000000000000/commit", tok, "", "", 404, "TSV12"},
		{"write in a read transaction", "POST", "/v1/transactions/" + r + "/query", tok, jsonType, `{"query":"insert $p isa person, has email \"c\", has name \"C\", has age 3;"}`, 400, "TSV9"},
		{"schema outside a schema transaction", "POST", "/v1/transactions/" + r + "/query", tok, jsonType, `{"query":"define attribute x, value string;"}`, 400, "TSV8"},
		{"unparsable query", "POST", "/v1/transactions/" + r + "/query", tok, jsonType, `{"query":"match $x isa thing; fetch {};"}`, 400, "TQL0"},
		{"the transaction survives a parse error", "POST", "/v1/transactions/" + r + "/query", tok, jsonType, `{"query":"match $p isa person;"}`, 200, ""},
		{"rollback a read transaction", "POST", "/v1/transactions/" + r + "/rollback", tok, "", "", 400, "TSV3"},
		{"the failed rollback closed it", "POST", "/v1/transactions/" + r + "/query", tok, jsonType, `{"query":"match $p isa person;"}`, 404, "TSV12"},
	}
	for _, tc := range cases {
		st, code, body := call(t, s, tc.method, tc.path, tc.token, tc.ctype, tc.body)
		if st != tc.status || code != tc.code {
			t.Errorf("%s: %d %q (%s), want %d %q", tc.name, st, code, body, tc.status, tc.code)
		}
		if code != "" && !strings.HasPrefix(body, `{"code":"`+code+`","message":"[`+code+`]`) {
			t.Errorf("%s: error body %s does not lead with the root code", tc.name, body)
		}
	}
	if st, _, body := call(t, s, "GET", "/v1/databases/db/schema", tok, "", ""); st != 200 || !strings.Contains(body, "entity person, owns email @key, owns name, owns age;") {
		t.Errorf("schema: %d %q", st, body)
	}
}

func TestAnswerLimitAndEncoding(t *testing.T) {
	s := NewServer(Config{})
	defer s.Close()
	tok := signIn(t, s)
	call(t, s, "POST", "/v1/databases/db", tok, "", "")
	call(t, s, "POST", "/v1/query", tok, jsonType, `{"databaseName":"db","transactionType":"schema","query":`+jsonString(schema)+`}`)
	var ins strings.Builder
	ins.WriteString("insert")
	for i := range 12 {
		ins.WriteString(` $p` + string(rune('a'+i)) + ` isa person, has email "` + string(rune('a'+i)) + `@x", has name "N \"q\"", has age 7;`)
	}
	if st, _, body := call(t, s, "POST", "/v1/query", tok, jsonType, `{"databaseName":"db","transactionType":"write","query":`+jsonString(ins.String())+`}`); st != 200 {
		t.Fatalf("insert: %d %s", st, body)
	}
	scan := `match $p isa person, has email $e, has name $n, has age $a;`
	for _, tc := range []struct {
		opts    string
		status  int
		rows    int
		warning bool
	}{
		{`,"queryOptions":{"answerCountLimit":5}`, 206, 5, true},
		{`,"queryOptions":{"answerCountLimit":12}`, 200, 12, false},
		{`,"queryOptions":{"answerCountLimit":null}`, 200, 12, false},
		{``, 200, 12, false},
	} {
		st, _, body := call(t, s, "POST", "/v1/query", tok, jsonType, `{"databaseName":"db","transactionType":"read","query":`+jsonString(scan)+tc.opts+`}`)
		var a struct {
			QueryType, AnswerType string
			Answers               []struct {
				Data           map[string]map[string]any
				InvolvedBlocks []int
			}
			Query   map[string]any
			Warning *string
		}
		if err := json.Unmarshal([]byte(body), &a); err != nil {
			t.Fatal(err)
		}
		if st != tc.status || len(a.Answers) != tc.rows || (a.Warning != nil) != tc.warning || a.AnswerType != "conceptRows" || a.QueryType != "read" {
			t.Errorf("opts %q: %d, %d rows, warning %v", tc.opts, st, len(a.Answers), a.Warning)
		}
		if tc.warning && *a.Warning != "Read query results limit (5) exceeded. Not all answers are returned." {
			t.Errorf("warning %q", *a.Warning)
		}
		// The HTTP defaults include instance types and the query structure.
		if tc.opts == "" {
			row := a.Answers[0]
			if a.Query == nil || row.InvolvedBlocks == nil || row.Data["e"]["type"].(map[string]any)["label"] != "email" ||
				row.Data["a"]["value"] != float64(7) || row.Data["n"]["value"] != `N "q"` || row.Data["a"]["valueType"] != "integer" {
				t.Errorf("default encoding: %s", body[:min(len(body), 600)])
			}
		}
	}
	// Every envelope key is present, null where empty.
	_, _, body := call(t, s, "POST", "/v1/query", tok, jsonType, `{"databaseName":"db","transactionType":"read","query":`+jsonString(scan)+`,"queryOptions":{"includeInstanceTypes":false,"includeQueryStructure":false}}`)
	var env map[string]json.RawMessage
	_ = json.Unmarshal([]byte(body), &env)
	for _, k := range []string{"queryType", "answerType", "answers", "query", "warning"} {
		if _, ok := env[k]; !ok {
			t.Errorf("envelope lacks %q", k)
		}
	}
	if string(env["query"]) != "null" || !strings.Contains(body, `"type":null`) || !strings.Contains(body, `"involvedBlocks":null`) {
		t.Errorf("with types and structure off: %s", body[:min(len(body), 400)])
	}
}

func TestTransactionLifetime(t *testing.T) {
	s := NewServer(Config{})
	defer s.Close()
	tok := signIn(t, s)
	call(t, s, "POST", "/v1/databases/db", tok, "", "")
	call(t, s, "POST", "/v1/query", tok, jsonType, `{"databaseName":"db","transactionType":"schema","query":`+jsonString(schema)+`}`)
	match := `{"query":"match $p isa person;"}`

	// A request still queued behind a running query when the deadline passes gets TSV12; the query
	// running at the deadline gets TSV17.
	running := make(chan struct{}, 4)
	s.onQuery = func() { running <- struct{}{} }
	tx := openTx(t, s, tok, `{"databaseName":"db","transactionType":"read","transactionOptions":{"transactionTimeoutMillis":1000}}`)
	s.SetQueryDelay(3 * time.Second)
	var wg sync.WaitGroup
	codes := make([]string, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, codes[i], _ = call(t, s, "POST", "/v1/transactions/"+tx+"/query", tok, jsonType, match)
		}()
		if i == 0 {
			<-running // the second request queues behind the first
		}
	}
	wg.Wait()
	s.SetQueryDelay(0)
	if codes[0] != "TSV17" || codes[1] != "TSV12" {
		t.Errorf("running/queued at the deadline: %v, want TSV17 and TSV12", codes)
	}
	if s.OpenTransactions() != 0 {
		t.Errorf("the timed-out transaction is still open")
	}

	// Opening a transaction waits for running queries on other transactions (the table lock).
	busy := openTx(t, s, tok, `{"databaseName":"db","transactionType":"read"}`)
	s.SetQueryDelay(300 * time.Millisecond)
	queryDone := make(chan struct{})
	go func() {
		defer close(queryDone)
		call(t, s, "POST", "/v1/transactions/"+busy+"/query", tok, jsonType, match)
	}()
	<-running
	before := s.queriesRun.Load()
	openTx(t, s, tok, `{"databaseName":"db","transactionType":"read"}`)
	if s.queriesRun.Load() == before {
		t.Errorf("open returned while a query on another transaction was still running")
	}
	<-queryDone
	s.SetQueryDelay(0)
	s.onQuery = nil
}

func TestDieMidAnswer(t *testing.T) {
	s := NewServer(Config{})
	defer s.Close()
	tok := signIn(t, s)
	call(t, s, "POST", "/v1/databases/db", tok, "", "")
	call(t, s, "POST", "/v1/query", tok, jsonType, `{"databaseName":"db","transactionType":"schema","query":`+jsonString(schema)+`}`)
	s.DieMidAnswer(10)
	req, _ := http.NewRequest("POST", s.URL+"/v1/query", strings.NewReader(`{"databaseName":"db","transactionType":"schema","query":`+jsonString(schema)+`}`))
	req.Header.Set("Content-Type", jsonType)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		b, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if rerr == nil || len(b) > 10 {
			t.Fatalf("read %d bytes, err %v; want at most 10 and an error", len(b), rerr)
		}
	}
	if _, err := http.Get(s.URL + "/health"); err == nil {
		t.Fatal("the server still answers after dying")
	}
}

func TestEncodeScanAnswerDecodes(t *testing.T) {
	var b bytes.Buffer
	in := []Person{{"a@x", "Ann \"A\"\n", 30}, {"b@x", "Bé", 40}}
	if err := EncodeScanAnswer(&b, in, AnswerOptions{}); err != nil {
		t.Fatal(err)
	}
	var a struct {
		Answers []struct {
			Data map[string]struct {
				Kind  string
				Value any
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	for i, row := range a.Answers {
		if row.Data["e"].Value != in[i].Email || row.Data["n"].Value != in[i].Name || row.Data["a"].Value != float64(in[i].Age) || row.Data["p"].Kind != "entity" {
			t.Errorf("row %d: %+v", i, row)
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// objectKeys returns the keys of every JSON object in doc, in the order they appear, one list per
// object (inner objects before the object that holds them finishes).
func objectKeys(t *testing.T, doc string) [][]string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(doc))
	var out [][]string
	var stack []int // index in out of each open object; -1 for arrays
	expectKey := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				out = append(out, nil)
				stack = append(stack, len(out)-1)
				expectKey = true
				continue
			case '[':
				stack = append(stack, -1)
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if expectKey {
				top := stack[len(stack)-1]
				out[top] = append(out[top], v)
				expectKey = false
				continue
			}
		}
		// after a value: a key follows when inside an object
		expectKey = len(stack) > 0 && stack[len(stack)-1] >= 0
	}
}

// TestKeyOrder checks the order of keys in rows and concepts on the wire: sorted by default, as
// the server's serde_json maps write them, and "kind" first when configured (the order a server
// built with preserve_order would send), for match rows, insert rows and typed concepts.
func TestKeyOrder(t *testing.T) {
	for _, keys := range []KeyOrder{KeysSorted, KeysKindFirst} {
		s := NewServer(Config{Keys: keys})
		tok := signIn(t, s)
		call(t, s, "POST", "/v1/databases/db", tok, "", "")
		call(t, s, "POST", "/v1/query", tok, jsonType, `{"databaseName":"db","transactionType":"schema","query":`+jsonString(schema)+`}`)
		ins := `insert $p2 isa person, has email "a@x", has name "A", has age 1; $p10 isa person, has email "b@x", has name "B", has age 2; $p1 isa person, has email "c@x", has name "C", has age 3;`
		_, _, insBody := call(t, s, "POST", "/v1/query", tok, jsonType, `{"databaseName":"db","transactionType":"write","query":`+jsonString(ins)+`}`)
		scan := `match $p isa person, has email $e, has name $n, has age $a;`
		var docs []string
		for _, types := range []string{"false", "true"} {
			_, _, body := call(t, s, "POST", "/v1/query", tok, jsonType, `{"databaseName":"db","transactionType":"read","query":`+jsonString(scan)+
				`,"queryOptions":{"includeInstanceTypes":`+types+`}}`)
			docs = append(docs, body)
		}
		s.Close()
		concepts, rows := 0, 0
		for _, doc := range append(docs, insBody) {
			for _, ks := range objectKeys(t, doc) {
				switch {
				case slices.Contains(ks, "iid"): // an instance
					concepts++
					if keys == KeysSorted && !slices.IsSorted(ks) || keys == KeysKindFirst && ks[0] != "kind" {
						t.Errorf("keys %d: concept keys %v\n%s", keys, ks, doc)
					}
				case slices.Contains(ks, "p") || slices.Contains(ks, "p1"): // a row's data
					rows++
					if sorted := slices.IsSorted(ks); sorted != (keys == KeysSorted) {
						t.Errorf("keys %d: row variables %v", keys, ks)
					}
				}
			}
		}
		if concepts != 2*3*4+3 || rows != 2*3+1 {
			t.Errorf("keys %d: %d concepts in %d rows, want %d in %d", keys, concepts, rows, 2*3*4+3, 2*3+1)
		}
	}
}

// TestAnswerFraming checks that a query answer goes out as the server sends it: one body of known
// length (axum's Json response), not chunked.
func TestAnswerFraming(t *testing.T) {
	s := NewServer(Config{})
	defer s.Close()
	tok := signIn(t, s)
	call(t, s, "POST", "/v1/databases/db", tok, "", "")
	call(t, s, "POST", "/v1/query", tok, jsonType, `{"databaseName":"db","transactionType":"schema","query":`+jsonString(schema)+`}`)
	// Enough rows for an answer far larger than net/http's buffers (about 180 KiB).
	var ins strings.Builder
	ins.WriteString("insert")
	for i := range 400 {
		fmt.Fprintf(&ins, ` $p%d isa person, has email "p%d@x", has name "P%d", has age %d;`, i, i, i, i)
	}
	if st, code, body := call(t, s, "POST", "/v1/query", tok, jsonType, `{"databaseName":"db","transactionType":"write","query":`+jsonString(ins.String())+`}`); st != 200 {
		t.Fatalf("insert: HTTP %d %s: %.300s", st, code, body)
	}
	scan := `match $p isa person, has email $e, has name $n, has age $a;`
	req, _ := http.NewRequest("POST", s.URL+"/v1/query", strings.NewReader(`{"databaseName":"db","transactionType":"read","query":`+jsonString(scan)+`}`))
	req.Header.Set("Content-Type", jsonType)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP %d, %v: %s", resp.StatusCode, err, b)
	}
	if len(b) < 100<<10 {
		t.Fatalf("a %d-byte answer: want more than 100 KiB", len(b))
	}
	if len(resp.TransferEncoding) != 0 || resp.ContentLength != int64(len(b)) {
		t.Errorf("transfer encoding %q, content length %d for a %d-byte answer: want no chunking and the length",
			resp.TransferEncoding, resp.ContentLength, len(b))
	}
}

// TestEchoAuthorization: once armed for a route, its requests fail with the bearer token quoted in
// the error body; other routes answer as before.
func TestEchoAuthorization(t *testing.T) {
	s := NewServer(Config{})
	defer s.Close()
	tok := signIn(t, s)
	s.EchoAuthorization("oneshot", "read")
	st, code, body := call(t, s, "POST", "/v1/query", tok, jsonType, `{"databaseName":"db","transactionType":"read","query":"match $p isa person;"}`)
	if st != http.StatusBadRequest || code != "HSR3" || !strings.Contains(body, "Bearer "+tok) {
		t.Errorf("armed one-shot read query: %d %s %s", st, code, body)
	}
	call(t, s, "POST", "/v1/databases/db", tok, jsonType, "")
	if st, _, body := call(t, s, "POST", "/v1/query", tok, jsonType, `{"databaseName":"db","transactionType":"schema","query":"define entity person;"}`); st != http.StatusOK {
		t.Errorf("a one-shot schema query: %d %s", st, body)
	}
	if st, _, body := call(t, s, "GET", "/v1/databases", tok, "", ""); st != http.StatusOK {
		t.Errorf("another route: %d %s", st, body)
	}
	if got := s.Echoed(); len(got) != 1 || got[0] != "Bearer "+tok {
		t.Errorf("Echoed() = %q", got)
	}
}

package client_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters/typedb/client"
	"github.com/dbbench/dbbench/adapters/typedb/typedbtest"
)

const schema = `define attribute email, value string; attribute name, value string; attribute age, value integer;
entity person, owns email @key, owns name, owns age;`

func start(t *testing.T, cfg typedbtest.Config) (*typedbtest.Server, *client.Client) {
	t.Helper()
	srv := typedbtest.NewServer(cfg)
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{Address: srv.URL, Username: "admin", Password: "password", RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return srv, c
}

// setup creates database db with the person schema and n persons.
func setup(t *testing.T, c *client.Client, db string, n int) {
	t.Helper()
	ctx := context.Background()
	if err := c.CreateDatabase(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := c.Define(ctx, db, schema); err != nil {
		t.Fatal(err)
	}
	tx, err := c.OpenTransaction(ctx, db, client.Write, client.TransactionOptions{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += 50 {
		var q strings.Builder
		q.WriteString("insert ")
		for j := i; j < min(n, i+50); j++ {
			fmt.Fprintf(&q, `$p%d isa person, has email "u%d@example.com", has name "Name \"%d\"", has age %d; `, j-i, j, j, 18+j%80)
		}
		a, err := tx.Query(ctx, q.String(), client.QueryOptions{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.QueryType != "write" || a.Rows != 1 {
			t.Fatalf("insert answer %+v, want one write row", a)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

const scanQuery = `match $p isa person, has email $e, has name $n, has age $a;`

type tally struct {
	rows   int
	ageSum int64
	names  map[string]bool
}

func (tl *tally) handler(t *testing.T) client.RowHandler {
	return func(r *client.Row) error {
		age, err := r.Get("a").Int()
		if err != nil {
			return err
		}
		tl.rows++
		tl.ageSum += age
		if tl.names != nil {
			tl.names[string(r.Get("n").Bytes())] = true
		}
		if r.Get("e") == nil || r.Get("p").Kind != client.KindEntity {
			t.Errorf("row lacks e or p")
		}
		return nil
	}
}

func TestEndToEnd(t *testing.T) {
	srv, c := start(t, typedbtest.Config{})
	ctx := context.Background()
	v, err := c.Version(ctx)
	if err != nil || v.Version != "3.14.0" || !v.AtLeast(3, 2) {
		t.Fatalf("version %+v, %v", v, err)
	}
	if err := c.Health(ctx); err != nil {
		t.Fatal(err)
	}
	setup(t, c, "bench", 300)
	if ok, err := c.DatabaseExists(ctx, "bench"); !ok || err != nil {
		t.Fatalf("exists = %v, %v", ok, err)
	}
	if ok, err := c.DatabaseExists(ctx, "nope"); ok || err != nil {
		t.Fatalf("exists(nope) = %v, %v", ok, err)
	}
	names, err := c.Databases(ctx)
	if err != nil || len(names) != 1 || names[0] != "bench" {
		t.Fatalf("databases = %v, %v", names, err)
	}
	sc, err := c.Schema(ctx, "bench")
	if err != nil || !strings.Contains(sc, "entity person, owns email @key") {
		t.Fatalf("schema = %q, %v", sc, err)
	}

	tx, err := c.OpenTransaction(ctx, "bench", client.Read, client.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tl := tally{names: map[string]bool{}}
	a, err := tx.Query(ctx, scanQuery, client.QueryOptions{AnswerCountLimit: 1000}, tl.handler(t))
	if err != nil {
		t.Fatal(err)
	}
	var wantAge int64
	for j := 0; j < 300; j++ {
		wantAge += int64(18 + j%80)
	}
	if a.Rows != 300 || tl.rows != 300 || tl.ageSum != wantAge || a.Truncated() || !tl.names[`Name "7"`] {
		t.Fatalf("scan: answer %+v, %d rows, age sum %d (want %d)", a, tl.rows, tl.ageSum, wantAge)
	}
	if err := tx.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Close(ctx); err != nil {
		t.Fatalf("a second close must succeed: %v", err)
	}

	// One-shot lookup.
	tl = tally{}
	a, err = c.Query(ctx, client.OneShot{Database: "bench", Type: client.Read,
		Query: `match $p isa person, has email $e, has name $n, has age $a; limit 5;`}, tl.handler(t))
	if err != nil || a.Rows != 5 || tl.rows != 5 {
		t.Fatalf("one-shot: %+v, %v", a, err)
	}

	if err := c.DeleteDatabase(ctx, "bench"); err != nil {
		t.Fatal(err)
	}
	if srv.OpenTransactions() != 0 {
		t.Fatalf("%d transactions left open", srv.OpenTransactions())
	}
}

func TestTruncatedAnswer(t *testing.T) {
	_, c := start(t, typedbtest.Config{})
	setup(t, c, "bench", 120)
	ctx := context.Background()
	for _, tc := range []struct {
		limit, rows int
		truncated   bool
	}{{100, 100, true}, {120, 120, false}, {0, 120, false}} {
		tl := tally{}
		a, err := c.Query(ctx, client.OneShot{Database: "bench", Type: client.Read, Query: scanQuery,
			QueryOptions: client.QueryOptions{AnswerCountLimit: tc.limit}}, tl.handler(t))
		if err != nil {
			t.Fatal(err)
		}
		if a.Rows != tc.rows || a.Truncated() != tc.truncated || (a.Status == 206) != tc.truncated {
			t.Errorf("limit %d: answer %+v, want %d rows, truncated %v", tc.limit, a, tc.rows, tc.truncated)
		}
		if tc.truncated && !strings.Contains(a.Warning, "limit (100) exceeded") {
			t.Errorf("warning = %q", a.Warning)
		}
	}
}

func TestReSignInAfterTokenExpiry(t *testing.T) {
	srv, c := start(t, typedbtest.Config{})
	setup(t, c, "bench", 10)
	srv.ExpireTokens()
	// Several callers hit the expired token at once: one sign-in should serve them all.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.DatabaseExists(context.Background(), "bench")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := srv.SignIns(); got != 2 {
		t.Fatalf("%d sign-ins, want 2 (the first and one renewal)", got)
	}
}

// TestOnTokenSeesEveryToken: every token a sign-in returns, the first and a renewal's, is handed to
// OnToken before a request carries it, so that an error quoting a request's Authorization header can
// be masked.
func TestOnTokenSeesEveryToken(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{})
	defer srv.Close()
	var mu sync.Mutex
	var seen []string
	c, err := client.New(client.Config{Address: srv.URL, Username: "admin", Password: "password",
		OnToken: func(tok string) { mu.Lock(); seen = append(seen, tok); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	srv.EchoAuthorization("databases", "")
	for round := range 2 {
		_, err := c.DatabaseExists(ctx, "x")
		echoed := srv.Echoed()
		mu.Lock()
		if len(seen) != round+1 || len(echoed) != round+1 || echoed[round] != "Bearer "+seen[round] {
			t.Errorf("round %d: OnToken saw %q, the server echoed %q", round, seen, echoed)
		}
		mu.Unlock()
		if err == nil || !strings.Contains(err.Error(), echoed[round]) {
			t.Fatalf("round %d: %v, want the server's echo", round, err)
		}
		srv.ExpireTokens() // the next request signs in again
	}
}

func TestServerErrorsCarryTypeDBCodes(t *testing.T) {
	srv, c := start(t, typedbtest.Config{})
	setup(t, c, "bench", 3)
	ctx := context.Background()
	tx, err := c.OpenTransaction(ctx, "bench", client.Read, client.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name string
		err  error
		code string
		http int
	}{}
	add := func(name string, err error, code string, status int) {
		checks = append(checks, struct {
			name string
			err  error
			code string
			http int
		}{name, err, code, status})
	}
	_, err = tx.Query(ctx, "match $x isa thing; fetch { $x.* };", client.QueryOptions{}, nil)
	add("unparsable query", err, client.CodeQueryFailed, 400)
	_, err = tx.Query(ctx, `insert $p isa person, has email "x", has name "y", has age 1;`, client.QueryOptions{}, nil)
	add("write in a read transaction", err, "TSV9", 400)
	add("create existing database", c.CreateDatabase(ctx, "bench"), client.CodeDatabaseExists, 400)
	add("delete database in use", c.DeleteDatabase(ctx, "bench"), client.CodeDatabaseInUse, 400)
	add("delete missing database", c.DeleteDatabase(ctx, "nope"), client.CodeDatabaseMissing, 400)
	_, err = c.OpenTransaction(ctx, "nope", client.Read, client.TransactionOptions{})
	add("open on a missing database", err, "SRV3", 404)
	add("commit a read transaction", tx.Commit(ctx), "TSV2", 400)
	add("commit after the transaction is gone", tx.Commit(ctx), client.CodeNoTransaction, 404)
	for _, ck := range checks {
		var e *client.Error
		if !errors.As(ck.err, &e) || !e.Has(ck.code) || e.Status != ck.http {
			t.Errorf("%s: err = %v, want HTTP %d with %s", ck.name, ck.err, ck.http, ck.code)
			continue
		}
		if strings.Contains(e.Error(), "\n") || !strings.Contains(e.Error(), "["+e.Code+"]") {
			t.Errorf("%s: %q should be one line naming the root code", ck.name, e.Error())
		}
	}
	_ = srv
}

func TestTransactionTimeout(t *testing.T) {
	srv, c := start(t, typedbtest.Config{})
	setup(t, c, "bench", 3)
	ctx := context.Background()
	tx, err := c.OpenTransaction(ctx, "bench", client.Read, client.TransactionOptions{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv.SetQueryDelay(time.Second)
	_, err = tx.Query(ctx, scanQuery, client.QueryOptions{}, nil)
	if !client.HasCode(err, client.CodeTxTimeout) {
		t.Fatalf("query past the deadline: %v, want TSV17", err)
	}
	srv.SetQueryDelay(0)
	_, err = tx.Query(ctx, scanQuery, client.QueryOptions{}, nil)
	if !client.HasCode(err, client.CodeNoTransaction) {
		t.Fatalf("query after the timeout: %v, want TSV12", err)
	}
}

func TestServerDiesMidAnswer(t *testing.T) {
	srv, c := start(t, typedbtest.Config{})
	setup(t, c, "bench", 2000)
	srv.DieMidAnswer(100 << 10)
	tl := tally{}
	_, err := c.Query(context.Background(), client.OneShot{Database: "bench", Type: client.Read, Query: scanQuery}, tl.handler(t))
	if err == nil || !strings.Contains(err.Error(), "closed mid-answer") || tl.rows == 0 {
		t.Fatalf("err = %v after %d rows, want a mid-answer failure", err, tl.rows)
	}
	_, err = c.DatabaseExists(context.Background(), "bench")
	if err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Fatalf("after the server died: %v", err)
	}
}

func TestStalledAnswerTimesOut(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{})
	defer srv.Close()
	c, err := client.New(client.Config{Address: srv.URL, Username: "admin", Password: "password", RequestTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	setup(t, c, "bench", 500)
	srv.StallMidAnswer(10 << 10)
	done := make(chan error, 1)
	go func() {
		_, err := c.Query(context.Background(), client.OneShot{Database: "bench", Type: client.Read, Query: scanQuery}, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want the request timeout", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a stalled answer hung the client")
	}
}

func TestConnectionProblems(t *testing.T) {
	ctx := context.Background()
	tlsSrv := typedbtest.NewServer(typedbtest.Config{TLS: true})
	defer tlsSrv.Close()
	plain := typedbtest.NewServer(typedbtest.Config{})
	defer plain.Close()
	old := typedbtest.NewServer(typedbtest.Config{NoHTTPAPI: true})
	defer old.Close()

	cases := []struct {
		name, addr, user, pass string
		want                   func(error) bool
	}{
		{"plain http to a TLS server", strings.Replace(tlsSrv.URL, "https://", "http://", 1), "admin", "password",
			func(err error) bool { return errors.Is(err, client.ErrTLSRequired) }},
		{"https to a plain server", strings.Replace(plain.URL, "http://", "https://", 1), "admin", "password",
			func(err error) bool { return errors.Is(err, client.ErrNotTLS) }},
		{"wrong password", plain.URL, "admin", "wrong",
			func(err error) bool { return client.HasCode(err, client.CodeInvalidCredential) }},
		{"unreachable", "127.0.0.1:1", "admin", "password",
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "cannot reach") }},
	}
	for _, tc := range cases {
		c, err := client.New(client.Config{Address: tc.addr, Username: tc.user, Password: tc.pass, RequestTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		err = c.SignIn(ctx)
		if !tc.want(err) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
	c, _ := client.New(client.Config{Address: old.URL})
	if _, err := c.Version(ctx); !errors.Is(err, client.ErrNoHTTPAPI) {
		t.Errorf("server without the HTTP API: err = %v", err)
	}
	for _, bad := range []string{"", "ftp://x:1", "http://h:1/path", "http://u:p@h:1"} {
		if _, err := client.New(client.Config{Address: bad}); err == nil {
			t.Errorf("address %q accepted", bad)
		}
	}
}

func TestSnapshotIsolationAndRollback(t *testing.T) {
	_, c := start(t, typedbtest.Config{})
	setup(t, c, "bench", 5)
	ctx := context.Background()
	count := func(tx *client.Transaction) int {
		a, err := tx.Query(ctx, scanQuery, client.QueryOptions{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return a.Rows
	}
	reader, err := c.OpenTransaction(ctx, "bench", client.Read, client.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.OpenTransaction(ctx, "bench", client.Write, client.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ins := `insert $x isa person, has email "new@x", has name "N", has age 30;`
	if _, err := w.Query(ctx, ins, client.QueryOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if count(w) != 5 {
		t.Fatal("rollback kept the insert")
	}
	if _, err := w.Query(ctx, ins, client.QueryOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Query(ctx, ins, client.QueryOptions{}, nil); !client.HasCode(err, "CNT9") {
		t.Fatalf("duplicate key: %v, want CNT9", err)
	}
	if err := w.Commit(ctx); !client.HasCode(err, client.CodeNoTransaction) {
		t.Fatalf("commit after a failed write: %v, want TSV12 (the failure closed it)", err)
	}
	w2, _ := c.OpenTransaction(ctx, "bench", client.Write, client.TransactionOptions{})
	if _, err := w2.Query(ctx, ins, client.QueryOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w2.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if count(reader) != 5 {
		t.Fatal("a read transaction saw a write committed after it opened")
	}
	fresh, _ := c.OpenTransaction(ctx, "bench", client.Read, client.TransactionOptions{})
	if count(fresh) != 6 {
		t.Fatal("a new read transaction does not see the commit")
	}
	_ = fresh.Close(ctx)
	_ = reader.Close(ctx)
}

package triplex

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/triplex/store"
	dbconfig "github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/engine"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
	"github.com/dbbench/dbbench/report"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func options(t testing.TB, raw map[string]any) adapters.Options {
	t.Helper()
	o, err := adapters.ParseOptions(optionSpecs, raw)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func params(t testing.TB, workload string, raw map[string]any) adapters.Options {
	t.Helper()
	spec, ok := adapters.CustomSpec(New().Info(), workload)
	if !ok {
		t.Fatalf("no workload %s", workload)
	}
	o, err := adapters.ParseOptions(spec.Params, raw)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// open opens and loads a target of n persons.
func open(t testing.TB, raw map[string]any, n int) (*target, *dataset.Persons) {
	t.Helper()
	ctx := context.Background()
	ds, err := dataset.Generate(n, 7)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["path"]; ok {
		raw = with(raw, "path", filepath.Join(t.TempDir(), "tx.db")) // a fresh file per target
	}
	tg, err := New().Open(ctx, options(t, raw), adapters.Env{TempDir: t.TempDir(), Seed: 3, Size: n, Logf: t.Logf})
	if err != nil {
		t.Fatalf("open %v: %v", raw, err)
	}
	t.Cleanup(func() {
		if err := tg.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	if err := tg.Load(ctx, ds); err != nil {
		t.Fatalf("load %v: %v", raw, err)
	}
	return tg.(*target), ds
}

// backends lists the target configurations every behaviour is tested on (without the layout).
func backends(t *testing.T) map[string]map[string]any {
	m := map[string]map[string]any{
		"sqlite-memory": {"backend": "sqlite", "storage": "memory"},
		"sqlite-file":   {"backend": "sqlite", "storage": "file", "path": filepath.Join(t.TempDir(), "tx.db")},
	}
	if os.Getenv(pgtest.SkipEnv) != "1" {
		m["postgres"] = map[string]any{"backend": "postgres", "dsn": pgtest.NewDatabase(t)}
	}
	return m
}

func with(base map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// run calls an op ops times and returns the summed tally.
func run(t *testing.T, tg *target, workload string, raw map[string]any, ops int) (adapters.Tally, map[string]any) {
	t.Helper()
	op, err := tg.PrepareWorkload(context.Background(), workload, params(t, workload, raw))
	if err != nil {
		t.Fatalf("%s %s: prepare: %v", tg.cfg.layout, workload, err)
	}
	var sum adapters.Tally
	for i := 0; i < ops; i++ {
		tally, err := op.Do(context.Background(), i)
		if err != nil {
			t.Fatalf("%s %s op %d: %v", tg.cfg.layout, workload, i, err)
		}
		// as the engine does, with the clock stopped
		if tally, err = op.(adapters.Verifier).Verify(context.Background(), i); err != nil {
			t.Fatalf("%s %s op %d: verify: %v", tg.cfg.layout, workload, i, err)
		}
		sum.Add(tally)
	}
	var info map[string]any
	if d, ok := op.(adapters.Describer); ok {
		info = d.Info()
	}
	if c, ok := op.(interface{ Close() error }); ok {
		if err := c.Close(); err != nil {
			t.Fatalf("%s %s: close: %v", tg.cfg.layout, workload, err)
		}
	}
	return sum, info
}

type step struct {
	workload string
	params   map[string]any
	ops      int
	rows     int64 // expected rows per op
}

// steps is the Triplex workload sequence; the mutating ones come last, as in the configs.
var steps = []step{
	{wPageAll, nil, 3, 100},
	{wPageAttr, map[string]any{"attribute": "score"}, 2, 100},
	{wPageAttr, map[string]any{"attribute": "group", "page": 50}, 2, 50},
	{wPageJoin, nil, 2, 100},
	{wPageJoin, map[string]any{"min_score": 95, "page": 10}, 2, 10},
	{wGroupCount, nil, 2, 100},
	{wGroupCount, map[string]any{"mode": "computed"}, 2, 100},
	{wNextPage, map[string]any{"shape": "all", "pages": 3}, 3, 100},
	{wNextPage, map[string]any{"shape": "join", "pages": 2, "page": 40}, 2, 40},
	{wNextPage, map[string]any{"shape": "group", "pages": 2}, 2, -1}, // 100 groups, then 50
	{wNextPage, map[string]any{"shape": "attribute", "pages": 2, "attribute": "score"}, 2, 100},
	{wEntityLookup, nil, 20, 3},
	{wAsOfPage, map[string]any{"back": 1}, 2, 100},
	{wAsOfPage, map[string]any{"back": 2, "attribute": "score"}, 2, 100},
	{wAsOfEntity, map[string]any{"back": 2}, 10, 3},
	{wInsertFacts, map[string]any{"batch": 50}, 2, 150},
	{wUpdateRound, map[string]any{"batch": 40}, 3, 40},
	{wPageJoin, nil, 1, 100},
	{wGroupCount, nil, 1, 100},
	{wEntityLookup, nil, 20, 3},
	{wAsOfPage, map[string]any{"back": 1}, 1, 100},
}

// TestLayoutsGiveSameAnswers runs every Triplex workload on both layouts of every backend on the same
// data, with update rounds before and between them: each op checks its own rows against the model,
// and the two layouts (and all backends) must produce identical checksums, step by step.
func TestLayoutsGiveSameAnswers(t *testing.T) {
	const n = 600
	sums := map[int]map[string]adapters.Tally{}
	for name, base := range backends(t) {
		for _, layout := range []string{"triplex", "indexed"} {
			label := name + "/" + layout
			tg, _ := open(t, with(base, "layout", layout, "history_depth", 3, "update_share", 0.2, "persons", false), n)
			for i, s := range steps {
				tally, info := run(t, tg, s.workload, s.params, s.ops)
				if s.rows >= 0 && tally.Rows != s.rows*int64(s.ops) {
					t.Errorf("%s step %d %s: %d rows, want %d", label, i, s.workload, tally.Rows, s.rows*int64(s.ops))
				}
				if w, ok := info["warnings"]; ok && layout == "indexed" && !strings.HasPrefix(name, "postgres") {
					t.Errorf("%s step %d %s: plan warnings %v", label, i, s.workload, w)
				}
				if sums[i] == nil {
					sums[i] = map[string]adapters.Tally{}
				}
				sums[i][label] = tally
			}
			info := tg.Info()
			for _, k := range []string{"backend", "driver", "storage", "cache", "history_depth", "fixture_facts", "load_facts_per_s", "update_pairs_per_s", "insert_facts_total"} {
				if _, ok := info[k]; !ok {
					t.Errorf("%s: Info lacks %s: %v", label, k, info)
				}
			}
			if got := info["fixture_facts"]; got != int64(n*3+2*150) {
				t.Errorf("%s: fixture_facts = %v, want %d", label, got, n*3+2*150)
			}
		}
	}
	for i, bySetup := range sums {
		var first string
		for label, tally := range bySetup {
			if first == "" {
				first = label
				continue
			}
			if tally != bySetup[first] {
				t.Errorf("step %d %s: %s gives %+v, %s gives %+v", i, steps[i].workload, label, tally, first, bySetup[first])
			}
		}
	}
}

// TestAsOfAcrossRounds checks that as-of reads see the state each update round left, and that
// history changes answers (a read one round back differs from a read two rounds back).
func TestAsOfAcrossRounds(t *testing.T) {
	for _, layout := range []string{"triplex", "indexed"} {
		tg, _ := open(t, map[string]any{"layout": layout, "history_depth": 4, "update_share": 0.5, "persons": false}, 300)
		var prev adapters.Tally
		for back := 1; back <= 3; back++ {
			got, _ := run(t, tg, wAsOfPage, map[string]any{"back": back}, 1)
			if back > 1 && got == prev {
				t.Errorf("%s: as-of page %d rounds back equals %d rounds back", layout, back, back-1)
			}
			prev = got
			run(t, tg, wAsOfEntity, map[string]any{"back": back}, 20)
		}
		// the load state (3 rounds back) is the fixture's initial scores: 0, 1, 2, ...
		i := 0
		if err := tg.bench.PageAttr(context.Background(), tg.roundTx[0], attrScore, nil, 100, func(f store.Fact) error {
			if f.V.Num != float64(i%100) {
				t.Errorf("%s: at load, entity %d score %v, want %d", layout, f.E, f.V.Num, i%100)
			}
			i++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBadInput: each bad option, dsn or parameter is one clear error with the right exit code.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	existing := filepath.Join(t.TempDir(), "mine.db")
	if err := os.WriteFile(existing, []byte("user data"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		opts map[string]any
		code int
		msg  string
	}{
		{"history depth 0", map[string]any{"history_depth": 0}, exitcode.Usage, "history_depth must be at least 1"},
		{"update share 0", map[string]any{"update_share": 0.0}, exitcode.Usage, "update_share"},
		{"existing sqlite path", map[string]any{"storage": "file", "path": existing}, exitcode.Usage, "already exists; refusing"},
		{"path without file storage", map[string]any{"path": filepath.Join(t.TempDir(), "x.db")}, exitcode.Usage, "storage: file"},
		{"keep without a path", map[string]any{"storage": "file", "keep": true}, exitcode.Usage, "keep needs"},
		{"keep on postgres", map[string]any{"backend": "postgres", "keep": true}, exitcode.Usage, "keep needs"},
		{"dsn on sqlite", map[string]any{"dsn": "postgres://localhost/x"}, exitcode.Usage, "postgres option"},
		{"malformed dsn", map[string]any{"backend": "postgres", "dsn": "postgres://u:secret@[::1"}, exitcode.Usage, "dsn"},
		{"unreachable dsn", map[string]any{"backend": "postgres", "dsn": "postgres://u:secret@127.0.0.1:1/db?connect_timeout=3"}, exitcode.Infra, "cannot connect"},
	}
	if os.Getenv(pgtest.SkipEnv) != "1" {
		u, err := url.Parse(pgtest.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.UserPassword("no_such_role", "secret")
		cases = append(cases, struct {
			name string
			opts map[string]any
			code int
			msg  string
		}{"rejected credentials", map[string]any{"backend": "postgres", "dsn": u.String()}, exitcode.Usage, "authentication failed"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New().Open(ctx, options(t, c.opts), adapters.Env{TempDir: t.TempDir(), Size: 10})
			if err == nil {
				t.Fatal("no error")
			}
			if exitcode.Of(err) != c.code || !strings.Contains(err.Error(), c.msg) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q (exit %d), want exit %d containing %q on one line", err, exitcode.Of(err), c.code, c.msg)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("error leaks the password: %v", err)
			}
		})
	}
	_, err := New().Open(ctx, options(t, map[string]any{"max_persons": 100}), adapters.Env{TempDir: t.TempDir(), Size: 1000})
	if !errors.Is(err, adapters.ErrUnavailable) || !strings.Contains(err.Error(), "max_persons") {
		t.Errorf("size above max_persons: %v", err)
	}
	if b, err := os.ReadFile(existing); err != nil || string(b) != "user data" {
		t.Fatalf("existing file was touched: %q, %v", b, err)
	}

	tg, _ := open(t, map[string]any{"history_depth": 1, "persons": false}, 60)
	wcases := []struct {
		workload string
		params   map[string]any
		msg      string
	}{
		{wPageAll, map[string]any{"page": 500}, "needs at least 501 facts"},
		{wPageAttr, nil, "needs at least 101 entities"},
		{wGroupCount, nil, "needs at least 101 groups"},
		{wPageJoin, map[string]any{"min_score": 100, "page": 1}, "min_score must be in 0..99"},
		{wPageAll, map[string]any{"page": 5000}, "maximum of 1000"},
		{wNextPage, map[string]any{"page": 200, "pages": 5}, "needs at least 201 facts"},
		{wAsOfPage, map[string]any{"page": 10}, "needs history_depth >= 2"},
		{wAsOfEntity, nil, "needs history_depth >= 2"},
	}
	for _, c := range wcases {
		_, err := tg.PrepareWorkload(ctx, c.workload, params(t, c.workload, c.params))
		if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s %v: error %v (exit %d), want a usage error containing %q", c.workload, c.params, err, exitcode.Of(err), c.msg)
		}
	}
	if _, err := tg.PrepareWorkload(ctx, "page_everything", adapters.Options{}); exitcode.Of(err) != exitcode.Usage {
		t.Errorf("unknown workload: %v", err)
	}
	if _, err := tg.Scan(ctx, 10); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "persons: false") {
		t.Errorf("scan without persons: %v", err)
	}
}

// TestPostgresSchemaIsolation: on a dsn the adapter works in a schema of its own and drops only that.
func TestPostgresSchemaIsolation(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	conn := pgtest.Connect(t, dsn)
	if _, err := conn.Exec(ctx, "CREATE TABLE users_own (x int); CREATE TABLE bench_fact (x int)"); err != nil {
		t.Fatal(err)
	}
	tg, _ := open(t, map[string]any{"backend": "postgres", "dsn": dsn, "history_depth": 1}, 150)
	schema := tg.b.(*pgBackend).schema.Name
	if !strings.HasPrefix(schema, "dbbench_triplex_") {
		t.Fatalf("schema %q", schema)
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public' AND table_name IN ('users_own', 'bench_fact')").Scan(&n); err != nil || n != 2 {
		t.Fatalf("the user's tables: %d, %v", n, err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = $1", schema).Scan(&n); err != nil || n != 0 {
		t.Fatalf("schema %s left behind: %d, %v", schema, n, err)
	}
}

// TestPostgresSessionSettings checks that the indexed layout's connections run with Memoize off (its
// joins probe a key that is unique per outer row, so a cache never hits; see store.PostgresSettings)
// and that the triplex layout, the reconstruction of Triplex, keeps the server's default.
func TestPostgresSessionSettings(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	for layout, want := range map[string]string{"indexed": "off", "triplex": "on"} {
		tg, _ := open(t, map[string]any{"backend": "postgres", "dsn": dsn, "layout": layout, "persons": false, "history_depth": 1}, 150)
		db := tg.b.(*pgBackend).db
		// more connections than one, so that a setting made on one connection only would show
		conns := make([]*sql.Conn, 3)
		for i := range conns {
			c, err := db.Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			conns[i] = c
			var got string
			if err := c.QueryRowContext(context.Background(), "SHOW enable_memoize").Scan(&got); err != nil || got != want {
				t.Errorf("%s layout, connection %d: enable_memoize %q, %v; want %q", layout, i, got, err, want)
			}
		}
		if s, _ := tg.Info()["session_settings"].(string); !strings.Contains(s, "jit=off") || (want == "off") != strings.Contains(s, "enable_memoize=off") {
			t.Errorf("%s layout: session_settings %q", layout, s)
		}
	}
}

// TestABFunction loads testdata/ab.sql, the server-side A/B loop the README's Memoize figures come
// from, and runs it on two small statements.
func TestABFunction(t *testing.T) {
	ctx := context.Background()
	src, err := os.ReadFile(filepath.Join("testdata", "ab.sql"))
	if err != nil {
		t.Fatal(err)
	}
	conn := pgtest.Connect(t, pgtest.NewDatabase(t))
	if _, err := conn.Exec(ctx, string(src)); err != nil {
		t.Fatal(err)
	}
	var out string
	if err := conn.QueryRow(ctx, "SELECT ab('SELECT generate_series(1, 10)', 'SELECT generate_series(1, 1000)', 50)").Scan(&out); err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(out); len(f) != 4 || f[2] != "ratio" {
		t.Fatalf("ab: %q", out)
	}
	t.Log(out)
}

// TestThrowawayServer opens a postgres target without a dsn: it starts its own server and stops it.
func TestThrowawayServer(t *testing.T) {
	if os.Getenv(pgtest.SkipEnv) == "1" {
		t.Skip(pgtest.SkipEnv)
	}
	tg, err := New().Open(context.Background(), options(t, map[string]any{"backend": "postgres", "shared_buffers": "128MiB"}),
		adapters.Env{TempDir: t.TempDir(), Size: 200, Logf: t.Logf})
	if errors.Is(err, adapters.ErrUnavailable) {
		t.Fatalf("no PostgreSQL on this machine: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	info := tg.Info()
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info["server"].(string), "throwaway") || info["shared_buffers"] != "128MB" {
		t.Fatalf("info %v", info)
	}
}

// TestJoinPageIsTriplexOrder checks both layouts' join pages against Triplex's pagination order
// computed here from the fixture's definition, not from the adapter: score descending, then the
// projected ?e (its external ident, as text) and ?name ascending. Inserted entities tie with loaded
// ones, so an order that breaks ties by entity descending would return different entities.
func TestJoinPageIsTriplexOrder(t *testing.T) {
	const n, depth, share, inserted = 1000, 3, 0.5, 200
	type row struct {
		ident, name string
		score       int
	}
	var want []row
	for i := 0; i < n+inserted; i++ {
		score := i % 100 // the fixture's score; updated entities moved 37 per load-time round
		if i < n && math.Floor(float64(i+1)*share) > math.Floor(float64(i)*share) {
			score = (i + (depth-1)*37) % 100
		}
		if score >= 50 {
			want = append(want, row{fmt.Sprintf("bench:1700000000000:%07d", i+1), fmt.Sprintf("Person %d", i), score})
		}
	}
	slices.SortFunc(want, func(a, b row) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(a.ident, b.ident), strings.Compare(a.name, b.name))
	})
	for name, base := range backends(t) {
		for _, layout := range []string{"triplex", "indexed"} {
			label := name + "/" + layout
			tg, _ := open(t, with(base, "layout", layout, "history_depth", depth, "update_share", share, "persons", false), n)
			run(t, tg, wInsertFacts, map[string]any{"batch": inserted}, 1)
			// Walk the first pages by keyset, so the cursor across ties is checked too.
			var got []row
			var after *store.JoinRow
			for page := 0; page < 3; page++ {
				var last store.JoinRow
				if err := tg.bench.PageJoin(context.Background(), 0, store.Join{Order: attrScore, With: attrName, Min: 50}, after, 70,
					func(r store.JoinRow) error {
						got = append(got, row{tg.bench.Ident(r.E), string(r.With.Str), int(r.Order.Num)})
						last = store.JoinRow{E: r.E, Order: r.Order, With: r.With.Clone()}
						return nil
					}); err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				after = &last
			}
			if !slices.Equal(got, want[:len(got)]) || len(got) != 210 {
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Fatalf("%s: row %d = %+v, want %+v (Triplex's order)", label, i, got[i], want[i])
					}
				}
				t.Fatalf("%s: %d rows, want 210", label, len(got))
			}
		}
	}
}

// TestLostWriteFailsTheRun makes insert_facts drop one fact of each transaction, as a store that
// loses a write would, and runs it through the engine on both layouts: the op's read-back must fail
// the result (and so the run), where a tally built from the op's inputs would have passed.
func TestLostWriteFailsTheRun(t *testing.T) {
	r := runner(t, `name: lost-write
dataset: {persons: 300}
warmup: 0
repeats: 1
workloads: [{name: insert_facts, ops: 2, params: {batch: 20}}]
targets:
  - {name: triplex, adapter: triplex, options: {layout: triplex, persons: false}}
  - {name: indexed, adapter: triplex, options: {layout: indexed, persons: false}}
`)
	loseFact = true
	t.Cleanup(func() { loseFact = false })
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Results {
		if res.Status != "failed" || !strings.Contains(res.Error, "verification failed") || !strings.Contains(res.Error, "a write was lost") {
			t.Errorf("%s: %s %q; want a failed verification", res.Target, res.Status, res.Error)
		}
	}
	if rep.Verdict != "error" || len(rep.Results) != 2 {
		t.Errorf("verdict %s with %d results, want error", rep.Verdict, len(rep.Results))
	}
}

// TestKeepFile checks that keep: true leaves the SQLite file at the user's path with the loaded
// store readable, and that without it the file is removed.
func TestKeepFile(t *testing.T) {
	for _, keep := range []bool{true, false} {
		path := filepath.Join(t.TempDir(), "kept.db")
		tg, err := New().Open(context.Background(), options(t, map[string]any{"storage": "file", "path": path, "keep": keep, "persons": false}),
			adapters.Env{TempDir: t.TempDir(), Seed: 1, Size: 200, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		ds, _ := dataset.Generate(200, 1)
		if err := tg.Load(context.Background(), ds); err != nil {
			t.Fatal(err)
		}
		if err := tg.Close(); err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(path)
		if !keep {
			if !errors.Is(statErr, os.ErrNotExist) {
				t.Errorf("keep false: %s is still there (%v)", path, statErr)
			}
			continue
		}
		if statErr != nil {
			t.Fatalf("keep true: %v", statErr)
		}
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		err = db.QueryRow("SELECT count(*) FROM bench_fact WHERE tx_to = " + "9223372036854775807").Scan(&n)
		db.Close()
		if err != nil || n != 200*factsPerEntity {
			t.Errorf("kept store: %d current facts, %v; want %d", n, err, 200*factsPerEntity)
		}
	}
}

// TestShortPageFailsTheRun makes every page read lose one row (and read one more in its place, so
// the count, the order and every value still hold), on one target alone, where no other target's
// checksum could disagree: each page workload must fail its verification against the answer
// computed from the fixture's definition, and the same run without the lost row must pass.
func TestShortPageFailsTheRun(t *testing.T) {
	r := runner(t, `name: short-page
dataset: {persons: 300}
warmup: 0
repeats: 1
workloads:
  - {name: page_all, ops: 2, params: {page: 20}}
  - {name: page_attribute, ops: 2, params: {page: 20, attribute: score}}
  - {name: page_join, ops: 2, params: {page: 20}}
  - {name: group_count, ops: 2, params: {page: 20}}
  - {name: next_page, ops: 2, params: {page: 20, shape: join, pages: 2}}
  - {name: asof_page, ops: 2, params: {page: 20}}
targets:
  - {name: alone, adapter: triplex, options: {history_depth: 2, update_share: 0.2, persons: false}}
`)
	for _, drop := range []int{0, 5} {
		dropRow = drop
		rep, err := r.Run(context.Background())
		dropRow = 0
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Results) != 6 {
			t.Fatalf("%d results, want 6", len(rep.Results))
		}
		for _, res := range rep.Results {
			switch {
			case drop == 0 && res.Status != "ok":
				t.Errorf("%s, every row there: %s %q", res.Workload, res.Status, res.Error)
			case drop > 0 && (res.Status != "failed" || !strings.Contains(res.Error, "a row is missing or extra")):
				t.Errorf("%s, a row lost: %s %q; want it failed as incomplete", res.Workload, res.Status, res.Error)
			}
		}
	}
}

// TestInsertDoHoldsTheTransactionAlone: insert_facts builds a batch's values before Do (untimed)
// and Do takes no lock of the target's: with the values replaced after prepare and the target's
// lock held, Do still finishes and writes exactly the prepared values, so it built none itself.
func TestInsertDoHoldsTheTransactionAlone(t *testing.T) {
	tg, _ := open(t, map[string]any{"storage": "memory", "persons": false}, 300)
	op, err := tg.PrepareWorkload(context.Background(), wInsertFacts, params(t, wInsertFacts, map[string]any{"batch": 4}))
	if err != nil {
		t.Fatal(err)
	}
	ins := op.(*insertOp)
	ins.vals[1][attrName] = store.StringValue("built before Do")
	tg.mu.Lock()
	done := make(chan error, 1)
	go func() { _, err := op.Do(context.Background(), 0); done <- err }()
	select {
	case err := <-done:
		tg.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		tg.mu.Unlock()
		t.Fatal("Do waits for the target's lock: the timed region holds more than the transaction")
	}
	var got string
	if err := tg.bench.Entity(context.Background(), 0, tg.bench.Ident(ins.from+1), func(f store.Fact) error {
		if f.A == attrName {
			got = string(f.V.Str)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got != "built before Do" {
		t.Errorf("entity %d's name is %q: Do built its own values", ins.from+1, got)
	}
	// Verify (untimed) readies the next batch: the next Do builds nothing either.
	if _, err := op.(adapters.Verifier).Verify(context.Background(), 0); err == nil {
		t.Error("Verify passed a name the model does not have")
	}
	if ins.built != tg.nextEntity() || string(ins.vals[1][attrName].Str) != benchName(int(ins.built)) {
		t.Errorf("after Verify the values are for entity %d (%q), want %d", ins.built, ins.vals[1][attrName].Str, tg.nextEntity())
	}
}

// runner resolves a config of triplex targets into the engine's runner of it.
func runner(t *testing.T, yaml string) *engine.Runner {
	t.Helper()
	reg, err := adapters.NewRegistry(New())
	if err != nil {
		t.Fatal(err)
	}
	c, err := dbconfig.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Resolve(reg, false)
	if err != nil {
		t.Fatal(err)
	}
	p.Verdict.Runs = 1 // one run in this process: what a test hook does is this process's
	return &engine.Runner{Plan: p, TempDir: t.TempDir(), Environment: func() report.Environment { return report.Environment{} }}
}

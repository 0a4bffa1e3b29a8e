package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

// storeState is a shared store's usertable as PostgreSQL holds it: its rows and an
// order-independent checksum of every row (key and fields), computed by the server, not through
// the client the run measured.
type storeState struct {
	rows int64
	sum  string
}

func snapshot(t *testing.T, conn *pgx.Conn, schema string) storeState {
	t.Helper()
	var s storeState
	q := `SELECT count(*), coalesce(sum(('x' || substr(md5(ycsb_key || '|' || field0 || '|' || field1 || '|' || field2), 1, 15))::bit(60)::bigint), 0)::text
		FROM ` + pgx.Identifier{schema, "usertable"}.Sanitize()
	if err := conn.QueryRow(context.Background(), q).Scan(&s.rows, &s.sum); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return s
}

// TestEquivalenceSharedPostgres is the Equivalence goal (issue 21): against one PostgreSQL, the
// same config as one process and as 4 shards sharing the store loaded once issues the same
// operations, as the store's final state shows (every insert's record, each once: the row count and
// the rows' checksum). With reads beside the inserts, one process draws a read's record again
// while its insert is in flight and a shard never does: the inserts must not depend on it.
func TestEquivalenceSharedPostgres(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	conn := pgtest.Connect(t, dsn)
	for _, c := range []struct{ name, config string }{
		{"inserts", "shared-pg.yaml"},
		{"reads", "shared-pg-reads.yaml"},
	} {
		t.Run(c.name, func(t *testing.T) { equivalence(t, dsn, conn, c.name, filepath.Join("testdata", c.config)) })
	}
}

// equivalence runs cfg as one process on schema NAME_one and as 4 shards on NAME_four, and compares
// the stores they leave.
func equivalence(t *testing.T, dsn string, conn *pgx.Conn, name, cfg string) {
	dir := t.TempDir()
	one, four := name+"_one", name+"_four"
	env := func(cmd *exec.Cmd, schema string) {
		cmd.Env = append(os.Environ(), "TMPDIR="+dir, "SHARED_DSN="+dsn, "SHARED_SCHEMA="+schema)
	}
	run := func(schema string, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(binary, args...)
		env(cmd, schema)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0, string(out)
		case errors.As(err, &ee):
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("%v: %v", args, err)
		return 0, ""
	}
	// one store per run: the schema is the user's, made here
	pgtest.Exec(t, conn, "CREATE SCHEMA "+one, "CREATE SCHEMA "+four)

	// A shard on a shared store without the marker of a load is refused before it touches it.
	if code, out := run(four, "run", "-q", "-c", cfg, "--shard", "0/4", "--out", filepath.Join(dir, "refused.json")); code != 2 {
		t.Fatalf("a shard without --loaded: exit %d, want 2\n%s", code, out)
	}

	load := func(schema, marker string) {
		t.Helper()
		if code, out := run(schema, "run", "-q", "-c", cfg, "--load-only", "--loaded", marker); code != 0 {
			t.Fatalf("--load-only: exit %d\n%s", code, out)
		}
	}
	// One process: the same config as the one shard of one, on the store loaded once.
	m1 := filepath.Join(dir, "one.loaded")
	load(one, m1)
	if got := snapshot(t, conn, one); got.rows != 500 {
		t.Fatalf("loaded %d records, want 500", got.rows)
	}
	if code, out := run(one, "run", "-q", "-c", cfg, "--shard", "0/1", "--loaded", m1, "--out", filepath.Join(dir, "one.json")); code != 0 {
		t.Fatalf("one process: exit %d\n%s", code, out)
	}
	want := snapshot(t, conn, one)
	if want.rows <= 500 {
		t.Fatalf("one process inserted nothing (%d rows)", want.rows)
	}

	// A marker of another seed is refused.
	b, err := os.ReadFile(m1)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.loaded")
	if err := os.WriteFile(other, []byte(strings.Replace(string(b), `"seed": 11`, `"seed": 12`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := run(four, "run", "-q", "-c", cfg, "--shard", "0/4", "--loaded", other, "--out", filepath.Join(dir, "refused.json")); code != 2 || !strings.Contains(out, "seed 12") {
		t.Fatalf("a shard given another load's marker: exit %d, want 2\n%s", code, out)
	}

	// Four shards, as Kubernetes starts them, on one store loaded once.
	m4 := filepath.Join(dir, "four.loaded")
	load(four, m4)
	start := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339Nano)
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for i := range 4 {
		cmd := exec.Command(binary, "run", "-q", "-c", cfg, "--shards", "4", "--start-at", start, "--loaded", m4,
			"--out", filepath.Join(dir, fmt.Sprintf("shard-%d.json", i)))
		env(cmd, four)
		cmd.Env = append(cmd.Env, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, outs[i])
		}
	}
	if got := snapshot(t, conn, four); got != want {
		t.Fatalf("4 shards left %+v, one process %+v: not the same operations", got, want)
	}
	if code, out := run(four, "merge", filepath.Join(dir, "shard-0.json"), filepath.Join(dir, "shard-1.json"),
		filepath.Join(dir, "shard-2.json"), filepath.Join(dir, "shard-3.json"), "--out", filepath.Join(dir, "merged.json")); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, out)
	}
}

package exec

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"

	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/clients/refclient"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// TestConforms runs the conformance kit on exec targets driving each reference client: the Go one
// (built once), and the Node and Python ones where they can run (skipped otherwise, unless
// DBBENCH_REQUIRE_CLIENTS=1). A client's PostgreSQL store is a schema on a database of the test's.
func TestConforms(t *testing.T) {
	root, goBin := refClients(t)
	for _, c := range refclient.All {
		t.Run(c.Name, func(t *testing.T) {
			raw := map[string]any{"command": toAny(c.Command(t, goBin)), "dir": root, "timeout": "1m", "startup_timeout": "1m"}
			tg := adaptertest.Target{
				Workloads:     New().Info().Builtin,
				LeavesTempDir: "docs/protocol.md: a client's temp_dir is removed by dbbench after the client closes",
			}
			if c.Records {
				tg.RecordOps = ycsb.Ops()
			}
			if c.Postgres {
				dsn := pgtest.NewDatabase(t)
				raw["dsn"] = dsn
				tg.Remains = adaptertest.PostgresRemains(dsn)
			}
			tg.Open = adaptertest.Opener(New(), raw)
			adaptertest.Run(t, tg)
		})
	}
}

// TestReferenceClientsAreReadBack: each reference client speaks protocol 2 and describes its stores,
// so that dbbench reads the loaded store and every insert's fresh store back itself, or (a store it
// cannot open) takes the challenge; the dataset is salted, so the answers come from the file; the
// target's info says which verification it had.
func TestReferenceClientsAreReadBack(t *testing.T) {
	root, goBin := refClients(t)
	ds, err := dataset.GenerateSalted(testSize, 1, 0x5eed5a17)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range refclient.All {
		t.Run(c.Name, func(t *testing.T) {
			raw := map[string]any{"command": toAny(c.Command(t, goBin)), "dir": root, "timeout": "1m", "startup_timeout": "1m"}
			want := "read back by dbbench from the LMDB environment"
			switch {
			case c.Postgres:
				raw["dsn"] = pgtest.NewDatabase(t)
				want = "read back by dbbench from the PostgreSQL schema"
			case strings.Contains(c.Name, "sqlite"):
				want = "read back by dbbench from the SQLite file"
			case c.Name == "node/lmdb":
				want = "challenge" // lmdb-js writes LMDB 1.0's format, which dbbench's LMDB 0.9 cannot open
			}
			opts, err := adapters.ParseOptions(New().Info().Options, raw)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			env := adapters.Env{TempDir: dir, Size: ds.Len(), Seed: 1, Workloads: []string{"insert"},
				DatasetFile: func() (string, error) { p := filepath.Join(dir, "persons.bin"); return p, ds.WriteFile(p) }}
			if c.Postgres {
				env.PostgreSQL = func(context.Context) (string, error) { return raw["dsn"].(string), nil }
			}
			ctx := context.Background()
			tg, err := New().Open(ctx, opts, env)
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			if err := tg.Load(ctx, ds); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				got, _, err := tg.(adapters.TimedInserter).TimedInsert(ctx, ds, 50)
				if err != nil {
					t.Fatal(err)
				}
				if want := (adapters.Tally{Rows: 50, Sum: ds.SumFirst(50)}); got != want {
					t.Fatalf("insert read back %+v, want %+v", got, want)
				}
			}
			if v := tg.Info()["verification"]; v != want {
				t.Errorf("verification %q, want %q", v, want)
			}
			if err := tg.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// refClients returns the module's root and the Go reference client, built once for the test.
func refClients(t testing.TB) (root, goBin string) {
	t.Helper()
	root, err := refclient.Root()
	if err != nil {
		t.Fatal(err)
	}
	if goBin, err = refclient.BuildGo(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	return root, goBin
}

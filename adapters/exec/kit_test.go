package exec

import (
	"testing"

	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/clients/refclient"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

// TestConforms runs the conformance kit on exec targets driving each reference client: the Go one
// (built once), and the Node and Python ones where they can run (skipped otherwise, unless
// DBBENCH_REQUIRE_CLIENTS=1). A client's PostgreSQL store is a schema on a database of the test's.
func TestConforms(t *testing.T) {
	root, err := refclient.Root()
	if err != nil {
		t.Fatal(err)
	}
	goBin, err := refclient.BuildGo(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range refclient.All {
		t.Run(c.Name, func(t *testing.T) {
			raw := map[string]any{"command": toAny(c.Command(t, goBin)), "dir": root, "timeout": "1m", "startup_timeout": "1m"}
			tg := adaptertest.Target{
				Workloads:     New().Info().Builtin,
				LeavesTempDir: "docs/protocol.md: a client's temp_dir is removed by dbbench after the client closes",
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

package sqladapter

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// TestConforms runs the conformance kit on every driver and storage: SQLite in a file (the
// default one, or at a path of the user's) and in memory, and PostgreSQL on a dsn, on the run's
// throwaway server, and in a schema of the user's (which keeps only the user's table).
func TestConforms(t *testing.T) {
	pgDSN := pgtest.NewDatabase(t)
	conn, err := pgx.Connect(context.Background(), pgDSN)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), "CREATE SCHEMA given; CREATE TABLE given.keep (x int)"); err != nil {
		t.Fatal(err)
	}
	conn.Close(context.Background())
	throwaway := func(ctx context.Context, env adapters.Env) (adapters.Target, error) {
		env.PostgreSQL = func(context.Context) (string, error) { return pgDSN, nil }
		return adaptertest.Opener(New(), map[string]any{"driver": "postgres"})(ctx, env)
	}
	for _, tt := range []struct {
		name string
		tg   adaptertest.Target
	}{
		{"sqlite file", adaptertest.Target{Open: adaptertest.Opener(New(), nil), OpenAt: adaptertest.OpenerAt(New(), nil, "path")}},
		{"sqlite memory", adaptertest.Target{Open: adaptertest.Opener(New(), map[string]any{"storage": "memory"})}},
		{"postgres dsn", adaptertest.Target{Open: adaptertest.Opener(New(), map[string]any{"driver": "postgres", "dsn": pgDSN})}},
		{"postgres throwaway", adaptertest.Target{Open: throwaway}},
		{"postgres schema given", adaptertest.Target{Open: adaptertest.Opener(New(), map[string]any{"driver": "postgres", "dsn": pgDSN, "schema": "given"})}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tg := tt.tg
			tg.Workloads = New().Info().Builtin
			tg.RecordOps = ycsb.Ops()
			tg.SQL = true
			if tt.name != "sqlite file" && tt.name != "sqlite memory" {
				tg.Remains = adaptertest.PostgresRemains(pgDSN)
			}
			adaptertest.Run(t, tg)
		})
	}
}

package triplex

import (
	"os"
	"testing"

	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

// TestConforms runs the conformance kit on the person facts of both layouts on every backend: the
// four common workloads against the dataset's own checksums, and what Close removes (the SQLite
// file at a path of the user's, the PostgreSQL schema).
func TestConforms(t *testing.T) {
	backends := map[string]map[string]any{
		"sqlite-memory": {"backend": "sqlite", "storage": "memory"},
		"sqlite-file":   {"backend": "sqlite", "storage": "file"},
	}
	var pgDSN string
	if os.Getenv(pgtest.SkipEnv) != "1" {
		pgDSN = pgtest.NewDatabase(t)
		backends["postgres"] = map[string]any{"backend": "postgres", "dsn": pgDSN}
	}
	for name, base := range backends {
		for _, layout := range []string{"triplex", "indexed"} {
			t.Run(name+"/"+layout, func(t *testing.T) {
				raw := with(base, "layout", layout, "history_depth", 1)
				tg := adaptertest.Target{Open: adaptertest.Opener(New(), raw), Workloads: New().Info().Builtin}
				switch name {
				case "sqlite-file":
					tg.OpenAt = adaptertest.OpenerAt(New(), raw, "path")
				case "postgres":
					tg.Remains = adaptertest.PostgresRemains(pgDSN)
				}
				adaptertest.Run(t, tg)
			})
		}
	}
}

package clients

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/exec"
	"github.com/dbbench/dbbench/adapters/phase"
	"github.com/dbbench/dbbench/clients/refclient"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/postgres/pgtest"
)

// TestReferenceClientsPhases runs each reference client through the exec adapter with and without
// --profile: a client that offers capability phases must, asked, split its scans and lookups into
// valid phases (the exec adapter refuses bad names, negatives and sums above the reply's time),
// and unasked send none (the adapter refuses those too); a client that does not offer phases is
// never asked and its results carry no profile at all.
func TestReferenceClientsPhases(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Generate(500, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, r := range refclient.All {
		t.Run(r.Name, func(t *testing.T) {
			argv := command(t, r)
			for _, profile := range []bool{true, false} {
				raw := map[string]any{"command": toAny(argv), "dir": root, "timeout": "1m", "startup_timeout": "1m", "postgres": r.Postgres}
				if r.Options != nil {
					raw["client"] = r.Options
				}
				opts, err := adapters.ParseOptions(exec.New().Info().Options, raw)
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				env := adapters.Env{TempDir: dir, Size: ds.Len(), Seed: 1, Workloads: []string{"scan", "lookup"}, Logf: t.Logf, Profile: profile,
					DatasetFile: func() (string, error) { p := filepath.Join(dir, "persons.bin"); return p, ds.WriteFile(p) }}
				if r.Postgres {
					env.PostgreSQL = func(context.Context) (string, error) { return pgtest.NewDatabase(t), nil }
				}
				tg, err := exec.New().Open(ctx, opts, env)
				if err != nil {
					t.Fatal(err)
				}
				defer tg.Close()
				if err := tg.Load(ctx, ds); err != nil {
					t.Fatal(err)
				}
				says, _ := tg.Info()["protocol"].(map[string]any)["phases"].(string)
				asked := strings.HasPrefix(says, "the client's own")
				t.Logf("profile %v: phases %q", profile, says)
				for _, op := range []struct {
					name string
					run  func() error
				}{
					{"scan", func() error { _, _, err := tg.(adapters.TimedScanner).TimedScan(ctx, 300); return err }},
					{"lookup", func() error {
						keys := ds.Sample(50, 2)
						_, err := tg.(adapters.TimedPointReader).TimedLookups(ctx, ds, keys, make([]time.Duration, len(keys)))
						return err
					}},
				} {
					rec := phase.New()
					tg.(adapters.Profiler).Profile(rec)
					err := op.run()
					tg.(adapters.Profiler).Profile(nil)
					if err != nil {
						t.Fatalf("profile %v, %s: %v", profile, op.name, err)
					}
					tt := rec.Totals()
					if asked && len(tt.Phases) == 0 || !asked && len(tt.Phases) > 0 {
						t.Errorf("profile %v, asked %v, %s: phases %+v", profile, asked, op.name, tt.Phases)
					}
					if want := map[bool]int64{true: 1}[asked]; tt.RoundTrips != want {
						t.Errorf("profile %v, %s: %d round trips, want %d", profile, op.name, tt.RoundTrips, want)
					}
				}
				if err := tg.Close(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

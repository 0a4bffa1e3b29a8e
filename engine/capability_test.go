package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/memory"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/workloads"
)

// hollow declares the four common workloads, but its targets implement none of their capabilities:
// an adapter whose Info().Builtin lies.
type hollow struct{}

func (hollow) Info() adapters.Info {
	return adapters.Info{Name: "hollow", Builtin: workloads.Builtins}
}

func (hollow) Open(ctx context.Context, o adapters.Options, env adapters.Env) (adapters.Target, error) {
	inner, err := memory.New().Open(ctx, o, env)
	// Only the Target methods are promoted: no Scanner, PointReader or Inserter.
	return struct{ adapters.Target }{inner}, err
}

// TestMissingCapabilityFailsTheWorkload: a target without the capability its declared workload needs
// fails that workload with one line naming the capability (exit 3 through the workload's error),
// instead of panicking in a type assertion; with interleave: ops too.
func TestMissingCapabilityFailsTheWorkload(t *testing.T) {
	for _, interleave := range []string{"repeats", "ops"} {
		t.Run(interleave, func(t *testing.T) {
			reg, err := adapters.NewRegistry(hollow{}, memory.New())
			if err != nil {
				t.Fatal(err)
			}
			c, err := config.Parse("t.yaml", []byte(`name: t
dataset: {persons: 100}
repeats: 1
interleave: `+interleave+`
workloads: [scan, {name: lookup, ops: 10}, {name: insert, ops: 10}, {name: concurrent, readers: 2, rows: 10}]
targets:
  - {name: hollow, adapter: hollow}
  - {name: memory, adapter: memory}
`))
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.Resolve(reg, false)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := run(t, p)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != "error" || len(rep.Results) != 8 {
				t.Fatalf("verdict %s with %d results, want error with 8", rep.Verdict, len(rep.Results))
			}
			want := map[string]string{
				"scan":       "implements no Scanner or TimedScanner, which workload scan needs",
				"lookup":     "implements no PointReader or TimedPointReader, which workload lookup needs",
				"insert":     "implements no Inserter or TimedInserter, which workload insert needs",
				"concurrent": "implements no Scanner, ConcurrentScanner or TimedConcurrentScanner, which workload concurrent needs",
			}
			for _, res := range rep.Results {
				switch res.Target {
				case "hollow":
					if res.Status != "failed" || !strings.Contains(res.Error, want[res.Workload]) || strings.Contains(res.Error, "\n") {
						t.Errorf("hollow %s: %s %q, want failed with %q", res.Workload, res.Status, res.Error, want[res.Workload])
					}
				default:
					if res.Status != "ok" {
						t.Errorf("memory %s: %s %q", res.Workload, res.Status, res.Error)
					}
				}
			}
		})
	}
}

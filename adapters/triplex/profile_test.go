package triplex

import (
	"context"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/phase"
)

// TestProfilePages: every page workload, on every backend, splits its operations into query and
// page, which fit in the operations' own time, at three clock reads an operation; after
// Profile(nil) nothing more is recorded, and the pages stay those Verify checks.
func TestProfilePages(t *testing.T) {
	ctx := context.Background()
	for name, base := range backends(t) {
		t.Run(name, func(t *testing.T) {
			tg, _ := open(t, with(base, "history_depth", 2), 400)
			for _, st := range []step{
				{wPageAll, nil, 3, 100},
				{wPageAttr, map[string]any{"attribute": "score"}, 2, 100},
				{wPageJoin, nil, 2, 100},
				{wGroupCount, nil, 2, 100},
				{wNextPage, map[string]any{"shape": "all", "pages": 2}, 2, 100},
				{wAsOfPage, map[string]any{"back": 1}, 2, 100},
			} {
				op, err := tg.PrepareWorkload(ctx, st.workload, params(t, st.workload, st.params))
				if err != nil {
					t.Fatalf("%s: %v", st.workload, err)
				}
				prof, ok := op.(adapters.Profiler)
				if !ok {
					t.Fatalf("%s: its op is no Profiler", st.workload)
				}
				r := phase.New()
				prof.Profile(r)
				var took time.Duration
				for i := range st.ops {
					t0 := time.Now()
					_, err := op.Do(ctx, i)
					took += time.Since(t0)
					if err != nil {
						t.Fatalf("%s op %d: %v", st.workload, i, err)
					}
				}
				prof.Profile(nil)
				tt := r.Totals()
				got := map[string]int64{}
				var sum int64
				for _, p := range tt.Phases {
					got[p.Name] = p.Ns
					sum += p.Ns
				}
				if len(got) != 2 || got["query"] <= 0 || got["page"] <= 0 || time.Duration(sum) > took {
					t.Errorf("%s: phases %v summing to %v in %v, want query and page", st.workload, tt.Phases, time.Duration(sum), took)
				}
				if tt.Laps != int64(3*st.ops) {
					t.Errorf("%s: %d clock reads for %d operations, want 3 each", st.workload, tt.Laps, st.ops)
				}
				if _, err := op.Do(ctx, 0); err != nil {
					t.Fatal(err)
				}
				if _, err := op.(adapters.Verifier).Verify(ctx, 0); err != nil {
					t.Errorf("%s: after profiling: %v", st.workload, err)
				}
				if after := r.Totals(); after.Laps != tt.Laps {
					t.Errorf("%s: recorded after Profile(nil)", st.workload)
				}
				if c, ok := op.(interface{ Close() error }); ok {
					_ = c.Close()
				}
			}
		})
	}
}

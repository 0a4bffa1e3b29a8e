package assertion

import (
	"math"
	"strings"
	"testing"
)

// FuzzParse: any text is either an assertion or one line of error, never a panic, and a parsed
// assertion has finite numbers and refs that name a workload, a figure and a target.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"scan.rows_per_s[a] >= 0.8 * scan.rows_per_s[b]",
		"lookup.p50[lmdb-go] - lookup.p50[lmdb-c] <= 110",
		"page_all.p50[pg@3000000] <= 2 * page_all.p50[pg@30000]",
		"scan.p50[a] > 0", "x <= 1e309", "ycsb-a.read.response_p99[s] <= 2ms", "w.op.p50[a] <= 1µs",
		"ycsb-a.achieved_rate[s] >= 0.99 * ycsb-a.target_rate[s]", "a.b[c] <= 1e300s", "a.b[c] <= 2ms_", "a.b[c] <= 10%", "<= >=", "1 <= 2", "a.b[] <= 1", "a.b[c]<=-1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: error spans lines: %q", s, err)
			}
			return
		}
		if math.IsNaN(a.K) || math.IsInf(a.K, 0) {
			t.Fatalf("%q: constant %v", s, a.K)
		}
		for _, r := range a.Refs() {
			if r.Workload == "" || r.Figure == "" || r.Target == "" {
				t.Fatalf("%q: incomplete ref %+v", s, r)
			}
		}
	})
}

package schema

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the repository, two levels up from report/schema.
const repoRoot = "../.."

// TestRepositoryFiles validates every report and every compare JSON committed in the repository
// (baselines, golden files, test data): each file with a schema_version is a report when it has
// "results", a comparison when it has "rows".
func TestRepositoryFiles(t *testing.T) {
	var reports, compares int
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != repoRoot && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".json") && !strings.HasSuffix(path, ".json.golden") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var probe map[string]json.RawMessage
		if json.Unmarshal(b, &probe) != nil || probe["schema_version"] == nil {
			return nil
		}
		kind := Report
		switch {
		case probe["results"] != nil:
			reports++
		case probe["rows"] != nil:
			kind = Compare
			compares++
		default:
			return nil
		}
		if err := Validate(kind, b); err != nil {
			t.Errorf("%s does not match the %s schema: %v", path, kind, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if reports < 3 || compares < 2 {
		t.Errorf("validated %d reports and %d comparisons: the walk missed the committed ones", reports, compares)
	}
}

// TestRejects shows the schemas catch what a reader would trip on.
func TestRejects(t *testing.T) {
	base, err := os.ReadFile(filepath.Join(repoRoot, "report", "render", "testdata", "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	mutate := func(f func(map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(base, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	if err := Validate(Report, base); err != nil {
		t.Fatalf("the unchanged report fails: %v", err)
	}
	tests := []struct {
		name string
		doc  []byte
		want string
	}{
		{"no verdict", mutate(func(m map[string]any) { delete(m, "verdict") }), "verdict"},
		{"unknown verdict", mutate(func(m map[string]any) { m["verdict"] = "maybe" }), "verdict"},
		{"figure not a number", mutate(func(m map[string]any) {
			m["results"].([]any)[0].(map[string]any)["figures"].(map[string]any)["p50"] = "fast"
		}), "p50"},
		{"corrupt histogram", mutate(func(m map[string]any) { m["results"].([]any)[0].(map[string]any)["histogram"] = "not base64!" }), "histogram"},
		{"newer version", mutate(func(m map[string]any) { m["schema_version"] = 99 }), "no report schema version 99"},
		{"no version", []byte(`{"results": []}`), "no schema_version"},
	}
	for _, tt := range tests {
		err := Validate(Report, tt.doc)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one naming %q", tt.name, err, tt.want)
		}
	}
	// additions are allowed: fields are only ever added within a version
	if err := Validate(Report, mutate(func(m map[string]any) { m["new_field"] = map[string]any{"x": 1} })); err != nil {
		t.Errorf("an added field is refused: %v", err)
	}
}

// TestShardAndMerge: a shard's report and a merged one (testdata/shard-0.json and merged.json,
// written by `dbbench run --shard 0/2` and `dbbench merge` on the memory store; the end-to-end
// test in cmd/dbbench validates fresh ones the same way) match the schema, and the schema holds
// run.shard, run.merge, repeats[].types and the intervals' histograms to their types.
func TestShardAndMerge(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	shard, merged := read("shard-0.json"), read("merged.json")
	for name, b := range map[string][]byte{"shard-0.json": shard, "merged.json": merged} {
		if err := Validate(Report, b); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	mutate := func(base []byte, f func(map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(base, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	run := func(m map[string]any) map[string]any { return m["run"].(map[string]any) }
	result := func(m map[string]any) map[string]any { return m["results"].([]any)[0].(map[string]any) }
	for _, tt := range []struct {
		name string
		doc  []byte
		want string
	}{
		{"shard index negative", mutate(shard, func(m map[string]any) { run(m)["shard"].(map[string]any)["index"] = -1 }), "index"},
		{"shard without build hash", mutate(shard, func(m map[string]any) { delete(run(m)["shard"].(map[string]any), "build_hash") }), "build_hash"},
		{"clock known not a boolean", mutate(shard, func(m map[string]any) { run(m)["shard"].(map[string]any)["clock"].(map[string]any)["known"] = "no" }), "known"},
		{"repeat types not a list", mutate(shard, func(m map[string]any) {
			result(m)["repeats"].([]any)[0].(map[string]any)["types"] = "read"
		}), "types"},
		{"interval histogram corrupt", mutate(shard, func(m map[string]any) {
			result(m)["load"].(map[string]any)["intervals"].([]any)[0].(map[string]any)["histogram"] = "not base64!"
		}), "histogram"},
		{"merge without skew", mutate(merged, func(m map[string]any) { delete(run(m)["merge"].(map[string]any), "skew_ns") }), "skew_ns"},
		{"missing shard not an index", mutate(merged, func(m map[string]any) { run(m)["merge"].(map[string]any)["missing"] = []any{"3"} }), "missing"},
		{"merged shard record broken", mutate(merged, func(m map[string]any) {
			run(m)["merge"].(map[string]any)["shards"].([]any)[0].(map[string]any)["total"] = 0
		}), "total"},
	} {
		err := Validate(Report, tt.doc)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one naming %q", tt.name, err, tt.want)
		}
	}
}

// TestProfile: a profiled report (testdata/profile.json, written by `dbbench run -c
// testdata/profile.yaml --runs 1` on the memory store) matches the schema, which holds
// results[].profile to its types.
func TestProfile(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(Report, base); err != nil {
		t.Fatalf("profile.json: %v", err)
	}
	profile := func(m map[string]any) map[string]any {
		return m["results"].([]any)[1].(map[string]any)["profile"].(map[string]any)
	}
	phase := func(m map[string]any) map[string]any { return profile(m)["phases"].([]any)[0].(map[string]any) }
	for _, tt := range []struct {
		name string
		f    func(map[string]any)
		want string
	}{
		{"unknown method", func(m map[string]any) { phase(m)["method"] = "guessed" }, "method"},
		{"phase name not a figure name", func(m map[string]any) { phase(m)["name"] = "Decode" }, "name"},
		{"sampled one in 1", func(m map[string]any) { phase(m)["every"] = 1 }, "every"},
		{"negative clock", func(m map[string]any) { profile(m)["clock_ns"] = -3 }, "clock_ns"},
		{"no laps", func(m map[string]any) { delete(profile(m), "laps_per_op") }, "laps_per_op"},
	} {
		var m map[string]any
		if err := json.Unmarshal(base, &m); err != nil {
			t.Fatal(err)
		}
		tt.f(m)
		b, _ := json.Marshal(m)
		if err := Validate(Report, b); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one naming %q", tt.name, err, tt.want)
		}
	}
}

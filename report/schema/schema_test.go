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

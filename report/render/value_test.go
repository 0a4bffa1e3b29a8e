package render

import (
	"encoding/json"
	"testing"
)

// TestValue: what a client's info holds, decoded from JSON as the exec adapter decodes it, reads as
// plain values.
func TestValue(t *testing.T) {
	var info map[string]any
	if err := json.Unmarshal([]byte(`{"map_size_bytes": 1073741824, "ratio": 0.00009, "big": 1e21, "durable": false,
		"none": null, "readers": ["a", "b"], "nested": {"z": 1, "a": [2.5, "x"]}, "name": "lmdb-go"}`), &info); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"map_size_bytes": "1073741824", "ratio": "0.00009", "big": "1000000000000000000000", "durable": "false",
		"none": "null", "readers": "a, b", "nested": "{a: [2.5, x], z: 1}", "name": "lmdb-go",
	} {
		if got := Value(info[k]); got != want {
			t.Errorf("Value(%s) = %q, want %q", k, got, want)
		}
	}
	if got := Value(info); got[0] != '{' || len(got) < 50 {
		t.Errorf("Value of the whole map = %q", got)
	}
	if got := Value(struct{ A int }{3}); got != `{"A":3}` {
		t.Errorf("Value of a struct = %q, want its JSON", got)
	}
}

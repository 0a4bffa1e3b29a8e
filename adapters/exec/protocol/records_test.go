package protocol

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRecordFileRoundTrip: what WriteRecordFile writes, ReadRecordFile reads back record by record,
// empty keys and fields and fields of different lengths included; a file of another kind or cut
// short is refused.
func TestRecordFileRoundTrip(t *testing.T) {
	rec := func(i int64) ([]byte, [][]byte) {
		key := []byte(fmt.Sprintf("user%d", i*7919))
		if i == 3 {
			key = nil
		}
		return key, [][]byte{[]byte(fmt.Sprint(i)), {}, []byte(`a"b\c` + string(make([]byte, i)))}
	}
	path := filepath.Join(t.TempDir(), "r.bin")
	if err := WriteRecordFile(path, 50, 3, rec); err != nil {
		t.Fatal(err)
	}
	var i int64
	n, fc, err := ReadRecordFile(path, func(key []byte, fields [][]byte) error {
		wantKey, want := rec(i)
		if string(key) != string(wantKey) || !slices.EqualFunc(fields, want, func(a, b []byte) bool { return string(a) == string(b) }) {
			t.Errorf("record %d: %q %q, want %q %q", i, key, fields, wantKey, want)
		}
		i++
		return nil
	})
	if err != nil || n != 50 || fc != 3 || i != 50 {
		t.Fatalf("read %d records of %d fields (%d seen): %v", n, fc, i, err)
	}
	b, _ := os.ReadFile(path)
	for name, bad := range map[string][]byte{"short": b[:len(b)-1], "magic": append([]byte("DBBPERS1"), b[8:]...)} {
		p := filepath.Join(t.TempDir(), name)
		os.WriteFile(p, bad, 0o644)
		if _, _, err := ReadRecordFile(p, func([]byte, [][]byte) error { return nil }); err == nil {
			t.Errorf("a %s record file: no error", name)
		}
	}
}

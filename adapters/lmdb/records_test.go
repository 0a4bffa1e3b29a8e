//go:build cgo

package lmdb

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// TestRecordValue: a stored value decodes to the fields encoded, empty ones too, and anything but
// exactly n whole fields is refused (a truncated value, trailing bytes, a field too many or few).
func TestRecordValue(t *testing.T) {
	fields := [][]byte{[]byte("a"), {}, []byte(strings.Repeat("x", 300))}
	v := appendValue(nil, fields)
	got, ok := decodeValue(nil, v, 3)
	copied, copiedOK := copyValue([][]byte{[]byte("junk junk")}, v, 3)
	for _, out := range [][][]byte{got, copied} {
		if !slices.EqualFunc(out, fields, func(a, b []byte) bool { return string(a) == string(b) }) {
			t.Errorf("decoded %q, want %q", out, fields)
		}
	}
	if !ok || !copiedOK {
		t.Errorf("decode ok %v, copy ok %v", ok, copiedOK)
	}
	for name, bad := range map[string]struct {
		v []byte
		n int
	}{
		"truncated":     {v[:len(v)-1], 3},
		"trailing byte": {append(slices.Clone(v), 0), 3},
		"one field few": {appendValue(nil, fields[:2]), 3},
		"one too many":  {v, 2},
		"bad varint":    {[]byte{0xff}, 1},
	} {
		if _, ok := decodeValue(nil, bad.v, bad.n); ok {
			t.Errorf("%s: decodeValue accepted it", name)
		}
		if _, ok := copyValue(nil, bad.v, bad.n); ok {
			t.Errorf("%s: copyValue accepted it", name)
		}
	}
}

// TestRecordsMapTooSmall: a map too small for the records is a usage error naming the option,
// found before anything is written.
func TestRecordsMapTooSmall(t *testing.T) {
	tg := mustOpen(t, map[string]any{"map_size": "1MiB"})
	y, err := dataset.NewYCSB(1, 0, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	err = tg.LoadRecords(context.Background(), y, 10_000)
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "map_size 1MiB is too small for 10000 records") {
		t.Errorf("LoadRecords of 10000 records into 1MiB: %v (exit %d)", err, exitcode.Of(err))
	}
}

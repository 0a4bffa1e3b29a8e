package dataset

import (
	"bytes"
	"testing"
)

// TestYCSBKeys: the keys are YCSB's own. The hashed vectors are the first keys a YCSB load writes
// (user6284781860667377211 is record 0 in every YCSB log); ordered keys are the sequence number.
func TestYCSBKeys(t *testing.T) {
	hashed, err := NewYCSB(1, 0, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	ordered, _ := NewYCSB(1, 0, 0, true)
	tests := []struct {
		y    YCSB
		i    int64
		want string
	}{
		{hashed, 0, "user6284781860667377211"},
		{hashed, 1, "user8517097267634966620"},
		{hashed, 2, "user1820151046732198393"},
		{ordered, 0, "user0"},
		{ordered, 123456, "user123456"},
	}
	for _, tt := range tests {
		if got := string(tt.y.Key(tt.i)); got != tt.want {
			t.Errorf("Key(%d) ordered=%v = %s, want %s", tt.i, tt.y.Ordered, got, tt.want)
		}
	}
	if got := FNVHash64(-1); got < 0 {
		t.Errorf("FNVHash64(-1) = %d, want the absolute value", got)
	}
}

// TestYCSBRecords: the shape (defaults 10 x 100), printable bytes, determinism from (seed, i, f,
// version), and test vectors that pin the generator so that a change to it is a visible decision.
func TestYCSBRecords(t *testing.T) {
	y, _ := NewYCSB(42, 0, 0, false)
	if y.FieldCount != 10 || y.FieldLength != 100 {
		t.Fatalf("defaults = %d x %d, want 10 x 100", y.FieldCount, y.FieldLength)
	}
	f := y.Fields(7)
	if len(f) != 10 {
		t.Fatalf("%d fields, want 10", len(f))
	}
	for k, v := range f {
		if len(v) != 100 {
			t.Fatalf("field %d has %d bytes", k, len(v))
		}
		for _, c := range v {
			if c < ' ' || c > '_' {
				t.Fatalf("field %d holds %q, not printable", k, c)
			}
		}
	}
	if !bytes.Equal(f[3], y.AppendField(nil, 7, 3, 0)) {
		t.Error("Fields and AppendField disagree")
	}
	// Every input changes the bytes.
	other := [][]byte{
		y.AppendField(nil, 8, 3, 0), y.AppendField(nil, 7, 4, 0), y.AppendField(nil, 7, 3, 1),
		YCSB{Seed: 43, FieldCount: 10, FieldLength: 100}.AppendField(nil, 7, 3, 0),
	}
	for k, o := range other {
		if bytes.Equal(o, f[3]) {
			t.Errorf("variant %d equals field 3 of record 7 at version 0", k)
		}
	}
	// Vectors: the first field bytes and the checksum of records 0..999 for seed 42.
	if got, want := string(f[0][:16]), "%N=HOY$6BW-'XR5."; got != want {
		t.Errorf("record 7 field0 starts %q, want %q", got, want)
	}
	if got, want := y.SumRange(0, 1000), uint64(0x2c5e963467371c11); got != want {
		t.Errorf("SumRange(0, 1000) = %#x, want %#x", got, want)
	}
	for _, bad := range [][2]int{{-1, 10}, {10, -1}, {1001, 10}, {10, YCSBMaxField + 1}} {
		if _, err := NewYCSB(1, bad[0], bad[1], false); err == nil {
			t.Errorf("NewYCSB(%d, %d) accepted", bad[0], bad[1])
		}
	}
}

// TestYCSBUpdatesAndSums: an update changes exactly one field, to a value that is not the loaded one
// and differs per version; the record checksum sees a changed field, a swapped field order and a
// missing field, and set sums do not depend on order.
func TestYCSBUpdatesAndSums(t *testing.T) {
	y, _ := NewYCSB(9, 4, 16, true)
	key, fields := y.Key(5), y.Fields(5)
	base := RecordSum(key, fields)
	if base != y.Sum(5) {
		t.Fatal("Sum disagrees with RecordSum of Key and Fields")
	}
	seen := map[int]bool{}
	for v := int64(1); v <= 40; v++ {
		f, val := y.Update(5, v)
		seen[f] = true
		if f != y.UpdateField(5, v) || f < 0 || f >= 4 {
			t.Fatalf("update %d: field %d", v, f)
		}
		if bytes.Equal(val, fields[f]) || bytes.Equal(val, y.AppendField(nil, 5, f, v-1)) {
			t.Fatalf("update %d writes a value equal to an earlier version", v)
		}
		changed := append([][]byte(nil), fields...)
		changed[f] = val
		if RecordSum(key, changed) == base {
			t.Fatalf("update %d does not change the checksum", v)
		}
	}
	if len(seen) != 4 {
		t.Errorf("40 updates touched fields %v, want all 4", seen)
	}
	swapped := [][]byte{fields[1], fields[0], fields[2], fields[3]}
	if RecordSum(key, swapped) == base || RecordSum(key, fields[:3]) == base || RecordSum(y.Key(6), fields) == base {
		t.Error("checksum blind to field order, a missing field or the key")
	}
	if y.SumOf([]int64{3, 1, 2}) != y.SumRange(1, 4) {
		t.Error("set checksum depends on order")
	}
}

package dataset

import (
	"fmt"
	"strconv"
)

// YCSB's records, as its CoreWorkload defines them: record i has the key "user" followed by a number
// (the FNV hash of i, or i itself for ordered inserts) and FieldCount fields named field0, field1, ...
// of FieldLength bytes each. The field bytes here are deterministic from the seed, the record and a
// version (0: the value loaded; v > 0: the value the v-th update of that record writes), so that a
// verifier outside the timed region can recompute what any read must return.
//
// A YCSB value is read-only and safe for concurrent use: every method computes from its arguments.
type YCSB struct {
	Seed        int64
	FieldCount  int  // fields per record (YCSB's default: 10)
	FieldLength int  // bytes per field (YCSB's default: 100)
	Ordered     bool // insertorder=ordered: keys are user<i>; hashed (the default) is user<fnv(i)>
}

// YCSB's CoreWorkload defaults for the record shape.
const (
	YCSBFieldCount  = 10
	YCSBFieldLength = 100
	// YCSBMaxField bounds a field's length so that a record stays well under any store's value limit.
	YCSBMaxField = 1 << 20
)

// NewYCSB returns the record set of the given shape; a zero count or length takes YCSB's default.
func NewYCSB(seed int64, fieldCount, fieldLength int, ordered bool) (YCSB, error) {
	if fieldCount == 0 {
		fieldCount = YCSBFieldCount
	}
	if fieldLength == 0 {
		fieldLength = YCSBFieldLength
	}
	if fieldCount < 0 || fieldCount > 1000 {
		return YCSB{}, fmt.Errorf("ycsb: fieldcount must be 1..1000, got %d", fieldCount)
	}
	if fieldLength < 0 || fieldLength > YCSBMaxField {
		return YCSB{}, fmt.Errorf("ycsb: fieldlength must be 1..%d, got %d", YCSBMaxField, fieldLength)
	}
	return YCSB{Seed: seed, FieldCount: fieldCount, FieldLength: fieldLength, Ordered: ordered}, nil
}

// FNVHash64 is YCSB's Utils.fnvhash64: FNV-1a 64 over the eight little-endian bytes of v, returned as
// the absolute value of the signed result (as Java's Math.abs, so math.MinInt64 stays negative). The
// key names and the scrambled zipfian generator both use it, so that keys and their popularity land
// where YCSB puts them.
func FNVHash64(v int64) int64 {
	h := uint64(0xcbf29ce484222325)
	u := uint64(v)
	for range 8 {
		h ^= u & 0xff
		h *= 1099511628211
		u >>= 8
	}
	s := int64(h)
	if s < 0 {
		s = -s
	}
	return s
}

// KeyNum is the number in record i's key: fnv(i) for hashed inserts, i for ordered ones.
func (y YCSB) KeyNum(i int64) int64 {
	if y.Ordered {
		return i
	}
	return FNVHash64(i)
}

// Key returns record i's key, as YCSB's buildKeyName does with its default zeropadding of 1.
func (y YCSB) Key(i int64) []byte { return y.AppendKey(nil, i) }

// AppendKey appends record i's key to b (no allocation when b has room).
func (y YCSB) AppendKey(b []byte, i int64) []byte {
	b = append(b, "user"...)
	return strconv.AppendInt(b, y.KeyNum(i), 10)
}

// FieldName returns the name of field f ("field0" ...).
func FieldName(f int) string { return "field" + strconv.Itoa(f) }

// AppendField appends field f of record i at the given version to b: FieldLength printable ASCII
// bytes (YCSB writes random printable characters), deterministic from seed, i, f and version.
func (y YCSB) AppendField(b []byte, i int64, f int, version int64) []byte {
	s := Mix64(uint64(y.Seed) ^ Mix64(uint64(i)*0x9e3779b97f4a7c15^uint64(f)<<48^uint64(version)))
	for n := 0; n < y.FieldLength; {
		s = Mix64(s + 0x9e3779b97f4a7c15)
		// Eight characters per word, each from 6 bits: ' ' + 0..63 stays printable (up to '_').
		for k := 0; k < 8 && n < y.FieldLength; k++ {
			b = append(b, ' '+byte(s>>(6*k))&63)
			n++
		}
	}
	return b
}

// Fields returns the FieldCount fields of record i as loaded (version 0).
func (y YCSB) Fields(i int64) [][]byte {
	buf := make([]byte, 0, y.FieldCount*y.FieldLength)
	out := make([][]byte, y.FieldCount)
	for f := range out {
		start := len(buf)
		buf = y.AppendField(buf, i, f, 0)
		out[f] = buf[start:len(buf):len(buf)]
	}
	return out
}

// UpdateField is the field the v-th update (v >= 1) of record i writes: YCSB's default
// writeallfields=false updates one field, chosen at random; here the choice is deterministic, so a
// verifier knows which field each version changed.
func (y YCSB) UpdateField(i int64, version int64) int {
	return int(Mix64(uint64(y.Seed)^uint64(i)<<20^uint64(version)*0xbf58476d1ce4e5b9) % uint64(y.FieldCount))
}

// Update returns what the v-th update of record i writes: the field and its new bytes.
func (y YCSB) Update(i int64, version int64) (field int, value []byte) {
	field = y.UpdateField(i, version)
	return field, y.AppendField(nil, i, field, version)
}

// RecordSum is the checksum of one record as read: its key and its fields in field order. Like
// RowSum, each step is a bijection of the state and record sums add (mod 2^64), so a set's checksum
// does not depend on the order records arrive in, and a read of another record, of a stale version of
// a field or of fields out of order changes it.
func RecordSum[S ~string | ~[]byte](key S, fields []S) uint64 {
	h := uint64(len(key))<<32 ^ uint64(len(fields))
	h = fold(h, key)
	for _, f := range fields {
		h = (h ^ uint64(len(f))) * rowMul
		h = fold(h, f)
	}
	h *= rowMul
	return h ^ h>>29
}

// Sum is the checksum of record i as loaded.
func (y YCSB) Sum(i int64) uint64 { return RecordSum(y.Key(i), y.Fields(i)) }

// SumRange is the checksum of records [from, to) as loaded: what a verifier expects of a read of all
// of them, recomputed outside the timed region.
func (y YCSB) SumRange(from, to int64) uint64 {
	var s uint64
	for i := from; i < to; i++ {
		s += y.Sum(i)
	}
	return s
}

// SumOf is the checksum of the records at the given indices as loaded.
func (y YCSB) SumOf(idx []int64) uint64 {
	var s uint64
	for _, i := range idx {
		s += y.Sum(i)
	}
	return s
}

// Mix64 is SplitMix64's finalizer, the project's one integer hash: a bijection that spreads every
// input bit over the word, so nearby inputs (seeds, record numbers, consecutive operations) give
// unrelated outputs.
func Mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

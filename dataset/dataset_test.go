package dataset

import (
	"bytes"
	"testing"
)

func TestGenerateIsDeterministicAndUnique(t *testing.T) {
	a, err := Generate(5000, 42)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(5000, 42)
	c, _ := Generate(5000, 43)
	seen := map[string]bool{}
	differs := false
	for i := 0; i < a.Len(); i++ {
		if !bytes.Equal(a.Email(i), b.Email(i)) || !bytes.Equal(a.Name(i), b.Name(i)) || a.Age(i) != b.Age(i) {
			t.Fatalf("person %d differs between two generations with the same seed", i)
		}
		if !bytes.Equal(a.Email(i), c.Email(i)) {
			differs = true
		}
		e := string(a.Email(i))
		if seen[e] {
			t.Fatalf("duplicate email %s", e)
		}
		seen[e] = true
		if age := a.Age(i); age < 18 || age > 99 {
			t.Fatalf("age %d out of range", age)
		}
		if n := len(a.Email(i)); n < 15 || n > 60 {
			t.Fatalf("email length %d", n)
		}
	}
	if !differs {
		t.Error("a different seed gave the same dataset")
	}
	emails, eoff, names, noff, ages := a.Packed()
	if len(eoff) != a.Len()+1 || len(noff) != a.Len()+1 || len(ages) != a.Len() || int(eoff[a.Len()]) != len(emails) || int(noff[a.Len()]) != len(names) {
		t.Error("packed buffers inconsistent")
	}
}

// TestPackedBytes: the size of the packed buffers is known without generating them, to the byte,
// for any size and seed (sizes across a power of ten, where the emails' numbers grow a digit).
func TestPackedBytes(t *testing.T) {
	for _, seed := range []int64{1, 2, -7} {
		for _, n := range []int{1, 9, 10, 11, 999, 1000, 12_345} {
			ds, err := Generate(n, seed)
			if err != nil {
				t.Fatal(err)
			}
			emails, _, names, _, ages := ds.Packed()
			want := int64(len(emails) + len(names) + len(ages))
			if got, err := PackedBytes(n, seed); err != nil || got != want {
				t.Errorf("PackedBytes(%d, %d) = %d, %v; Generate packs %d bytes", n, seed, got, err, want)
			}
		}
	}
	for _, n := range []int{0, -1, MaxPersons + 1} {
		if _, err := PackedBytes(n, 1); err == nil {
			t.Errorf("PackedBytes(%d) succeeded", n)
		}
	}
}

func TestGenerateRejectsBadSizes(t *testing.T) {
	for _, n := range []int{0, -1, MaxPersons + 1} {
		if _, err := Generate(n, 1); err == nil {
			t.Errorf("Generate(%d) succeeded", n)
		}
	}
}

func TestSumsAndOrder(t *testing.T) {
	p, _ := Generate(1000, 7)
	s := p.Sorted()
	for i := 1; i < len(s); i++ {
		if bytes.Compare(p.Email(int(s[i-1])), p.Email(int(s[i]))) >= 0 {
			t.Fatal("Sorted is not in email byte order")
		}
	}
	if p.SumSortedPrefix(1000) != p.SumFirst(1000) {
		t.Error("the sum of all persons depends on the order")
	}
	if p.SumSortedPrefix(10) == p.SumFirst(10) {
		t.Error("first 10 in email order and generation order have the same sum (suspicious)")
	}
	if p.SumOf(s[:10]) != p.SumSortedPrefix(10) {
		t.Error("SumOf and SumSortedPrefix disagree")
	}
	// RowSum reacts to each field, and string and []byte forms agree.
	base := RowSum("ada.abbott.1@example.com", "Ada Abbott", 30)
	for _, other := range []uint64{
		RowSum("ada.abbott.2@example.com", "Ada Abbott", 30),
		RowSum("ada.abbott.1@example.com", "Ada Abbotx", 30),
		RowSum("ada.abbott.1@example.com", "Ada Abbott", 31),
		RowSum("ada.abbott.1@example.co", "Ada Abbott", 30),
	} {
		if other == base {
			t.Error("RowSum ignores a field change")
		}
	}
	if RowSum([]byte("ada.abbott.1@example.com"), []byte("Ada Abbott"), 30) != base {
		t.Error("RowSum differs for string and []byte")
	}
	if RowSum("", "", 0) == RowSum("", "", 1) {
		t.Error("RowSum ignores age on empty strings")
	}
	// Any one changed byte, anywhere in email or name and at any length, changes the row sum: a read
	// that returned the wrong bytes cannot pass.
	for n := 0; n <= 40; n++ {
		email := []byte("abcdefghijklmnopqrstuvwxyz0123456789.@-_"[:n])
		name := []byte("Some Name"[:min(n, 9)])
		base := RowSum(email, name, 40)
		for i := range email {
			e := append([]byte(nil), email...)
			e[i] ^= 0x20
			if RowSum(e, name, 40) == base {
				t.Fatalf("length %d: a change at email byte %d goes unnoticed", n, i)
			}
		}
		for i := range name {
			m := append([]byte(nil), name...)
			m[i]++
			if RowSum(email, m, 40) == base {
				t.Fatalf("a change at name byte %d goes unnoticed", i)
			}
		}
	}
}

func TestSampleAndFind(t *testing.T) {
	p, _ := Generate(500, 3)
	keys := p.Sample(500, 9)
	seen := map[int32]bool{}
	for _, k := range keys {
		if seen[k] {
			t.Fatalf("Sample repeated %d within the dataset size", k)
		}
		seen[k] = true
	}
	again := p.Sample(500, 9)
	for i := range keys {
		if keys[i] != again[i] {
			t.Fatal("Sample is not deterministic")
		}
	}
	if more := p.Sample(1200, 9); len(more) != 1200 {
		t.Errorf("Sample beyond the dataset size: %d", len(more))
	}
	for _, i := range []int{0, 123, 499} {
		if got := p.Find(p.Email(i)); got != i {
			t.Errorf("Find(email %d) = %d", i, got)
		}
	}
	if p.Find([]byte("nobody@nowhere")) != -1 {
		t.Error("Find of an unknown email")
	}
}

func BenchmarkRowSum(b *testing.B) {
	p, _ := Generate(1000, 1)
	var s uint64
	for i := 0; i < b.N; i++ {
		j := i % 1000
		s += RowSum(p.Email(j), p.Name(j), p.Age(j))
	}
	if s == 1 {
		b.Log(s)
	}
}

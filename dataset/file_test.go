package dataset

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vectors is testdata/vectors.json, the test vectors every client in clients/ checks too.
type vectors struct {
	RowSum []struct {
		Email, Name string
		Age         int
		Sum         string
	}
	Dataset struct {
		File    string
		N       int
		Seed    int64
		Person0 struct {
			Email, Name string
			Age         int
		}
		SumAll            string `json:"sum_all"`
		SumFirst10        string `json:"sum_first_10"`
		SumSortedPrefix10 string `json:"sum_sorted_prefix_10"`
	}
	Salted struct {
		Salt    string
		Person0 struct {
			Email, Name string
			Age         int
		}
		SumAll     string `json:"sum_all"`
		SumFirst10 string `json:"sum_first_10"`
	}
}

func loadVectors(t *testing.T) vectors {
	t.Helper()
	b, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func hex16(v uint64) string { return fmt.Sprintf("%016x", v) }

func TestRowSumVectors(t *testing.T) {
	for _, c := range loadVectors(t).RowSum {
		if got := hex16(RowSum(c.Email, c.Name, c.Age)); got != c.Sum {
			t.Errorf("RowSum(%q, %q, %d) = %s, vectors.json says %s", c.Email, c.Name, c.Age, got, c.Sum)
		}
	}
}

func TestPersonFileVectors(t *testing.T) {
	v := loadVectors(t).Dataset
	p, err := ReadFile(filepath.Join("testdata", v.File))
	if err != nil {
		t.Fatal(err)
	}
	gen, _ := Generate(v.N, v.Seed)
	if p.Len() != v.N || p.Seed() != v.Seed {
		t.Fatalf("file has N=%d seed=%d", p.Len(), p.Seed())
	}
	for i := 0; i < p.Len(); i++ {
		if !bytes.Equal(p.Email(i), gen.Email(i)) || !bytes.Equal(p.Name(i), gen.Name(i)) || p.Age(i) != gen.Age(i) {
			t.Fatalf("person %d differs from the generator (the committed file is stale: regenerate it with -update-file)", i)
		}
	}
	got := []string{string(p.Email(0)), string(p.Name(0)), fmt.Sprint(p.Age(0)), hex16(p.SumFirst(v.N)), hex16(p.SumFirst(10)), hex16(p.SumSortedPrefix(10))}
	want := []string{v.Person0.Email, v.Person0.Name, fmt.Sprint(v.Person0.Age), v.SumAll, v.SumFirst10, v.SumSortedPrefix10}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("field %d: file gives %s, vectors.json says %s", i, got[i], want[i])
		}
	}
}

func TestWriteFileRoundTripAndNoOverwrite(t *testing.T) {
	p, _ := Generate(3000, 9)
	path := filepath.Join(t.TempDir(), "p.bin")
	if err := p.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	q, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if q.SumFirst(q.Len()) != p.SumFirst(p.Len()) || q.SumSortedPrefix(77) != p.SumSortedPrefix(77) {
		t.Error("round trip changed the dataset")
	}
	if err := p.WriteFile(path); !errors.Is(err, os.ErrExist) {
		t.Errorf("second WriteFile on the same path: %v, want ErrExist", err)
	}
}

func TestParseRejectsDamage(t *testing.T) {
	p, _ := Generate(200, 3)
	var buf bytes.Buffer
	p.WriteTo(&buf)
	good := buf.Bytes()
	le := binary.LittleEndian
	emailsAt := FileHeaderSize + 4*201*2 + 4*200 + 200
	cases := []struct {
		name string
		edit func(b []byte) []byte
		want string
	}{
		{"magic", func(b []byte) []byte { b[0] = 'X'; return b }, "not a person file"},
		{"version", func(b []byte) []byte { le.PutUint32(b[8:], 2); return b }, "version 2"},
		{"truncated", func(b []byte) []byte { return b[:len(b)-1] }, "the header says"},
		{"count", func(b []byte) []byte { le.PutUint64(b[16:], 0); return b }, "implausible"},
		{"offset", func(b []byte) []byte { le.PutUint32(b[FileHeaderSize+8:], 1<<30); return b }, "offsets"},
		{"sorted", func(b []byte) []byte {
			at := FileHeaderSize + 4*201*2
			x, y := le.Uint32(b[at:]), le.Uint32(b[at+4:])
			le.PutUint32(b[at:], y)
			le.PutUint32(b[at+4:], x)
			return b
		}, "email byte order"},
		{"name byte flipped", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }, "checksum"},
		{"age changed", func(b []byte) []byte { b[emailsAt-1]++; return b }, "checksum"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.edit(bytes.Clone(good)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestSaltedVectors: the salt changes every name and so every sum, keeps emails, ages, lengths and
// email order, goes through the person file's header, and two salts give two datasets.
func TestSaltedVectors(t *testing.T) {
	vv := loadVectors(t)
	v, d := vv.Salted, vv.Dataset
	var salt uint64
	if _, err := fmt.Sscanf(v.Salt, "%x", &salt); err != nil || salt == 0 {
		t.Fatalf("salt %q: %v", v.Salt, err)
	}
	plain, _ := Generate(d.N, d.Seed)
	p, err := GenerateSalted(d.N, d.Seed, salt)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "salted.bin")
	if err := p.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if p, err = ReadFile(path); err != nil {
		t.Fatal(err)
	}
	if p.Salt() != salt {
		t.Fatalf("the file carries salt %016x, want %016x", p.Salt(), salt)
	}
	got := []string{string(p.Email(0)), string(p.Name(0)), fmt.Sprint(p.Age(0)), hex16(p.SumFirst(d.N)), hex16(p.SumFirst(10))}
	want := []string{v.Person0.Email, v.Person0.Name, fmt.Sprint(v.Person0.Age), v.SumAll, v.SumFirst10}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("field %d: salted dataset gives %s, vectors.json says %s", i, got[i], want[i])
		}
	}
	same := 0
	for i := 0; i < d.N; i++ {
		if !bytes.Equal(p.Email(i), plain.Email(i)) || p.Age(i) != plain.Age(i) || len(p.Name(i)) != len(plain.Name(i)) {
			t.Fatalf("person %d: the salt changed more than the name's letters", i)
		}
		if bytes.Equal(p.Name(i), plain.Name(i)) {
			same++
		}
	}
	if same > d.N/100 {
		t.Errorf("%d of %d names unchanged by the salt", same, d.N)
	}
	if p.SumFirst(d.N) == plain.SumFirst(d.N) {
		t.Error("the salt left the dataset's sum as the seed alone gives it")
	}
	other, _ := GenerateSalted(d.N, d.Seed, salt+1)
	if other.SumFirst(d.N) == p.SumFirst(d.N) {
		t.Error("two salts gave the same dataset")
	}
	if plain.Salt() != 0 {
		t.Errorf("Generate has salt %d", plain.Salt())
	}
}

// Package dataset generates the person dataset every adapter loads: N persons with a unique email (the
// key), a name and an age. It is deterministic from a seed and packed into flat buffers, so that a Go
// adapter and a C baseline read exactly the same bytes, and it knows the checksums a correct read of any
// part of it must produce.
package dataset

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
)

// MaxPersons bounds the dataset so that packed offsets fit in uint32 with room to spare.
const MaxPersons = 50_000_000

// Person is one decoded row: the struct of three fields every scan decodes into. Email and Name may
// alias a database's memory (zero-copy reads) and are only valid while the read that produced them is.
type Person struct {
	Email []byte
	Name  []byte
	Age   int
}

// Persons is a generated dataset. It is read-only after Generate and safe for concurrent use.
type Persons struct {
	seed     uint64
	salt     uint64 // 0: names as the seed alone gives them (see GenerateSalted)
	emails   []byte
	emailOff []uint32 // len n+1; email i is emails[emailOff[i]:emailOff[i+1]]
	names    []byte
	nameOff  []uint32
	ages     []uint8

	sortOnce sync.Once
	sorted   []int32 // indices in email byte order (memcmp order, as LMDB and SQL BLOB keys sort)
}

var (
	firstNames = []string{
		"ada", "alan", "alice", "amir", "ana", "anna", "arjun", "ben", "bob", "carla", "chen", "chloe",
		"dan", "dara", "david", "elena", "emma", "eve", "farah", "felix", "grace", "hana", "hugo", "ines",
		"ivan", "jack", "jana", "jin", "jon", "julia", "kai", "kara", "lars", "lea", "leo", "lina", "luca",
		"maria", "mark", "maya", "mei", "nadia", "nico", "nina", "noah", "olga", "omar", "oscar", "paul",
		"petra", "quinn", "rafael", "rosa", "sam", "sara", "sofia", "tariq", "tom", "uma", "vera", "wei",
		"xena", "yara", "zoe",
	}
	lastNames = []string{
		"abbott", "baker", "castro", "dubois", "eriksen", "fischer", "garcia", "hansen", "ito", "jensen",
		"kowalski", "lopez", "muller", "nakamura", "novak", "okafor", "olsen", "patel", "quintero", "rossi",
		"schmidt", "silva", "tanaka", "ueda", "varga", "wagner", "xu", "yilmaz", "zhang", "andersson",
		"bianchi", "chopra", "dimitrov", "evans", "fernandez", "gomez", "horvat", "ivanova", "johansson",
		"kim", "larsen", "martin", "nguyen", "ortiz", "petrov", "ramos", "santos", "smith", "thomsen",
		"urbanek", "vasquez", "weber", "young", "zielinski", "moreau", "keller", "lindqvist", "costa",
		"hughes", "mehta", "sato", "wolf", "brandt", "cruz",
	}
	domains = []string{"example.com", "mail.test", "dbbench.dev", "post.example.org", "inbox.test"}
)

// Generate builds n persons from seed. Person i's email ends in "<i>@domain", so emails are unique by
// construction, while the name prefix makes generation order random with respect to email order.
func Generate(n int, seed int64) (*Persons, error) {
	if err := checkSize(n); err != nil {
		return nil, err
	}
	rng := newRand(seed)
	p := &Persons{
		seed:     uint64(seed),
		emails:   make([]byte, 0, n*32),
		emailOff: make([]uint32, 1, n+1),
		names:    make([]byte, 0, n*12),
		nameOff:  make([]uint32, 1, n+1),
		ages:     make([]uint8, n),
	}
	var num [20]byte
	for i := 0; i < n; i++ {
		first, last, domain, age := draw(rng)
		p.emails = append(p.emails, first...)
		p.emails = append(p.emails, '.')
		p.emails = append(p.emails, last...)
		p.emails = append(p.emails, '.')
		p.emails = append(p.emails, strconv.AppendInt(num[:0], int64(i), 10)...)
		p.emails = append(p.emails, '@')
		p.emails = append(p.emails, domain...)
		p.emailOff = append(p.emailOff, uint32(len(p.emails)))

		p.names = append(p.names, first[0]-'a'+'A')
		p.names = append(p.names, first[1:]...)
		p.names = append(p.names, ' ', last[0]-'a'+'A')
		p.names = append(p.names, last[1:]...)
		p.nameOff = append(p.nameOff, uint32(len(p.names)))

		p.ages[i] = age
	}
	return p, nil
}

// NewSalt draws a salt for GenerateSalted: random, never 0 (which means none).
func NewSalt() uint64 {
	for {
		if s := rand.Uint64(); s != 0 {
			return s
		}
	}
}

// GenerateSalted builds n persons from seed, with every name's letters shifted by a key stream of
// (seed, salt, person): emails (the keys) and so their order are Generate's, lengths too, but no
// formula over the seed alone predicts a name or a RowSum. dbbench draws a salt per run and writes it
// into the person file, so that a client answering from the generator instead of its store fails
// verification (docs/protocol.md, "The person file"). Salt 0 is Generate.
func GenerateSalted(n int, seed int64, salt uint64) (*Persons, error) {
	p, err := Generate(n, seed)
	if err != nil || salt == 0 {
		return p, err
	}
	p.salt = salt
	for i := 0; i < n; i++ {
		saltName(p.names[p.nameOff[i]:p.nameOff[i+1]], uint64(seed), salt, uint64(i))
	}
	return p, nil
}

// saltName shifts each ASCII letter of name (in place) within its case by the next 5 bits of a
// splitmix64 stream of (seed, salt, i); other bytes stay.
func saltName(name []byte, seed, salt, i uint64) {
	x := salt ^ seed*0xbf58476d1ce4e5b9 ^ i*0x94d049bb133111eb
	var k uint64
	for j, c := range name {
		if j%12 == 0 {
			x += 0x9e3779b97f4a7c15
			z := x
			z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
			z = (z ^ z>>27) * 0x94d049bb133111eb
			k = z ^ z>>31
		}
		shift := byte(k % 26)
		k >>= 5
		switch {
		case c >= 'a' && c <= 'z':
			name[j] = 'a' + (c-'a'+shift)%26
		case c >= 'A' && c <= 'Z':
			name[j] = 'A' + (c-'A'+shift)%26
		}
	}
}

// draw takes one person's parts from rng, in the order Generate has always drawn them.
func draw(rng *rand.Rand) (first, last, domain string, age uint8) {
	first = firstNames[rng.IntN(len(firstNames))]
	last = lastNames[rng.IntN(len(lastNames))]
	domain = domains[rng.IntN(len(domains))]
	return first, last, domain, uint8(18 + rng.IntN(82))
}

// PackedBytes is the size of the packed buffers (emails, names and ages) Generate(n, seed) builds,
// computed without building them: what a store needs is known before the dataset exists, so that a
// config can be checked against it (dbbench validate).
func PackedBytes(n int, seed int64) (int64, error) {
	if err := checkSize(n); err != nil {
		return 0, err
	}
	rng := newRand(seed)
	var total int64
	for i := 0; i < n; i++ {
		first, last, domain, _ := draw(rng)
		// first.last.<i>@domain, First Last, one age byte
		total += int64(2*len(first)+2*len(last)+len(domain)+digits(i)) + 3 + 1 + 1
	}
	return total, nil
}

// digits is the length of i in decimal (i >= 0).
func digits(i int) int {
	d := 1
	for ; i >= 10; i /= 10 {
		d++
	}
	return d
}

func checkSize(n int) error {
	if n <= 0 {
		return fmt.Errorf("dataset size must be positive, got %d", n)
	}
	if n > MaxPersons {
		return fmt.Errorf("dataset size %d exceeds the maximum of %d", n, MaxPersons)
	}
	return nil
}

func newRand(seed int64) *rand.Rand { return rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)) }

// Len is the number of persons.
func (p *Persons) Len() int { return len(p.ages) }

// Seed is the seed the dataset was generated from.
func (p *Persons) Seed() int64 { return int64(p.seed) }

// Salt is the salt its names were derived with (0: none).
func (p *Persons) Salt() uint64 { return p.salt }

// Email returns person i's email; the slice aliases the packed buffer and must not be modified.
func (p *Persons) Email(i int) []byte { return p.emails[p.emailOff[i]:p.emailOff[i+1]:p.emailOff[i+1]] }

// Name returns person i's name; the slice aliases the packed buffer and must not be modified.
func (p *Persons) Name(i int) []byte { return p.names[p.nameOff[i]:p.nameOff[i+1]:p.nameOff[i+1]] }

// Age returns person i's age (18..99).
func (p *Persons) Age(i int) int { return int(p.ages[i]) }

// Person returns person i.
func (p *Persons) Person(i int) Person {
	return Person{Email: p.Email(i), Name: p.Name(i), Age: p.Age(i)}
}

// Packed exposes the flat buffers (for C baselines and bulk loaders). Offsets have Len()+1 entries.
// Callers must not modify them.
func (p *Persons) Packed() (emails []byte, emailOff []uint32, names []byte, nameOff []uint32, ages []uint8) {
	return p.emails, p.emailOff, p.names, p.nameOff, p.ages
}

// Sorted returns the person indices in email byte order (memcmp), computed once.
func (p *Persons) Sorted() []int32 {
	p.sortOnce.Do(func() {
		idx := make([]int32, p.Len())
		for i := range idx {
			idx[i] = int32(i)
		}
		slices.SortFunc(idx, func(a, b int32) int { return bytes.Compare(p.Email(int(a)), p.Email(int(b))) })
		p.sorted = idx
	})
	return p.sorted
}

// RowSum is the checksum contribution of one decoded row. It folds every byte of email and name (eight
// at a time, a multiply per word) with the lengths and the age, so a read that skipped decoding or returned
// another person cannot produce it; each step is a bijection of the state, so a change in any one word
// always changes the result. It costs a few ns per row, small next to the per-row cost being measured.
// Row sums are added (mod 2^64), so a checksum does not depend on the order rows arrive in.
// baselines/lmdbc computes the same function in C.
func RowSum[S ~string | ~[]byte](email, name S, age int) uint64 {
	h := uint64(len(email))<<40 ^ uint64(len(name))<<32 ^ uint64(uint32(age))
	h = fold(h, email)
	h = fold(h, name)
	h *= rowMul
	return h ^ h>>29
}

const rowMul = 0x9e3779b97f4a7c15

// fold mixes s into h: each little-endian 8-byte word, then the last (up to) 8 bytes as one word,
// overlapping the previous word when the length is not a multiple of 8 (one load instead of a byte loop).
func fold[S ~string | ~[]byte](h uint64, s S) uint64 {
	n := len(s)
	if n < 8 {
		var v uint64
		for i := 0; i < n; i++ {
			v |= uint64(s[i]) << (8 * i)
		}
		return (h ^ v) * rowMul
	}
	tail := s[n-8:]
	for len(s) > 8 { // written so that the compiler drops the bounds checks and combines the loads
		h = (h ^ le64(s)) * rowMul
		s = s[8:]
	}
	return (h ^ le64(tail)) * rowMul
}

// le64 reads s[0:8] as a little-endian word; the caller guarantees len(s) >= 8.
func le64[S ~string | ~[]byte](s S) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// Sum returns the checksum of person i.
func (p *Persons) Sum(i int) uint64 { return RowSum(p.Email(i), p.Name(i), p.Age(i)) }

// SumOf returns the checksum of the persons at the given indices.
func (p *Persons) SumOf(idx []int32) uint64 {
	var s uint64
	for _, i := range idx {
		s += p.Sum(int(i))
	}
	return s
}

// SumFirst returns the checksum of the first n persons in generation order.
func (p *Persons) SumFirst(n int) uint64 {
	var s uint64
	for i := 0; i < n && i < p.Len(); i++ {
		s += p.Sum(i)
	}
	return s
}

// SumSortedPrefix returns the checksum of the first n persons in email order: what a key-ordered scan
// of n rows must produce.
func (p *Persons) SumSortedPrefix(n int) uint64 {
	s := p.Sorted()
	if n > len(s) {
		n = len(s)
	}
	return p.SumOf(s[:n])
}

// Sample returns n distinct person indices in a seeded random order (with repetition only when n
// exceeds the dataset), for point lookups.
func (p *Persons) Sample(n int, seed int64) []int32 {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x51ed2701))
	out := make([]int32, 0, n)
	for len(out) < n {
		perm := rng.Perm(p.Len())
		for _, i := range perm {
			if len(out) == n {
				break
			}
			out = append(out, int32(i))
		}
	}
	return out
}

// Find returns the index of the person with the given email, or -1. It is for verification and
// tests, not for timed paths.
func (p *Persons) Find(email []byte) int {
	s := p.Sorted()
	i, ok := slices.BinarySearchFunc(s, email, func(a int32, e []byte) int { return bytes.Compare(p.Email(int(a)), e) })
	if !ok {
		return -1
	}
	return int(s[i])
}

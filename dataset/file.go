package dataset

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// The person file: the dataset in a flat, language-neutral layout, so that a client in another
// language reads exactly the bytes a Go adapter and the C baseline read, without re-implementing the
// generator. docs/protocol.md specifies it; all integers are little-endian.
//
//	offset  size        field
//	0       8           magic "DBBPERS1"
//	8       4           version (1)
//	12      4           header size in bytes (64)
//	16      8           N, the number of persons
//	24      8           seed
//	32      8           E, total bytes of all emails
//	40      8           M, total bytes of all names
//	48      8           checksum of the whole dataset (sum of RowSum mod 2^64)
//	56      8           salt the names were derived with (0: none; GenerateSalted)
//	64      4*(N+1)     email offsets: email i is emails[off[i]:off[i+1]]
//	        4*(N+1)     name offsets
//	        4*N         person indices in email byte order
//	        N           ages (one byte each)
//	        E           emails, concatenated
//	        M           names, concatenated
const (
	FileMagic      = "DBBPERS1"
	FileVersion    = 1
	FileHeaderSize = 64
)

// WriteFile writes the dataset to path in the person-file layout. The file must not exist (it is
// created exclusively), so nothing else is ever overwritten.
func (p *Persons) WriteFile(path string) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := p.WriteTo(w); err != nil {
		return err
	}
	return w.Flush()
}

// WriteTo writes the person-file layout to w.
func (p *Persons) WriteTo(w io.Writer) (int64, error) {
	n := p.Len()
	var h [FileHeaderSize]byte
	copy(h[:8], FileMagic)
	binary.LittleEndian.PutUint32(h[8:], FileVersion)
	binary.LittleEndian.PutUint32(h[12:], FileHeaderSize)
	binary.LittleEndian.PutUint64(h[16:], uint64(n))
	binary.LittleEndian.PutUint64(h[24:], p.seed)
	binary.LittleEndian.PutUint64(h[32:], uint64(len(p.emails)))
	binary.LittleEndian.PutUint64(h[40:], uint64(len(p.names)))
	binary.LittleEndian.PutUint64(h[48:], p.SumFirst(n))
	binary.LittleEndian.PutUint64(h[56:], p.salt)
	cw := &countWriter{w: w}
	cw.Write(h[:])
	writeU32s(cw, p.emailOff)
	writeU32s(cw, p.nameOff)
	sorted := p.Sorted()
	u := make([]uint32, len(sorted))
	for i, s := range sorted {
		u[i] = uint32(s)
	}
	writeU32s(cw, u)
	cw.Write(p.ages)
	cw.Write(p.emails)
	cw.Write(p.names)
	return cw.n, cw.err
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(b []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.err = err
	return n, err
}

func writeU32s(w io.Writer, v []uint32) {
	buf := make([]byte, 4*1024)
	for len(v) > 0 {
		k := min(len(v), len(buf)/4)
		for i := 0; i < k; i++ {
			binary.LittleEndian.PutUint32(buf[4*i:], v[i])
		}
		w.Write(buf[:4*k])
		v = v[k:]
	}
}

// ReadFile reads a person file and checks it: layout, sizes, offsets, the sorted index and the
// checksum in the header. It is what a Go client speaking the protocol uses.
func ReadFile(path string) (*Persons, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// Parse decodes the person-file layout from b (the buffers of the result alias b).
func Parse(b []byte) (*Persons, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("person file: "+format, args...)
	}
	if len(b) < FileHeaderSize || !bytes.Equal(b[:8], []byte(FileMagic)) {
		return nil, bad("not a person file (no %s header)", FileMagic)
	}
	le := binary.LittleEndian
	if v := le.Uint32(b[8:]); v != FileVersion {
		return nil, bad("version %d, want %d", v, FileVersion)
	}
	hs := int64(le.Uint32(b[12:]))
	n, seed, e, m, sum := le.Uint64(b[16:]), le.Uint64(b[24:]), le.Uint64(b[32:]), le.Uint64(b[40:]), le.Uint64(b[48:])
	if n == 0 || n > MaxPersons || e > 1<<32 || m > 1<<32 || hs < FileHeaderSize {
		return nil, bad("implausible header (N=%d, emails %d bytes, names %d bytes)", n, e, m)
	}
	want := hs + 4*int64(n+1)*2 + 4*int64(n) + int64(n) + int64(e) + int64(m)
	if int64(len(b)) != want {
		return nil, bad("%d bytes, the header says %d", len(b), want)
	}
	off := hs
	u32s := func(k uint64) []uint32 {
		v := make([]uint32, k)
		for i := range v {
			v[i] = le.Uint32(b[off:])
			off += 4
		}
		return v
	}
	p := &Persons{seed: seed, salt: le.Uint64(b[56:])}
	p.emailOff, p.nameOff = u32s(n+1), u32s(n+1)
	sorted := u32s(n)
	p.ages = b[off : off+int64(n)]
	off += int64(n)
	p.emails = b[off : off+int64(e)]
	off += int64(e)
	p.names = b[off:]
	if err := checkOffsets(p.emailOff, e); err != nil {
		return nil, bad("email offsets: %v", err)
	}
	if err := checkOffsets(p.nameOff, m); err != nil {
		return nil, bad("name offsets: %v", err)
	}
	p.sorted = make([]int32, n)
	for i, s := range sorted {
		if uint64(s) >= n {
			return nil, bad("sorted index %d out of range", s)
		}
		p.sorted[i] = int32(s)
	}
	p.sortOnce.Do(func() {})
	for i := 1; i < len(p.sorted); i++ {
		if bytes.Compare(p.Email(int(p.sorted[i-1])), p.Email(int(p.sorted[i]))) >= 0 {
			return nil, bad("sorted index is not in email byte order at position %d", i)
		}
	}
	if got := p.SumFirst(p.Len()); got != sum {
		return nil, bad("checksum %016x, the header says %016x", got, sum)
	}
	return p, nil
}

func checkOffsets(off []uint32, total uint64) error {
	if off[0] != 0 || uint64(off[len(off)-1]) != total {
		return errors.New("do not span the buffer")
	}
	for i := 1; i < len(off); i++ {
		if off[i] < off[i-1] {
			return fmt.Errorf("decrease at %d", i)
		}
	}
	return nil
}

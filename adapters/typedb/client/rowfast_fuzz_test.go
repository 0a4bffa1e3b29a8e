package client

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/dbbench/dbbench/adapters/typedb/typedbtest"
)

// FuzzRowFast checks the row fast path against the general path: the same answer, read whole, one
// byte at a time or in halves, must give the same rows (every field of every concept) and the same
// error, with the fast path on and off.
func FuzzRowFast(f *testing.F) {
	persons := []typedbtest.Person{{Email: "a@x", Name: "Ann \"A\"", Age: 30}, {Email: "b@x", Name: "Bé", Age: -41},
		{Email: "c@x", Name: strings.Repeat("c", 300), Age: 0}}
	for _, keys := range []typedbtest.KeyOrder{typedbtest.KeysSorted, typedbtest.KeysKindFirst} {
		for _, types := range []bool{false, true} {
			var body bytes.Buffer
			if err := typedbtest.EncodeScanAnswer(&body, persons, typedbtest.AnswerOptions{Keys: keys, IncludeInstanceTypes: types}); err != nil {
				f.Fatal(err)
			}
			f.Add(body.Bytes())
		}
	}
	for _, s := range []string{
		`{"answers":[{"data":{"x":null,"r":{"iid":"0x1","kind":"relation","type":null}},"involvedBlocks":null}]}`,
		`{"answers":[{"data":{"v":{"iid":"0x1","kind":"attribute","type":null,"value":1.5e3,"valueType":"double"}},"involvedBlocks":null}]}`,
		`{"answers":[{"data":{"v":{"iid":"0x1","kind":"attribute","type":null,"value":01,"valueType":"integer"}},"involvedBlocks":null}]}`,
		`{"answers":[{"data":{"v":{"iid":"0x1","kind":"attribute","type":null,"value":true,"valueType":"boolean"}},"involvedBlocks":null}]}`,
		`{"answers":[{"data":{"v":{"kind":"relation","iid":"0x1","type":null}},"involvedBlocks":null},{"data":{}}]}`,
		`{"answers":[{"data":{"\u0076":{"iid":"0x\u0031","kind":"entity","type":null}},"involvedBlocks":null}]}`,
		"{\"answers\":[{\"data\":{\"v\":{\"iid\":\"0x\xff\",\"kind\":\"entity\",\"type\":null}},\"involvedBlocks\":null}]}",
		`{"answers":[{"data":{"v":{"iid":"0x1","kind":"entity","type":null}},"involvedBlocks":null}`,
	} {
		f.Add([]byte(s))
	}
	// One decoder per path, reused for every input, as a client reuses them (and allocating a
	// 256 KiB buffer per input would slow the fuzzing down to a crawl).
	fast, general := newDecoder(), newDecoder()
	general.noRowFast = true
	f.Fuzz(func(t *testing.T, doc []byte) {
		for name, r := range map[string]func() io.Reader{
			"whole":    func() io.Reader { return bytes.NewReader(doc) },
			"bytewise": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(doc)) },
			"halves":   func() io.Reader { return iotest.HalfReader(bytes.NewReader(doc)) },
		} {
			wantRows, wantErr := fullRows(general, r())
			gotRows, gotErr := fullRows(fast, r())
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || gotRows != wantRows {
				t.Fatalf("%s, %q:\nfast path: %v\n%s\ngeneral path: %v\n%s", name, doc, gotErr, gotRows, wantErr, wantRows)
			}
		}
	})
}

// fullRows decodes an answer with d and prints every field of every row.
func fullRows(d *decoder, r io.Reader) (string, error) {
	d.s.reset(r)
	var a Answer
	var b strings.Builder
	err := d.answer(&a, func(r *Row) error {
		for i := range r.Len() {
			c := r.At(i)
			fmt.Fprintf(&b, "%q=%d/%q/%q/%q/%d:%q ", r.Name(i), c.Kind, c.IID, c.ValueType, c.Label, c.valueKind, c.value)
		}
		b.WriteByte('\n')
		return nil
	})
	fmt.Fprintf(&b, "%+v", a)
	return b.String(), err
}

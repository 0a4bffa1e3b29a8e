package client

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/dbbench/dbbench/adapters/typedb/typedbtest"
)

// decodeRows decodes doc read through r and returns the rows as text, one "name=kind:value" list per
// row, so that tests can compare whole answers.
func decodeRows(r io.Reader) (Answer, []string, error) {
	d := newDecoder()
	d.s.reset(r)
	var a Answer
	var rows []string
	err := d.answer(&a, func(r *Row) error {
		var b strings.Builder
		for i := range r.Len() {
			c := r.At(i)
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(string(r.Name(i)) + "=" + string(c.IID) + ":" + string(c.value))
		}
		rows = append(rows, b.String())
		return nil
	})
	return a, rows, err
}

// TestDecodeAnswerAcrossReads feeds the same answers whole, one byte per read and in halves: rows
// must not depend on where the reads split the input (the tokenizer's buffer moves between reads).
func TestDecodeAnswerAcrossReads(t *testing.T) {
	long := strings.Repeat("v", 150_000)
	row := `{"data":{"x":{"kind":"attribute","iid":"0x1","value":"a\"b\u00e9\ud83d\ude00","valueType":"string","type":null},` +
		`"y":{"kind":"attribute","iid":"0x2","value":-12.5e3,"valueType":"double","type":null}},"involvedBlocks":null}`
	docs := map[string]struct {
		doc  string
		rows []string
	}{
		"escapes": {`{"queryType":"read","answerType":"conceptRows","answers":[` + row + `,` + row + `],"query":null,"warning":null}`,
			[]string{`x=0x1:a"bé😀 y=0x2:-12.5e3`, `x=0x1:a"bé😀 y=0x2:-12.5e3`}},
		"whitespace": {" {\n \"answers\" : [ { \"data\" : { \"v\" : { \"kind\" : \"value\" , \"value\" : 7 } } } ] , " +
			"\"queryType\" : \"read\" , \"answerType\" : \"conceptRows\" } \n", []string{"v=:7"}},
		"long value": {`{"answerType":"conceptRows","answers":[{"data":{"s":{"kind":"value","value":"` + long + `"}}}]}`,
			[]string{"s=:" + long}},
		"escaped names": {`{"answer\u0054ype":"conceptRows","answers":[{"d\u0061ta":{"\u0078":{"kind":"value","value":1}}}]}`,
			[]string{"x=:1"}},
		"no answers": {`{"queryType":"schema","answerType":"ok","answers":null}`, nil},
	}
	for name, tc := range docs {
		for rname, r := range map[string]func() io.Reader{
			"whole":    func() io.Reader { return strings.NewReader(tc.doc) },
			"bytewise": func() io.Reader { return iotest.OneByteReader(strings.NewReader(tc.doc)) },
			"halves":   func() io.Reader { return iotest.HalfReader(strings.NewReader(tc.doc)) },
		} {
			_, rows, err := decodeRows(r())
			if err != nil {
				t.Errorf("%s, %s: %v", name, rname, err)
				continue
			}
			if strings.Join(rows, "\n") != strings.Join(tc.rows, "\n") {
				t.Errorf("%s, %s: rows\n%.200q\nwant\n%.200q", name, rname, rows, tc.rows)
			}
		}
	}
}

func TestDecodeAnswerRejectsMalformed(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want error // errSyntax or io.ErrUnexpectedEOF
	}{
		{`[]`, errSyntax},
		{`"answers"`, errSyntax},
		{`{"answers":{}}`, errSyntax},
		{`{"answers":["x"]}`, errSyntax},
		{`{"answers":[{"data":[]}]}`, errSyntax},
		{`{"answers":[{"data":{"x":1}}]}`, errSyntax},
		{`{"answers":[{"data":{"x":{"kind":1}}}]}`, errSyntax},
		{`{"answers":[{"data":{"x":{"kind":"entity","type":"t"}}}]}`, errSyntax},
		{`{"queryType":1}`, errSyntax},
		{`{"answers":[]} {}`, errSyntax},
		{`{"a" 1}`, errSyntax},
		{`{"a":1,}`, errSyntax},
		{`{"answers":[{"data":{}} {"data":{}}]}`, errSyntax},
		{`{"answers":[{"data":{}}}`, errSyntax},
		{`{"answers":[{"data":{"x":{"kind":"value","value":tru}}}]}`, errSyntax},
		{`{"answers":[{"data":{"x":{"kind":"value","value":"a` + "\x01" + `"}}}]}`, errSyntax},
		{`{"answers":[{"data":{"x":{"kind":"value","value":"\x"}}}]}`, errSyntax},
		{`{"answers":[{"data":{"x":{"kind":"value","value":"\u12"}}}]}`, errSyntax},
		{`x`, errSyntax},
		{``, io.ErrUnexpectedEOF},
		{`{"answers":[{"data":{"x":{"kind":"value","val`, io.ErrUnexpectedEOF},
		{`{"answers":[`, io.ErrUnexpectedEOF},
	} {
		_, _, err := decodeRows(strings.NewReader(tc.doc))
		if !errors.Is(err, tc.want) {
			t.Errorf("%q: err = %v, want %v", tc.doc, err, tc.want)
		}
	}
}

func TestDecodeAnswerReadErrorSurfaces(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader(`{"answerType":"conceptRows","answers":[{"data":{}},`), iotest.ErrReader(boom))
	a, _, err := decodeRows(r)
	if !errors.Is(err, boom) || a.Rows != 1 {
		t.Fatalf("err = %v after %d rows, want the reader's error after 1", err, a.Rows)
	}
}

// TestDecoderReuse decodes answers one after another on one decoder, as the client's pool does:
// nothing of an answer may leak into the next, including after a failed one.
func TestDecoderReuse(t *testing.T) {
	d := newDecoder()
	docs := []string{
		`{"answerType":"conceptRows","answers":[{"data":{"a":{"kind":"value","value":1}}}],"warning":"w"}`,
		`{"answerType":"conceptRows","answers":[{"data":{"a":{"kind":"value","value":"`,
		`{"answerType":"conceptRows","answers":[{"data":{"b":{"kind":"value","value":2}}},{"data":{"b":null}}]}`,
	}
	var got []string
	for _, doc := range docs {
		d.s.reset(strings.NewReader(doc))
		var a Answer
		err := d.answer(&a, func(r *Row) error {
			for i := range r.Len() {
				got = append(got, string(r.Name(i))+"="+string(r.At(i).value))
			}
			return nil
		})
		got = append(got, a.Warning)
		if (err != nil) != (doc == docs[1]) {
			t.Fatalf("%q: err = %v", doc, err)
		}
		d.s.reset(nil)
	}
	if want := "a=1 w  b=2 b= "; strings.Join(got, " ") != want {
		t.Fatalf("got %q, want %q", strings.Join(got, " "), want)
	}
}

// TestDecodeBothKeyOrders decodes the fake's answers in the server's sorted key order and in the
// kind-first order, with and without instance types: the rows must be the same, and without types
// (what the adapter asks for) every concept must take a fast path in either order, and every row
// without escapes the row fast path.
func TestDecodeBothKeyOrders(t *testing.T) {
	in := []typedbtest.Person{{Email: "a@x", Name: "Ann \"A\"", Age: 30}, {Email: "b@x", Name: "Bé", Age: 41}}
	var want []string
	for _, keys := range []typedbtest.KeyOrder{typedbtest.KeysSorted, typedbtest.KeysKindFirst} {
		for _, types := range []bool{false, true} {
			var body bytes.Buffer
			if err := typedbtest.EncodeScanAnswer(&body, in, typedbtest.AnswerOptions{Keys: keys, IncludeInstanceTypes: types}); err != nil {
				t.Fatal(err)
			}
			d := newDecoder()
			d.s.reset(bytes.NewReader(body.Bytes()))
			var a Answer
			var rows []string
			err := d.answer(&a, func(r *Row) error {
				age, err := r.Get("a").Int()
				rows = append(rows, fmt.Sprintf("%s|%s|%d|%s|%d|%s", r.Get("e").Bytes(), r.Get("n").Bytes(), age,
					r.Get("p").IID, r.Get("p").Kind, r.Get("e").ValueType))
				return err
			})
			if err != nil {
				t.Fatalf("keys %d, types %v: %v\n%s", keys, types, err, body.Bytes())
			}
			if want == nil {
				want = rows
			}
			if !slices.Equal(rows, want) || len(rows) != len(in) {
				t.Errorf("keys %d, types %v: rows %q, want %q", keys, types, rows, want)
			}
			// Without types only the row with an escaped string (Ann "A") leaves the row fast path,
			// and its concepts still take the concept fast path.
			if !types && (d.slow != 0 || d.fastMisses != 1) {
				t.Errorf("keys %d: %d of %d rows left the row fast path (want 1), %d of %d concepts took the slow path\n%s",
					keys, d.fastMisses, len(in), d.slow, 4*len(in), body.Bytes())
			}
			if types && d.fastMisses != len(in) {
				t.Errorf("keys %d, types: %d of %d rows left the row fast path, want all (it does not read types)", keys, d.fastMisses, len(in))
			}
		}
	}
}

// TestDecodeAnswerNullOrOpen covers the values that must open an object or array: which may be null,
// and what the error says when one is neither.
func TestDecodeAnswerNullOrOpen(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want string // the error's end; "" no error
	}{
		{`null`, "expected the answer object, got null"},
		{`[]`, "expected the answer object, got '['"},
		{`{"answers":null}`, ""},
		{`{"answers":{}}`, "expected the answers array, got '{'"},
		{`{"answers":[{"data":null}]}`, "expected the row's data object, got null"},
		{`{"answers":[{"data":"x"}]}`, "expected the row's data object, got string"},
		{`{"answers":[{"data":{"x":{"type":null,"kind":"entity","iid":"0x1"}}}]}`, ""},
		{`{"answers":[{"data":{"x":{"type":{"label":"person"},"kind":"entity","iid":"0x1"}}}]}`, ""},
		{`{"answers":[{"data":{"x":{"type":[],"kind":"entity","iid":"0x1"}}}]}`, "expected a type object, got '['"},
	} {
		_, _, err := decodeRows(strings.NewReader(tc.doc))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.doc, err)
		case tc.want != "" && (err == nil || !errors.Is(err, errSyntax) || !strings.HasSuffix(err.Error(), tc.want)):
			t.Errorf("%s: err = %v, want a syntax error ending %q", tc.doc, err, tc.want)
		}
	}
}

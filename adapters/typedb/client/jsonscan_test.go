package client

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// tokens renders every token of doc as text, the way encoding/json would see it.
func tokens(r io.Reader) ([]any, error) {
	s := newScanner(r)
	var out []any
	for {
		k, err := s.next()
		if err != nil {
			return out, err
		}
		switch k {
		case tokEOF:
			return out, nil
		case tokBeginObject:
			out = append(out, json.Delim('{'))
		case tokEndObject:
			out = append(out, json.Delim('}'))
		case tokBeginArray:
			out = append(out, json.Delim('['))
		case tokEndArray:
			out = append(out, json.Delim(']'))
		case tokString:
			out = append(out, string(s.tok))
		case tokNumber:
			out = append(out, json.Number(string(s.tok)))
		case tokTrue:
			out = append(out, true)
		case tokFalse:
			out = append(out, false)
		case tokNull:
			out = append(out, nil)
		}
	}
}

// stdTokens is the reference: encoding/json's tokens of doc.
func stdTokens(t *testing.T, doc string) []any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(doc))
	d.UseNumber()
	var out []any
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("reference decoder rejects %q: %v", doc, err)
		}
		out = append(out, tok)
	}
}

func TestScannerMatchesEncodingJSON(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `null`, `"x"`, `12`,
		`{"a":1,"b":[true,false,null],"c":{"d":"e"}}`,
		` { "a" : [ 1 , -2.5e3 , "x" ] , "b" : { } } `,
		`{"esc":"q\"b\\s\/n\nt\tr\rb\bf\f"}`,
		`{"u":"\u00e9\u4e2d\ud83d\ude00 and \ud800 lone","raw":"héllo 中 😀"}`,
		`{"` + strings.Repeat("k", 70000) + `":"` + strings.Repeat("v", 150000) + `"}`,
		`[` + strings.Repeat(`{"a":"b\"c"},`, 10000) + `{}]`,
	}
	for _, doc := range docs {
		want := stdTokens(t, doc)
		for name, r := range map[string]io.Reader{
			"whole":    strings.NewReader(doc),
			"bytewise": iotest.OneByteReader(strings.NewReader(doc)),
			"halves":   iotest.HalfReader(strings.NewReader(doc)),
		} {
			got, err := tokens(r)
			if err != nil {
				t.Errorf("%s %.40q: %v", name, doc, err)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %.40q: tokens differ from encoding/json", name, doc)
			}
		}
	}
}

func TestScannerRejectsMalformed(t *testing.T) {
	for _, doc := range []string{
		`{"a" 1}`, `{"a":1,}`, `[1 2]`, `{"a":1]`, `[1}`, `{1:2}`, `{"a":tru}`, `"abc`,
		`{"a":"x` + "\x01" + `"}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{} {}`, `{"a":`, `[`, `x`,
	} {
		_, err := tokens(strings.NewReader(doc))
		if err == nil {
			t.Errorf("%q: accepted", doc)
			continue
		}
		if !errors.Is(err, errSyntax) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%q: error %v is neither a syntax error nor an unexpected EOF", doc, err)
		}
	}
}

func TestScannerTokenLimit(t *testing.T) {
	s := newScanner(strings.NewReader(`"` + strings.Repeat("x", 300<<10) + `"`))
	s.limit = 128 << 10
	if _, err := s.next(); err == nil || !errors.Is(err, errSyntax) {
		t.Fatalf("a string longer than the limit: err = %v, want a syntax error", err)
	}
}

func TestScannerReadErrorSurfaces(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader(`{"answers":[{"a":1},`), iotest.ErrReader(boom))
	_, err := tokens(r)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the reader's error", err)
	}
}

func TestDecodeAnswer(t *testing.T) {
	doc := `{"answerType":"conceptRows","queryType":"read","answers":[
	  {"involvedBlocks":[0],"data":{"a":{"kind":"attribute","iid":"0x20aa","value":42,"valueType":"integer",
	     "type":{"kind":"attributeType","label":"age","valueType":"integer"}},
	   "n":{"kind":"attribute","iid":"0x20bb","value":"Zoë \"Z\" Xu","valueType":"string","type":null},
	   "e":{"kind":"attribute","iid":"0x20cc","value":"","valueType":"string","type":null},
	   "p":{"kind":"entity","iid":"0x1e0000","type":{"kind":"entityType","label":"person"}},
	   "o":null, "l":[1,2], "v":{"kind":"value","value":true,"valueType":"boolean"},
	   "d":{"kind":"value","value":"1.5dec","valueType":"decimal","extra":{"x":[1]}}}}],
	 "query":{"blocks":[{"deep":[1,{"x":null}]}]},"warning":"Read query results limit (1) exceeded."}`
	d := newDecoder()
	d.s.reset(iotest.HalfReader(strings.NewReader(doc)))
	var a Answer
	calls := 0
	err := d.answer(&a, func(r *Row) error {
		calls++
		if r.Len() != 8 {
			t.Errorf("row has %d variables, want 8", r.Len())
		}
		age, err := r.Get("a").Int()
		if err != nil || age != 42 || string(r.Get("a").Label) != "age" || r.Get("a").Kind != KindAttribute {
			t.Errorf("a = %d (%v), label %q", age, err, r.Get("a").Label)
		}
		if got := string(r.Get("n").Bytes()); got != `Zoë "Z" Xu` {
			t.Errorf("n = %q", got)
		}
		if e := r.Get("e"); e == nil || e.Bytes() == nil || len(e.Bytes()) != 0 || string(e.IID) != "0x20cc" {
			t.Errorf("e should be an empty, non-nil string value")
		}
		if p := r.Get("p"); p.Kind != KindEntity || p.HasValue() || string(p.Label) != "person" {
			t.Errorf("p = %+v", p)
		}
		if r.Get("o") != nil {
			t.Errorf("an unbound variable should be nil")
		}
		if r.Get("l").Kind != KindList {
			t.Errorf("l should be a list")
		}
		if b, err := r.Get("v").Bool(); err != nil || !b {
			t.Errorf("v = %v, %v", b, err)
		}
		if string(r.Get("d").Bytes()) != "1.5dec" || string(r.Get("d").ValueType) != "decimal" {
			t.Errorf("d = %q", r.Get("d").Bytes())
		}
		if _, err := r.Get("n").Int(); err == nil {
			t.Errorf("Int of a string value should fail")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Answer{QueryType: "read", AnswerType: "conceptRows", Rows: 1, Warning: "Read query results limit (1) exceeded."}
	if calls != 1 || a != want {
		t.Fatalf("answer = %+v after %d calls, want %+v", a, calls, want)
	}
	if !a.Truncated() {
		t.Error("a warning must count as truncation")
	}
}

func TestDecodeAnswerHandlerErrorStops(t *testing.T) {
	doc := `{"queryType":"read","answerType":"conceptRows","answers":[{"data":{}},{"data":{}}],"query":null,"warning":null}`
	d := newDecoder()
	d.s.reset(strings.NewReader(doc))
	stop := errors.New("stop")
	var a Answer
	err := d.answer(&a, func(*Row) error { return stop })
	var he handlerError
	if !errors.As(err, &he) || he.err != stop || a.Rows != 1 {
		t.Fatalf("err = %v after %d rows, want the handler's error after 1", err, a.Rows)
	}
}

func TestParseInt(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "42": 42, "-7": -7, "9223372036854775807": 1<<63 - 1, "-9223372036854775808": -1 << 63} {
		got, err := parseInt([]byte(in))
		if err != nil || got != want {
			t.Errorf("parseInt(%s) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "-", "1.5", "1e3", "99999999999999999999"} {
		if _, err := parseInt([]byte(in)); err == nil {
			t.Errorf("parseInt(%q) accepted", in)
		}
	}
}

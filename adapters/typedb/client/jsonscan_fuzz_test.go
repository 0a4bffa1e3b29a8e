package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// FuzzScanner checks the tokenizer against encoding/json: a document encoding/json accepts gives the
// same tokens (numbers compared as text), one it refuses is refused, and invalid UTF-8 is refused
// (encoding/json replaces it; an answer of TypeDB's is always valid UTF-8, so anything else is
// corrupt). Reading one byte at a time exercises every buffer boundary.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		`{"a": [1, -2.5e+3, true, false, null, "x\u00e9\ud83d\ude00\n"]}`, `[]`, `{}`, `"s"`, `0`, `-0.0e-0`,
		`000`, `1-2`, `--1`, `01`, `1.`, `.5`, `1e`, `+1`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `[1 2]`, `"\ud800"`,
		`"\ud800\u0041"`, `"\udc00\ud800"`, "\"\xff\"", "\"a\xc3\"", `{"a":{"b":[[]]}}`, `[1] [2]`, ` `, `"\x"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := reference(data)
		for _, r := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data))} {
			got, err := scanTokens(r)
			switch {
			case !utf8.Valid(data) && err == nil:
				t.Fatalf("%q: invalid UTF-8 accepted: %q", data, got)
			case !utf8.Valid(data):
			case wantErr != nil && err == nil:
				t.Fatalf("%q: accepted (%q), encoding/json refuses it: %v", data, got, wantErr)
			case wantErr == nil && err != nil:
				t.Fatalf("%q: refused (%v), encoding/json accepts it", data, err)
			case wantErr == nil && !equal(got, want):
				t.Fatalf("%q: tokens\n%q\nwant\n%q", data, got, want)
			}
			if err != nil && !errors.Is(err, errSyntax) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("%q: error %v is neither a syntax error nor an unexpected end", data, err)
			}
		}
	})
}

// scanTokens reads every token with the scanner, as "kind:text".
func scanTokens(r io.Reader) ([]string, error) {
	s := newScanner(r)
	var out []string
	for {
		k, err := s.next()
		if err != nil {
			return out, err
		}
		if k == tokEOF {
			return out, nil
		}
		switch k {
		case tokString, tokNumber:
			out = append(out, fmt.Sprintf("%v:%s", k, s.tok))
		default:
			out = append(out, k.String())
		}
	}
}

// reference reads the same tokens with encoding/json.
func reference(data []byte) ([]string, error) {
	if !json.Valid(data) {
		return nil, errors.New("invalid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch v := tok.(type) {
		case json.Delim:
			out = append(out, map[json.Delim]string{'{': "'{'", '}': "'}'", '[': "'['", ']': "']'"}[v])
		case string:
			out = append(out, fmt.Sprintf("%v:%s", tokString, v))
		case json.Number:
			out = append(out, fmt.Sprintf("%v:%s", tokNumber, v))
		case bool:
			out = append(out, tokTrue.String())
		case nil:
			out = append(out, tokNull.String())
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

package store

import (
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters"
)

func config(t *testing.T, raw map[string]any) Config {
	t.Helper()
	o, err := adapters.ParseOptions(Specs(), raw)
	if err != nil {
		t.Fatalf("options %v: %v", raw, err)
	}
	c, err := ParseConfig(o)
	if err != nil {
		t.Fatalf("config %v: %v", raw, err)
	}
	return c
}

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		raw     map[string]any
		want    Config
		wantErr string // substring; "" means no error
	}{
		{name: "defaults", raw: nil, want: Config{MapSize: 1 << 30, MaxReaders: 126}},
		{name: "all set", raw: map[string]any{"path": "/x", "map_size": "64MiB", "durable": true, "max_readers": 8, "txn_size": 1000},
			want: Config{Path: "/x", MapSize: 64 << 20, Durable: true, MaxReaders: 8, TxnSize: 1000}},
		{name: "map below 64KiB", raw: map[string]any{"map_size": "1KiB"}, wantErr: "at least"},
		{name: "map not a size", raw: map[string]any{"map_size": "lots"}, wantErr: "want a size"},
		{name: "negative txn_size", raw: map[string]any{"txn_size": -1}, wantErr: "at least"},
		{name: "no readers", raw: map[string]any{"max_readers": 0}, wantErr: "at least"},
		{name: "absurd readers", raw: map[string]any{"max_readers": 5_000_000}, wantErr: "max_readers: want 1 to"},
		{name: "durable not a bool", raw: map[string]any{"durable": "sometimes"}, wantErr: "true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := adapters.ParseOptions(Specs(), tt.raw)
			var c Config
			if err == nil {
				c, err = ParseConfig(o)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || c != tt.want {
				t.Fatalf("got %+v, %v; want %+v", c, err, tt.want)
			}
		})
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{1 << 30: "1GiB", 3 << 20: "3MiB", 1536 << 10: "1536KiB", 1000: "1000 bytes", 0: "0 bytes"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestValueRoundTrip(t *testing.T) {
	v, err := EncodeValue(nil, 42, []byte("Ada Lopez"))
	if err != nil {
		t.Fatal(err)
	}
	age, name, ok := DecodeValue(v)
	if !ok || age != 42 || string(name) != "Ada Lopez" {
		t.Fatalf("decoded %d %q %v", age, name, ok)
	}
	if _, err := EncodeValue(nil, 256, nil); err == nil {
		t.Error("age 256 was accepted")
	}
	if _, _, ok := DecodeValue(nil); ok {
		t.Error("an empty value decoded")
	}
}

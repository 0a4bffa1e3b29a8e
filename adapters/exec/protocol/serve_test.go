package protocol

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/dataset"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/")

// personFile is the 1,000-person file every reference client's tests read.
var personFile = filepath.Join("..", "..", "..", "dataset", "testdata", "persons-1000-seed1.bin")

// fakeBackend serves the person file from memory with made-up, deterministic times (1 µs per row),
// so that transcripts are stable and their checksums are the real ones.
type fakeBackend struct {
	ds     *dataset.Persons
	opened Open
	closed int
	// block makes Scan wait for the end of input.
	block bool
}

func (f *fakeBackend) Hello() Hello {
	return Hello{Client: "fake", ClientVersion: "1.0.0", Language: "Go", Runtime: "test", Library: "memory",
		LibraryVersion: "0", Workloads: []string{"scan", "lookup", "insert", "concurrent", "echo"}, Options: []string{"fail"}}
}

func (f *fakeBackend) Open(ctx context.Context, req Open) (Opened, error) {
	if req.Options["fail"] == true {
		return Opened{}, errors.New("cannot open:\nthe option fail is set")
	}
	ds, err := dataset.ReadFile(req.Dataset)
	if err != nil {
		return Opened{}, err
	}
	f.ds, f.opened = ds, req
	return Opened{Info: map[string]any{"size": ds.Len()}, ScansInKeyOrder: true}, nil
}

func (f *fakeBackend) Load(context.Context) (int64, time.Duration, error) {
	return int64(f.ds.Len()), time.Duration(f.ds.Len()) * time.Microsecond, nil
}

func (f *fakeBackend) Scan(ctx context.Context, rows int) (Tally, time.Duration, error) {
	if f.block {
		<-ctx.Done()
		return Tally{}, 0, ctx.Err()
	}
	n := min(rows, f.ds.Len())
	return Tally{Rows: int64(n), Sum: f.ds.SumSortedPrefix(n)}, time.Duration(n) * time.Microsecond, nil
}

func (f *fakeBackend) Lookup(ctx context.Context, keys []int, lat []time.Duration) (Tally, error) {
	var t Tally
	for i, k := range keys {
		if k < 0 || k >= f.ds.Len() {
			return t, fmt.Errorf("key %d is not a dataset index", k)
		}
		t.Rows++
		t.Sum += f.ds.Sum(k)
		lat[i] = time.Microsecond
	}
	return t, nil
}

func (f *fakeBackend) Insert(ctx context.Context, rows int) (Tally, time.Duration, error) {
	n := min(rows, f.ds.Len())
	return Tally{Rows: int64(n), Sum: f.ds.SumFirst(n)}, time.Duration(n) * time.Microsecond, nil
}

func (f *fakeBackend) Concurrent(ctx context.Context, rows int, lat []time.Duration) ([]Tally, time.Duration, error) {
	ts := make([]Tally, len(lat))
	for i := range lat {
		ts[i], lat[i], _ = f.Scan(ctx, rows)
	}
	return ts, time.Duration(len(lat)) * time.Millisecond, nil
}

func (f *fakeBackend) Run(ctx context.Context, workload string, params map[string]any, lat []time.Duration) (Tally, error) {
	if workload != "echo" {
		return Tally{}, fmt.Errorf("unknown workload %q", workload)
	}
	if params["panic"] == true {
		panic("asked to")
	}
	for i := range lat {
		lat[i] = time.Duration(i+1) * time.Microsecond
	}
	return Tally{Rows: int64(len(lat))}, nil
}

func (f *fakeBackend) Close() error { f.closed++; return nil }

// TestTranscripts replays the requests of each transcript in testdata/ (lines "> request") and
// compares the replies (lines "< reply"). go test -update rewrites the replies.
func TestTranscripts(t *testing.T) {
	tests := []struct {
		name       string
		wantClosed int // Close calls: by a close request, or at the end of input while open
	}{
		{"session", 1},
		{"errors", 1},         // failed requests get error replies, and the session goes on
		{"not-open", 0},       // work before open is refused; nothing to close
		{"eof-while-open", 1}, // the end of input closes the store
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join("testdata", tt.name+".txt")
			requests := readRequests(t, path)
			in := strings.ReplaceAll(strings.Join(requests, "\n"), "PERSON_FILE", personFile) + "\n"
			var out bytes.Buffer
			b := &fakeBackend{}
			if err := Serve(context.Background(), strings.NewReader(in), &out, b); err != nil {
				t.Fatalf("Serve: %v", err)
			}
			replies := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(replies) != len(requests) {
				t.Fatalf("%d replies to %d requests:\n%s", len(replies), len(requests), out.String())
			}
			var got strings.Builder
			for i, r := range requests {
				fmt.Fprintf(&got, "> %s\n< %s\n", r, replies[i])
			}
			golden(t, path, got.String())
			if b.closed != tt.wantClosed {
				t.Errorf("backend closed %d times, want %d", b.closed, tt.wantClosed)
			}
		})
	}
}

func readRequests(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var reqs []string
	for _, l := range strings.Split(string(b), "\n") {
		if r, ok := strings.CutPrefix(l, "> "); ok {
			reqs = append(reqs, r)
		}
	}
	return reqs
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// TestEOFCancelsWork: the end of input ends work in progress, and Serve returns and closes the store.
func TestEOFCancelsWork(t *testing.T) {
	r, w := io.Pipe()
	b := &fakeBackend{block: true}
	done := make(chan error, 1)
	var out bytes.Buffer
	go func() { done <- Serve(context.Background(), r, &out, b) }()
	fmt.Fprintf(w, `{"id":1,"op":"open","dataset":%q}`+"\n", personFile)
	fmt.Fprintln(w, `{"id":2,"op":"scan","rows":10}`)
	w.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after the end of input")
	}
	if b.closed != 1 {
		t.Errorf("backend closed %d times, want 1", b.closed)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("broken pipe") }

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// TestServeFails: Serve reports what stops it from speaking the protocol at all.
func TestServeFails(t *testing.T) {
	tests := []struct {
		name string
		r    io.Reader
		w    io.Writer
		want string
	}{
		{"read error", failingReader{}, io.Discard, "read requests: broken pipe"},
		{"write error", strings.NewReader(`{"id":1,"op":"ping"}` + "\n"), failingWriter{}, "write a reply: broken pipe"},
		{"line too long", strings.NewReader(`{"id":1,"op":"ping","pad":"` + strings.Repeat("x", MaxLine) + `"}` + "\n"), io.Discard, "token too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Serve(context.Background(), tt.r, tt.w, &fakeBackend{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Serve: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestChecksum(t *testing.T) {
	for _, tt := range []struct {
		sum  uint64
		want string
	}{{0, "0000000000000000"}, {0x9a8d33d6f43e47cd, "9a8d33d6f43e47cd"}, {1<<64 - 1, "ffffffffffffffff"}} {
		if got := Checksum(tt.sum); got != tt.want {
			t.Errorf("Checksum(%#x) = %s, want %s", tt.sum, got, tt.want)
		}
	}
}

// BenchmarkPing is the serving loop's own cost per request: decode, dispatch, encode, over in-memory
// pipes (go test -bench Ping ./adapters/exec/protocol). A process round trip adds two pipe hops.
func BenchmarkPing(b *testing.B) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), inR, outW, &fakeBackend{}) }()
	replies := bufio.NewReader(outR)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		fmt.Fprintf(inW, "{\"id\":%d,\"op\":\"ping\"}\n", i+1)
		if _, err := replies.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

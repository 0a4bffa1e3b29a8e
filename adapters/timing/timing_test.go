package timing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
)

// session records the calls Insert makes and fails the one named by failAt ("begin", "insert 3",
// "commit").
type session struct {
	calls    []string
	failAt   string
	cancel   func() // called on the insert named by cancelAt
	cancelAt string
}

func (s *session) step(call string) error {
	s.calls = append(s.calls, call)
	if call == s.cancelAt {
		s.cancel()
	}
	if call == s.failAt {
		return errors.New("refused")
	}
	return nil
}

func (s *session) Begin(context.Context) error { return s.step("begin") }
func (s *session) Insert(_ context.Context, p *dataset.Person) error {
	return s.step("insert " + string(p.Email))
}
func (s *session) Commit(context.Context) error                   { return s.step("commit") }
func (s *session) Verify(context.Context) (adapters.Tally, error) { return adapters.Tally{}, nil }
func (s *session) Close() error                                   { return nil }

func persons(n int) []dataset.Person {
	ps := make([]dataset.Person, n)
	for i := range ps {
		ps[i].Email = []byte(fmt.Sprint(i + 1))
	}
	return ps
}

func TestInsert(t *testing.T) {
	many := CheckEvery + 10
	tests := []struct {
		name     string
		n        int
		failAt   string
		cancelAt string
		wantErr  string
		want     []string // the calls, in order (nil: not checked)
	}{
		{name: "all, in order", n: 3, want: []string{"begin", "insert 1", "insert 2", "insert 3", "commit"}},
		{name: "begin fails", n: 3, failAt: "begin", wantErr: "begin write transaction: refused", want: []string{"begin"}},
		{name: "an insert fails", n: 3, failAt: "insert 2", wantErr: "insert 2 of 3: refused",
			want: []string{"begin", "insert 1", "insert 2"}},
		{name: "commit fails", n: 1, failAt: "commit", wantErr: "commit: refused", want: []string{"begin", "insert 1", "commit"}},
		// The context is looked at every CheckEvery inserts: a cancellation stops the loop at the next look.
		{name: "cancelled", n: many, cancelAt: "insert 2", wantErr: context.Canceled.Error()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := &session{failAt: tc.failAt, cancelAt: tc.cancelAt, cancel: cancel}
			var extra []time.Duration
			d, err := Insert(ctx, s, persons(tc.n), func(d time.Duration) { extra = append(extra, d) })
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if d != 0 || len(extra) != 0 {
					t.Errorf("a failed region reported %v and ran extra %d times", d, len(extra))
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if len(extra) != 1 || extra[0] > d {
					t.Errorf("extra got %v, want one call with at most the region's %v", extra, d)
				}
			}
			if tc.want != nil && !slices.Equal(s.calls, tc.want) {
				t.Errorf("calls %q, want %q", s.calls, tc.want)
			}
			if tc.cancelAt != "" && len(s.calls) != 1+CheckEvery {
				t.Errorf("cancelled at insert 2, stopped after %d calls, want %d (the next look)", len(s.calls), 1+CheckEvery)
			}
		})
	}
	if _, err := Insert(context.Background(), &session{}, persons(2), nil); err != nil {
		t.Errorf("nil extra: %v", err)
	}
}

// scanner's scans each wait until readers of them run at once (a loop of scans one after the other
// never gets there), then hold a little; a negative n fails.
type scanner struct {
	readers int64
	running atomic.Int64
	hold    time.Duration
}

func (s *scanner) Scan(ctx context.Context, n int) (adapters.Tally, error) {
	s.running.Add(1)
	for deadline := time.Now().Add(10 * time.Second); s.running.Load() < s.readers; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			return adapters.Tally{}, fmt.Errorf("only %d of %d readers ever ran at once", s.running.Load(), s.readers)
		}
	}
	time.Sleep(s.hold)
	if n < 0 {
		return adapters.Tally{}, errors.New("bad n")
	}
	return adapters.Tally{Rows: int64(n), Sum: uint64(n) * 7}, nil
}

func TestScanConcurrently(t *testing.T) {
	lat := make([]time.Duration, 4)
	s := &scanner{readers: int64(len(lat)), hold: 20 * time.Millisecond}
	tallies, wall, err := ScanConcurrently(context.Background(), s, 5, lat)
	if err != nil {
		t.Fatal(err)
	}
	if len(tallies) != len(lat) {
		t.Fatalf("%d tallies for %d readers", len(tallies), len(lat))
	}
	for i, tl := range tallies {
		if tl != (adapters.Tally{Rows: 5, Sum: 35}) {
			t.Errorf("reader %d: tally %+v", i, tl)
		}
		// Each reader's clock starts after the release and stops before the last reader ends.
		if lat[i] < s.hold || lat[i] > wall {
			t.Errorf("reader %d: latency %v, want between the scan's %v and the wall time %v", i, lat[i], s.hold, wall)
		}
	}

	_, _, err = ScanConcurrently(context.Background(), &scanner{readers: 2}, -1, make([]time.Duration, 2))
	if err == nil || !strings.Contains(err.Error(), "bad n") {
		t.Errorf("a failing reader: err = %v", err)
	}
}

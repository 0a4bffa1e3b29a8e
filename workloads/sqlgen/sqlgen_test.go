package sqlgen

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/dbbench/dbbench/internal/stattest"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

func TestNewRefuses(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{Spec{Kind: "gaussian"}, `unknown generator "gaussian" (known: uniform, zipfian, scrambled_zipfian, sequential, hotspot, constant, string)`},
		{Spec{Kind: Uniform, Min: 5, Max: 4}, "uniform: min 5 is above max 4"},
		{Spec{Kind: Sequential, Min: math.MinInt64, Max: math.MaxInt64}, "sequential: the range [-9223372036854775808, 9223372036854775807] holds more than 2^63-1 values"},
		{Spec{Kind: Uniform, Min: math.MinInt64, Max: -1}, "uniform: the range [-9223372036854775808, -1] holds more than 2^63-1 values"},
		{Spec{Kind: Zipfian, Min: 1, Max: 10}, "zipfian: theta must be in (0, 1), got 0 (YCSB's is 0.99)"},
		{Spec{Kind: Zipfian, Min: 1, Max: 10, Theta: 1}, "theta must be in (0, 1), got 1"},
		{Spec{Kind: Hotspot, Min: 1, Max: 10, HotData: 1.5, HotOps: 0.8}, "hotspot: hot_data and hot_ops must be fractions in [0, 1], got 1.5 and 0.8"},
		{Spec{Kind: Hotspot, Min: 1, Max: 10, HotData: 0.2, HotOps: math.NaN()}, "hot_data and hot_ops must be fractions"},
		{Spec{Kind: Constant}, "constant: no value"},
		{Spec{Kind: Constant, Value: []byte("x")}, "constant: value [120] of type []uint8: want an integer, a double, a boolean or a string"},
		{Spec{Kind: Constant, Value: math.NaN()}, "constant: value NaN"},
		{Spec{Kind: String, MinLen: 3, MaxLen: 2, Alphabet: "ab"}, "string: lengths must be 0 <= min_len <= max_len, got 3 and 2"},
		{Spec{Kind: String, MinLen: -1, MaxLen: 2, Alphabet: "ab"}, "lengths must be 0 <= min_len <= max_len"},
		{Spec{Kind: String, MaxLen: MaxStringLen + 1, Alphabet: "ab"}, "string: max_len 1048577 is above 1048576 characters"},
		{Spec{Kind: String, MaxLen: 2}, "string: the alphabet is empty"},
		{Spec{Kind: String, MaxLen: 2, Alphabet: "a\xffb"}, "string: the alphabet is not valid UTF-8"},
		{Spec{Kind: Uniform, Min: 1, Max: 2, Alphabet: "ab"}, "uniform: alphabet does not apply (a uniform generator reads min, max)"},
		{Spec{Kind: String, Min: 1, MaxLen: 2, Alphabet: "ab"}, "string: min does not apply (a string generator reads min_len, max_len, alphabet)"},
		{Spec{Kind: Constant, Value: 1, Max: 3}, "constant: max does not apply"},
		{Spec{Kind: Sequential, Min: 1, Max: 3, Theta: 0.5}, "sequential: theta does not apply"},
	} {
		g, err := New(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v %v, want %q", c.spec, g, err, c.want)
		}
	}
}

func mustNew(t *testing.T, s Spec) *Generator {
	t.Helper()
	g, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// stream is an execution's random stream, as the engine would seed one.
func stream(k uint64) *rand.Rand { return rand.New(rand.NewPCG(k, 0x9e3779b97f4a7c15)) }

const draws = 500_000

// TestUniform: chi-square against equal probabilities over [Min, Max]; a generator one value short
// fails the same check.
func TestUniform(t *testing.T) {
	g := mustNew(t, Spec{Kind: Uniform, Min: -20, Max: 79})
	check := func(draw func(r *rand.Rand) int64) bool {
		counts := make([]int64, 100)
		r := stream(1)
		for range draws {
			v := draw(r)
			if v < -20 || v > 79 {
				return false
			}
			counts[v+20]++
		}
		p := make([]float64, 100)
		for i := range p {
			p[i] = 0.01
		}
		stat, _, crit := stattest.ChiSquare(counts, p)
		t.Logf("chi2 %.1f, critical %.1f", stat, crit)
		return stat < crit
	}
	if !check(func(r *rand.Rand) int64 { return g.Draw(r, 0).(int64) }) {
		t.Error("uniform is not uniform over [-20, 79]")
	}
	if check(func(r *rand.Rand) int64 { return -20 + r.Int64N(99) }) {
		t.Error("a generator that never draws 79 passes")
	}
	full := mustNew(t, Spec{Kind: Uniform, Min: -1 << 62, Max: 1<<62 - 2}) // the widest range: 2^63-1 values
	neg := 0
	for k := range uint64(1000) {
		if full.Draw(stream(k), k).(int64) < 0 {
			neg++
		}
	}
	if neg < 400 || neg > 600 {
		t.Errorf("uniform over the widest range: %d of 1000 negative", neg)
	}
}

// TestYCSBKinds: zipfian, scrambled zipfian and hotspot are workloads/ycsb's generators (tested
// against their definitions there) moved to start at Min: the same stream draws ycsb's value + Min.
func TestYCSBKinds(t *testing.T) {
	zipf, _ := ycsb.NewZipfian(1000, 0.9)
	scr, _ := ycsb.NewScrambledZipfian(1000)
	hot, _ := ycsb.NewHotspot(1000, 0.1, 0.9)
	for _, c := range []struct {
		spec Spec
		ycsb func(r *rand.Rand) int64
	}{
		{Spec{Kind: Zipfian, Min: 501, Max: 1500, Theta: 0.9}, zipf.Next},
		{Spec{Kind: ScrambledZipfian, Min: -1000, Max: -1}, func(r *rand.Rand) int64 { return scr.Next(r, 1000) }},
		{Spec{Kind: Hotspot, Min: 7, Max: 1006, HotData: 0.1, HotOps: 0.9}, func(r *rand.Rand) int64 { return hot.Next(r, 1000) }},
	} {
		g := mustNew(t, c.spec)
		inHot := 0
		for k := range uint64(5000) {
			got := g.Draw(stream(k), k).(int64)
			if want := c.spec.Min + c.ycsb(stream(k)); got != want {
				t.Fatalf("%s, execution %d: %d, ycsb's + min is %d", c.spec.Kind, k, got, want)
			}
			if got < c.spec.Min || got > c.spec.Max {
				t.Fatalf("%s: %d out of [%d, %d]", c.spec.Kind, got, c.spec.Min, c.spec.Max)
			}
			if got < c.spec.Min+100 {
				inHot++
			}
		}
		// The skew is there: the lowest tenth takes far more than a tenth (but when scrambled).
		if c.spec.Kind != ScrambledZipfian && inHot < 2500 {
			t.Errorf("%s: %d of 5000 draws in the lowest tenth", c.spec.Kind, inHot)
		}
	}
}

// TestSequential: the execution's place in the run, wrapped over [Min, Max], whatever the stream.
func TestSequential(t *testing.T) {
	g := mustNew(t, Spec{Kind: Sequential, Min: 10, Max: 13})
	var got []int64
	for k := range uint64(9) {
		got = append(got, g.Draw(stream(99), k).(int64))
	}
	if want := []int64{10, 11, 12, 13, 10, 11, 12, 13, 10}; !slices.Equal(got, want) {
		t.Errorf("sequential %v, want %v", got, want)
	}
}

func TestConstant(t *testing.T) {
	for _, v := range []any{int64(-4), 7, 2.5, true, "abc", ""} {
		g := mustNew(t, Spec{Kind: Constant, Value: v})
		want := v
		if i, ok := v.(int); ok {
			want = int64(i)
		}
		for k := range uint64(3) {
			if got := g.Draw(stream(k), k); got != want {
				t.Errorf("constant %v: %v (%T)", v, got, got)
			}
		}
	}
}

// TestString: lengths uniform over [MinLen, MaxLen] and characters uniform over the alphabet
// (chi-square both); a generator whose lengths stop one short fails the length check.
func TestString(t *testing.T) {
	alphabet := "abcdeé€😀"
	g := mustNew(t, Spec{Kind: String, MinLen: 3, MaxLen: 12, Alphabet: alphabet})
	letters := []rune(alphabet)
	lengths := func(draw func(r *rand.Rand) string) (ok bool, chars []int64) {
		lens := make([]int64, 10)
		chars = make([]int64, len(letters))
		for k := range uint64(draws / 5) {
			s := draw(stream(k))
			n := utf8.RuneCountInString(s)
			if n < 3 || n > 12 {
				t.Logf("length %d", n)
				return false, nil
			}
			lens[n-3]++
			for _, c := range s {
				i := strings.IndexRune(alphabet, c)
				if i < 0 {
					t.Fatalf("%q is not in the alphabet", c)
				}
				chars[utf8.RuneCountInString(alphabet[:i])]++
			}
		}
		p := make([]float64, 10)
		for i := range p {
			p[i] = 0.1
		}
		stat, _, crit := stattest.ChiSquare(lens, p)
		t.Logf("lengths: chi2 %.1f, critical %.1f", stat, crit)
		return stat < crit, chars
	}
	ok, chars := lengths(func(r *rand.Rand) string { return g.Draw(r, 0).(string) })
	if !ok {
		t.Error("string lengths are not uniform over [3, 12]")
	}
	p := make([]float64, len(letters))
	for i := range p {
		p[i] = 1 / float64(len(letters))
	}
	if stat, _, crit := stattest.ChiSquare(chars, p); stat >= crit {
		t.Errorf("characters: chi2 %.1f, critical %.1f: not uniform over the alphabet", stat, crit)
	}
	short := func(r *rand.Rand) string { return strings.Repeat("a", 3+r.IntN(9)) }
	if ok, _ := lengths(short); ok {
		t.Error("lengths that never reach 12 pass")
	}
	empty := mustNew(t, Spec{Kind: String, Alphabet: "x"})
	if s := empty.Draw(stream(0), 0); s != "" {
		t.Errorf("max_len 0: %q", s)
	}
}

// TestConcurrentDraws: one generator serves several goroutines, each draw a function of its stream
// and place (the race detector watches the ycsb generators' state).
func TestConcurrentDraws(t *testing.T) {
	gens := []*Generator{
		mustNew(t, Spec{Kind: Zipfian, Min: 1, Max: 100000, Theta: 0.99}),
		mustNew(t, Spec{Kind: ScrambledZipfian, Min: 1, Max: 100000}),
		mustNew(t, Spec{Kind: Hotspot, Min: 1, Max: 100000, HotData: 0.2, HotOps: 0.8}),
		mustNew(t, Spec{Kind: String, MinLen: 1, MaxLen: 8, Alphabet: "xyz"}),
	}
	for _, g := range gens {
		want := make([]any, 200)
		for k := range want {
			want[k] = g.Draw(stream(uint64(k)), uint64(k))
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := len(want) - 1; k >= 0; k-- {
					if got := g.Draw(stream(uint64(k)), uint64(k)); got != want[k] {
						t.Errorf("%s: execution %d drew %v, then %v", g.Spec().Kind, k, want[k], got)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
}

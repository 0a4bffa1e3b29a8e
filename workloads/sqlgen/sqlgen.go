// Package sqlgen holds the parameter generators of the YAML sql workload (issue 39): the value a
// statement's :name parameter takes in one execution, drawn from integers (uniform, zipfian,
// scrambled zipfian, sequential, hotspot: workloads/ycsb's generators over [Min, Max]), a constant,
// or a random string. A Spec is validated whole when the generator is made (an error, never a value
// clamped into range); drawing reads the generator only, so one generator serves every worker.
package sqlgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/dbbench/dbbench/workloads/ycsb"
)

// Kind is a generator's kind, as the config names it.
type Kind string

// The kinds of generators.
const (
	Uniform          Kind = "uniform"           // every integer of [Min, Max] equally likely
	Zipfian          Kind = "zipfian"           // Min most often, then Min+1, ... (YCSB's zipfian, Theta)
	ScrambledZipfian Kind = "scrambled_zipfian" // YCSB's zipfian request distribution: popular values spread over [Min, Max]
	Sequential       Kind = "sequential"        // Min, Min+1, ..., Max, Min, ... by the execution's place in the run
	Hotspot          Kind = "hotspot"           // HotOps of the draws in the lowest HotData of [Min, Max]
	Constant         Kind = "constant"          // Value, always
	String           Kind = "string"            // MinLen to MaxLen characters of Alphabet, uniformly
)

// Kinds lists the kinds in the order the docs name them.
var Kinds = []Kind{Uniform, Zipfian, ScrambledZipfian, Sequential, Hotspot, Constant, String}

// MaxStringLen bounds a random string's length, in characters.
const MaxStringLen = 1 << 20

// Spec describes one generator; each kind reads its own fields, and a field another kind reads must
// be left zero.
type Spec struct {
	Kind     Kind
	Min, Max int64   // integer kinds: the values' range, both included
	Theta    float64 // zipfian: in (0, 1); YCSB's is ycsb.ZipfianConstant (0.99)
	HotData  float64 // hotspot: the hot fraction of the range, in [0, 1] (YCSB's default 0.2)
	HotOps   float64 // hotspot: the fraction of draws that go to it, in [0, 1] (YCSB's default 0.8)
	Value    any     // constant: an int64 (or int), float64, bool or string
	MinLen   int     // string: the shortest length, in characters
	MaxLen   int     // string: the longest length, in characters
	Alphabet string  // string: the characters to draw from, each equally likely (UTF-8)
}

// Generator draws the values of one parameter.
type Generator struct {
	spec     Spec
	n        int64 // integer kinds: Max - Min + 1
	keys     ycsb.KeyChooser
	zipf     *ycsb.Zipfian
	value    any
	alphabet []rune
}

// New validates a spec and makes its generator.
func New(s Spec) (*Generator, error) {
	g := &Generator{spec: s}
	fail := func(format string, a ...any) (*Generator, error) {
		return nil, fmt.Errorf("%s: %s", s.Kind, fmt.Sprintf(format, a...))
	}
	if err := s.onlyFields(); err != nil {
		return nil, err
	}
	switch s.Kind {
	case Uniform, Zipfian, ScrambledZipfian, Sequential, Hotspot:
		if s.Min > s.Max {
			return fail("min %d is above max %d", s.Min, s.Max)
		}
		if d := s.Max - s.Min; d < 0 || d == math.MaxInt64 {
			return fail("the range [%d, %d] holds more than 2^63-1 values", s.Min, s.Max)
		}
		g.n = s.Max - s.Min + 1
	}
	var err error
	switch s.Kind {
	case Uniform, Sequential:
	case Zipfian:
		if !(s.Theta > 0 && s.Theta < 1) {
			return fail("theta must be in (0, 1), got %g (YCSB's is %g)", s.Theta, ycsb.ZipfianConstant)
		}
		g.zipf, err = ycsb.NewZipfian(g.n, s.Theta)
	case ScrambledZipfian:
		g.keys, err = ycsb.NewScrambledZipfian(g.n)
	case Hotspot:
		if !(s.HotData >= 0 && s.HotData <= 1 && s.HotOps >= 0 && s.HotOps <= 1) {
			return fail("hot_data and hot_ops must be fractions in [0, 1], got %g and %g", s.HotData, s.HotOps)
		}
		g.keys, err = ycsb.NewHotspot(g.n, s.HotData, s.HotOps)
	case Constant:
		switch v := s.Value.(type) {
		case int:
			g.value = int64(v)
		case int64, bool, string:
			g.value = v
		case float64:
			if math.IsNaN(v) {
				return fail("value NaN")
			}
			g.value = v
		case nil:
			return fail("no value")
		default:
			return fail("value %v of type %T: want an integer, a double, a boolean or a string", v, v)
		}
	case String:
		switch {
		case s.MinLen < 0 || s.MaxLen < s.MinLen:
			return fail("lengths must be 0 <= min_len <= max_len, got %d and %d", s.MinLen, s.MaxLen)
		case s.MaxLen > MaxStringLen:
			return fail("max_len %d is above %d characters", s.MaxLen, MaxStringLen)
		case s.Alphabet == "":
			return fail("the alphabet is empty")
		case !utf8.ValidString(s.Alphabet):
			return fail("the alphabet is not valid UTF-8")
		}
		g.alphabet = []rune(s.Alphabet)
	default:
		return nil, fmt.Errorf("unknown generator %q (known: %s)", s.Kind, kindList())
	}
	if err != nil {
		return fail("%v", err)
	}
	return g, nil
}

func kindList() string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// onlyFields refuses a field set that the spec's kind does not read (a config naming max_len for a
// uniform parameter has a mistake in it).
func (s Spec) onlyFields() error {
	reads := map[Kind]string{
		Uniform: "min max", Sequential: "min max", ScrambledZipfian: "min max",
		Zipfian: "min max theta", Hotspot: "min max hot_data hot_ops",
		Constant: "value", String: "min_len max_len alphabet",
	}
	own, ok := reads[s.Kind]
	if !ok {
		return nil // New says the kind is unknown
	}
	set := map[string]bool{
		"min": s.Min != 0, "max": s.Max != 0, "theta": s.Theta != 0, "hot_data": s.HotData != 0, "hot_ops": s.HotOps != 0,
		"value": s.Value != nil, "min_len": s.MinLen != 0, "max_len": s.MaxLen != 0, "alphabet": s.Alphabet != "",
	}
	for _, f := range []string{"min", "max", "theta", "hot_data", "hot_ops", "value", "min_len", "max_len", "alphabet"} {
		if set[f] && !strings.Contains(" "+own+" ", " "+f+" ") {
			return fmt.Errorf("%s: %s does not apply (a %s generator reads %s)", s.Kind, f, s.Kind, strings.ReplaceAll(own, " ", ", "))
		}
	}
	return nil
}

// Spec is the spec the generator was made from.
func (g *Generator) Spec() Spec { return g.spec }

// Draw is the value for the execution at place k of the run's sequence, from r, that execution's
// random stream (sequential reads k alone): an int64, a string, or the constant.
func (g *Generator) Draw(r *rand.Rand, k uint64) any {
	s := &g.spec
	switch s.Kind {
	case Uniform:
		return s.Min + int64(r.Uint64N(uint64(g.n)))
	case Sequential:
		return s.Min + int64(k%uint64(g.n))
	case Zipfian:
		return s.Min + g.zipf.Next(r)
	case ScrambledZipfian, Hotspot:
		return s.Min + g.keys.Next(r, g.n)
	case Constant:
		return g.value
	}
	n := s.MinLen + r.IntN(s.MaxLen-s.MinLen+1)
	var b strings.Builder
	b.Grow(n * utf8.UTFMax)
	for range n {
		b.WriteRune(g.alphabet[r.IntN(len(g.alphabet))])
	}
	return b.String()
}

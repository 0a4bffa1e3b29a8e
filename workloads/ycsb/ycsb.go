package ycsb

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Op is an operation type of a YCSB mix.
type Op uint8

// The operation types of YCSB's CoreWorkload, in the order its properties list them.
const (
	Read Op = iota
	Update
	Insert
	Scan
	ReadModifyWrite
	numOps
)

var opNames = [numOps]string{"read", "update", "insert", "scan", "readmodifywrite"}

func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// Ops lists the operation types in order.
func Ops() []Op { return []Op{Read, Update, Insert, Scan, ReadModifyWrite} }

// Mix is the proportion of each operation type (YCSB's readproportion, updateproportion, ...); they
// need not sum to 1: each is taken relative to their sum, as YCSB's DiscreteGenerator does.
type Mix [numOps]float64

// String is the mix as "read=0.5 update=0.5", the types with a share only.
func (m Mix) String() string {
	var parts []string
	for _, o := range Ops() {
		if m[o] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%g", o, m[o]))
		}
	}
	return strings.Join(parts, " ")
}

// OpChooser draws operation types in a mix's proportions.
type OpChooser struct {
	cum [numOps]float64 // cumulative shares, the last one 1
}

// NewOpChooser returns a chooser for m; every share must be >= 0 and one > 0.
func NewOpChooser(m Mix) (*OpChooser, error) {
	var sum float64
	for _, w := range m {
		if !(w >= 0) {
			return nil, fmt.Errorf("mix %v: a proportion is negative or not a number", m)
		}
		sum += w
	}
	if sum <= 0 {
		return nil, fmt.Errorf("mix %v: every proportion is zero", m)
	}
	c := &OpChooser{}
	var acc float64
	for i, w := range m {
		acc += w / sum
		c.cum[i] = acc
	}
	// The last type with a share takes everything above the rounding of the running sum.
	for i := numOps - 1; i >= 0; i-- {
		if m[i] > 0 {
			for j := i; j < numOps; j++ {
				c.cum[j] = 1
			}
			break
		}
	}
	return c, nil
}

// Next draws one operation type.
func (c *OpChooser) Next(r *rand.Rand) Op {
	u := r.Float64()
	for i, v := range c.cum {
		if u < v {
			return Op(i)
		}
	}
	return Op(numOps - 1) // unreachable: the last share is 1 and u < 1
}

// ScanLength draws a scan's length uniformly in [1, Max] (scanlengthdistribution=uniform, YCSB's
// default; minscanlength 1).
type ScanLength struct{ Max int64 }

func (s ScanLength) Next(r *rand.Rand) int64 { return 1 + r.Int64N(s.Max) }

// Package csupport is what the C baselines share: baseline.h (the clock, RowSum, the start gate) for
// their C code, and the checks their Go side makes before handing work to C, which trusts its input.
package csupport

import (
	"fmt"
	"time"

	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// CheckLookups checks a lookup batch before a C loop runs it: one latency slot per key, and every key
// an index of ds (the C loop indexes the packed buffers with it unchecked). name names the target.
func CheckLookups(name string, ds *dataset.Persons, idx []int32, lat []time.Duration) error {
	if len(lat) != len(idx) {
		return fmt.Errorf("%s lookups: %d latency slots for %d keys", name, len(lat), len(idx))
	}
	for _, i := range idx {
		if i < 0 || int(i) >= ds.Len() {
			return exitcode.Usagef("%s lookups: person index %d outside the dataset of %d", name, i, ds.Len())
		}
	}
	return nil
}

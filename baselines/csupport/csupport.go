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

// MaxReaderThreads bounds the concurrent workload's threads: each is a pthread with its own stack.
const MaxReaderThreads = 4096

// CheckReaders checks a concurrent batch before a C loop runs it: 1 to MaxReaderThreads readers, one
// latency slot per reader (the C loop writes them unchecked) and a row count that is not negative.
func CheckReaders(name string, readers, rows int, lat []time.Duration) error {
	switch {
	case readers < 1 || readers > MaxReaderThreads:
		return exitcode.Usagef("%s concurrent: want 1 to %d readers, got %d", name, MaxReaderThreads, readers)
	case len(lat) != readers:
		return fmt.Errorf("%s concurrent: %d latency slots for %d readers", name, len(lat), readers)
	case rows < 0:
		return exitcode.Usagef("%s concurrent: %d rows", name, rows)
	}
	return nil
}

// CheckInsert checks the insert workload's count: the C loop reads the first n persons of ds unchecked.
func CheckInsert(name string, ds *dataset.Persons, n int) error {
	if n < 0 || n > ds.Len() {
		return exitcode.Usagef("%s insert of %d persons from a dataset of %d", name, n, ds.Len())
	}
	return nil
}

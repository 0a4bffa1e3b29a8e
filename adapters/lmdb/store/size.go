package store

import (
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/workloads/dataset"
)

// LMDB's leaf node header (flags, key size, data size) plus the 2-byte slot in the page's index.
const perEntryOverhead = 8 + 2

// Needed estimates, generously, the map size that n persons of ds need. Leaf bytes are the packed key
// and value bytes plus LMDB's per-entry overhead; B-tree pages filled by random-order inserts end up
// about two thirds full, so the estimate doubles the leaf bytes, adds 2% for branch pages and a few
// pages for the meta pages and free list, and rounds up to a MiB.
func Needed(ds *dataset.Persons, n int) int64 {
	if n <= 0 || ds.Len() == 0 {
		return 1 << 20
	}
	n = min(n, ds.Len())
	emails, _, names, _, ages := ds.Packed()
	all := int64(len(emails)) + int64(len(names)) + int64(len(ages)) // value = [age][name]
	payload := all * int64(n) / int64(ds.Len())
	leaf := payload + int64(n)*perEntryOverhead
	need := 2*leaf + 2*leaf/50 + 16*4096
	return (need + 1<<20 - 1) &^ (1<<20 - 1)
}

// TooSmall is the usage error for a map that cannot hold n persons.
func TooSmall(mapSize int64, n int, need int64) error {
	return exitcode.Usagef("map_size %s is too small for %d persons (needs about %d MiB); raise the target's map_size option",
		FormatBytes(mapSize), n, (need+1<<20-1)>>20)
}

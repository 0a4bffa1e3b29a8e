package store

import (
	"sync"

	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
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
	return needed(n, all*int64(n)/int64(ds.Len()))
}

// needed is the estimate for n persons whose keys and values take payload bytes.
func needed(n int, payload int64) int64 {
	leaf := payload + int64(n)*perEntryOverhead
	need := 2*leaf + 2*leaf/50 + 16*4096
	return (need + 1<<20 - 1) &^ (1<<20 - 1)
}

// NeededBytes estimates, as Needed does, the map size n entries need whose keys and values take
// payload bytes in all.
func NeededBytes(n int, payload int64) int64 { return needed(n, payload) }

// NeededFor is Needed(ds, n) for the whole dataset of n persons generated from seed, known without
// generating it.
func NeededFor(n int, seed int64) (int64, error) {
	k := sizeKey{n, seed}
	neededMu.Lock()
	defer neededMu.Unlock()
	if v, ok := neededCache[k]; ok {
		return v, nil
	}
	payload, err := dataset.PackedBytes(n, seed)
	if err != nil {
		return 0, err
	}
	v := needed(n, payload)
	neededCache[k] = v
	return v, nil
}

type sizeKey struct {
	n    int
	seed int64
}

// neededCache keeps NeededFor's answers: config resolution asks for every LMDB target and size.
var (
	neededMu    sync.Mutex
	neededCache = map[sizeKey]int64{}
)

// CheckSize refuses a map too small for the n persons generated from seed: the error Load gives
// for that dataset, found before anything is opened.
func CheckSize(cfg Config, n int, seed int64) error {
	need, err := NeededFor(n, seed)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	if cfg.MapSize < need {
		return TooSmall(cfg.MapSize, n, need)
	}
	return nil
}

// TooSmall is the usage error for a map that cannot hold n persons.
func TooSmall(mapSize int64, n int, need int64) error {
	return exitcode.Usagef("map_size %s is too small for %d persons (needs about %d MiB); raise the target's map_size option",
		FormatBytes(mapSize), n, (need+1<<20-1)>>20)
}

// Package store owns an LMDB environment for dbbench: it validates the options every LMDB target
// shares (path, map size, durability, readers, transaction size), opens the environment through
// lmdb-go, bulk-loads the person dataset and, on Close, removes exactly what it created.
//
// The Go adapter (adapters/lmdb) and the C baseline (baselines/lmdbc) both open their stores here,
// so they run on identically built files.
package store

import (
	"fmt"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// Option names shared by the LMDB adapters.
const (
	OptPath       = "path"
	OptMapSize    = "map_size"
	OptDurable    = "durable"
	OptMaxReaders = "max_readers"
	OptTxnSize    = "txn_size"
	OptKeep       = "keep"
)

// DefaultMaxReaders is LMDB's own default reader table size.
const DefaultMaxReaders = 126

// Specs documents the options every LMDB target accepts.
func Specs() []adapters.OptionSpec {
	return []adapters.OptionSpec{
		{Name: OptPath, Kind: adapters.String, Help: "directory for the environment; empty: a fresh directory " +
			"under the target's temporary directory. A given directory must be empty or not exist: dbbench " +
			"never deletes your data, and on close removes only the files (and directories) it created."},
		{Name: OptMapSize, Kind: adapters.Bytes, Default: "1GiB", Min: 64 << 10, HasMin: true,
			Help: "LMDB map size (the largest the database may grow); the file is sparse, so a generous value " +
				"costs nothing. Too small for the dataset is refused with the size it needs."},
		{Name: OptDurable, Kind: adapters.Bool, Default: "false",
			Help: "false: MDB_NOSYNC, no fsync at commit (measures the engine, not the disk); true: fsync at every commit"},
		{Name: OptMaxReaders, Kind: adapters.Int, Default: fmt.Sprint(DefaultMaxReaders), Min: 1, HasMin: true,
			Help: "reader table slots; needs at least the concurrent workload's readers + 2"},
		{Name: OptTxnSize, Kind: adapters.Int, Default: "0", Min: 0, HasMin: true,
			Help: "pairs per write transaction for the bulk load and the insert workload; 0: one transaction " +
				"(the insert workload's definition: one write transaction with all its inserts)"},
		{Name: OptKeep, Kind: adapters.Bool, Default: "false",
			Help: "with a path: keep the environment there after the run, for inspection (false: dbbench removes " +
				"what it created); one dataset size per path, as a directory that is not empty is refused"},
	}
}

// Config is the validated form of the shared options.
type Config struct {
	// Path is the user's directory, or "" for a fresh temporary one.
	Path       string
	MapSize    int64
	Durable    bool
	MaxReaders int
	// TxnSize is the number of puts per write transaction; 0 means one transaction.
	TxnSize int
	// Keep leaves the environment at Path after Close.
	Keep bool
}

// maxTxnSize bounds txn_size so that int arithmetic on it is safe everywhere.
const maxTxnSize = 1 << 40

// ParseConfig reads the shared options (already checked by kind and minimum by the engine).
func ParseConfig(o adapters.Options) (Config, error) {
	c := Config{
		Path:       o.String(OptPath),
		MapSize:    o.Int(OptMapSize),
		Durable:    o.Bool(OptDurable),
		MaxReaders: int(o.Int(OptMaxReaders)),
		TxnSize:    int(o.Int(OptTxnSize)),
		Keep:       o.Bool(OptKeep),
	}
	if !o.Has(OptMapSize) {
		c.MapSize = 1 << 30
	}
	if !o.Has(OptMaxReaders) {
		c.MaxReaders = DefaultMaxReaders
	}
	switch {
	case c.MapSize < 64<<10:
		return c, exitcode.Usagef("lmdb option map_size: must be at least 64KiB, got %s", FormatBytes(c.MapSize))
	case c.MaxReaders < 1 || c.MaxReaders > 1<<20:
		return c, exitcode.Usagef("lmdb option max_readers: want 1 to %d, got %d", 1<<20, o.Int(OptMaxReaders))
	case c.TxnSize < 0 || c.TxnSize > maxTxnSize:
		return c, exitcode.Usagef("lmdb option txn_size: want 0 (one transaction) or a positive count, got %d", c.TxnSize)
	case c.Keep && c.Path == "":
		return c, exitcode.Usagef("lmdb option keep: needs a path (it keeps the environment at that path)")
	}
	return c, nil
}

// FormatBytes writes a size the way a user would type it: 1GiB, 64MiB, 1536KiB or a plain count.
func FormatBytes(n int64) string {
	switch {
	case n != 0 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n != 0 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n != 0 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

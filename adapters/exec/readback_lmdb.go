//go:build cgo

package exec

import (
	"fmt"

	lmdbgo "github.com/PowerDNS/lmdb-go/lmdb"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/lmdb/store"
	"github.com/dbbench/dbbench/dataset"
)

// readLMDB reads every pair of the unnamed database of the environment in dir, read-only, in one
// read transaction: key = email, value = [age][name] (the LMDB adapter's layout).
func readLMDB(dir string) (t adapters.Tally, err error) {
	env, err := lmdbgo.NewEnv()
	if err != nil {
		return t, err
	}
	defer env.Close()
	if err := env.Open(dir, lmdbgo.Readonly|lmdbgo.NoTLS, 0o644); err != nil {
		return t, fmt.Errorf("open the LMDB environment %s read-only: %w", dir, err)
	}
	err = env.View(func(txn *lmdbgo.Txn) error {
		txn.RawRead = true
		dbi, err := txn.OpenRoot(0)
		if err != nil {
			return err
		}
		cur, err := txn.OpenCursor(dbi)
		if err != nil {
			return err
		}
		defer cur.Close()
		for k, v, err := cur.Get(nil, nil, lmdbgo.First); ; k, v, err = cur.Get(nil, nil, lmdbgo.Next) {
			if lmdbgo.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return err
			}
			age, name, ok := store.DecodeValue(v)
			if !ok {
				return fmt.Errorf("key %q has an empty value, not [age][name]", k)
			}
			t.Rows++
			t.Sum += dataset.RowSum(k, name, age)
		}
	})
	return t, err
}

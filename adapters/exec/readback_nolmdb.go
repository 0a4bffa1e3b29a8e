//go:build !cgo

package exec

import (
	"errors"

	"github.com/dbbench/dbbench/adapters"
)

// readLMDB needs lmdb-go, which needs cgo.
func readLMDB(string) (adapters.Tally, error) {
	return adapters.Tally{}, errors.New("reading an LMDB environment needs cgo, and this dbbench was built without it")
}

//go:build !cgo

package sqlitec

import (
	"context"
	"errors"
	"testing"

	"github.com/dbbench/dbbench/adapters"
)

func TestUnavailableWithoutCgo(t *testing.T) {
	_, err := New().Open(context.Background(), adapters.Options{}, adapters.Env{TempDir: t.TempDir()})
	if !errors.Is(err, adapters.ErrUnavailable) {
		t.Fatalf("Open without cgo: %v, want ErrUnavailable", err)
	}
}

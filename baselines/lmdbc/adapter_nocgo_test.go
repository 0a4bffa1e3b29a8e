//go:build !cgo

package lmdbc

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters"
)

func TestOpenWithoutCgo(t *testing.T) {
	o, err := adapters.ParseOptions(New().Info().Options, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New().Open(context.Background(), o, adapters.Env{TempDir: t.TempDir()})
	if !errors.Is(err, adapters.ErrUnavailable) || !strings.Contains(err.Error(), "built without it (CGO_ENABLED=0)") {
		t.Fatalf("got %v", err)
	}
}

//go:build cgo

package sqlitec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/internal/exitcode"
)

func open(t *testing.T, raw map[string]any) (*target, error) {
	t.Helper()
	opts, err := adapters.ParseOptions(New().Info().Options, raw)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := New().Open(context.Background(), opts, adapters.Env{TempDir: t.TempDir()})
	if err != nil {
		return nil, err
	}
	return tg.(*target), nil
}

// TestConforms runs the conformance kit on the C baseline: every workload done and timed in C
// (which also proves the C RowSum equal to dataset.RowSum on every row).
func TestConforms(t *testing.T) {
	adaptertest.Run(t, adaptertest.Target{
		Open:      adaptertest.Opener(New(), nil),
		OpenAt:    adaptertest.OpenerAt(New(), nil, "path"),
		Workloads: New().Info().Builtin,
	})
}

func TestInfo(t *testing.T) {
	tg, err := open(t, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	info := tg.Info()
	if info["journal_mode"] != "wal" || info["synchronous"] != "1" || !strings.HasPrefix(info["sqlite_version"].(string), "3.") {
		t.Errorf("info: %v", info)
	}
}

// TestPaths: a path that exists is refused (exit 2) and left alone (the kit's close check covers
// what Close removes).
func TestPaths(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "mine.db")
	if err := os.WriteFile(existing, []byte("user data"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path, msg string
	}{
		{existing, "already exists; refusing to overwrite it"},
		{"/nonexistent/dir/p.db", "directory /nonexistent/dir does not exist"},
	} {
		if _, err := open(t, map[string]any{"path": tt.path}); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("path %s: %v, want exit 2 and %q", tt.path, err, tt.msg)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "user data" {
		t.Errorf("the user's file was changed: %q", b)
	}
}

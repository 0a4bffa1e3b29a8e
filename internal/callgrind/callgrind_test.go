package callgrind

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReadTotal(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("testdata/dump.txt")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "callgrind.out.3")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := readTotal(p)
	if err != nil || n != 3968399 {
		t.Fatalf("readTotal = %d, %v; want 3968399", n, err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dump was not removed after reading: %v", err)
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("version: 1\nevents: Ir\n"), 0o644)
	if _, err := readTotal(bad); err == nil {
		t.Error("a dump without a summary line was read")
	}
	if _, err := readTotal(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing dump was read")
	}
}

// Outside valgrind (go test runs there) there is nothing to count with.
func TestNewOutsideValgrind(t *testing.T) {
	if running() {
		t.Skip("running under valgrind")
	}
	t.Setenv(OutEnv, filepath.Join(t.TempDir(), "callgrind.out"))
	if _, err := New(); !errors.Is(err, ErrUnavailable) {
		t.Errorf("New() outside valgrind: %v, want ErrUnavailable", err)
	}
}

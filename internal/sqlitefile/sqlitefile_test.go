package sqlitefile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/internal/exitcode"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name     string
		existing []string // files made before New, relative to the directory
		path     string   // relative to the directory
		wantErr  string
	}{
		{name: "new", path: "x.db"},
		{name: "database exists", existing: []string{"x.db"}, path: "x.db", wantErr: "path DIR/x.db already exists; refusing to overwrite it"},
		{name: "wal exists", existing: []string{"x.db-wal"}, path: "x.db", wantErr: "path DIR/x.db-wal already exists"},
		{name: "shm exists", existing: []string{"x.db-shm"}, path: "x.db", wantErr: "path DIR/x.db-shm already exists"},
		{name: "journal exists", existing: []string{"x.db-journal"}, path: "x.db", wantErr: "path DIR/x.db-journal already exists"},
		{name: "no directory", path: "none/x.db", wantErr: "path DIR/none/x.db: directory DIR/none does not exist"},
		{name: "directory is a file", existing: []string{"f"}, path: "f/x.db", wantErr: "path DIR/f/x.db: lstat DIR/f/x.db: not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, e := range tt.existing {
				if err := os.WriteFile(filepath.Join(dir, e), []byte("the user's"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			files, err := New("who", filepath.Join(dir, tt.path))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if files.Path() != filepath.Join(dir, tt.path) || len(files) != 4 {
					t.Fatalf("files %v", files)
				}
				return
			}
			want := "who: " + strings.ReplaceAll(tt.wantErr, "DIR", dir)
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error %v, want %q", err, want)
			}
			if exitcode.Of(err) != exitcode.Usage {
				t.Errorf("exit code %d, want %d (usage)", exitcode.Of(err), exitcode.Usage)
			}
			for _, e := range tt.existing { // untouched
				if b, err := os.ReadFile(filepath.Join(dir, e)); err != nil || string(b) != "the user's" {
					t.Errorf("%s: %q, %v", e, b, err)
				}
			}
		})
	}
}

// Remove removes what exists of the files and nothing else in the directory.
func TestRemove(t *testing.T) {
	dir := t.TempDir()
	files, err := New("who", filepath.Join(dir, "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{files[0], files[1], filepath.Join(dir, "other")} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := files.Remove(); err != nil {
		t.Fatal(err)
	}
	left, _ := os.ReadDir(dir)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"other"}) {
		t.Fatalf("left %v, want [other]", names)
	}
	if err := os.Mkdir(files[0], 0o700); err != nil { // a non-empty directory cannot be removed
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(files[0], "in"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := files.Remove(); err == nil || errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Remove of a non-empty directory: %v", err)
	}
}

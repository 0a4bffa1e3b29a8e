package adaptertest

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/workloads"
)

// The files the close check places where a target works, as a user (or another program) might.
const (
	neighbourFile = "neighbour.txt"
	userFile      = "mine.txt"
)

// CheckClose opens a target in a temp dir that already holds a file of someone else's, loads it and
// runs a scan and an insert, then closes it: the temp dir holds that file, unchanged, and nothing
// else (unless LeavesTempDir), Remains lists what it listed before, no cleanup is left pending, and a second Close is
// harmless. With OpenAt, the same
// with the store at a path of the user's: the target stores something there, and afterwards the
// user's directory holds only the user's own file.
func CheckClose(t testing.TB, tg Target) {
	dir := t.TempDir()
	placeFile(t, filepath.Join(dir, neighbourFile))
	inDir := files(t, dir)
	before := tg.outside(t)
	in := tg.openWith(t, true, dir, tg.Open)
	exercise(t, tg, in)
	closeTwice(t, in)
	after := files(t, dir)
	switch {
	case tg.LeavesTempDir == "" && !maps.Equal(after, inDir):
		t.Errorf("after Close the target's temp dir holds %s; want only %s, unchanged: Close removes what the target made, and only it",
			describe(after), neighbourFile)
	case after[neighbourFile] != inDir[neighbourFile]:
		t.Errorf("after Close the target's temp dir holds %s; %s, placed there before, is gone or changed", describe(after), neighbourFile)
	case len(after) > len(inDir):
		t.Logf("after Close the target's temp dir holds %s, left for the engine to remove: %s", describe(after), tg.LeavesTempDir)
	}
	tg.checkClosed(t, before, "after Close")

	if tg.OpenAt == nil {
		return
	}
	userDir, tmp := t.TempDir(), t.TempDir()
	placeFile(t, filepath.Join(userDir, userFile))
	mine := files(t, userDir)
	path := filepath.Join(userDir, "dbbench-store")
	in = tg.openWith(t, true, tmp, func(ctx context.Context, env adapters.Env) (adapters.Target, error) {
		return tg.OpenAt(ctx, env, path)
	})
	if _, err := os.Lstat(path); err != nil {
		t.Errorf("the target was given the path %s and stored nothing there (%v)", path, err)
	}
	exercise(t, tg, in)
	closeTwice(t, in)
	if after := files(t, userDir); !maps.Equal(after, mine) {
		t.Errorf("after Close the user's directory holds %s; want only %s, unchanged", describe(after), userFile)
	}
	if left := files(t, tmp); len(left) > 0 && tg.LeavesTempDir == "" {
		t.Errorf("after Close the target's temp dir holds %s; want nothing", describe(left))
	}
	tg.checkClosed(t, before, "after Close of a target at a path")
}

func placeFile(t testing.TB, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("not dbbench's: keep me\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// exercise makes a target create what its workloads create: a scan, and an insert store.
func exercise(t testing.TB, tg Target, in *instance) {
	t.Helper()
	if _, ok, err := scanAll(in.ctx, in.Target, 1); ok && err != nil {
		t.Fatalf("scan: %v", err)
	}
	if !tg.offers(workloads.Insert) {
		return
	}
	n := min(10, in.ds.Len())
	if ti, ok := in.Target.(adapters.TimedInserter); ok {
		if _, _, err := ti.TimedInsert(in.ctx, in.ds, n); err != nil {
			t.Fatalf("TimedInsert: %v", err)
		}
	}
	if is, ok := in.Target.(adapters.Inserter); ok {
		ps, _ := persons(in.ds, 0, n)
		insertSession(t, in, is, ps)
	}
}

// closeTwice closes a target twice: the first Close must succeed, the second must be harmless.
func closeTwice(t testing.TB, in *instance) {
	t.Helper()
	if err := in.close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := in.close(); err != nil {
		t.Errorf("Close, again: %v; closing twice must be harmless", err)
	}
}

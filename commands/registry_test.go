package commands

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/adaptertest"
	"github.com/dbbench/dbbench/adapters/exec"
	"github.com/dbbench/dbbench/adapters/exec/exectest"
	"github.com/dbbench/dbbench/adapters/typedb/typedbtest"
	"github.com/dbbench/dbbench/dataset"
)

// TestAdaptersDeclareWhatTheyImplement opens a small target of every compiled-in adapter and checks
// that its Info().Builtin names exactly the common workloads whose capabilities the target
// implements (and its custom workloads a runner), so that validation never accepts a workload the
// engine cannot run. An adapter needing a server opens against a fake one.
func TestAdaptersDeclareWhatTheyImplement(t *testing.T) {
	srv := typedbtest.NewServer(typedbtest.Config{})
	defer srv.Close()
	fake := make([]any, 0, 2)
	for _, a := range exectest.Command() {
		fake = append(fake, a)
	}
	options := map[string]map[string]any{ // how to open each adapter here
		"memory": nil, "lmdb": nil, "lmdb-c": nil, "sql": nil, "sqlite-c": nil, "triplex": nil,
		"typedb":  {"address": srv.URL},
		exec.Name: {"command": fake, "env": exectest.Env(exectest.OK, "")},
	}
	ds, err := dataset.Generate(20, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range builtinAdapters() {
		info := a.Info()
		raw, ok := options[info.Name]
		if !ok {
			t.Errorf("adapter %s is not in this test: add how to open it, so that its Info().Builtin is checked", info.Name)
			continue
		}
		t.Run(info.Name, func(t *testing.T) {
			opts, err := adapters.ParseOptions(info.Options, raw)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			env := adapters.Env{TempDir: dir, Size: ds.Len(), Seed: 1, Logf: t.Logf, DatasetFile: func() (string, error) {
				path := filepath.Join(t.TempDir(), "persons.bin")
				return path, ds.WriteFile(path)
			}}
			tg, err := a.Open(context.Background(), opts, env)
			if errors.Is(err, adapters.ErrUnavailable) {
				t.Skipf("unavailable here: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			adaptertest.CheckBuiltin(t, info, tg)
		})
	}
}

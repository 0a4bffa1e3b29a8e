// Package configs holds the benchmark configs that ship with dbbench. They are compiled into the
// binary, so `dbbench run -c lmdb` works anywhere, and are plain files here to read and copy.
package configs

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.yaml
var files embed.FS

// Default is the config `dbbench run` uses when given none.
const Default = "default"

// Read returns the built-in config with the given name ("lmdb" or "lmdb.yaml").
func Read(name string) ([]byte, bool) {
	name = strings.TrimSuffix(name, ".yaml")
	b, err := fs.ReadFile(files, name+".yaml")
	if err != nil {
		return nil, false
	}
	return b, true
}

// Names lists the built-in configs.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

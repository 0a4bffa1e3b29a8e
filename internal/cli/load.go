package cli

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/configs"
	"github.com/dbbench/dbbench/internal/config"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// loadConfig reads a config by path, or by the name of a built-in config when no such file exists;
// "" is the built-in default.
func loadConfig(ref string) (*config.Config, error) {
	if ref == "" {
		ref = configs.Default
	}
	data, err := os.ReadFile(ref)
	source := ref
	if err != nil {
		var isBuiltin bool
		if errors.Is(err, fs.ErrNotExist) && !strings.ContainsRune(ref, os.PathSeparator) {
			data, isBuiltin = configs.Read(ref)
			source = "(built-in) " + strings.TrimSuffix(ref, ".yaml")
		}
		if !isBuiltin {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, exitcode.Usagef("cannot read config %s: %v (built-in configs: %s)", ref, err, strings.Join(configs.Names(), ", "))
		}
	}
	c, err := config.Parse(source, data)
	if err != nil {
		return nil, exitcode.AsUsage(err)
	}
	return c, nil
}

// resolve validates a config against the registry.
func resolve(f *Factory, c *config.Config, ci bool) (*config.Plan, *adapters.Registry, error) {
	reg, err := f.Registry()
	if err != nil {
		return nil, nil, exitcode.Infraf("adapter registry: %v", err)
	}
	p, err := c.Resolve(reg, ci)
	if err != nil {
		return nil, nil, exitcode.AsUsage(err)
	}
	return p, reg, nil
}

package commands

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/configs"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// loadConfig reads a config by path, or by the name of a built-in config when no such file exists;
// "" is the built-in default.
func loadConfig(ref string) (*config.Config, error) {
	c, _, err := loadConfigData(ref)
	return c, err
}

// loadConfigData is loadConfig, with the bytes the config was parsed from.
func loadConfigData(ref string) (*config.Config, []byte, error) {
	if ref == "" {
		ref = configs.Default
	}
	data, err := readLimited(ref, maxConfigBytes)
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
			return nil, nil, exitcode.Usagef("cannot read config %s: %v (built-in configs: %s)", ref, err, strings.Join(configs.Names(), ", "))
		}
	}
	c, err := config.Parse(source, data)
	if err != nil {
		return nil, nil, exitcode.AsUsage(err)
	}
	return c, data, nil
}

// maxConfigBytes bounds what is read as a config: the shipped ones are a few KiB, and a device such
// as /dev/zero must not be read until memory runs out.
const maxConfigBytes = 4 << 20

// readLimited reads a file of at most max bytes; a larger one is an error, not a partial read.
func readLimited(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("larger than %d MiB: not a config", max>>20)
	}
	return data, nil
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

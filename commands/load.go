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
	"github.com/dbbench/dbbench/internal/suggest"
)

// loadConfig reads a config by path, or by the name of a built-in config when no such file exists;
// "" is the built-in default. A config with mistakes comes back too, as far as it could be read
// (config.Parse), with the error.
func loadConfig(ref string) (*config.Config, error) {
	c, _, err := loadConfigData(ref)
	return c, err
}

// loadChecked reads a config as loadConfigData does. When it has mistakes, what could be read is
// resolved in form ci as well, so that the error lists every mistake at once (config.Errors).
func loadChecked(f *Factory, ref string, ci bool) (*config.Config, []byte, error) {
	c, data, err := loadConfigData(ref)
	if err != nil && c != nil {
		_, _, err = resolve(f, c, ci)
	}
	if err != nil {
		return nil, nil, err
	}
	return c, data, nil
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
			source = builtinSource + strings.TrimSuffix(ref, ".yaml")
		}
		if !isBuiltin {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, nil, exitcode.Usagef("cannot read config %s: %v%s", ref, err, builtinHint(ref))
		}
	}
	c, err := config.Parse(source, data)
	return c, data, exitcode.AsUsage(err)
}

// builtinSource names a built-in config in errors and reports: "(built-in) lmdb".
const builtinSource = "(built-in) "

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

// builtinHint ends the error for a config that is neither a file nor built in: the built-in name
// it was probably meant as, or where the built-in configs are listed.
func builtinHint(ref string) string {
	if strings.ContainsRune(ref, os.PathSeparator) {
		return ""
	}
	return strings.Replace(suggest.Hint(strings.TrimSuffix(ref, ".yaml"), configs.Names(), "dbbench list configs"), "known:", "built-in configs:", 1)
}

// needsCheckout refuses a built-in config whose exec targets run the repository's clients
// (./clients/...: go run, node or python on a file there) from a directory without them: each
// target would fail to start, so it says so in one line before anything starts. A config file of
// the user's names its own paths and is left to run.
func needsCheckout(c *config.Config) error {
	name, builtin := strings.CutPrefix(c.Source, builtinSource)
	if !builtin {
		return nil
	}
	for _, t := range c.Targets {
		argv, _ := t.Options["command"].([]any)
		for _, a := range argv {
			s, _ := a.(string)
			rel := strings.TrimPrefix(s, "./")
			if !strings.HasPrefix(rel, "clients/") {
				continue
			}
			if _, err := os.Stat(rel); err != nil {
				return config.Errors{{Source: c.Source, Line: t.Line, Msg: fmt.Sprintf(
					"run it from a dbbench checkout: %s's targets run ./clients/... from the repository (target %s runs %s, which is not here)", name, t.Name, s)}}
			}
		}
	}
	return nil
}

// Package buildinfo says which dbbench this is. Version and Commit can be set at link time
// (-ldflags "-X github.com/dbbench/dbbench/internal/buildinfo.Commit=$(git rev-parse HEAD)");
// otherwise they come from the module's build information when Go recorded it.
package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime"
	"runtime/debug"
)

// Set at link time; see the package doc.
var (
	Version = ""
	Commit  = ""
)

// Info is the resolved build identity.
type Info struct {
	Version   string
	Commit    string
	GoVersion string
	Platform  string
}

// Read resolves the build identity.
func Read() Info {
	i := Info{Version: Version, Commit: Commit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if i.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			i.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && i.Commit == "" {
				i.Commit = s.Value
			}
			if s.Key == "vcs.modified" && s.Value == "true" && i.Commit != "" {
				i.Commit += "-dirty"
			}
		}
	}
	if i.Version == "" {
		i.Version = "devel"
	}
	if i.Commit == "" {
		i.Commit = "unknown"
	}
	return i
}

// Hash is the SHA-256 (hex) of the running executable: it tells two builds apart when neither has
// a commit (a `go run` build, a dirty tree), where Info cannot.
func Hash() (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Named is a linked module as a report names it: its path and Module's version
// ("modernc.org/sqlite v1.62.0").
func Named(path string) string { return path + " " + Module(path) }

// Module is the version of a module linked into this binary (its replacement's when go.mod replaces
// it), as the build recorded it, or "unknown": reports name the library they measured from this,
// never from a version written in the code, which would go stale when go.mod moves.
func Module(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, m := range bi.Deps {
		if m.Path != path {
			continue
		}
		switch {
		case m.Replace == nil:
			return m.Version
		case m.Replace.Version != "":
			return m.Replace.Version
		default: // replaced by a directory: no version says what it holds
			return "replaced by " + m.Replace.Path
		}
	}
	return "unknown"
}

package callgrind

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestChildEnv checks the environment a run under callgrind gets: what instruction mode needs,
// merged with what the user set, every variable once.
func TestChildEnv(t *testing.T) {
	const out = "/tmp/x/callgrind.out"
	const defTunables = "glibc.malloc.mmap_threshold=131072"
	defDebug := "asyncpreemptoff=1"
	if runtime.GOARCH == "amd64" || runtime.GOARCH == "386" {
		defDebug += ",cpu.rdtscp=off" // valgrind advertises RDTSCP; not every CPU has it
	}
	// ours is what instruction mode appends, in this order, after the user's other variables.
	ours := func(godebug, tunables string) []string {
		return []string{OutEnv + "=" + out, "GODEBUG=" + godebug, "GOGC=off", "GOMAXPROCS=1", "GLIBC_TUNABLES=" + tunables}
	}
	for _, tc := range []struct {
		name    string
		environ []string
		want    []string
	}{
		{"nothing set", []string{"PATH=/bin", "HOME=/root"},
			append([]string{"PATH=/bin", "HOME=/root"}, ours(defDebug, defTunables)...)},
		{"empty GODEBUG", []string{"GODEBUG=", "PATH=/bin"},
			append([]string{"PATH=/bin"}, ours(defDebug, defTunables)...)},
		{"user GODEBUG kept", []string{"GODEBUG=gctrace=1,madvdontneed=1"},
			ours("gctrace=1,madvdontneed=1,"+defDebug, defTunables)},
		{"user GODEBUG with the keys instruction mode sets", []string{"GODEBUG=asyncpreemptoff=0,gctrace=1,cpu.rdtscp=on,cpu.avx2=off,"},
			ours("gctrace=1,cpu.avx2=off,"+defDebug, defTunables)},
		{"GODEBUG set twice: the last one counts", []string{"GODEBUG=gctrace=1", "GODEBUG=inittrace=1"},
			ours("inittrace=1,"+defDebug, defTunables)},
		{"GOGC, GOMAXPROCS and the out file replaced", []string{"GOGC=50", "GOMAXPROCS=8", OutEnv + "=/elsewhere", "TMPDIR=/t"},
			append([]string{"TMPDIR=/t"}, ours(defDebug, defTunables)...)},
		{"user tunables kept", []string{"GLIBC_TUNABLES=glibc.malloc.arena_max=2"},
			ours(defDebug, "glibc.malloc.arena_max=2:"+defTunables)},
		{"user mmap threshold replaced", []string{"GLIBC_TUNABLES=glibc.malloc.mmap_threshold=4096:glibc.malloc.arena_max=2"},
			ours(defDebug, "glibc.malloc.arena_max=2:"+defTunables)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.environ)
			got := ChildEnv(in, out)
			if !slices.Equal(got, tc.want) {
				t.Errorf("ChildEnv(%q)\n got %q\nwant %q", tc.environ, got, tc.want)
			}
			if !slices.Equal(in, tc.environ) {
				t.Errorf("ChildEnv changed its input to %q", in)
			}
			seen := map[string]bool{}
			for _, kv := range got {
				k, _, _ := strings.Cut(kv, "=")
				if seen[k] {
					t.Errorf("%s set twice in %q", k, got)
				}
				seen[k] = true
			}
		})
	}
}

// TestChildGODEBUGAccepted: the Go runtime knows every GODEBUG key instruction mode sets (it warns
// "GODEBUG: unknown cpu feature" at every start otherwise, and the setting does nothing).
func TestChildGODEBUGAccepted(t *testing.T) {
	if os.Getenv("DBBENCH_TEST_CHILD_ENV") == "1" {
		return
	}
	env := append(ChildEnv(os.Environ(), t.TempDir()+"/out"), "DBBENCH_TEST_CHILD_ENV=1")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestChildGODEBUGAccepted$")
	cmd.Env = env
	b, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(b), "GODEBUG") {
		t.Errorf("a Go process with the child's environment: %v\n%s", err, b)
	}
}

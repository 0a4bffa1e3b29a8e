package callgrind

import (
	"runtime"
	"strings"
)

// ChildEnv returns the environment of a Go process started under callgrind (dbbench run
// --instructions restarts itself so): environ, the parent's environment, with OutEnv pointing at out
// and the settings below on top. A setting the user made is kept unless instruction mode needs that
// very key otherwise; GODEBUG and GLIBC_TUNABLES are merged key by key, so the user's other keys stay.
// Each variable appears once.
func ChildEnv(environ []string, out string) []string {
	set := map[string]string{
		OutEnv: out,
		// asyncpreemptoff=1: callgrind 3.19 asserts on the signals of Go's asynchronous preemption
		// ("vgCallgrind_post_signal: Assertion 'sigNum == ...current_state.sig' failed").
		// cpu.rdtscp=off: valgrind's emulated CPUID advertises RDTSCP whatever the host has, and
		// runtime.cputicks executes it (from lock_spinbit.go once runtime locks are contended): on a
		// CPU without RDTSCP valgrind cannot run it and the process dies of SIGILL. The Go runtime
		// then reads the TSC with RDTSC. Go accepts the key: "rdtscp" is among internal/cpu's x86
		// options (src/internal/cpu/cpu_x86.go, doinit: {Name: "rdtscp", Feature: &X86.HasRDTSCP});
		// elsewhere it is unknown and Go would warn at every start.
		"GODEBUG": mergeSettings(getenv(environ, "GODEBUG"), ",", godebug()...),
		// The engine collects before each counted repeat; the GC's pacing would add collections at
		// moments that differ from run to run.
		"GOGC": "off",
		// One P: valgrind runs one thread at a time anyway, and with several Ps a run hung at 100%
		// CPU in its first timed repeat (every time, from one moment of the machine on; cause not
		// found) while GOMAXPROCS=1 ran it through.
		"GOMAXPROCS": "1",
		// glibc moves its mmap threshold up after freeing a large block, so whether LMDB's 2 MiB
		// calloc (the dirty list of every environment it opens) comes zeroed from mmap or memset from
		// the heap depended on what was freed before: lmdb-c's insert counted 2,380 or 3,434
		// instructions per op from repeat to repeat. A fixed threshold (glibc's own default) keeps
		// the counts repeatable.
		"GLIBC_TUNABLES": mergeSettings(getenv(environ, "GLIBC_TUNABLES"), ":", "glibc.malloc.mmap_threshold=131072"),
	}
	env := make([]string, 0, len(environ)+len(set))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := set[k]; !ours {
			env = append(env, kv)
		}
	}
	for _, k := range []string{OutEnv, "GODEBUG", "GOGC", "GOMAXPROCS", "GLIBC_TUNABLES"} {
		env = append(env, k+"="+set[k])
	}
	return env
}

// godebug is what instruction mode sets in GODEBUG on this architecture.
func godebug() []string {
	if runtime.GOARCH == "amd64" || runtime.GOARCH == "386" {
		return []string{"asyncpreemptoff=1", "cpu.rdtscp=off"}
	}
	return []string{"asyncpreemptoff=1"}
}

// getenv is os.Getenv on environ: the last setting of key wins, as with exec.Cmd.Env.
func getenv(environ []string, key string) string {
	v := ""
	for _, kv := range environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// mergeSettings appends ours to a list of key=value settings (GODEBUG's "a=1,b=2", GLIBC_TUNABLES'
// "a=1:b=2"), dropping the user's settings of the keys ours set and empty items; the rest keep their
// order.
func mergeSettings(user, sep string, ours ...string) string {
	mine := map[string]bool{}
	for _, s := range ours {
		k, _, _ := strings.Cut(s, "=")
		mine[k] = true
	}
	var kept []string
	for _, s := range strings.Split(user, sep) {
		k, _, _ := strings.Cut(s, "=")
		if s != "" && !mine[strings.TrimSpace(k)] {
			kept = append(kept, s)
		}
	}
	return strings.Join(append(kept, ours...), sep)
}

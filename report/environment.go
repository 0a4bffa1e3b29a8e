package report

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// CollectEnvironment describes this machine and runtime. Fields it cannot read stay empty.
func CollectEnvironment() Environment {
	e := Environment{
		GoVersion:  runtime.Version(),
		OS:         runtime.GOOS,
		Arch:       runtime.GOARCH,
		Cores:      runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	e.Hostname, _ = os.Hostname()
	e.CPUModel = procField("/proc/cpuinfo", "model name")
	if e.CPUModel == "" {
		e.CPUModel = runtime.GOARCH
	}
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		if n, err := strconv.ParseInt(strings.Fields(kb)[0], 10, 64); err == nil {
			e.MemoryBytes = n * 1024
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		e.Kernel = strings.TrimSpace(string(b))
	}
	return e
}

// MachineClass names the kind of machine a run measured: CPU model and core count ("AMD EPYC, 2
// cores"). Figures from two machines of one class are comparable; across classes a ratio to an in-run
// baseline cancels the speed but not the microarchitecture, so thresholds may be keyed by class.
func (e Environment) MachineClass() string {
	return fmt.Sprintf("%s, %d cores", strings.TrimSpace(e.CPUModel), e.Cores)
}

// procField returns the value of the first "key: value" line of a /proc file.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// PeakRSS returns the process's peak resident set size in bytes (0 where unknown).
func PeakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss // bytes on macOS
	}
	return ru.Maxrss * 1024 // KiB on Linux
}

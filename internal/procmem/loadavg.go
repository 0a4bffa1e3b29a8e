package procmem

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// LoadAverage is the kernel's 1-minute load average (/proc/loadavg): how many threads wanted a CPU,
// on average, over the last minute. false where it cannot be read (outside Linux).
func LoadAverage() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	v, err := parseLoadAverage(b)
	return v, err == nil
}

func parseLoadAverage(b []byte) (float64, error) {
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("empty /proc/loadavg")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("/proc/loadavg %q: not a load average", f[0])
	}
	return v, nil
}

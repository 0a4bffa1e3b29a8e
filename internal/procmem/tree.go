package procmem

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// ReadTree sums the resident sets of a process and every process below it: a client started
// through a launcher (`go run`, a shell script, npx) does its work in a child, and the launcher's
// own memory stays put while it waits. Peak is the sum of their peaks (at most what they held
// together). Processes that end while the tree is read are left out.
func ReadTree(pid int) (Resident, error) {
	top, err := ReadResident(pid)
	if err != nil {
		return Resident{}, err
	}
	for _, c := range descendants(pid) {
		r, err := ReadResident(c)
		if err != nil {
			continue // ended meanwhile
		}
		top.RSS += r.RSS
		top.Peak += r.Peak
	}
	return top, nil
}

// descendants lists the processes below pid, from the parents /proc/*/stat records.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := parentOf(p); ok {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// parentOf reads the parent's id from /proc/PID/stat ("pid (comm) state ppid ..."; comm may hold
// spaces and parentheses, so the fields after the last ')' are read).
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	return parseParent(b)
}

func parseParent(b []byte) (int, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	pp, err := strconv.Atoi(string(f[1]))
	return pp, err == nil
}

package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/report"
)

// The cross-target check has one decision (disagreement) and two ways in: crossCheck, on the
// results of one workload as a process measures them (isolation none, rewarm), and
// crossCheckMerged, on the merged reports of worker processes (isolation: process), where each
// worker saw one target only and so could not check it. Either way the same targets fail with the
// same error, so the report's "identical across targets" holds under every isolation.

// disagreement compares the checksums of one workload's targets repeat by repeat (sums[j]: the
// measured repeats of target j, only targets that did not fail): at the first repeat where they
// differ, it returns the targets to fail (those against the majority, or all of them when there is
// none) and the error they fail with. Fewer than two targets: nothing to compare.
func disagreement(names []string, sums [][]uint64) (odd []int, err error) {
	if len(sums) < 2 {
		return nil, nil
	}
	n := len(sums[0])
	for _, s := range sums[1:] {
		n = min(n, len(s))
	}
	for i := 0; i < n; i++ {
		counts := map[uint64]int{}
		for _, s := range sums {
			counts[s[i]]++
		}
		if len(counts) == 1 {
			continue
		}
		var best uint64
		bestN := 0
		for s, c := range counts {
			if c > bestN {
				best, bestN = s, c
			}
		}
		majority := bestN*2 > len(sums)
		var parts []string
		for j, s := range sums {
			parts = append(parts, fmt.Sprintf("%s=%016x", names[j], s[i]))
			if !majority || s[i] != best {
				odd = append(odd, j)
			}
		}
		return odd, fmt.Errorf("verification failed: targets disagree in repeat %d (%s)", i+1, strings.Join(parts, ", "))
	}
	return nil, nil
}

// crossCheck requires every target of a workload to produce the same checksum in each repeat; a
// target that disagrees with the majority (or all of them, when there is no majority) fails.
func crossCheck(accs []*resultAcc) {
	var ok []*resultAcc
	var names []string
	var sums [][]uint64
	for _, a := range accs {
		if !a.failed() {
			ok, names, sums = append(ok, a), append(names, a.key.target), append(sums, a.sums)
		}
	}
	odd, err := disagreement(names, sums)
	for _, j := range odd {
		ok[j].fail(err)
	}
}

// crossCheckMerged runs the cross-target check on merged results (one per target, workload and
// size, each with its repeats' checksums), for every workload the plan cross-checks; a result that
// fails it is marked failed as crossCheck would have (status, error, verification).
func crossCheckMerged(p *config.Plan, results []report.Result) {
	type group struct {
		size     int
		workload string
	}
	var order []group
	members := map[group][]int{}
	for i, x := range results {
		w := workloadIndex(p, x.Workload)
		if x.Status != report.StatusOK || w < 0 || !p.Workloads[w].CrossCheck {
			continue
		}
		g := group{x.Size, x.Workload}
		if members[g] == nil {
			order = append(order, g)
		}
		members[g] = append(members[g], i)
	}
	for _, g := range order {
		var idx []int
		var names []string
		var sums [][]uint64
		for _, i := range members[g] {
			s, err := repeatSums(results[i])
			if err != nil {
				failMerged(&results[i], err)
				continue
			}
			idx, names, sums = append(idx, i), append(names, results[i].Target), append(sums, s)
		}
		odd, err := disagreement(names, sums)
		for _, j := range odd {
			failMerged(&results[idx[j]], err)
		}
	}
}

// repeatSums reads the checksums of a result's measured repeats, as a worker wrote them.
func repeatSums(x report.Result) ([]uint64, error) {
	sums := make([]uint64, 0, len(x.Repeats))
	for _, r := range x.Repeats {
		s, err := strconv.ParseUint(r.Checksum, 16, 64)
		if err != nil {
			return nil, fmt.Errorf("verification failed: repeat %d has no readable checksum (%q) to cross-check", r.Index+1, r.Checksum)
		}
		sums = append(sums, s)
	}
	return sums, nil
}

// failMerged fails a merged result as resultAcc.finish renders a failed one.
func failMerged(x *report.Result, err error) {
	x.Status, x.Error = report.StatusFailed, err.Error()
	x.Verification.OK = false
}

package commands

import (
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/internal/buildinfo"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
)

// jobIndexEnv is the variable a Kubernetes Indexed Job gives each pod: its 0-based index.
const jobIndexEnv = "JOB_COMPLETION_INDEX"

// addShardFlags adds --shard, --shards and --start-at (docs/shards.md).
func addShardFlags(cmd *cobra.Command, opts *RunOptions) {
	cmd.Flags().StringVar(&opts.Shard, "shard", "", "run share `I/N` of the workload (I from 0 to N-1), for dbbench merge")
	cmd.Flags().IntVar(&opts.Shards, "shards", 0, "the shard total `N`, with the index from $"+jobIndexEnv+" (a Kubernetes Indexed Job's)")
	cmd.Flags().StringVar(&opts.StartAt, "start-at", "", "load, then wait until `TIME` (RFC 3339: 2026-12-02T14:00:00Z) to start timing")
}

// shardPlan reads the shard flags and $JOB_COMPLETION_INDEX into this run's share; nil when the
// run is not sharded. Every mistake is a usage error of one line.
func shardPlan(opts *RunOptions) (*config.ShardPlan, error) {
	env, inEnv := os.LookupEnv(jobIndexEnv)
	var sp *config.ShardPlan
	switch {
	case opts.Shard != "":
		i, n, err := report.ParseShard(opts.Shard)
		if err != nil {
			return nil, exitcode.Usagef("--shard %v", err)
		}
		if opts.Shards != 0 && opts.Shards != n {
			return nil, exitcode.Usagef("--shard %s and --shards %d disagree on the total", opts.Shard, opts.Shards)
		}
		sp = &config.ShardPlan{Index: i, Total: n}
	case inEnv:
		if opts.Shards == 0 {
			return nil, exitcode.Usagef("%s=%s is set but the shard total is not: give --shards N (or --shard I/N)", jobIndexEnv, env)
		}
		if opts.Shards < 1 {
			return nil, exitcode.Usagef("--shards %d: want N >= 1", opts.Shards)
		}
		i, err := strconv.Atoi(env)
		if err != nil || i < 0 || i >= opts.Shards {
			return nil, exitcode.Usagef("%s=%q: want an index from 0 to %d (--shards %d)", jobIndexEnv, env, opts.Shards-1, opts.Shards)
		}
		sp = &config.ShardPlan{Index: i, Total: opts.Shards}
	case opts.Shards != 0:
		return nil, exitcode.Usagef("--shards %d needs this shard's index: --shard I/N, or %s in the environment", opts.Shards, jobIndexEnv)
	}
	if opts.StartAt != "" {
		if sp == nil {
			return nil, exitcode.Usagef("--start-at starts shards together: give --shard I/N (or --shards N with %s)", jobIndexEnv)
		}
		t, err := time.Parse(time.RFC3339Nano, opts.StartAt)
		if err != nil {
			return nil, exitcode.Usagef("--start-at %q: want RFC 3339 time, such as 2026-12-02T14:00:00Z or 2026-12-02T14:00:00.5+01:00", opts.StartAt)
		}
		sp.StartAt = t
	}
	if sp == nil {
		return nil, nil
	}
	sp.LateBound = config.DefaultLateBound
	if opts.Runs > 1 {
		return nil, exitcode.Usagef("a shard is one run (merge cannot add runs): leave out --runs, or use --runs 1")
	}
	if opts.Instructions {
		return nil, exitcode.Usagef("--instructions counts one process: it does not combine with --shard")
	}
	h, err := buildinfo.Hash()
	if err != nil {
		return nil, exitcode.Infraf("cannot read this executable for its build hash: %v", err)
	}
	sp.BuildHash = h
	return sp, nil
}

// checkShardedPlan refuses what a sharded run cannot do with this plan, naming what is missing.
func checkShardedPlan(p *config.Plan) error {
	if p.Shard == nil {
		return nil
	}
	if p.Isolation == config.IsolationProcess {
		return exitcode.Usagef("a shard runs its targets in one process: isolation: process is not supported with --shard (use --isolation rewarm)")
	}
	for _, t := range p.Targets {
		if opt := t.SharedServer(); opt != "" {
			return exitcode.Usagef("target %s: sharding a store on a server you give it (its %s option) is not supported yet: "+
				"every shard would load it; shards need a load-once step (docs/shards.md). Run it unsharded, or without %s (a throwaway server per shard)", t.Name, opt, opt)
		}
	}
	return nil
}

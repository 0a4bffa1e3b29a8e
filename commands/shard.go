package commands

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/engine"
	"github.com/dbbench/dbbench/internal/buildinfo"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/workloads"
	"github.com/dbbench/dbbench/workloads/ycsb"
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

// checkShardedPlan refuses what a sharded run (or a load for one) cannot do with this plan, naming
// what is missing.
func checkShardedPlan(p *config.Plan) error {
	if p.Shard == nil && !p.LoadOnly {
		return nil
	}
	if p.Isolation == config.IsolationProcess {
		return exitcode.Usagef("a shard runs its targets in one process: isolation: process is not supported with --shard (use --isolation rewarm)")
	}
	for _, t := range p.Targets {
		if opt := t.SharedServer(); opt != "" {
			if err := checkSharedStore(p, t, opt); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkSharedStore refuses a target on a server the user gives that shards cannot share loaded
// once: an adapter that cannot attach to a loaded store, and the workloads whose writes one shard
// would trip over in another's checks (docs/shards.md, "What a shared store allows").
func checkSharedStore(p *config.Plan, t config.TargetPlan, opt string) error {
	sharer, ok := t.Adapter.(adapters.StoreSharer)
	if !ok {
		return exitcode.Usagef("target %s: shards cannot share a store of adapter %s (its %s option): run it unsharded, or without %s (a throwaway server per shard)",
			t.Name, t.Adapter.Info().Name, opt, opt)
	}
	if err := sharer.SharedStore(t.Options); err != nil {
		return exitcode.Usagef("target %s: shards share its store loaded once, and it cannot be shared: %v", t.Name, err)
	}
	for _, w := range p.Workloads {
		if !t.Runs(w.Name) {
			continue
		}
		switch {
		case w.Custom:
			return exitcode.Usagef("target %s: workload %s is the adapter's own: it is not shardable against a shared store", t.Name, w.Name)
		case w.SQL != nil:
			return exitcode.Usagef("target %s: sql workload %s runs its setup on every shard's own store, and on a shared store they would collide: leave it out of sharded runs on a shared store", t.Name, w.Name)
		case w.Name == workloads.Insert:
			return exitcode.Usagef("target %s: workload insert makes the table %s on every shard, and on a shared store they would collide: leave it out of sharded runs", t.Name, "persons_insert")
		case w.YCSB:
			def, err := p.YCSB.Definition(w.Name)
			if err != nil {
				return exitcode.Usagef("workload %s: %v", w.Name, err)
			}
			if def.Mix[ycsb.Update] > 0 || def.Mix[ycsb.ReadModifyWrite] > 0 {
				return exitcode.Usagef("target %s: workload %s updates records: on a shared store another shard's updates would fail this shard's read checks; not supported yet (docs/shards.md)", t.Name, w.Name)
			}
			if def.Mix[ycsb.Scan] > 0 && def.Mix[ycsb.Insert] > 0 {
				return exitcode.Usagef("target %s: workload %s scans and inserts: on a shared store a scan meets other shards' inserts, which its check cannot know; not supported yet (docs/shards.md)", t.Name, w.Name)
			}
		}
	}
	return nil
}

// addLoadOnceFlags adds --load-only and --loaded.
func addLoadOnceFlags(cmd *cobra.Command, opts *RunOptions) {
	cmd.Flags().BoolVar(&opts.LoadOnly, "load-only", false, "only load the stores on servers you give (dsn, address), once, for the shards that share them")
	cmd.Flags().StringVar(&opts.Loaded, "loaded", "", "the load-once marker `FILE`: --load-only writes it, shards on a shared store check it")
}

// runLoadOnly loads the plan's shared stores and writes the marker, one line per store.
func runLoadOnly(cmd *cobra.Command, opts *RunOptions, plan *config.Plan) error {
	if opts.shard != nil {
		return exitcode.Usagef("--load-only loads for every shard: leave out --shard, --shards and --start-at")
	}
	if opts.Loaded == "" {
		return exitcode.Usagef("--load-only needs --loaded FILE: the marker the shards check")
	}
	if _, err := os.Stat(opts.Loaded); err == nil && !opts.Force {
		return exitcode.Usagef("--loaded %s exists: give --force to replace it", opts.Loaded)
	}
	runner := &engine.Runner{Plan: plan, TempDir: opts.f.TempDir}
	if !opts.Quiet {
		runner.Events = newProgressPrinter(plan.Secrets.Writer(opts.f.Err)).print
	}
	m, err := runner.LoadOnce(cmd.Context())
	if err != nil {
		return redactErr(err, plan.Secrets)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return exitcode.Infraf("load-once marker: %v", err)
	}
	tmp := opts.Loaded + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return exitcode.Infraf("write %s: %v", opts.Loaded, err)
	}
	if err := os.Rename(tmp, opts.Loaded); err != nil {
		os.Remove(tmp)
		return exitcode.Infraf("write %s: %v", opts.Loaded, err)
	}
	out := plan.Secrets.Writer(opts.f.Out)
	for _, s := range m.Stores {
		what := []string{}
		if s.Persons > 0 {
			what = append(what, fmt.Sprintf("%d persons", s.Persons))
		}
		if s.Records != nil {
			what = append(what, fmt.Sprintf("%d records of workload %s", s.Records.Count, s.Records.Workload))
		}
		fmt.Fprintf(out, "loaded %s (%s): %s; marker %s\n", s.Target, s.Adapter, strings.Join(what, " and "), opts.Loaded)
	}
	return nil
}

// attachLoaded checks, for a shard with targets on a shared store, the marker --loaded names
// against its plan, and takes the load's salt (the persons dataset the store holds).
func attachLoaded(opts *RunOptions, plan *config.Plan) error {
	if plan.Shard == nil || !engine.SharesStores(plan) {
		if opts.Loaded != "" {
			return exitcode.Usagef("--loaded is for shards of a config with a target on a server you give (a dsn, an address)")
		}
		return nil
	}
	if opts.Loaded == "" {
		return exitcode.Usagef("shards share the stores on servers you give, loaded once: run dbbench run -c CONFIG --load-only --loaded FILE first, then give every shard --loaded FILE")
	}
	b, err := os.ReadFile(opts.Loaded)
	if err != nil {
		return exitcode.Usagef("--loaded: %v (write it with dbbench run --load-only --loaded FILE)", exitcode.OneLine(err.Error()))
	}
	var m engine.LoadMarker
	if err := json.Unmarshal(b, &m); err != nil {
		return exitcode.Usagef("--loaded %s: not a load-once marker: %v", opts.Loaded, exitcode.OneLine(err.Error()))
	}
	if err := engine.CheckLoaded(plan, &m); err != nil {
		return err
	}
	plan.Salt = m.Salt
	return nil
}

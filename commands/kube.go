package commands

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/configs"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/deploy/kube"
	"github.com/dbbench/dbbench/engine"
	"github.com/dbbench/dbbench/engine/load"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/workloads"
)

// KubeOptions are the flags of `dbbench kube`.
type KubeOptions struct {
	f             *Factory
	Config        string
	CI            bool
	Shards        int
	Image         string
	StartIn       time.Duration
	StartAt       string
	Name          string
	Namespace     string
	StorageClass  string
	StorageSize   string
	Claim         string
	RWXDefault    bool
	Secret        string
	Retries       int
	CPU           string
	Memory        string
	Ephemeral     string
	Deadline      time.Duration
	TTL           time.Duration
	NoSuspend     bool
	NodeSelectors []string
	Tolerations   []string
	// now is the clock the start time is computed from (tests set it).
	now func() time.Time
	// lookupEnv is the environment the config is validated in (tests set it).
	lookupEnv func(string) (string, bool)
}

// DefaultStartIn is how far ahead of rendering the shards start by default: time to apply the
// manifests, pull the image and load each shard's store.
const DefaultStartIn = 2 * time.Minute

// NewKubeCmd builds `dbbench kube`.
func NewKubeCmd(f *Factory, runF func(*KubeOptions) error) *cobra.Command {
	opts := &KubeOptions{f: f, now: time.Now, lookupEnv: os.LookupEnv}
	cmd := &cobra.Command{
		Use:   "kube -c CONFIG --shards N --image IMAGE (--storage-class CLASS | --claim NAME | --rwx-default) [flags]",
		Short: "Render Kubernetes manifests that run a config as N shards and merge them",
		Long: `Kube validates a config (as validate does) and prints the Kubernetes manifests that run it as
N shards on a cluster: a ConfigMap holding the config file's bytes, a ReadWriteMany claim for the
reports (of --storage-class, or of the cluster's default class with --rwx-default; or --claim, an
existing one), an Indexed Job whose N pods each run 'dbbench run --shards N --start-at TIME' (the
index from JOB_COMPLETION_INDEX, which Kubernetes sets), and two Jobs that run 'dbbench merge' over
their reports: NAME-merge names a missing shard and exits 6, NAME-merge-partial (--allow-missing)
merges what there is into a report marked partial. They are suspended until you release one, or with
--no-suspend wait for the reports themselves. The start time is computed once, now: every pod starts
its first timed operation then (apply before it). Nothing is contacted; kubectl applies what this
prints. docs/kubernetes.md says more.

Each rendering's Jobs and ConfigMap are named NAME-RUNID (a short id of this rendering), so that a
second run of the same config goes beside the first; the claim NAME-reports is every run's.
--name NAME names them NAME exactly.

Every pod meets Pod Security "restricted" (user 65532, no capabilities, a read-only root file system
with an emptyDir for TMPDIR and HOME), asks for cpu, memory and ephemeral-storage as requests equal
to limits (from formulas over the config; --cpu, --memory and --ephemeral-storage override the run
pods'), and every Job has a deadline from the config's work (--deadline overrides the run's) and is
deleted --ttl after it finished.

A config with a store on a server every shard shares (sql on PostgreSQL with dsn and schema) also
gets a Job NAME-load that runs 'dbbench run --load-only --loaded /reports/RUN/loaded.json' once; the
shards check that marker (--loaded), and the run Job starts suspended: release it once the load has
completed, setting its start time then (the annotation dbbench/start-at; the file's first lines
show the kubectl commands). With --no-suspend the shards wait for the load themselves and start
--start-in after it. A target a shard could not share is refused here.

A failed shard is not retried unless --retries allows it (a retry starts late, and its report says
by how much); a config or usage error (exit 2) fails the whole Job; a shard that ended with its
report written (exit 1, 4, 5) is never run twice: the merge decides the verdict on the union.

No secret goes into the manifests: a config that holds one in clear is refused; a ${NAME} the
config reads whose value holds a secret must come from a Kubernetes Secret (--secret, whose keys
become the pods' environment), and the other ${NAME}s set here are passed on as they are, so the
pods run what was validated.

Exit codes: 0 rendered; 2 bad flags or config (one a shard would refuse), a secret in clear, a start
time in the past, no storage choice; 3 the manifests could not be written (stdout closed).`,
		Example: `  dbbench kube -c memory --shards 4 --image registry.example/dbbench:1.0 --storage-class nfs > memory-4.yaml
  dbbench kube -c configs/lmdb.yaml --ci --shards 8 --image registry.example/dbbench:1.0 --rwx-default --start-in 5m
  dbbench kube -c ycsb-a --shards 4 --image registry.example/dbbench:1.0 --claim bench-reports --cpu 2 --retries 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runKube(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Config, "config", "c", "", "config file or built-in config name (default: the built-in default)")
	fl.BoolVar(&opts.CI, "ci", false, "the pods run the config's CI form (run --ci); validates that form")
	fl.IntVar(&opts.Shards, "shards", 0, "how many shards (pods) split the run: the Job's completions and parallelism")
	fl.StringVar(&opts.Image, "image", "", "image with dbbench and /bin/sh, by digest: IMAGE@sha256:...")
	fl.DurationVar(&opts.StartIn, "start-in", DefaultStartIn, "start the shards this long from now (--no-suspend, a load: after it)")
	fl.StringVar(&opts.StartAt, "start-at", "", "start the shards at this time (RFC 3339, e.g. 2026-12-02T14:00:00Z)")
	fl.StringVar(&opts.Name, "name", "", fmt.Sprintf("exact name of the Jobs and ConfigMap, at most %d characters (default NAME-RUNID)", kube.MaxNameLen))
	fl.StringVarP(&opts.Namespace, "namespace", "n", "", "namespace of every object (default: kubectl's)")
	fl.StringVar(&opts.StorageClass, "storage-class", "", "storage class of the reports' claim; must offer ReadWriteMany")
	fl.StringVar(&opts.StorageSize, "storage-size", "", "size of the reports' claim (default "+kube.DefaultStorageSize+")")
	fl.StringVar(&opts.Claim, "claim", "", "write the reports to this existing claim (ReadWriteMany, or one node)")
	fl.BoolVar(&opts.RWXDefault, "rwx-default", false, "the cluster's default storage class offers ReadWriteMany: the claim names no class")
	fl.StringVar(&opts.Secret, "secret", "", "a Secret whose keys become the pods' environment (a dsn's ${NAME}, PGPASSWORD)")
	fl.IntVar(&opts.Retries, "retries", 0, fmt.Sprintf("retries of one shard that failed without its report, 0-%d (Job backoffLimitPerIndex)", kube.MaxRetries))
	fl.StringVar(&opts.CPU, "cpu", "", "each shard pod's CPU (default: workers + 1, at most 4)")
	fl.StringVar(&opts.Memory, "memory", "", "each shard pod's memory (default: 512Mi + 4 x dataset x stores in the pod)")
	fl.StringVar(&opts.Ephemeral, "ephemeral-storage", "", "each shard pod's scratch space (default: 1Gi + 4 x dataset x stores in the pod)")
	fl.DurationVar(&opts.Deadline, "deadline", 0, "the run Job's deadline (default: wait for the start + max(3 x estimate, 15m))")
	fl.DurationVar(&opts.TTL, "ttl", kube.DefaultTTL, "how long a finished Job stays before Kubernetes deletes it")
	fl.BoolVar(&opts.NoSuspend, "no-suspend", false, "nothing suspended (GitOps, Kueue): shards wait for the load, merges for the reports")
	fl.StringArrayVar(&opts.NodeSelectors, "node-selector", nil, "KEY=VALUE: run every pod on nodes with this label (repeatable)")
	fl.StringArrayVar(&opts.Tolerations, "toleration", nil, "KEY[=VALUE][:EFFECT]: every pod tolerates this taint (repeatable)")
	cmd.MarkFlagsMutuallyExclusive("start-in", "start-at")
	_ = cmd.MarkFlagRequired("shards")
	_ = cmd.MarkFlagRequired("image")
	_ = cmd.RegisterFlagCompletionFunc("config", completeConfig)
	return cmd
}

func runKube(opts *KubeOptions) error {
	c, data, err := loadChecked(opts.f, opts.Config, opts.CI)
	if err != nil {
		return err
	}
	plan, _, err := resolve(opts.f, c, opts.CI)
	if err != nil {
		return err
	}
	sec := plan.Secrets
	for _, env := range secretEnv {
		if v, ok := opts.lookupEnv(env); ok {
			sec.AddSecret(v)
		}
	}
	if line := kube.SecretLine(data, sec.String); line > 0 {
		return exitcode.Usagef("%s:%d: a secret in clear (a password, a secret option): the pods would read it from a ConfigMap; write it as ${NAME} and give the pods a Secret with that key (--secret)", c.Source, line)
	}
	files, err := configFiles(c.Source, plan.Files, sec.String)
	if err != nil {
		return err
	}
	holdsSecret := func(v string) bool { return sec.String(v) != v }
	env, err := kube.EnvFor(adapters.EnvNames(string(data)), opts.lookupEnv, holdsSecret, opts.Secret)
	if err != nil {
		return exitcode.AsUsage(err)
	}
	// What every shard would refuse (a store it cannot share, isolation: process) is refused here,
	// before any pod starts; a store it shares is loaded once, as `run --load-only` would.
	plan.Shard = &config.ShardPlan{Total: opts.Shards}
	if err := checkShardedPlan(plan); err != nil {
		return err
	}
	if opts.Deadline < 0 || opts.TTL <= 0 {
		return exitcode.Usagef("--deadline %s, --ttl %s: want positive durations such as 2h", opts.Deadline, opts.TTL)
	}
	now := opts.now()
	spec := &kube.Spec{
		Name: opts.Name, Pinned: opts.Name != "", Namespace: opts.Namespace, Image: opts.Image,
		ConfigName: kube.ConfigFileName(opts.configRef()), Config: data, Files: files, CI: opts.CI,
		Shards: opts.Shards, Now: now, Retries: opts.Retries, LoadOnce: engine.SharesStores(plan), NoSuspend: opts.NoSuspend,
		StorageClass: opts.StorageClass, StorageSize: opts.StorageSize, Claim: opts.Claim, RWXDefault: opts.RWXDefault,
		Secret: opts.Secret, Env: env, Work: kubeWork(plan, opts.Shards),
		Resources: kube.Resources{CPU: opts.CPU, Memory: opts.Memory, EphemeralStorage: opts.Ephemeral},
		Deadline:  opts.Deadline, TTL: opts.TTL,
	}
	if spec.Name == "" {
		spec.Name = kube.DefaultName(plan.Name)
	}
	if spec.NodeSelector, spec.Tolerations, err = opts.placement(); err != nil {
		return err
	}
	if spec.LoadOnce && spec.NoSuspend && opts.StartAt == "" {
		// the shards start --start-in after the load, which the load pod writes down
		if opts.StartIn <= 0 {
			return exitcode.Usagef("--start-in %s: want a positive duration such as 2m", opts.StartIn)
		}
		spec.Lead = opts.StartIn
	}
	if spec.StartAt, err = opts.startTime(now); err != nil {
		return err
	}
	out, err := kube.Render(spec)
	if err != nil {
		return exitcode.AsUsage(err)
	}
	if _, err := opts.f.Out.Write(out); err != nil {
		return exitcode.Infraf("writing the manifests: %v", err)
	}
	opts.tellStart(spec)
	if !spec.ImageByDigest() {
		fmt.Fprintf(opts.f.Err, "dbbench: --image %s is a tag: a node that pulled an earlier push of it runs that build, and the merge refuses mixed builds; give the image by digest (IMAGE@sha256:...)\n", spec.Image)
	}
	return nil
}

// tellStart says on stderr what starts the run.
func (opts *KubeOptions) tellStart(spec *kube.Spec) {
	switch {
	case spec.LoadOnce && spec.NoSuspend:
		fmt.Fprintf(opts.f.Err, "dbbench: run %s: %d shards of %s on a store they share: apply; the shards start after job/%s has loaded it, the merges once they have ended\n",
			spec.RunName(), spec.Shards, spec.ConfigName, spec.LoadJobName())
	case spec.LoadOnce:
		fmt.Fprintf(opts.f.Err, "dbbench: run %s: %d shards of %s on a store they share: apply, wait for job/%s to complete, then release job/%s with its start time (the file's first lines say how)\n",
			spec.RunName(), spec.Shards, spec.ConfigName, spec.LoadJobName(), spec.RunName())
	default:
		fmt.Fprintf(opts.f.Err, "dbbench: run %s: %d shards of %s start at %s (in %s): apply before then\n",
			spec.RunName(), spec.Shards, spec.ConfigName, spec.StartAtText(), spec.StartAt.Sub(spec.Now).Truncate(time.Second))
	}
}

// placement reads --node-selector and --toleration.
func (opts *KubeOptions) placement() (map[string]string, []kube.Toleration, error) {
	var sel map[string]string
	for _, v := range opts.NodeSelectors {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return nil, nil, exitcode.Usagef("--node-selector %q: want KEY=VALUE, a label of the nodes", v)
		}
		if sel == nil {
			sel = map[string]string{}
		}
		if old, dup := sel[k]; dup && old != val {
			return nil, nil, exitcode.Usagef("--node-selector %s: given twice, as %q and %q", k, old, val)
		}
		sel[k] = val
	}
	var tols []kube.Toleration
	for _, v := range opts.Tolerations {
		t, err := kube.ParseToleration(v)
		if err != nil {
			return nil, nil, exitcode.AsUsage(err)
		}
		tols = append(tols, t)
	}
	return sel, tols, nil
}

// Prices of the work a pod does, for the deadlines (docs/kubernetes.md, "Deadlines"): pessimistic
// on purpose, since a deadline must end a stuck Job and never a slow one, each ten times or more
// what was measured here.
const (
	// an operation (a lookup, an insert, a YCSB operation of a closed loop): measured 63-69 µs a
	// pgx lookup on loopback (docs/kubernetes.md), a server across a network adds its round trip
	kubeOpPrice = time.Millisecond
	// a row read by a scan or a concurrent reader: the memory target reads more than 1,000,000 a
	// second (configs/memory.yaml's assertion)
	kubeRowPrice = 10 * time.Microsecond
	// a person or a YCSB record loaded into a store
	kubeLoadPrice = 100 * time.Microsecond
)

// kubeWork is what the config asks of one pod (kube.Work), read from the plan for shards shards:
// shard 0's share, the largest (config.ShardPlan gives the first shards the remainder).
//
//	run  = for each dataset size: each store in the pod loading the persons (100 µs each), then for
//	       each workload and target that runs it, (warmup + repeats x (1 + re-warm runs)) runs of
//	       the shard's share: 10 µs a row read, 1 ms an operation, a YCSB open loop its schedule's
//	       length, a YCSB workload's records loaded once per store in the pod (100 µs each)
//	load = the shared stores' persons and records, 100 µs each
func kubeWork(p *config.Plan, shards int) kube.Work {
	sp := &config.ShardPlan{Index: 0, Total: max(shards, 1)} // Render refuses fewer than 1
	var w kube.Work
	var persons bool
	for _, wl := range p.Workloads {
		persons = persons || !wl.YCSB
	}
	for i := range p.Targets {
		if p.Targets[i].SharedServer() == "" {
			w.InPodStores++
		}
	}
	size := slices.Max(p.Sizes)
	if persons {
		if b, err := dataset.PackedBytes(size, p.Seed); err == nil {
			w.DatasetBytes = b + 12*int64(size) // two offsets and a sort index of 4 bytes per person
		}
	}
	runs := time.Duration(p.Warmup + p.Repeats*(1+p.RewarmRuns()))
	for _, wl := range p.Workloads {
		if !wl.YCSB {
			continue
		}
		if def, err := p.YCSB.Definition(wl.Name); err == nil {
			// a record: its key and each field with its name
			w.DatasetBytes += p.YCSB.RecordCount * int64(32+def.FieldCount*(def.FieldLength+16))
		}
	}
	for _, n := range p.Sizes {
		for i := range p.Targets {
			t := &p.Targets[i]
			shared := t.SharedServer() != ""
			if persons && !shared {
				w.Run += time.Duration(n) * kubeLoadPrice
			}
			if persons && shared {
				w.Load += time.Duration(n) * kubeLoadPrice
			}
			for _, wl := range p.Workloads {
				if !t.Runs(wl.Name) {
					continue
				}
				cost, workers := kubeRunCost(p, wl, n, sp)
				w.Workers = max(w.Workers, workers)
				w.Run += runs * cost
				if wl.YCSB && shared {
					w.Load += time.Duration(p.YCSB.RecordCount) * kubeLoadPrice
				} else if wl.YCSB {
					w.Run += time.Duration(p.YCSB.RecordCount) * kubeLoadPrice
				}
			}
		}
	}
	return w
}

// kubeRunCost is one run of a workload's share on one shard, at dataset size n, and the workers it
// keeps busy at once.
func kubeRunCost(p *config.Plan, wl config.WorkloadPlan, n int, sp *config.ShardPlan) (time.Duration, int) {
	if wl.YCSB {
		l := p.Load
		workers := config.DefaultClosedWorkers
		if l != nil {
			workers = l.Workers
		}
		workers = sp.Readers(workers)
		ops := p.YCSB.OperationCount
		if l != nil && l.Ops > 0 {
			ops = l.Ops
		}
		switch {
		case l.Open():
			return kubeScheduleLength(l, ops), workers
		case l != nil && l.Duration > 0:
			return l.Duration, workers
		}
		return time.Duration(sp.Count(ops)) * kubeOpPrice / time.Duration(max(workers, 1)), workers
	}
	rows, ops, readers := wl.Params(n)
	switch wl.Name {
	case workloads.Scan:
		return time.Duration(rows) * kubeRowPrice, 1
	case workloads.Concurrent:
		r := sp.Readers(readers)
		return time.Duration(r) * time.Duration(rows) * kubeRowPrice, r
	case workloads.Lookup:
		return time.Duration(sp.Count(int64(ops))) * kubeOpPrice, 1
	}
	return time.Duration(max(ops, 1)) * kubeOpPrice, 1 // insert, an adapter's own: whole on every shard
}

// kubeScheduleLength is how long an open loop's run phase lasts: its duration, or the time its
// schedule takes to reach ops intended starts.
func kubeScheduleLength(l *config.LoadPlan, ops int64) time.Duration {
	if l.Duration > 0 {
		return l.Duration
	}
	s := load.Schedule{Rate: l.Rate}
	for _, st := range l.Stages {
		s.Stages = append(s.Stages, load.Stage{At: st.At, Rate: st.Rate})
	}
	lo, hi := time.Duration(0), config.MaxLoadDuration // to the second: Intended grows with time
	for hi-lo > time.Second {
		if mid := (lo + hi) / 2; s.Intended(mid) < float64(ops) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// configRef is the config as -c named it, the built-in default when not.
func (opts *KubeOptions) configRef() string {
	if opts.Config == "" {
		return configs.Default
	}
	return opts.Config
}

// startTime is when every shard starts: --start-at, or now plus --start-in rounded up to the second.
func (opts *KubeOptions) startTime(now time.Time) (time.Time, error) {
	if opts.StartAt == "" {
		if opts.StartIn <= 0 {
			return time.Time{}, exitcode.Usagef("--start-in %s: want a positive duration such as 2m", opts.StartIn)
		}
		// to the next whole second: never earlier than asked
		t := now.Add(opts.StartIn).UTC()
		if r := t.Truncate(time.Second); r.Before(t) {
			t = r.Add(time.Second)
		}
		return t, nil
	}
	t, err := time.Parse(time.RFC3339Nano, opts.StartAt)
	if err != nil {
		return time.Time{}, exitcode.Usagef("--start-at %q: want an RFC 3339 time such as 2026-12-02T14:00:00Z", opts.StartAt)
	}
	if !t.After(now) {
		return time.Time{}, exitcode.Usagef("--start-at %s is in the past (now %s): the shards would all start late", opts.StartAt, now.UTC().Format(time.RFC3339))
	}
	return t.UTC(), nil
}

// configFiles reads the files the config reads besides itself (its sql workloads' scripts), for
// the pods to find them beside it: each by its path relative to the config, inside its directory.
func configFiles(source string, refs []string, scrub func(string) string) ([]kube.File, error) {
	var files []kube.File
	for _, ref := range refs {
		rel := filepath.ToSlash(filepath.Clean(ref))
		if filepath.IsAbs(ref) || !fs.ValidPath(rel) {
			return nil, exitcode.Usagef("%s: script %s: the pods find a config's files beside it: give a path inside the config's directory, relative to it (or the script's text as script_text)", source, ref)
		}
		b, err := os.ReadFile(filepath.Join(filepath.Dir(source), ref))
		if err != nil {
			return nil, exitcode.Usagef("%s: script %s: %v", source, ref, err)
		}
		if line := kube.SecretLine(b, scrub); line > 0 {
			return nil, exitcode.Usagef("%s:%d: a secret in clear: the pods would read the script from a ConfigMap", ref, line)
		}
		files = append(files, kube.File{Path: rel, Data: b})
	}
	return files, nil
}

package commands

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/configs"
	"github.com/dbbench/dbbench/deploy/kube"
	"github.com/dbbench/dbbench/engine"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// KubeOptions are the flags of `dbbench kube`.
type KubeOptions struct {
	f            *Factory
	Config       string
	CI           bool
	Shards       int
	Image        string
	StartIn      time.Duration
	StartAt      string
	Name         string
	Namespace    string
	StorageClass string
	StorageSize  string
	Claim        string
	Secret       string
	Retries      int
	CPU          string
	Memory       string
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
		Use:   "kube -c CONFIG --shards N --image IMAGE [flags]",
		Short: "Render Kubernetes manifests that run a config as N shards and merge them",
		Long: `Kube validates a config (as validate does) and prints the Kubernetes manifests that run it as
N shards on a cluster: a ConfigMap holding the config file's bytes, a ReadWriteMany claim for the
reports (or --claim, an existing one), an Indexed Job whose N pods each run
'dbbench run --shards N --start-at TIME' (the index from JOB_COMPLETION_INDEX, which Kubernetes
sets), and two suspended Jobs that run 'dbbench merge' over their reports once you release one:
NAME-merge names a missing shard and exits 6, NAME-merge-partial (--allow-missing) merges what there
is into a report marked partial. The start time is computed once, now: every pod starts its first
timed operation then (apply before it). Nothing is contacted; kubectl applies what this prints.
README: "Sharded runs on Kubernetes".

A config with a store on a server every shard shares (sql on PostgreSQL with dsn and schema) also
gets a Job NAME-load that runs 'dbbench run --load-only --loaded /reports/RUN/loaded.json' once; the
shards check that marker (--loaded), and the run Job starts suspended: release it once the load has
completed, setting its start time then (the annotation dbbench/start-at; the file's first lines
show the kubectl commands). A target a shard could not share is refused here.

A failed shard is not retried unless --retries allows it (a retry starts late, and its report says
by how much); a config or usage error (exit 2) fails the whole Job; a shard that ended with its
report written (exit 1, 4, 5) is never run twice: the merge decides the verdict on the union.

No secret goes into the manifests: a config that holds one in clear is refused; a ${NAME} the
config reads whose value holds a secret must come from a Kubernetes Secret (--secret, whose keys
become the pods' environment), and the other ${NAME}s set here are passed on as they are, so the
pods run what was validated.

Exit codes: 0 rendered; 2 bad flags or config (one a shard would refuse), a secret in clear, a start
time in the past; 3 the manifests could not be written (stdout closed).`,
		Example: `  dbbench kube -c memory --shards 4 --image registry.example/dbbench:1.0 > memory-4.yaml
  dbbench kube -c configs/lmdb.yaml --ci --shards 8 --image registry.example/dbbench:1.0 --start-in 5m
  dbbench kube -c ycsb-a --shards 4 --image registry.example/dbbench:1.0 --cpu 2 --memory 4Gi --retries 1`,
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
	fl.StringVar(&opts.Image, "image", "", "container image with dbbench on its PATH (and /bin/sh for the merge)")
	fl.DurationVar(&opts.StartIn, "start-in", DefaultStartIn, "start the shards this long after now")
	fl.StringVar(&opts.StartAt, "start-at", "", "start the shards at this time (RFC 3339, e.g. 2026-12-02T14:00:00Z)")
	fl.StringVar(&opts.Name, "name", "", "name of the Jobs and the other objects (default dbbench-<config name>)")
	fl.StringVarP(&opts.Namespace, "namespace", "n", "", "namespace of every object (default: kubectl's)")
	fl.StringVar(&opts.StorageClass, "storage-class", "", "storage class of the reports' claim; must offer ReadWriteMany (default: the cluster's)")
	fl.StringVar(&opts.StorageSize, "storage-size", "", "size of the reports' claim (default "+kube.DefaultStorageSize+")")
	fl.StringVar(&opts.Claim, "claim", "", "write the reports to this existing ReadWriteMany claim instead of a new one")
	fl.StringVar(&opts.Secret, "secret", "", "a Secret whose keys become the pods' environment (a dsn's ${NAME}, PGPASSWORD)")
	fl.IntVar(&opts.Retries, "retries", 0, fmt.Sprintf("retries of one shard that failed without its report, 0-%d (Job backoffLimitPerIndex)", kube.MaxRetries))
	fl.StringVar(&opts.CPU, "cpu", "", "CPU each shard's pod requests and is limited to, e.g. 2")
	fl.StringVar(&opts.Memory, "memory", "", "memory each shard's pod requests and is limited to, e.g. 4Gi")
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
	loadOnce := engine.SharesStores(plan)
	now := opts.now()
	start, err := opts.startTime(now)
	if err != nil {
		return err
	}
	spec := &kube.Spec{
		Name: opts.Name, Namespace: opts.Namespace, Image: opts.Image,
		ConfigName: kube.ConfigFileName(opts.configRef()), Config: data, CI: opts.CI,
		Shards: opts.Shards, StartAt: start, Retries: opts.Retries,
		StorageClass: opts.StorageClass, StorageSize: opts.StorageSize, Claim: opts.Claim,
		Secret: opts.Secret, Env: env, CPU: opts.CPU, Memory: opts.Memory, LoadOnce: loadOnce,
	}
	if spec.Name == "" {
		spec.Name = kube.DefaultName(plan.Name)
	}
	out, err := kube.Render(spec)
	if err != nil {
		return exitcode.AsUsage(err)
	}
	if _, err := opts.f.Out.Write(out); err != nil {
		return exitcode.Infraf("writing the manifests: %v", err)
	}
	if spec.LoadOnce {
		fmt.Fprintf(opts.f.Err, "dbbench: %d shards of %s on a store they share: apply, wait for job/%s to complete, then release job/%s with its start time (the file's first lines say how)\n",
			spec.Shards, spec.ConfigName, spec.LoadJobName(), spec.Name)
		return nil
	}
	fmt.Fprintf(opts.f.Err, "dbbench: %d shards of %s start at %s (in %s): apply before then\n",
		spec.Shards, spec.ConfigName, spec.StartAtText(), start.Sub(now).Truncate(time.Second))
	return nil
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

// Package kube renders the Kubernetes manifests of a sharded run (issue 21, README "Sharded runs on
// Kubernetes"): a ConfigMap holding the config's bytes, a ReadWriteMany claim for the reports, an
// Indexed Job whose N pods each run one shard of `dbbench run` from one start time, and two
// suspended Jobs that merge their reports once released: one that fails naming a missing shard, one
// that merges what there is into a report marked partial. A config whose store is on a server every
// shard shares (LoadOnce) gets a Job that loads it once first, and its run Job waits suspended.
// Kubernetes runs the N copies, numbers them (JOB_COMPLETION_INDEX) and replaces a failed one;
// dbbench adds no coordinator of its own.
//
// The manifests are rendered from small structs of this package (the few fields dbbench sets, in
// the API's field names) with the YAML encoder dbbench already uses, not from k8s.io/api's types:
// those would add the Kubernetes API machinery to every dbbench binary for a command that prints
// text. The tests decode every rendering strictly into k8s.io/api's types (an unknown or misspelt
// field fails them), so the two cannot drift apart unnoticed; k8s.io/api is a test dependency only.
//
// Rendering never runs anything and imports no adapter or engine: the manifests describe what
// another machine will run.
package kube

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/dbbench/dbbench/internal/exitcode"
)

// Paths inside the pods.
const (
	ConfigDir  = "/config"  // the ConfigMap, read-only
	ReportsDir = "/reports" // the shared claim
	// Container is the name of the container in the run Job's pods (the pod failure policy names it).
	Container = "dbbench"
	// MergeContainer is the merge Job's container.
	MergeContainer = "merge"
	// LoadContainer is the load Job's container.
	LoadContainer = "load"
	// StartAtAnnotation holds a LoadOnce run's start time on its pod template: a suspended Job's
	// template annotations may still change, its containers may not, so the time is set when the run
	// is released, after the load, and reaches the pods through the downward API as StartAtEnv.
	StartAtAnnotation = "dbbench/start-at"
	StartAtEnv        = "DBBENCH_START_AT"
)

// Limits the API server enforces, checked here so that a rendering it would refuse is refused now.
const (
	// MaxShards is the most completions an Indexed Job with a per-index backoff limit may have.
	MaxShards = 100_000
	// MaxConfigBytes is the most a ConfigMap may hold (its whole object, so the config must leave
	// room for the rest).
	MaxConfigBytes = 1<<20 - 16<<10
	// MaxNameLen keeps NAME-merge-partial, NAME-reports and the pods' host names NAME-INDEX within
	// the API's 63-character labels (a Job's name is its pods' job-name label).
	MaxNameLen = 63 - len("-merge-partial") - 4
	// MaxRetries bounds the retries of one shard: each retry starts later than the others.
	MaxRetries = 10
)

// DefaultStorageSize is the reports' claim's size: a report is tens of KiB to a few MiB.
const DefaultStorageSize = "1Gi"

// Exit codes of `dbbench run` the run Job's pod failure policy sorts.
var (
	// usageExits fail the whole Job: a config or flag problem is the same on every shard.
	usageExits = []int32{exitcode.Usage}
	// reportedExits end an index without a retry: the shard finished and wrote its report (an
	// assertion failed, the verdict was inconclusive, the generator could not keep its schedule);
	// its verdict is the merge's to decide, and a retry would run its share twice.
	reportedExits = []int32{exitcode.Failed, exitcode.Inconclusive, exitcode.GeneratorSaturated}
)

// Spec is one rendering: a validated config and how to run it on a cluster.
type Spec struct {
	// Name names every object: the run Job NAME, NAME-merge, NAME-merge-partial, NAME-config and
	// NAME-reports.
	Name      string
	Namespace string // "" : kubectl's current namespace
	Image     string // an image with dbbench on its PATH (and /bin/sh, for the merge's glob)
	// ConfigName is the config's file name in ConfigDir (the ConfigMap's key); Config its bytes.
	ConfigName string
	Config     []byte
	CI         bool // the pods run the config's CI form (run --ci)
	Shards     int
	// StartAt is when every shard starts its first timed operation: computed once, when rendering.
	// With LoadOnce it is only the default of the run Job's StartAtAnnotation, which the release
	// replaces with a time after the load.
	StartAt time.Time
	// LoadOnce says the config has a target on a server every shard shares (the commands decide,
	// as the run does): a Job NAME-load loads it once and writes the marker LoadedPath, every shard
	// checks it with --loaded, and the run Job starts suspended until the load has completed.
	LoadOnce bool
	// Retries is how often one shard may be retried after a failure that wrote no report (a lost
	// node, exit 3); 0 fails the index at once, and the merge names it missing.
	Retries int
	// The reports: a new ReadWriteMany claim of StorageSize ("": DefaultStorageSize) of StorageClass
	// ("": the cluster's default), or the existing claim Claim.
	StorageClass string
	StorageSize  string
	Claim        string
	// Secret is a Secret whose keys become the pods' environment ("" none): the config's ${NAME}s
	// that hold secrets, and what adapters read themselves (PGPASSWORD, TYPEDB_PASSWORD).
	Secret string
	// Env are the config's variables set where it was validated, passed to the pods as they were so
	// that the pods run what was validated (Env, not Secret: EnvFor decides).
	Env []EnvVar
	// CPU and Memory, when set, are each run pod's requests and limits (equal: the Guaranteed QoS
	// class, so that a shard's measurements do not depend on its neighbours' bursts).
	CPU, Memory string
}

// EnvVar is one variable the pods get as a plain value.
type EnvVar struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
}

// Names of the objects a spec renders.
func (s *Spec) ConfigMapName() string { return s.Name + "-config" }
func (s *Spec) MergeJobName() string  { return s.Name + "-merge" }
func (s *Spec) LoadJobName() string   { return s.Name + "-load" }

// PartialJobName is the merge Job that goes on without missing shards.
func (s *Spec) PartialJobName() string { return s.Name + "-merge-partial" }

// ClaimName is the claim the reports go to: the one given, or NAME-reports.
func (s *Spec) ClaimName() string {
	if s.Claim != "" {
		return s.Claim
	}
	return s.Name + "-reports"
}

// RunDir is where this rendering's reports go on the claim: one directory per start time, so that
// rendering again never writes over an earlier run's reports, while a retried shard of this run
// replaces what its failed attempt left.
func (s *Spec) RunDir() string {
	return path.Join(ReportsDir, s.StartAt.UTC().Format("20060102T150405Z"))
}

// ConfigPath is the config as the pods read it.
func (s *Spec) ConfigPath() string { return path.Join(ConfigDir, s.ConfigName) }

// StartAtText is StartAt as `dbbench run --start-at` takes it (RFC 3339, UTC).
func (s *Spec) StartAtText() string { return s.StartAt.UTC().Format(time.RFC3339Nano) }

// LoadedPath is the load-once marker on the claim: the load Job writes it, every shard checks it.
func (s *Spec) LoadedPath() string { return path.Join(s.RunDir(), "loaded.json") }

// runBase is `dbbench run` on the config, as every pod of a rendering reads it.
func (s *Spec) runBase() []string {
	args := []string{"run", "-c", s.ConfigPath()}
	if s.CI {
		args = append(args, "--ci")
	}
	return args
}

// RunArgs is the command line of every run pod; Kubernetes replaces $(JOB_COMPLETION_INDEX) with the
// pod's index, and $(DBBENCH_START_AT) with the start time the release set. --force lets a retried
// shard replace what its failed attempt left at its own path (never anything else: run --force
// replaces only dbbench reports and reservations).
func (s *Spec) RunArgs() []string {
	start := s.StartAtText()
	if s.LoadOnce {
		start = "$(" + StartAtEnv + ")"
	}
	args := append(s.runBase(), "--shards", strconv.Itoa(s.Shards), "--start-at", start)
	if s.LoadOnce {
		args = append(args, "--loaded", s.LoadedPath())
	}
	return append(args, "--out", path.Join(s.RunDir(), "shard-$(JOB_COMPLETION_INDEX).json"), "--force")
}

// LoadScript is the load pod's shell command: the run's directory is made first (the marker's
// writer makes none), and no --force: an earlier load's marker is never replaced.
func (s *Spec) LoadScript() string {
	return "mkdir -p " + s.RunDir() + " && exec dbbench " + strings.Join(s.runBase(), " ") + " --load-only --loaded " + s.LoadedPath()
}

// MergedPath is where a merge Job writes the merged report: merged.json, or merged-partial.json
// for the one that allows missing shards (so that either may run after the other).
func (s *Spec) MergedPath(partial bool) string {
	if partial {
		return path.Join(s.RunDir(), "merged-partial.json")
	}
	return path.Join(s.RunDir(), "merged.json")
}

// MergeScript is a merge pod's shell command: the shell expands the glob, so a shard that wrote no
// report is simply absent and `dbbench merge` names it missing (exit 6), or with --allow-missing
// marks the merged report partial.
func (s *Spec) MergeScript(partial bool) string {
	script := "exec dbbench merge " + path.Join(s.RunDir(), "shard-*.json") + " --out " + s.MergedPath(partial)
	if partial {
		script += " --allow-missing"
	}
	return script
}

var (
	// dnsLabel is an RFC 1123 label (a namespace, an object that becomes a host name).
	dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	// dnsSubdomain is an RFC 1123 subdomain (a Secret, a claim, a storage class).
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	// configKey is what a ConfigMap key may be.
	configKey = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)
	// quantity is a Kubernetes resource quantity: a decimal number with a binary (Ki) or decimal (k,
	// M) suffix or an exponent (the API's own grammar, less the signs no size or CPU count takes).
	quantity = regexp.MustCompile(`^([0-9]+(\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][0-9]+)?$`)
	// envName is a variable name a container's env accepts (a C identifier).
	envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Check refuses a spec the API server would refuse, or that could not run as asked, naming the flag
// that gives the field.
func (s *Spec) Check() error {
	if s.Name == "" || len(s.Name) > MaxNameLen || !dnsLabel.MatchString(s.Name) {
		return fmt.Errorf("--name %q: want at most %d lower-case letters, digits and '-', starting and ending with a letter or digit", s.Name, MaxNameLen)
	}
	if s.Namespace != "" && (len(s.Namespace) > 63 || !dnsLabel.MatchString(s.Namespace)) {
		return fmt.Errorf("--namespace %q: want at most 63 lower-case letters, digits and '-'", s.Namespace)
	}
	if s.Image == "" || strings.ContainsAny(s.Image, " \t\r\n") {
		return fmt.Errorf("--image %q: want an image reference such as registry.example/dbbench:1.0", s.Image)
	}
	if s.Shards < 1 || s.Shards > MaxShards {
		return fmt.Errorf("--shards %d: want 1 to %d", s.Shards, MaxShards)
	}
	if s.Retries < 0 || s.Retries > MaxRetries {
		return fmt.Errorf("--retries %d: want 0 to %d", s.Retries, MaxRetries)
	}
	for _, f := range []struct{ flag, v string }{{"--secret", s.Secret}, {"--claim", s.Claim}, {"--storage-class", s.StorageClass}} {
		if f.v != "" && (len(f.v) > 253 || !dnsSubdomain.MatchString(f.v)) {
			return fmt.Errorf("%s %q: want a Kubernetes object name (lower-case letters, digits, '-' and '.')", f.flag, f.v)
		}
	}
	if s.Claim != "" && (s.StorageClass != "" || s.StorageSize != "") {
		return errors.New("--claim uses an existing claim: --storage-class and --storage-size do not apply to it")
	}
	for _, f := range []struct{ flag, v string }{{"--storage-size", s.StorageSize}, {"--cpu", s.CPU}, {"--memory", s.Memory}} {
		if f.v != "" && !quantity.MatchString(f.v) {
			return fmt.Errorf("%s %q: want a Kubernetes quantity such as 2, 500m, 4Gi", f.flag, f.v)
		}
	}
	if !configKey.MatchString(s.ConfigName) || len(s.ConfigName) > 253 {
		return fmt.Errorf("config file name %q cannot be a ConfigMap key", s.ConfigName)
	}
	if len(s.Config) > MaxConfigBytes {
		return fmt.Errorf("the config is %d bytes: a ConfigMap holds at most %d", len(s.Config), MaxConfigBytes)
	}
	if !utf8.Valid(s.Config) {
		return errors.New("the config is not UTF-8 text: a ConfigMap's data holds text")
	}
	if s.StartAt.IsZero() {
		return errors.New("no start time")
	}
	for _, e := range s.Env {
		if !envName.MatchString(e.Name) {
			return fmt.Errorf("variable %q cannot be passed to a container", e.Name)
		}
		if s.LoadOnce && e.Name == StartAtEnv {
			return fmt.Errorf("variable %s is the start time the run pods are given: rename it", e.Name)
		}
	}
	return nil
}

// ConfigFileName is the name a config gets in ConfigDir: its file's base name (a built-in config
// NAME: NAME.yaml), or config.yaml when that cannot be a ConfigMap key.
func ConfigFileName(ref string) string {
	base := path.Base(strings.ReplaceAll(ref, `\`, "/"))
	if !strings.HasSuffix(base, ".yaml") && !strings.HasSuffix(base, ".yml") {
		base += ".yaml"
	}
	if !configKey.MatchString(base) || len(base) > 253 {
		return "config.yaml"
	}
	return base
}

// DefaultName is the objects' name for a config's name: dbbench-NAME made a DNS label.
func DefaultName(configName string) string {
	var b strings.Builder
	b.WriteString("dbbench-")
	dash := true // no leading '-' after dbbench-'s own
	for _, r := range strings.ToLower(configName) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.TrimRight(b.String(), "-")
	if len(name) > MaxNameLen {
		name = strings.TrimRight(name[:MaxNameLen], "-")
	}
	return name
}

// Render writes the manifests as one multi-document YAML stream: the ConfigMap, the claim (unless
// an existing one is used), the run Job and the two suspended merge Jobs, after a comment that says
// how to use them.
func Render(s *Spec) ([]byte, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString(s.header())
	docs := []any{s.configMap()}
	if s.Claim == "" {
		docs = append(docs, s.claim())
	}
	if s.LoadOnce {
		docs = append(docs, s.loadJob())
	}
	docs = append(docs, s.runJob(), s.mergeJob(false), s.mergeJob(true))
	for _, d := range docs {
		buf.WriteString("---\n")
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(d); err != nil {
			return nil, err
		}
		if err := enc.Close(); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// header is the comment the stream opens with: what it runs and the steps after kubectl apply.
func (s *Spec) header() string {
	ns := ""
	if s.Namespace != "" {
		ns = " -n " + s.Namespace
	}
	apply := fmt.Sprintf("  kubectl%s apply -f THIS-FILE", ns)
	lines := []string{
		fmt.Sprintf("Rendered by dbbench kube: %s, %d shards of %s, starting at %s.", s.Name, s.Shards, s.ConfigName, s.StartAtText()),
		"Apply before the start time; then, as the README's \"Sharded runs on Kubernetes\" shows:",
		apply,
	}
	if s.LoadOnce { // the load first, then the run released with its start time
		lines = []string{
			fmt.Sprintf("Rendered by dbbench kube: %s, %d shards of %s on a store every shard shares, loaded once.", s.Name, s.Shards, s.ConfigName),
			"As the README's \"Sharded runs on Kubernetes\" shows:",
			apply,
			fmt.Sprintf("  kubectl%s wait --for=condition=complete --timeout=1h job/%s   # the marker: %s", ns, s.LoadJobName(), s.LoadedPath()),
			fmt.Sprintf("  kubectl%s patch job/%s --type=merge -p '{\"spec\":{\"suspend\":false,\"template\":{\"metadata\":{\"annotations\":{\"%s\":\"TIME\"}}}}}'", ns, s.Name, StartAtAnnotation),
			fmt.Sprintf("    TIME: when every shard starts, RFC 3339, e.g. a minute after the release; left as rendered (%s), a shard past it starts at once and reports itself late", s.StartAtText()),
		}
	}
	lines = append(lines,
		fmt.Sprintf("  wait until job/%s is Complete or Failed (every shard ended, with or without its report)", s.Name),
		fmt.Sprintf("  kubectl%s patch job/%s --type=merge -p '{\"spec\":{\"suspend\":false}}'", ns, s.MergeJobName()),
		fmt.Sprintf("  kubectl%s logs -f job/%s   # the merged summary; the report: %s", ns, s.MergeJobName(), s.MergedPath(false)),
		fmt.Sprintf("  exit 6, a shard missing: release job/%s the same way for a report marked partial", s.PartialJobName()),
	)
	return "# " + strings.Join(lines, "\n# ") + "\n"
}

// labels are every object's labels; component says which part of the run it is.
func (s *Spec) labels(component string) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":      "dbbench",
		"app.kubernetes.io/instance":  s.Name,
		"app.kubernetes.io/component": component,
	}
}

func (s *Spec) meta(name, component string) objectMeta {
	return objectMeta{Name: name, Namespace: s.Namespace, Labels: s.labels(component)}
}

func (s *Spec) configMap() configMap {
	return configMap{
		APIVersion: "v1", Kind: "ConfigMap", Metadata: s.meta(s.ConfigMapName(), "config"),
		// Immutable: the pods run the bytes that were validated, whatever happens to the cluster's
		// copy while they run.
		Immutable: true,
		Data:      map[string]string{s.ConfigName: string(s.Config)},
	}
}

func (s *Spec) claim() persistentVolumeClaim {
	return persistentVolumeClaim{
		APIVersion: "v1", Kind: "PersistentVolumeClaim", Metadata: s.meta(s.ClaimName(), "reports"),
		Spec: claimSpec{
			// Every shard's pod, on whichever node, writes its report there, and the merge reads them all.
			AccessModes:      []string{"ReadWriteMany"},
			StorageClassName: s.StorageClass,
			Resources:        resourceRequirements{Requests: map[string]string{"storage": cmp.Or(s.StorageSize, DefaultStorageSize)}},
		},
	}
}

func (s *Spec) reportsVolume() volume {
	return volume{Name: "reports", PersistentVolumeClaim: &claimSource{ClaimName: s.ClaimName()}}
}

// dbbenchContainer is a container running dbbench on the config: its variables, the Secret, the
// config's and the reports' mounts (the run's and the load's, so that both run what was validated).
func (s *Spec) dbbenchContainer(name string) container {
	c := container{
		Name: name, Image: s.Image,
		VolumeMounts: []volumeMount{
			{Name: "config", MountPath: ConfigDir, ReadOnly: true},
			{Name: "reports", MountPath: ReportsDir},
		},
	}
	for _, e := range s.Env {
		c.Env = append(c.Env, envVar{Name: e.Name, Value: e.Value})
	}
	if s.Secret != "" {
		c.EnvFrom = []envFromSource{{SecretRef: &secretEnvSource{Name: s.Secret}}}
	}
	return c
}

// dbbenchVolumes are the volumes dbbenchContainer mounts.
func (s *Spec) dbbenchVolumes() []volume {
	return []volume{
		{Name: "config", ConfigMap: &configMapSource{Name: s.ConfigMapName()}},
		s.reportsVolume(),
	}
}

func (s *Spec) runJob() job {
	n := int32(s.Shards)
	retries := int32(s.Retries)
	c := s.dbbenchContainer(Container)
	c.Command, c.Args = []string{"dbbench"}, s.RunArgs()
	meta := templateMeta{Labels: s.labels("run")}
	var suspend *bool
	if s.LoadOnce {
		// Released by hand once the load has completed, with the start time then chosen (a time
		// fixed now would be late by however long the load takes).
		suspend = new(bool)
		*suspend = true
		meta.Annotations = map[string]string{StartAtAnnotation: s.StartAtText()}
		c.Env = append([]envVar{{Name: StartAtEnv, ValueFrom: &envVarSource{
			FieldRef: &fieldSelector{FieldPath: "metadata.annotations['" + StartAtAnnotation + "']"},
		}}}, c.Env...)
	}
	if s.CPU != "" || s.Memory != "" {
		r := map[string]string{}
		if s.CPU != "" {
			r["cpu"] = s.CPU
		}
		if s.Memory != "" {
			r["memory"] = s.Memory
		}
		c.Resources = &resourceRequirements{Requests: r, Limits: r}
	}
	labels := meta.Labels
	return job{
		APIVersion: "batch/v1", Kind: "Job", Metadata: s.meta(s.Name, "run"),
		Spec: jobSpec{
			Suspend:        suspend,
			CompletionMode: "Indexed", Completions: &n, Parallelism: &n,
			BackoffLimitPerIndex: &retries,
			PodFailurePolicy: &podFailurePolicy{Rules: []podFailurePolicyRule{
				{Action: "FailJob", OnExitCodes: &exitCodesRequirement{ContainerName: Container, Operator: "In", Values: usageExits}},
				{Action: "FailIndex", OnExitCodes: &exitCodesRequirement{ContainerName: Container, Operator: "In", Values: reportedExits}},
				// A pod evicted or preempted is replaced without counting as a failure: the new one
				// starts late, and its report says by how much.
				{Action: "Ignore", OnPodConditions: []podConditionPattern{{Type: "DisruptionTarget", Status: "True"}}},
			}},
			Template: podTemplate{
				Metadata: meta,
				Spec: podSpec{
					RestartPolicy: "Never",
					// One shard per node where the cluster allows it: shards exist to use more than
					// one machine.
					TopologySpreadConstraints: []topologySpreadConstraint{{
						MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: "ScheduleAnyway",
						LabelSelector: &labelSelector{MatchLabels: labels},
					}},
					Containers: []container{c},
					Volumes:    s.dbbenchVolumes(),
				},
			},
		},
	}
}

// loadJob loads the shared store once and writes the marker the shards check: one pod, one attempt
// (a load that failed half-way is for the user to read, and `run --load-only` refuses to replace a
// marker), the run pods' image, variables, Secret and mounts.
func (s *Spec) loadJob() job {
	none := int32(0)
	c := s.dbbenchContainer(LoadContainer)
	c.Command = []string{"/bin/sh", "-c", s.LoadScript()}
	return job{
		APIVersion: "batch/v1", Kind: "Job", Metadata: s.meta(s.LoadJobName(), "load"),
		Spec: jobSpec{
			BackoffLimit: &none,
			Template: podTemplate{
				Metadata: templateMeta{Labels: s.labels("load")},
				Spec: podSpec{
					RestartPolicy: "Never",
					Containers:    []container{c},
					Volumes:       s.dbbenchVolumes(),
				},
			},
		},
	}
}

// mergeJob is a suspended Job that merges the shards' reports, allowing missing ones when partial.
func (s *Spec) mergeJob(partial bool) job {
	none := int32(0)
	suspend := true
	name := s.MergeJobName()
	if partial {
		name = s.PartialJobName()
	}
	return job{
		APIVersion: "batch/v1", Kind: "Job", Metadata: s.meta(name, "merge"),
		Spec: jobSpec{
			// Released by hand (kubectl patch) once the run Job has ended: waiting is kubectl's, not a
			// coordinator's.
			Suspend: &suspend,
			// Merge's exit code is the verdict (1 failed, 4 inconclusive, 6 a shard missing): one
			// attempt, never a retry that would find its own merged report in the way.
			BackoffLimit: &none,
			Template: podTemplate{
				Metadata: templateMeta{Labels: s.labels("merge")},
				Spec: podSpec{
					RestartPolicy: "Never",
					Containers: []container{{
						Name: MergeContainer, Image: s.Image,
						Command:      []string{"/bin/sh", "-c", s.MergeScript(partial)},
						VolumeMounts: []volumeMount{{Name: "reports", MountPath: ReportsDir}},
					}},
					Volumes: []volume{s.reportsVolume()},
				},
			},
		},
	}
}

// EnvFor decides how each variable a config references (names: its ${NAME}s) reaches the pods, so
// that they run what was validated here without a secret in clear in the manifests. lookup is the
// environment the config was validated in, holdsSecret says whether a value holds one of the run's
// secrets.
//   - unset here: nothing (the pods see it unset too, unless the Secret has it);
//   - set to a value that holds a secret: from the Secret, which must then be given;
//   - set to anything else: as a plain value, which takes precedence over the Secret's keys.
func EnvFor(names []string, lookup func(string) (string, bool), holdsSecret func(string) bool, secret string) ([]EnvVar, error) {
	var env []EnvVar
	for _, name := range names {
		v, ok := lookup(name)
		if !ok || v == "" { // as ${NAME} reads it: empty is unset
			continue
		}
		if holdsSecret(v) {
			if secret == "" {
				return nil, fmt.Errorf("${%s} holds a secret, which the manifests never hold: create a Secret with the key %s and give it with --secret NAME", name, name)
			}
			continue
		}
		env = append(env, EnvVar{Name: name, Value: v})
	}
	slices.SortFunc(env, func(a, b EnvVar) int { return strings.Compare(a.Name, b.Name) })
	return env, nil
}

// SecretLine returns the first line (from 1) of a config that holds a secret in clear (redact says
// where: a line it changes), or 0 when none does. A secret spread over lines counts as line 1.
func SecretLine(config []byte, redact func(string) string) int {
	for i, l := range strings.Split(string(config), "\n") {
		if redact(l) != l {
			return i + 1
		}
	}
	if redact(string(config)) != string(config) {
		return 1
	}
	return 0
}

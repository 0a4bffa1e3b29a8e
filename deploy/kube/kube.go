// Package kube renders the Kubernetes manifests of a sharded run (issues 21 and 38,
// docs/kubernetes.md): a ConfigMap holding the config's bytes, a ReadWriteMany claim for the
// reports, an Indexed Job whose N pods each run one shard of `dbbench run` from one start time, and
// two Jobs that merge their reports: one that fails naming a missing shard, one that merges what
// there is into a report marked partial. A config whose store is on a server every shard shares
// (LoadOnce) gets a Job that loads it once first. Kubernetes runs the N copies, numbers them
// (JOB_COMPLETION_INDEX) and replaces a failed one; dbbench adds no coordinator of its own.
//
// Every pod meets Pod Security's "restricted" level, asks for the resources its work needs (with
// limits, so that a namespace's compute quota admits it), and every Job ends by itself: a deadline
// from what the config asks (sizing.go), and a time to live once finished.
//
// The manifests are rendered from small structs of this package (the few fields dbbench sets, in
// the API's field names) with the YAML encoder dbbench already uses, not from k8s.io/api's types:
// those would add the Kubernetes API machinery to every dbbench binary for a command that prints
// text. The tests decode every rendering strictly into k8s.io/api's types (an unknown or misspelt
// field fails them) and run Pod Security's own evaluator on every pod template; k8s.io/api and
// k8s.io/pod-security-admission are test dependencies only. .ci/kube-check applies the renderings
// to a real API server.
//
// Rendering never runs anything and imports no adapter or engine: the manifests describe what
// another machine will run.
package kube

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
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
	// ScratchDir is the pods' one writable directory besides the reports: an emptyDir that is
	// TMPDIR and HOME (the root file system is read-only), for the stores' files and the caches of
	// `go run` and npm clients.
	ScratchDir = "/tmp"
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

// The user and group every container runs as: not root (Pod Security "restricted"), numeric so
// that the kubelet can check it without reading the image, the distroless images' "nonroot".
const (
	RunAsUser  = 65532
	RunAsGroup = 65532
)

// Limits the API server enforces, checked here so that a rendering it would refuse is refused now.
const (
	// MaxShards is the most completions an Indexed Job with a per-index backoff limit may have.
	MaxShards = 100_000
	// MaxConfigBytes is the most a ConfigMap may hold (its whole object, so the config must leave
	// room for the rest).
	MaxConfigBytes = 1<<20 - 16<<10
	// MaxNameLen keeps NAME-RUNID-merge-partial and the pods' host names NAME-RUNID-INDEX within
	// the API's 63-character labels (a Job's name is its pods' job-name label).
	MaxNameLen = 63 - len("-merge-partial") - 1 - RunIDLen
	// MaxRetries bounds the retries of one shard: each retry starts later than the others.
	MaxRetries = 10
	// RunIDLen is the length of the run id the objects of one rendering carry.
	RunIDLen = 6
	// ServiceRetries is how often the load and a merge are retried after a failure that a retry
	// can mend (exit 3, a pod killed): a server not reachable yet, a node lost.
	ServiceRetries = 2
)

// DefaultStorageSize is the reports' claim's size: a report is tens of KiB to a few MiB.
const DefaultStorageSize = "1Gi"

// Exit codes the pod failure policies sort.
var (
	// usageExits fail the whole Job: a config or flag problem is the same on every shard.
	usageExits = []int32{exitcode.Usage}
	// reportedExits end an index without a retry: the shard finished and wrote its report (an
	// assertion failed, the verdict was inconclusive, the generator could not keep its schedule);
	// its verdict is the merge's to decide, and a retry would run its share twice.
	reportedExits = []int32{exitcode.Failed, exitcode.Inconclusive, exitcode.GeneratorSaturated}
	// verdictExits end a merge without a retry: its verdict (1, 4, 5), a shard missing (6) or a
	// usage error (2) is the same on every attempt.
	verdictExits = []int32{exitcode.Failed, exitcode.Usage, exitcode.Inconclusive, exitcode.GeneratorSaturated, exitcode.MissingShards}
)

// Spec is one rendering: a validated config and how to run it on a cluster.
type Spec struct {
	// Name is the objects' base name: every object of one rendering is NAME-RUNID (NAME-RUNID-merge,
	// -merge-partial, -load, -config), so that rendering again makes new Jobs beside the old, and
	// the claim NAME-reports is every rendering's. Pinned names the objects NAME itself (--name).
	Name   string
	Pinned bool
	// Namespace is every object's ("" : kubectl's current namespace).
	Namespace string
	Image     string // an image with dbbench on its PATH (and /bin/sh, for the merge's glob)
	// ConfigName is the config's file name in ConfigDir (the ConfigMap's key); Config its bytes.
	ConfigName string
	Config     []byte
	// Files are the files the config reads besides itself (a sql workload's scripts), shipped in
	// the ConfigMap and mounted at their paths relative to the config in ConfigDir. None leave
	// RunID's hash as it was before files were shipped.
	Files  []File `json:",omitempty"`
	CI     bool   // the pods run the config's CI form (run --ci)
	Shards int
	// Now is when the rendering was made: the deadlines count the wait for StartAt from it.
	Now time.Time
	// StartAt is when every shard starts its first timed operation: computed once, when rendering.
	// With LoadOnce it is only the default of the run Job's StartAtAnnotation, which the release
	// replaces with a time after the load; with LoadOnce and NoSuspend, see Lead.
	StartAt time.Time
	// LoadOnce says the config has a target on a server every shard shares (the commands decide,
	// as the run does): a Job NAME-load loads it once and writes the marker LoadedPath, every shard
	// checks it with --loaded, and the run Job starts suspended until the load has completed.
	LoadOnce bool
	// NoSuspend renders no suspended Job, for GitOps tools and Kueue, which own a Job's spec and its
	// suspension: with LoadOnce the shards wait for the load and start Lead after it (or at StartAt
	// when Lead is 0), and the merges wait for every shard's report or the run's deadline.
	NoSuspend bool
	Lead      time.Duration
	// Retries is how often one shard may be retried after a failure that wrote no report (a lost
	// node, exit 3); 0 fails the index at once, and the merge names it missing.
	Retries int
	// The reports: a new ReadWriteMany claim of StorageSize ("": DefaultStorageSize) of StorageClass,
	// or of the cluster's default class when RWXDefault says it offers ReadWriteMany; or the
	// existing claim Claim.
	StorageClass string
	StorageSize  string
	Claim        string
	RWXDefault   bool
	// Secret is a Secret whose keys become the pods' environment ("" none): the config's ${NAME}s
	// that hold secrets, and what adapters read themselves (PGPASSWORD, TYPEDB_PASSWORD).
	Secret string
	// Env are the config's variables set where it was validated, passed to the pods as they were so
	// that the pods run what was validated (Env, not Secret: EnvFor decides).
	Env []EnvVar
	// Work is what the config asks (sizing.go); Resources override the run pods' formulas.
	Work      Work
	Resources Resources
	// Deadline overrides the run Job's deadline (0: RunDeadline's formula); TTL is how long a
	// finished Job stays (0: DefaultTTL).
	Deadline time.Duration
	TTL      time.Duration
	// NodeSelector and Tolerations place every pod (--node-selector, --toleration).
	NodeSelector map[string]string
	Tolerations  []Toleration

	id string // RunID, once computed
}

// EnvVar is one variable the pods get as a plain value.
type EnvVar struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
}

// RunID is the rendering's short id: the first hex digits of a hash of everything it renders
// (the config, the flags, the time it was made), so that one rendering always yields the same
// names, and another rendering of the same config new ones.
func (s *Spec) RunID() string {
	if s.id == "" {
		c := *s
		c.id = ""
		b, _ := json.Marshal(c) // a struct of strings, numbers, times and slices: never fails
		sum := sha256.Sum256(b)
		s.id = hex.EncodeToString(sum[:])[:RunIDLen]
	}
	return s.id
}

// RunName names the Jobs and the ConfigMap: NAME-RUNID, or NAME when pinned.
func (s *Spec) RunName() string {
	if s.Pinned {
		return s.Name
	}
	return s.Name + "-" + s.RunID()
}

// Names of the objects a spec renders.
func (s *Spec) ConfigMapName() string { return s.RunName() + "-config" }
func (s *Spec) MergeJobName() string  { return s.RunName() + "-merge" }
func (s *Spec) LoadJobName() string   { return s.RunName() + "-load" }

// PartialJobName is the merge Job that goes on without missing shards.
func (s *Spec) PartialJobName() string { return s.RunName() + "-merge-partial" }

// ClaimName is the claim the reports go to: the one given, or NAME-reports, every rendering's.
func (s *Spec) ClaimName() string {
	if s.Claim != "" {
		return s.Claim
	}
	return s.Name + "-reports"
}

// RunDir is where this rendering's reports go on the claim: one directory per rendering (its start
// time and id), so that rendering again never writes over an earlier run's reports, while a
// retried shard of this run replaces what its failed attempt left.
func (s *Spec) RunDir() string {
	return path.Join(ReportsDir, s.StartAt.UTC().Format("20060102T150405Z")+"-"+s.RunID())
}

// ConfigPath is the config as the pods read it.
func (s *Spec) ConfigPath() string { return path.Join(ConfigDir, s.ConfigName) }

// StartAtText is StartAt as `dbbench run --start-at` takes it (RFC 3339, UTC).
func (s *Spec) StartAtText() string { return s.StartAt.UTC().Format(time.RFC3339Nano) }

// LoadedPath is the load-once marker on the claim: the load Job writes it, every shard checks it.
func (s *Spec) LoadedPath() string { return path.Join(s.RunDir(), "loaded.json") }

// StartPath is, with LoadOnce and NoSuspend, the file the load writes after its marker: the start
// time as Unix seconds and as RFC 3339, which the shards wait for and start at.
func (s *Spec) StartPath() string { return path.Join(s.RunDir(), "start-at") }

// waitsForLoad says whether the shards wait for the load's start file (LoadOnce, NoSuspend).
func (s *Spec) waitsForLoad() bool { return s.LoadOnce && s.NoSuspend }

// runBase is `dbbench run` on the config, as every pod of a rendering reads it.
func (s *Spec) runBase() []string {
	args := []string{"run", "-c", s.ConfigPath()}
	if s.CI {
		args = append(args, "--ci")
	}
	return args
}

// RunArgs is the command line of every run pod; Kubernetes replaces $(JOB_COMPLETION_INDEX) with the
// pod's index, and $(DBBENCH_START_AT) with the start time the release set (a shard waiting for the
// load's start file reads it into the shell's $at). --force lets a retried shard replace what its
// failed attempt left at its own path (never anything else: run --force replaces only dbbench
// reports and reservations).
func (s *Spec) RunArgs() []string {
	start := s.StartAtText()
	switch {
	case s.waitsForLoad():
		start = `"$at"`
	case s.LoadOnce:
		start = "$(" + StartAtEnv + ")"
	}
	args := append(s.runBase(), "--shards", strconv.Itoa(s.Shards), "--start-at", start)
	if s.LoadOnce {
		args = append(args, "--loaded", s.LoadedPath())
	}
	return append(args, "--out", path.Join(s.RunDir(), "shard-$(JOB_COMPLETION_INDEX).json"), "--force")
}

// The shell scripts below use backquotes, never $( ): Kubernetes expands $(NAME) in a container's
// command before the shell sees it.

// RunScript is a run pod's shell command when it waits for the load (waitsForLoad): until the start
// file is there, then dbbench at the time it holds.
func (s *Spec) RunScript() string {
	return "until [ -s " + s.StartPath() + " ]; do sleep 5; done; read -r epoch at < " + s.StartPath() +
		"; exec dbbench " + strings.Join(s.RunArgs(), " ")
}

// LoadScript is the load pod's shell command: the run's directory is made first (the marker's
// writer makes none), and no --force: an earlier load's marker is never replaced. With NoSuspend
// it then writes the start file: the load's end plus Lead, or StartAt when Lead is 0 (written to
// a temporary name first, so that a shard never reads half of it).
func (s *Spec) LoadScript() string {
	load := "mkdir -p " + s.RunDir() + " && exec dbbench " + strings.Join(s.runBase(), " ") + " --load-only --loaded " + s.LoadedPath()
	if !s.waitsForLoad() {
		return load
	}
	load = strings.Replace(load, "exec dbbench", "dbbench", 1)
	stamp := fmt.Sprintf("t=%d && at=%s", s.StartAt.Unix(), s.StartAtText())
	if s.Lead > 0 {
		stamp = fmt.Sprintf("t=`date -u +%%s` && t=`expr $t + %d` && at=`date -u -d @$t +%%Y-%%m-%%dT%%H:%%M:%%SZ`", int64(s.Lead/time.Second))
	}
	return load + " && " + stamp + ` && echo "$t $at" > ` + s.StartPath() + ".tmp && mv " + s.StartPath() + ".tmp " + s.StartPath()
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
// marks the merged report partial. --force lets a retried merge replace its own earlier output
// (merge --force replaces only an earlier dbbench report or a reservation at --out, never a shard's
// report). With NoSuspend the merge first waits until every shard has written its report (a file
// of more than 1 KiB: a reservation is a few hundred bytes) or the run's deadline has passed.
func (s *Spec) MergeScript(partial bool) string {
	script := "exec dbbench merge " + path.Join(s.RunDir(), "shard-*.json") + " --out " + s.MergedPath(partial) + " --force"
	if partial {
		script += " --allow-missing"
	}
	if !s.NoSuspend {
		return script
	}
	after := int64(s.runAfterStart() / time.Second)
	end := fmt.Sprintf("end=%d; ", s.StartAt.Unix()+after)
	if s.waitsForLoad() {
		end = "until [ -s " + s.StartPath() + " ]; do sleep 10; done; read -r start at < " + s.StartPath() +
			fmt.Sprintf("; end=`expr $start + %d`; ", after)
	}
	count := "`find " + s.RunDir() + " -maxdepth 1 -name 'shard-*.json' -size +1k 2>/dev/null | wc -l`"
	return end + "while [ " + count + " -lt " + strconv.Itoa(s.Shards) + " ] && [ `date -u +%s` -lt $end ]; do sleep 10; done; " + script
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
	// labelName is a label's or a taint's key: an optional DNS-subdomain prefix and '/', then a
	// name of at most 63 alphanumerics, '-', '_' and '.', starting and ending alphanumeric.
	labelName = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`)
	// labelValue is a label's or a taint's value: empty, or as a name without a prefix.
	labelValue = regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$`)
)

// TaintEffects are the effects a toleration may name ("" : every effect).
var TaintEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}

// reservedEnv are the variables the pods set themselves.
var reservedEnv = []string{"HOME", "TMPDIR"}

// StorageChoice is the refusal of a rendering that says nothing of the reports' storage.
const StorageChoice = "the reports need a ReadWriteMany volume, which the usual default storage classes (EBS, PD, Azure Disk, local-path) do not offer: give --storage-class CLASS (an NFS, CephFS or cloud file share class), --claim NAME (an existing claim), or --rwx-default (the cluster's default class offers ReadWriteMany)"

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
		return fmt.Errorf("--image %q: want an image reference such as registry.example/dbbench@sha256:DIGEST", s.Image)
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
	switch {
	case s.Claim != "" && (s.StorageClass != "" || s.StorageSize != "" || s.RWXDefault):
		return errors.New("--claim uses an existing claim: --storage-class, --storage-size and --rwx-default do not apply to it")
	case s.RWXDefault && s.StorageClass != "":
		return errors.New("--rwx-default says the cluster's default class offers ReadWriteMany: it does not combine with --storage-class")
	case s.Claim == "" && s.StorageClass == "" && !s.RWXDefault:
		return errors.New(StorageChoice)
	}
	for _, f := range []struct{ flag, v string }{{"--storage-size", s.StorageSize}, {"--cpu", s.Resources.CPU},
		{"--memory", s.Resources.Memory}, {"--ephemeral-storage", s.Resources.EphemeralStorage}} {
		if f.v != "" && !quantity.MatchString(f.v) {
			return fmt.Errorf("%s %q: want a Kubernetes quantity such as 2, 500m, 4Gi", f.flag, f.v)
		}
	}
	if s.Deadline < 0 || s.TTL < 0 || s.Lead < 0 {
		return fmt.Errorf("--deadline %s, --ttl %s, --start-in %s: want positive durations", s.Deadline, s.TTL, s.Lead)
	}
	for _, k := range slices.Sorted(maps.Keys(s.NodeSelector)) {
		if v := s.NodeSelector[k]; !isLabelName(k) || !isLabelValue(v) {
			return fmt.Errorf("--node-selector %s=%s: want a label's KEY=VALUE (KEY: [PREFIX/]NAME, VALUE: at most 63 letters, digits, '-', '_' and '.')", k, v)
		}
	}
	for _, t := range s.Tolerations {
		if !isLabelName(t.Key) || !isLabelValue(t.Value) || t.Effect != "" && !slices.Contains(TaintEffects, t.Effect) ||
			t.Operator != "Exists" && t.Operator != "Equal" || t.Operator == "Exists" && t.Value != "" {
			return fmt.Errorf("--toleration %s: want KEY[=VALUE][:EFFECT], EFFECT one of %s", t, strings.Join(TaintEffects, ", "))
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
	total := len(s.Config)
	for _, f := range s.Files {
		if !fs.ValidPath(f.Path) || f.Path == "." || f.Path == s.ConfigName {
			return fmt.Errorf("file %s: the pods find the files a config reads beside it: give a path relative to the config, inside its directory (or the script's text as script_text)", f.Path)
		}
		if !utf8.Valid(f.Data) {
			return fmt.Errorf("file %s is not UTF-8 text: a ConfigMap's data holds text", f.Path)
		}
		if total += len(f.Data); total > MaxConfigBytes {
			return fmt.Errorf("the config and the files it reads are %d bytes or more: a ConfigMap holds at most %d", total, MaxConfigBytes)
		}
	}
	if s.StartAt.IsZero() || s.Now.IsZero() {
		return errors.New("no start time")
	}
	for _, e := range s.Env {
		if !envName.MatchString(e.Name) {
			return fmt.Errorf("variable %q cannot be passed to a container", e.Name)
		}
		if s.LoadOnce && e.Name == StartAtEnv {
			return fmt.Errorf("variable %s is the start time the run pods are given: rename it", e.Name)
		}
		if slices.Contains(reservedEnv, e.Name) {
			return fmt.Errorf("variable %s is %s in the pods (their one writable directory: the root file system is read-only); the config cannot be given its value from here", e.Name, ScratchDir)
		}
	}
	return nil
}

func isLabelName(k string) bool {
	prefix, name, ok := strings.Cut(k, "/")
	if !ok {
		prefix, name = "", k
	}
	return labelName.MatchString(k) && len(name) <= 63 && len(prefix) <= 253
}

func isLabelValue(v string) bool { return len(v) <= 63 && labelValue.MatchString(v) }

// String is a toleration as --toleration takes it.
func (t Toleration) String() string {
	s := t.Key
	if t.Value != "" || t.Operator == "Equal" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + t.Effect
	}
	return s
}

// ParseToleration reads --toleration KEY[=VALUE][:EFFECT]: with a value the key must hold it
// (Equal), without one any value does (Exists); without an effect every effect is tolerated.
func ParseToleration(v string) (Toleration, error) {
	t := Toleration{Operator: "Exists"}
	rest, effect, hasEffect := strings.Cut(v, ":")
	if hasEffect {
		t.Effect = effect
	}
	key, value, hasValue := strings.Cut(rest, "=")
	t.Key = key
	if hasValue {
		t.Operator, t.Value = "Equal", value
	}
	if !isLabelName(t.Key) || !isLabelValue(t.Value) || hasEffect && !slices.Contains(TaintEffects, t.Effect) {
		return t, fmt.Errorf("--toleration %q: want KEY[=VALUE][:EFFECT], EFFECT one of %s", v, strings.Join(TaintEffects, ", "))
	}
	return t, nil
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

// DefaultName is the objects' base name for a config's name: dbbench-NAME made a DNS label.
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

// ImageByDigest says whether the image names one build (IMAGE@sha256:...): a tag may point to
// another push on each node that pulls it, and the merge refuses shards of mixed builds.
func (s *Spec) ImageByDigest() bool { return strings.Contains(s.Image, "@sha256:") }

// imageVersion is the app.kubernetes.io/version label for an image: its digest's first 12 hex
// digits (sha256-0123456789ab), else its tag, else nothing.
func imageVersion(image string) string {
	if _, digest, ok := strings.Cut(image, "@sha256:"); ok {
		return "sha256-" + digest[:min(12, len(digest))]
	}
	name := image[strings.LastIndex(image, "/")+1:]
	if i := strings.LastIndex(name, ":"); i >= 0 {
		tag := name[i+1:]
		if len(tag) > 63 {
			tag = tag[:63]
		}
		if tag = strings.TrimRight(tag, "-_."); isLabelValue(tag) {
			return tag
		}
	}
	return ""
}

// Render writes the manifests as one multi-document YAML stream: the ConfigMap, the claim (unless
// an existing one is used), the load Job (LoadOnce), the run Job and the two merge Jobs, after a
// comment that says how to use them.
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
	what := fmt.Sprintf("Rendered by dbbench kube: run %s, %d shards of %s", s.RunName(), s.Shards, s.ConfigName)
	lines := []string{what + fmt.Sprintf(", starting at %s; reports in %s on claim %s.", s.StartAtText(), s.RunDir(), s.ClaimName())}
	if s.LoadOnce {
		lines = []string{what + fmt.Sprintf(" on a store every shard shares, loaded once; reports in %s on claim %s.", s.RunDir(), s.ClaimName())}
	}
	lines = append(lines, fmt.Sprintf("Deadlines: run %s, merges %s%s; finished Jobs are deleted after %s. docs/kubernetes.md says more.",
		describe(s.RunDeadline()), describe(s.MergeDeadline()), cond(s.LoadOnce, ", load "+describe(s.LoadDeadline())), describe(s.finishedTTL())))
	apply := fmt.Sprintf("  kubectl%s apply -f THIS-FILE", ns)
	ended := fmt.Sprintf("  the run has ended when job/%s is Complete or Failed (every shard ended, with or without its report)", s.RunName())
	merged := []string{
		fmt.Sprintf("  kubectl%s logs -f job/%s   # the merged summary; the report: %s", ns, s.MergeJobName(), s.MergedPath(false)),
	}
	if s.NoSuspend {
		start := fmt.Sprintf("Nothing to release: the shards start at %s (apply before it),", s.StartAtText())
		if s.waitsForLoad() {
			start = fmt.Sprintf("Nothing to release: the shards start %s after job/%s has loaded the store,", describe(s.Lead), s.LoadJobName())
			if s.Lead == 0 {
				start = fmt.Sprintf("Nothing to release: the shards start at %s once job/%s has loaded the store,", s.StartAtText(), s.LoadJobName())
			}
		}
		lines = append(lines, start, "and both merges run once every shard has written its report or the run's deadline has passed:", apply)
		lines = append(lines, merged...)
		lines = append(lines, fmt.Sprintf("  exit 6, a shard missing: job/%s's report is marked partial: %s", s.PartialJobName(), s.MergedPath(true)))
		return "# " + strings.Join(lines, "\n# ") + "\n"
	}
	if s.LoadOnce { // the load first, then the run released with its start time
		lines = append(lines, apply,
			fmt.Sprintf("  kubectl%s wait --for=condition=complete --timeout=%s job/%s   # the marker: %s", ns, describe(s.LoadDeadline()), s.LoadJobName(), s.LoadedPath()),
			fmt.Sprintf("  kubectl%s patch job/%s --type=merge -p '{\"spec\":{\"suspend\":false,\"template\":{\"metadata\":{\"annotations\":{\"%s\":\"TIME\"}}}}}'", ns, s.RunName(), StartAtAnnotation),
			fmt.Sprintf("    TIME: when every shard starts, RFC 3339, at most %s after the release; left as rendered (%s), a shard past it starts at once and reports itself late", describe(s.StartAt.Sub(s.Now)), s.StartAtText()),
		)
	} else {
		lines = append(lines, "Apply before the start time; then:", apply)
	}
	lines = append(lines, ended,
		fmt.Sprintf("  kubectl%s patch job/%s --type=merge -p '{\"spec\":{\"suspend\":false}}'", ns, s.MergeJobName()))
	lines = append(lines, merged...)
	lines = append(lines, fmt.Sprintf("  exit 6, a shard missing: release job/%s the same way for a report marked partial; delete the merge Jobs you do not release", s.PartialJobName()))
	return "# " + strings.Join(lines, "\n# ") + "\n"
}

// finishedTTL is the finished Jobs' time to live as rendered.
func (s *Spec) finishedTTL() time.Duration { return time.Duration(*s.ttl()) * time.Second }

func cond(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

// labels are every object's labels (the recommended app.kubernetes.io set): instance is the
// rendering (RunName; the claim, every rendering's, has NAME), part-of the config's objects across
// renderings (NAME), component which part of the run the object is.
func (s *Spec) labels(component string) map[string]string {
	l := map[string]string{
		"app.kubernetes.io/name":       "dbbench",
		"app.kubernetes.io/instance":   s.RunName(),
		"app.kubernetes.io/component":  component,
		"app.kubernetes.io/part-of":    s.Name,
		"app.kubernetes.io/managed-by": "dbbench",
	}
	if component == "reports" {
		l["app.kubernetes.io/instance"] = s.Name
	}
	if v := imageVersion(s.Image); v != "" {
		l["app.kubernetes.io/version"] = v
	}
	return l
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
		Data:      s.configData(),
	}
}

// File is a file a config reads, at Path relative to it (slash-separated, inside its directory).
type File struct {
	Path string
	Data []byte
}

// fileKey is the ConfigMap key of Files[i]: a key may not hold the path's slashes.
func fileKey(i int) string { return fmt.Sprintf("file-%d", i+1) }

func (s *Spec) configData() map[string]string {
	data := map[string]string{s.ConfigName: string(s.Config)}
	for i, f := range s.Files {
		data[fileKey(i)] = string(f.Data)
	}
	return data
}

// configItems places the config and its files in ConfigDir (none: the config alone, by its key).
func (s *Spec) configItems() []keyToPath {
	if len(s.Files) == 0 {
		return nil
	}
	items := []keyToPath{{Key: s.ConfigName, Path: s.ConfigName}}
	for i, f := range s.Files {
		items = append(items, keyToPath{Key: fileKey(i), Path: f.Path})
	}
	return items
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

// container is a container of the image that writes only to the reports and to the scratch
// directory: Pod Security "restricted" (no privilege escalation, every capability dropped) and a
// read-only root file system, with TMPDIR and HOME in the scratch directory.
func (s *Spec) container(name string, r Resources) container {
	return container{
		Name: name, Image: s.Image,
		Env:             []envVar{{Name: "HOME", Value: ScratchDir}, {Name: "TMPDIR", Value: ScratchDir}},
		Resources:       r.requirements(),
		SecurityContext: securityContext{Capabilities: capabilities{Drop: []string{"ALL"}}, ReadOnlyRootFilesystem: true},
		VolumeMounts: []volumeMount{
			{Name: "reports", MountPath: ReportsDir},
			{Name: "scratch", MountPath: ScratchDir},
		},
	}
}

// dbbenchContainer is a container running dbbench on the config: its variables, the Secret, the
// config's mount besides the reports' (the run's and the load's, so that both run what was validated).
func (s *Spec) dbbenchContainer(name string, r Resources) container {
	c := s.container(name, r)
	c.VolumeMounts = append([]volumeMount{{Name: "config", MountPath: ConfigDir, ReadOnly: true}}, c.VolumeMounts...)
	for _, e := range s.Env {
		c.Env = append(c.Env, envVar{Name: e.Name, Value: e.Value})
	}
	if s.Secret != "" {
		c.EnvFrom = []envFromSource{{SecretRef: &secretEnvSource{Name: s.Secret}}}
	}
	return c
}

// podSpec is every pod's: never restarted in place (the Job replaces a failed pod, as its failure
// policy says), no service account token (dbbench never calls the API) nor service variables (the
// config's ${NAME}s are the only variables it reads), a user that is not root, the runtime's
// default seccomp profile, placed as --node-selector and --toleration say, with the scratch volume.
func (s *Spec) podSpec(c container, volumes ...volume) podSpec {
	return podSpec{
		RestartPolicy: "Never",
		SecurityContext: podSecurityContext{
			RunAsNonRoot: true, RunAsUser: RunAsUser, RunAsGroup: RunAsGroup,
			FSGroup:        RunAsGroup, // the claim's files are the group's, whichever pod wrote them
			SeccompProfile: seccompProfile{Type: "RuntimeDefault"},
		},
		NodeSelector: s.NodeSelector,
		Tolerations:  s.Tolerations,
		Containers:   []container{c},
		Volumes:      append(volumes, volume{Name: "scratch", EmptyDir: &emptyDirSource{}}),
	}
}

// dbbenchVolumes are the volumes dbbenchContainer mounts, less the scratch one (podSpec's).
func (s *Spec) dbbenchVolumes() []volume {
	return []volume{
		{Name: "config", ConfigMap: &configMapSource{Name: s.ConfigMapName(), Items: s.configItems()}},
		s.reportsVolume(),
	}
}

func (s *Spec) runJob() job {
	n := int32(s.Shards)
	retries := int32(s.Retries)
	c := s.dbbenchContainer(Container, s.runResources())
	c.Command, c.Args = []string{"dbbench"}, s.RunArgs()
	meta := templateMeta{Labels: s.labels("run")}
	var suspend *bool
	switch {
	case s.waitsForLoad():
		// The shards wait for the load themselves: nothing to release, nothing a GitOps tool or
		// Kueue would undo.
		c.Command, c.Args = []string{"/bin/sh", "-c", s.RunScript()}, nil
	case s.LoadOnce:
		// Released by hand once the load has completed, with the start time then chosen (a time
		// fixed now would be late by however long the load takes).
		suspend = new(bool)
		*suspend = true
		meta.Annotations = map[string]string{StartAtAnnotation: s.StartAtText()}
		c.Env = append([]envVar{{Name: StartAtEnv, ValueFrom: &envVarSource{
			FieldRef: &fieldSelector{FieldPath: "metadata.annotations['" + StartAtAnnotation + "']"},
		}}}, c.Env...)
	}
	pod := s.podSpec(c, s.dbbenchVolumes()...)
	// One shard per node where the cluster allows it: shards exist to use more than one machine.
	pod.TopologySpreadConstraints = []topologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: "ScheduleAnyway",
		LabelSelector: &labelSelector{MatchLabels: meta.Labels},
	}}
	return job{
		APIVersion: "batch/v1", Kind: "Job", Metadata: s.meta(s.RunName(), "run"),
		Spec: jobSpec{
			ActiveDeadlineSeconds: seconds(s.RunDeadline()),
			Suspend:               suspend,
			CompletionMode:        "Indexed", Completions: &n, Parallelism: &n,
			BackoffLimitPerIndex: &retries,
			PodFailurePolicy: &podFailurePolicy{Rules: []podFailurePolicyRule{
				{Action: "FailJob", OnExitCodes: &exitCodesRequirement{ContainerName: Container, Operator: "In", Values: usageExits}},
				{Action: "FailIndex", OnExitCodes: &exitCodesRequirement{ContainerName: Container, Operator: "In", Values: reportedExits}},
				disruptionIgnored,
			}},
			TTLSecondsAfterFinished: s.ttl(),
			Template:                podTemplate{Metadata: meta, Spec: pod},
		},
	}
}

// disruptionIgnored: a pod evicted or preempted is replaced without counting as a failure: the new
// one starts late, and its report says by how much.
var disruptionIgnored = podFailurePolicyRule{Action: "Ignore", OnPodConditions: []podConditionPattern{{Type: "DisruptionTarget", Status: "True"}}}

// loadJob loads the shared store once and writes the marker the shards check: one pod, the run
// pods' image, variables, Secret and mounts. A config or usage error (exit 2: a table of the
// store exists, a marker is there already) fails it at once; an eviction is not counted; another
// failure (exit 3: the server not reachable yet) is retried ServiceRetries times. A retry after a
// load that got half-way finds that load's tables and exits 2: dbbench never drops a table it did
// not create in this process (docs/kubernetes.md says what to do).
func (s *Spec) loadJob() job {
	retries := int32(ServiceRetries)
	c := s.dbbenchContainer(LoadContainer, s.loadResources())
	c.Command = []string{"/bin/sh", "-c", s.LoadScript()}
	return job{
		APIVersion: "batch/v1", Kind: "Job", Metadata: s.meta(s.LoadJobName(), "load"),
		Spec: jobSpec{
			ActiveDeadlineSeconds: seconds(s.LoadDeadline()),
			BackoffLimit:          &retries,
			PodFailurePolicy: &podFailurePolicy{Rules: []podFailurePolicyRule{
				{Action: "FailJob", OnExitCodes: &exitCodesRequirement{ContainerName: LoadContainer, Operator: "In", Values: usageExits}},
				disruptionIgnored,
			}},
			TTLSecondsAfterFinished: s.ttl(),
			Template: podTemplate{
				Metadata: templateMeta{Labels: s.labels("load")},
				Spec:     s.podSpec(c, s.dbbenchVolumes()...),
			},
		},
	}
}

// mergeJob is a Job that merges the shards' reports, allowing missing ones when partial: suspended
// until released by hand, or with NoSuspend waiting for the reports itself. Its exit code is the
// verdict (1 failed, 4 inconclusive, 5 saturated, 6 a shard missing) or a usage error: the same on
// every attempt, so they fail it at once; an eviction is not counted; another failure (exit 3, a
// pod killed) is retried, and the retry replaces what the failed attempt left (--force).
func (s *Spec) mergeJob(partial bool) job {
	retries := int32(ServiceRetries)
	name := s.MergeJobName()
	if partial {
		name = s.PartialJobName()
	}
	var suspend *bool
	if !s.NoSuspend {
		// Released by hand (kubectl patch) once the run Job has ended: waiting is kubectl's, not a
		// coordinator's.
		suspend = new(bool)
		*suspend = true
	}
	c := s.container(MergeContainer, s.mergeResources())
	c.Command = []string{"/bin/sh", "-c", s.MergeScript(partial)}
	return job{
		APIVersion: "batch/v1", Kind: "Job", Metadata: s.meta(name, "merge"),
		Spec: jobSpec{
			ActiveDeadlineSeconds: seconds(s.MergeDeadline()),
			Suspend:               suspend,
			BackoffLimit:          &retries,
			PodFailurePolicy: &podFailurePolicy{Rules: []podFailurePolicyRule{
				{Action: "FailJob", OnExitCodes: &exitCodesRequirement{ContainerName: MergeContainer, Operator: "In", Values: verdictExits}},
				disruptionIgnored,
			}},
			TTLSecondsAfterFinished: s.ttl(),
			Template: podTemplate{
				Metadata: templateMeta{Labels: s.labels("merge")},
				Spec:     s.podSpec(c, s.reportsVolume()),
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

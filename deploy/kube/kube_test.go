package kube

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	k8syaml "sigs.k8s.io/yaml"

	"github.com/dbbench/dbbench/configs"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// start is the tests' start time: far ahead, so that a rendering never starts in the past; now is
// when they are rendered, two minutes before.
var (
	start = time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	now   = start.Add(-2 * time.Minute)
)

// smallSpec is what `dbbench kube -c deploy/kube/testdata/small.yaml --shards 4 --image
// registry.example/dbbench:1.0 --start-at 2099-01-01T00:00:00Z --rwx-default` renders at now, with
// the work the command reads from that config (commands' test checks the command prints the same
// golden file).
func smallSpec(t *testing.T) *Spec {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "small.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return &Spec{Name: "dbbench-small", Image: "registry.example/dbbench:1.0", ConfigName: "small.yaml", Config: b,
		Shards: 4, Now: now, StartAt: start, RWXDefault: true, TTL: DefaultTTL,
		Work: Work{Workers: 1, DatasetBytes: 103156, InPodStores: 1, Run: 480 * time.Millisecond}}
}

// pgSharedSpec is what `PG_DSN=postgres://bench:PASSWORD@db.example:5432/bench PG_SCHEMA=bench
// dbbench kube -c deploy/kube/testdata/pg-shared.yaml --shards 4 --secret pg-env --image
// registry.example/dbbench:1.0 --start-at 2099-01-01T00:00:00Z --rwx-default` renders: a store
// every shard shares, loaded once; the dsn from the Secret, the schema as it was set.
func pgSharedSpec(t *testing.T) *Spec {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "pg-shared.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return &Spec{Name: "dbbench-pg-shared", Image: "registry.example/dbbench:1.0", ConfigName: "pg-shared.yaml", Config: b,
		Shards: 4, Now: now, StartAt: start, Secret: "pg-env", Env: []EnvVar{{"PG_SCHEMA", "bench"}}, LoadOnce: true,
		RWXDefault: true, TTL: DefaultTTL,
		Work: Work{Workers: 1, DatasetBytes: 103156, Run: 280 * time.Millisecond, Load: 200 * time.Millisecond}}
}

// TestGolden: the manifests for a small config and 4 shards, and for a small config on a shared
// PostgreSQL server, as text.
func TestGolden(t *testing.T) {
	for _, tt := range []struct {
		golden string
		spec   func(*testing.T) *Spec
	}{
		{"small-4.yaml", smallSpec},
		{"pg-shared-4.yaml", pgSharedSpec},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			out, err := Render(tt.spec(t))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(path, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("the manifests differ from %s (go test -update rewrites it):\n%s", path, out)
			}
			// the golden file itself holds what matters, not only what Render happens to print
			checkManifests(t, tt.spec(t), want)
		})
	}
}

// TestManifestsDecodeStrictly renders specs that use every flag and decodes each rendering strictly
// into the Kubernetes API's types, checking the fields that make it a sharded run.
func TestManifestsDecodeStrictly(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*Spec)
	}{
		{"small, 4 shards", func(*Spec) {}},
		{"every option", func(s *Spec) {
			s.Name, s.Pinned, s.Namespace, s.CI, s.Shards, s.Retries = "bench", true, "load-tests", true, 1, 2
			s.StorageClass, s.StorageSize, s.Secret, s.RWXDefault = "nfs.example.com", "500Mi", "bench-env", false
			s.Env = []EnvVar{{"DBBENCH_GATE_SLOWDOWN", "20%"}, {"PG_HOST", "db.example"}}
			s.Resources = Resources{CPU: "2", Memory: "4Gi", EphemeralStorage: "8Gi"}
			s.Deadline, s.TTL = 2*time.Hour, time.Hour
			s.NodeSelector = map[string]string{"pool": "bench", "example.com/disk": "ssd"}
			s.Tolerations = []Toleration{{Key: "dedicated", Operator: "Equal", Value: "bench", Effect: "NoSchedule"}, {Key: "spot", Operator: "Exists"}}
			s.Image = "registry.example/dbbench@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
			s.StartAt = start.Add(1500 * time.Millisecond)
		}},
		{"an existing claim", func(s *Spec) { s.Claim, s.RWXDefault = "shared-reports", false }},
		{"a storage class", func(s *Spec) { s.StorageClass, s.RWXDefault = "nfs-client", false }},
		{"the most shards", func(s *Spec) { s.Shards = MaxShards }},
		{"the longest name", func(s *Spec) { s.Name = strings.Repeat("n", MaxNameLen) }},
		{"an image without a tag", func(s *Spec) { s.Image = "dbbench" }},
		{"no suspension", func(s *Spec) { s.NoSuspend = true }},
		{"script files beside the config", func(s *Spec) { s.Files = []File{{"my.sql", []byte("SELECT 1;\n")}, {"sql/b.sql", nil}} }},
		{"a store loaded once", func(s *Spec) { s.LoadOnce = true }},
		{"a store loaded once, no suspension, a lead", func(s *Spec) { s.LoadOnce, s.NoSuspend, s.Lead = true, true, 90*time.Second }},
		{"a store loaded once, no suspension, a fixed start", func(s *Spec) { s.LoadOnce, s.NoSuspend = true, true }},
		{"a store loaded once, every option", func(s *Spec) {
			s.LoadOnce, s.Name, s.Namespace, s.CI, s.Shards, s.Retries = true, strings.Repeat("n", MaxNameLen), "load-tests", true, 8, 1
			s.Claim, s.StorageSize, s.Secret, s.RWXDefault = "shared-reports", "", "bench-env", false
			s.Env = []EnvVar{{"PG_SCHEMA", "bench"}}
			s.Resources = Resources{CPU: "2", Memory: "4Gi"}
			s.Work = Work{Workers: 8, DatasetBytes: 1 << 30, Run: time.Hour, Load: 2 * time.Hour}
			s.Tolerations = []Toleration{{Key: "spot", Operator: "Exists", Effect: "NoExecute"}}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := smallSpec(t)
			tt.edit(s)
			out, err := Render(s)
			if err != nil {
				t.Fatal(err)
			}
			checkManifests(t, s, out)
		})
	}
}

// manifests is a rendering decoded into the API's types.
type manifests struct {
	header    string
	kinds     []string
	configMap corev1.ConfigMap
	claim     *corev1.PersistentVolumeClaim
	jobs      []batchv1.Job
}

// decode splits a rendering into its documents and decodes each strictly (unknown or duplicate
// fields fail) into the type its kind names.
func decode(t *testing.T, out []byte) manifests {
	t.Helper()
	var m manifests
	docs := strings.Split(string(out), "\n---\n")
	m.header = docs[0]
	for _, l := range strings.Split(m.header, "\n") {
		if !strings.HasPrefix(l, "# ") && !strings.HasPrefix(l, "#   ") {
			t.Fatalf("the header is not all comment: %q", l)
		}
	}
	for i, doc := range docs[1:] {
		if i+2 < len(docs) {
			doc += "\n" // the separator took the document's last line break
		}
		var tm metav1.TypeMeta
		if err := k8syaml.Unmarshal([]byte(doc), &tm); err != nil {
			t.Fatalf("document %d: %v", i+1, err)
		}
		m.kinds = append(m.kinds, tm.APIVersion+" "+tm.Kind)
		var err error
		switch tm.APIVersion + " " + tm.Kind {
		case "v1 ConfigMap":
			err = k8syaml.UnmarshalStrict([]byte(doc), &m.configMap)
		case "v1 PersistentVolumeClaim":
			m.claim = &corev1.PersistentVolumeClaim{}
			err = k8syaml.UnmarshalStrict([]byte(doc), m.claim)
		case "batch/v1 Job":
			var j batchv1.Job
			err = k8syaml.UnmarshalStrict([]byte(doc), &j)
			m.jobs = append(m.jobs, j)
		default:
			t.Fatalf("document %d: unexpected %s %s", i+1, tm.APIVersion, tm.Kind)
		}
		if err != nil {
			t.Fatalf("document %d (%s) does not decode strictly: %v\n%s", i+1, tm.Kind, err, doc)
		}
	}
	return m
}

// checkManifests checks a rendering of s: the objects and their order, the names that tie them
// together, and every field that makes the run what s asks.
func checkManifests(t *testing.T, s *Spec, out []byte) {
	t.Helper()
	m := decode(t, out)
	want := []string{"v1 ConfigMap", "v1 PersistentVolumeClaim", "batch/v1 Job", "batch/v1 Job", "batch/v1 Job"}
	if s.LoadOnce {
		want = append(want, "batch/v1 Job")
	}
	if s.Claim != "" {
		want = slices.Delete(want, 1, 2)
	}
	if !slices.Equal(m.kinds, want) {
		t.Fatalf("objects %v, want %v", m.kinds, want)
	}
	// the load Job, when there is one, comes first: kubectl apply creates it before the run
	jobs := m.jobs
	var load *batchv1.Job
	if s.LoadOnce {
		load, jobs = &m.jobs[0], m.jobs[1:]
	}
	run := jobs[0]
	runName := s.Name
	if !s.Pinned {
		runName = s.Name + "-" + s.RunID()
		if len(s.RunID()) != RunIDLen || strings.Trim(s.RunID(), "0123456789abcdef") != "" {
			t.Errorf("run id %q: want %d hex digits", s.RunID(), RunIDLen)
		}
	}

	// every object: named, in the namespace, with the recommended labels, all valid
	metas := []metav1.ObjectMeta{m.configMap.ObjectMeta}
	if m.claim != nil {
		metas = append(metas, m.claim.ObjectMeta)
	}
	for _, j := range m.jobs {
		tmpl := j.Spec.Template.ObjectMeta
		tmpl.Namespace = s.Namespace // a pod template has no namespace of its own: its Job's
		tmpl.Name = j.Name + " (template)"
		metas = append(metas, j.ObjectMeta, tmpl)
	}
	for _, meta := range metas {
		instance := runName
		if m.claim != nil && meta.Name == m.claim.Name {
			instance = s.Name // the claim is every rendering's
		}
		l := meta.Labels
		if meta.Namespace != s.Namespace || l["app.kubernetes.io/instance"] != instance || l["app.kubernetes.io/name"] != "dbbench" ||
			l["app.kubernetes.io/part-of"] != s.Name || l["app.kubernetes.io/managed-by"] != "dbbench" || l["app.kubernetes.io/component"] == "" {
			t.Errorf("%s: namespace %q, labels %v: want %q, instance %s, part-of %s and the other recommended labels", meta.Name, meta.Namespace, l, s.Namespace, instance, s.Name)
		}
		if v, ok := l["app.kubernetes.io/version"]; ok != (imageVersion(s.Image) != "") || v != imageVersion(s.Image) {
			t.Errorf("%s: version label %q, want %q (the image's)", meta.Name, v, imageVersion(s.Image))
		}
		for k, v := range l {
			if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
				t.Errorf("label %s=%s: %v", k, v, errs)
			}
		}
	}
	for _, j := range m.jobs {
		if errs := validation.IsDNS1123Label(j.Name); len(errs) > 0 || len(j.Name) > 63 {
			t.Errorf("job name %q: %v", j.Name, errs)
		}
		checkBounded(t, s, j)
		checkPod(t, s, j)
	}
	// the pods' host names: the run Job's name and the largest index
	if host := run.Name + "-" + strconv.Itoa(s.Shards-1); len(validation.IsDNS1123Label(host)) > 0 {
		t.Errorf("host name %q: %v", host, validation.IsDNS1123Label(host))
	}
	if names := []string{jobs[0].Name, jobs[1].Name, jobs[2].Name, m.configMap.Name}; !slices.Equal(names, []string{runName, runName + "-merge", runName + "-merge-partial", runName + "-config"}) {
		t.Errorf("jobs and ConfigMap %v: want the run, the merge, the partial merge and the config of %s", names, runName)
	}
	if load != nil && load.Name != runName+"-load" {
		t.Errorf("the load Job is named %s, want %s-load", load.Name, runName)
	}

	// the ConfigMap holds the config's bytes, exactly, under the name the pods read, and the
	// files it reads (TestConfigFiles)
	cm := m.configMap
	if cm.Immutable == nil || !*cm.Immutable || len(cm.Data) != 1+len(s.Files) || len(cm.BinaryData) != 0 {
		t.Errorf("ConfigMap: immutable %v, %d data keys, %d binary: want immutable, the config and its %d files", cm.Immutable, len(cm.Data), len(cm.BinaryData), len(s.Files))
	}
	if got, ok := cm.Data[s.ConfigName]; !ok || got != string(s.Config) {
		t.Errorf("ConfigMap data[%q] is not the config's bytes (present: %v)", s.ConfigName, ok)
	}

	// the claim: ReadWriteMany, of the size and class asked (none: the default's, which --rwx-default vouches for)
	if m.claim != nil {
		c := m.claim.Spec
		if !slices.Equal(c.AccessModes, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}) {
			t.Errorf("claim access modes %v, want ReadWriteMany", c.AccessModes)
		}
		size := s.StorageSize
		if size == "" {
			size = DefaultStorageSize
		}
		if got := c.Resources.Requests[corev1.ResourceStorage]; got.Cmp(resource.MustParse(size)) != 0 {
			t.Errorf("claim size %s, want %s", got.String(), size)
		}
		if (c.StorageClassName == nil) != (s.StorageClass == "") || c.StorageClassName != nil && *c.StorageClassName != s.StorageClass {
			t.Errorf("claim storage class %v, want %q", c.StorageClassName, s.StorageClass)
		}
		if c.StorageClassName == nil && !s.RWXDefault {
			t.Error("a claim of the default class without --rwx-default")
		}
		if m.claim.Name != s.Name+"-reports" {
			t.Errorf("claim %s, want %s-reports, every rendering's", m.claim.Name, s.Name)
		}
	}
	claim := s.Name + "-reports"
	if s.Claim != "" {
		claim = s.Claim
	}

	// the run Job: Indexed, N at once, its failure policy, one dbbench container
	js := run.Spec
	n := int32(s.Shards)
	if js.CompletionMode == nil || *js.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed", js.CompletionMode)
	}
	if js.Completions == nil || js.Parallelism == nil || *js.Completions != n || *js.Parallelism != n {
		t.Errorf("completions %v, parallelism %v, want both %d", js.Completions, js.Parallelism, n)
	}
	if js.BackoffLimitPerIndex == nil || *js.BackoffLimitPerIndex != int32(s.Retries) {
		t.Errorf("backoffLimitPerIndex %v, want %d", js.BackoffLimitPerIndex, s.Retries)
	}
	// suspended exactly when a load must complete first and the release is by hand
	if suspended := js.Suspend != nil && *js.Suspend; suspended != (s.LoadOnce && !s.NoSuspend) {
		t.Errorf("the run Job suspended: %v, want %v (a load Job: %v, no suspension: %v)", suspended, !suspended, s.LoadOnce, s.NoSuspend)
	}
	if want := seconds(s.RunDeadline()); js.ActiveDeadlineSeconds == nil || *js.ActiveDeadlineSeconds != *want {
		t.Errorf("the run Job's deadline %v, want %d", js.ActiveDeadlineSeconds, *want)
	}
	pod := js.Template.Spec
	c := pod.Containers[0]
	checkFailurePolicy(t, js.PodFailurePolicy, c.Name, []policyRule{
		{batchv1.PodFailurePolicyActionFailJob, []int32{2}},
		{batchv1.PodFailurePolicyActionFailIndex, []int32{1, 4, 5}},
	})
	if c.Image != s.Image {
		t.Errorf("image %q, want %q", c.Image, s.Image)
	}
	var argv []string
	if s.LoadOnce && s.NoSuspend { // the shell waits for the load's start file, then runs dbbench
		argv = checkWaitForStart(t, s, c, load)
	} else {
		if !slices.Equal(c.Command, []string{"dbbench"}) {
			t.Errorf("command %v, want dbbench", c.Command)
		}
		argv = c.Args
	}
	args := flagValues(t, argv)
	if argv[0] != "run" || args["--shards"] != strconv.Itoa(s.Shards) {
		t.Errorf("args %v: want run ... --shards %d", argv, s.Shards)
	}
	startAt := args["--start-at"]
	startEnv := ""
	switch {
	case s.LoadOnce && s.NoSuspend:
		startAt = s.StartAtText() // checkWaitForStart checked the rest
	case s.LoadOnce:
		startEnv, startAt = checkStartAnnotation(t, s, run, c, startAt, m.header)
	}
	if at, err := time.Parse(time.RFC3339Nano, startAt); err != nil || !at.Equal(s.StartAt) {
		t.Errorf("--start-at %q (%v), want %s", startAt, err, s.StartAt)
	}
	if !strings.Contains(m.header, s.StartAt.UTC().Format(time.RFC3339Nano)) && !(s.waitsForLoad() && s.Lead > 0) {
		t.Errorf("the header does not say the start time %s:\n%s", s.StartAt, m.header)
	}
	if _, ci := args["--ci"]; ci != s.CI {
		t.Errorf("--ci in args: %v, want %v", ci, s.CI)
	}
	if _, force := args["--force"]; !force {
		t.Error("no --force: a retried shard could not replace its failed attempt's reservation")
	}
	outPath := args["--out"]
	runDir, file := filepath.Split(outPath)
	if file != "shard-$(JOB_COMPLETION_INDEX).json" {
		t.Errorf("--out %q: want DIR/shard-$(JOB_COMPLETION_INDEX).json", outPath)
	}
	if !strings.Contains(runDir, s.RunID()) {
		t.Errorf("the run's directory %s does not carry the run id %s", runDir, s.RunID())
	}
	// environment: the scratch directory's, then the plain variables as given, the Secret's keys when there is one
	var env []EnvVar
	for _, e := range c.Env {
		if e.Name == startEnv || e.Name == "HOME" || e.Name == "TMPDIR" {
			continue // checked above, and by checkPod
		}
		if e.ValueFrom != nil {
			t.Errorf("env %s comes from elsewhere", e.Name)
		}
		env = append(env, EnvVar{e.Name, e.Value})
		if errs := validation.IsEnvVarName(e.Name); len(errs) > 0 {
			t.Errorf("env %s: %v", e.Name, errs)
		}
	}
	if !slices.Equal(env, s.Env) {
		t.Errorf("env %v, want %v", env, s.Env)
	}
	if s.Secret == "" && len(c.EnvFrom) != 0 || s.Secret != "" && (len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef == nil || c.EnvFrom[0].SecretRef.Name != s.Secret) {
		t.Errorf("envFrom %+v, want the Secret %q", c.EnvFrom, s.Secret)
	}
	// resources: the flags' where given, else the formulas' (TestResources checks those)
	r := s.runResources()
	for name, v := range map[corev1.ResourceName]string{corev1.ResourceCPU: s.Resources.CPU, corev1.ResourceMemory: s.Resources.Memory,
		corev1.ResourceEphemeralStorage: s.Resources.EphemeralStorage} {
		if got := c.Resources.Requests[name]; v != "" && got.Cmp(resource.MustParse(v)) != 0 {
			t.Errorf("%s: request %v, want %q as given", name, got.String(), v)
		}
	}
	if got := c.Resources.Requests[corev1.ResourceMemory]; got.Cmp(resource.MustParse(r.Memory)) != 0 {
		t.Errorf("memory request %s, want %s", got.String(), r.Memory)
	}

	// volumes line up: each mount names a volume of the pod; -c is in the ConfigMap's mount, --out in
	// the reports' mount, which is the claim
	mounts := mountsByVolume(t, c.VolumeMounts, pod.Volumes)
	cfgVol, repVol := mounts["config"], mounts["reports"]
	if cfgVol.volume.ConfigMap == nil || cfgVol.volume.ConfigMap.Name != cm.Name || !cfgVol.mount.ReadOnly {
		t.Errorf("the config volume (%+v, read-only %v) is not the ConfigMap %s, read-only", cfgVol.volume.ConfigMap, cfgVol.mount.ReadOnly, cm.Name)
	}
	if args["-c"] != filepath.Join(cfgVol.mount.MountPath, s.ConfigName) {
		t.Errorf("-c %s is not %s in the ConfigMap's mount %s", args["-c"], s.ConfigName, cfgVol.mount.MountPath)
	}
	if repVol.volume.PersistentVolumeClaim == nil || repVol.volume.PersistentVolumeClaim.ClaimName != claim {
		t.Errorf("the reports volume %+v is not the claim %s", repVol.volume.PersistentVolumeClaim, claim)
	}
	if !strings.HasPrefix(outPath, repVol.mount.MountPath+"/") || repVol.mount.ReadOnly {
		t.Errorf("--out %s is not in the writable reports mount %s", outPath, repVol.mount.MountPath)
	}
	spread := pod.TopologySpreadConstraints
	if len(spread) != 1 || spread[0].TopologyKey != "kubernetes.io/hostname" || spread[0].LabelSelector == nil ||
		!equalMaps(spread[0].LabelSelector.MatchLabels, js.Template.Labels) {
		t.Errorf("topology spread %+v: want the shards spread over nodes, selecting the run's pods", spread)
	}

	// the marker: the shards check the one the load Job writes, in this run's directory on the claim
	if _, has := args["--loaded"]; has != s.LoadOnce {
		t.Errorf("--loaded in the shards' args: %v, want %v", has, s.LoadOnce)
	}
	if load != nil {
		if filepath.Dir(args["--loaded"])+"/" != runDir {
			t.Errorf("--loaded %s is not in the run's directory %s", args["--loaded"], runDir)
		}
		checkLoad(t, s, *load, c, pod.Volumes, args)
	}

	// the merge Jobs: one attempt per verdict, reading the same claim and directory; the second
	// allows missing shards and writes a report of its own
	for i, merge := range jobs[1:] {
		checkMerge(t, s, merge, i == 1, claim, repVol.mount.MountPath, runDir)
	}
}

// checkBounded: every Job ends by itself (a deadline: the run's, the load's or a merge's formula)
// and is deleted once it has been finished for the TTL.
func checkBounded(t *testing.T, s *Spec, j batchv1.Job) {
	t.Helper()
	want := s.RunDeadline()
	switch j.Labels["app.kubernetes.io/component"] {
	case "load":
		want = s.LoadDeadline()
	case "merge":
		want = s.MergeDeadline()
	}
	if d := j.Spec.ActiveDeadlineSeconds; d == nil || *d != *seconds(want) {
		t.Errorf("%s: activeDeadlineSeconds %v, want %v", j.Name, d, want)
	}
	ttl := s.TTL
	if ttl == 0 {
		ttl = DefaultTTL
	}
	if x := j.Spec.TTLSecondsAfterFinished; x == nil || time.Duration(*x)*time.Second != ttl {
		t.Errorf("%s: ttlSecondsAfterFinished %v, want %v", j.Name, x, ttl)
	}
}

// checkPod: what every pod of every Job has: never restarted in place, no service account token nor
// service variables, a user that is not root with the runtime's seccomp profile, placed as asked; one
// container without privileges on a read-only root, with TMPDIR and HOME on the scratch emptyDir and
// requests equal to limits for cpu, memory and ephemeral-storage.
func checkPod(t *testing.T, s *Spec, j batchv1.Job) {
	t.Helper()
	pod := j.Spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever { // required by podFailurePolicy and the per-index limit
		t.Errorf("%s: restartPolicy %q, want Never", j.Name, pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 || len(pod.InitContainers) != 0 {
		t.Fatalf("%s: %d containers, %d init containers", j.Name, len(pod.Containers), len(pod.InitContainers))
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken || pod.EnableServiceLinks == nil || *pod.EnableServiceLinks {
		t.Errorf("%s: automountServiceAccountToken %v, enableServiceLinks %v: want false", j.Name, pod.AutomountServiceAccountToken, pod.EnableServiceLinks)
	}
	sc := pod.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != RunAsUser ||
		sc.FSGroup == nil || *sc.FSGroup != RunAsGroup || sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("%s: pod securityContext %+v", j.Name, sc)
	}
	if !equalMaps(pod.NodeSelector, s.NodeSelector) {
		t.Errorf("%s: nodeSelector %v, want %v", j.Name, pod.NodeSelector, s.NodeSelector)
	}
	var tols []Toleration
	for _, x := range pod.Tolerations {
		tols = append(tols, Toleration{Key: x.Key, Operator: string(x.Operator), Value: x.Value, Effect: string(x.Effect)})
	}
	if !slices.Equal(tols, s.Tolerations) {
		t.Errorf("%s: tolerations %v, want %v", j.Name, tols, s.Tolerations)
	}
	c := pod.Containers[0]
	csc := c.SecurityContext
	if csc == nil || csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation || csc.Capabilities == nil ||
		!slices.Equal(csc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(csc.Capabilities.Add) != 0 ||
		csc.ReadOnlyRootFilesystem == nil || !*csc.ReadOnlyRootFilesystem {
		t.Errorf("%s: container securityContext %+v", j.Name, csc)
	}
	scratch := mountsByVolume(t, c.VolumeMounts, pod.Volumes)["scratch"]
	if scratch.volume.EmptyDir == nil || scratch.mount.ReadOnly {
		t.Errorf("%s: the scratch volume %+v is not a writable emptyDir", j.Name, scratch)
	}
	for _, v := range []string{"HOME", "TMPDIR"} {
		i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == v })
		if i < 0 || c.Env[i].Value != scratch.mount.MountPath {
			t.Errorf("%s: %s is not the scratch volume's mount %s", j.Name, v, scratch.mount.MountPath)
		}
	}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		req, okReq := c.Resources.Requests[name]
		lim, okLim := c.Resources.Limits[name]
		if !okReq || !okLim || req.Cmp(lim) != 0 || req.Sign() <= 0 {
			t.Errorf("%s: %s request %v, limit %v: want both, equal", j.Name, name, req.String(), lim.String())
		}
	}
}

// checkWaitForStart checks a run pod that waits for the load (LoadOnce, NoSuspend): a shell waits
// for the start file the load Job writes after its marker and runs dbbench at the time it holds. It
// returns dbbench's arguments.
func checkWaitForStart(t *testing.T, s *Spec, c corev1.Container, load *batchv1.Job) []string {
	t.Helper()
	if len(c.Command) != 3 || c.Command[0] != "/bin/sh" || c.Command[1] != "-c" || len(c.Args) != 0 {
		t.Fatalf("command %q, args %q: want /bin/sh -c SCRIPT", c.Command, c.Args)
	}
	wait, cmd, ok := strings.Cut(c.Command[2], "; exec dbbench ")
	if !ok || !strings.Contains(wait, "until [ -s "+s.StartPath()+" ]") || !strings.Contains(wait, "read -r epoch at < "+s.StartPath()) {
		t.Errorf("script %q: want a wait for %s, then exec dbbench", c.Command[2], s.StartPath())
	}
	argv := strings.Fields(cmd)
	if i := slices.Index(argv, "--start-at"); i < 0 || argv[i+1] != `"$at"` {
		t.Errorf("script %q: want --start-at \"$at\"", c.Command[2])
	}
	if load == nil || !strings.HasSuffix(load.Spec.Template.Spec.Containers[0].Command[2], "mv "+s.StartPath()+".tmp "+s.StartPath()) {
		t.Errorf("the load does not write the start file %s", s.StartPath())
	}
	return argv
}

// checkStartAnnotation checks a LoadOnce run's start time: --start-at names a variable the
// downward API fills from an annotation of the pod template (which a suspended Job lets the release
// change), the annotation holds the rendered time, and the header says how to set it. It returns
// the variable and the time the pods get when nobody changes it.
func checkStartAnnotation(t *testing.T, s *Spec, run batchv1.Job, c corev1.Container, arg, header string) (string, string) {
	t.Helper()
	name, ok := strings.CutPrefix(arg, "$(")
	if name, ok = strings.CutSuffix(name, ")"); !ok || name == "" {
		t.Fatalf("--start-at %q: want $(VARIABLE), set when the run is released", arg)
	}
	// Kubernetes expands $(VAR) only from a variable defined earlier in the container's env
	i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == name })
	if i < 0 || c.Env[i].ValueFrom == nil || c.Env[i].ValueFrom.FieldRef == nil {
		t.Fatalf("--start-at $(%s): no such variable from the pod's fields in %+v", name, c.Env)
	}
	key, ok := strings.CutPrefix(c.Env[i].ValueFrom.FieldRef.FieldPath, "metadata.annotations['")
	if key, ok = strings.CutSuffix(key, "']"); !ok {
		t.Fatalf("%s comes from %s, want an annotation", name, c.Env[i].ValueFrom.FieldRef.FieldPath)
	}
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		t.Errorf("annotation key %q: %v", key, errs)
	}
	val, ok := run.Spec.Template.Annotations[key]
	if !ok {
		t.Fatalf("the pod template has no annotation %s: %v", key, run.Spec.Template.Annotations)
	}
	for _, want := range []string{"wait --for=condition=complete", "job/" + s.RunName() + "-load",
		`"suspend":false`, `"annotations":{"` + key + `":"TIME"}`} {
		if !strings.Contains(header, want) {
			t.Errorf("the header does not say %q:\n%s", want, header)
		}
	}
	return name, val
}

// checkLoad checks the load Job: one pod, not suspended, retried only on what a retry can mend,
// running `run --load-only` on the run's config with the run's environment, writing the marker the
// shards check (shardArgs) on the same claim mounted at the same place.
func checkLoad(t *testing.T, s *Spec, load batchv1.Job, run corev1.Container, runVolumes []corev1.Volume, shardArgs map[string]string) {
	t.Helper()
	ls := load.Spec
	if ls.Suspend != nil && *ls.Suspend || ls.BackoffLimit == nil || *ls.BackoffLimit != ServiceRetries {
		t.Errorf("%s: suspend %v, backoffLimit %v, want running, %d", load.Name, ls.Suspend, ls.BackoffLimit, ServiceRetries)
	}
	if ls.CompletionMode != nil && *ls.CompletionMode == batchv1.IndexedCompletion || ls.Completions != nil && *ls.Completions != 1 ||
		ls.Parallelism != nil && *ls.Parallelism != 1 {
		t.Errorf("%s runs more than once", load.Name)
	}
	c := ls.Template.Spec.Containers[0]
	checkFailurePolicy(t, ls.PodFailurePolicy, c.Name, []policyRule{{batchv1.PodFailurePolicyActionFailJob, []int32{2}}})
	if c.Image != s.Image || len(c.Command) != 3 || c.Command[0] != "/bin/sh" || c.Command[1] != "-c" {
		t.Fatalf("%s: image %s, command %q", load.Name, c.Image, c.Command)
	}
	steps := strings.Split(c.Command[2], " && ")
	mkdir, cmd := steps[0], steps[1]
	if s.NoSuspend {
		cmd = strings.TrimPrefix(cmd, "dbbench ")
	} else if cmd, _ = strings.CutPrefix(cmd, "exec dbbench "); len(steps) != 2 {
		t.Fatalf("%s: script %q, want mkdir -p DIR && exec dbbench run ...", load.Name, c.Command[2])
	}
	args := flagValues(t, strings.Fields(cmd))
	marker := args["--loaded"]
	if _, only := args["--load-only"]; !strings.HasPrefix(cmd, "run ") || !only || marker == "" || marker != shardArgs["--loaded"] {
		t.Errorf("%s: %q, want run --load-only --loaded %s (the shards' marker)", load.Name, cmd, shardArgs["--loaded"])
	}
	if mkdir != "mkdir -p "+filepath.Dir(marker) {
		t.Errorf("%s: %q does not make the marker's directory %s", load.Name, mkdir, filepath.Dir(marker))
	}
	_, loadCI := args["--ci"]
	_, runCI := shardArgs["--ci"]
	if args["-c"] != shardArgs["-c"] || loadCI != runCI {
		t.Errorf("%s loads -c %s (--ci %v), the shards run -c %s (--ci %v)", load.Name, args["-c"], loadCI, shardArgs["-c"], runCI)
	}
	for _, f := range []string{"--force", "--shards", "--start-at", "--out"} {
		if _, has := args[f]; has {
			t.Errorf("%s: %s in %q", load.Name, f, cmd)
		}
	}
	// the run's variables and Secret, less the start time
	runEnv := slices.DeleteFunc(slices.Clone(run.Env), func(e corev1.EnvVar) bool { return e.ValueFrom != nil })
	if !slices.EqualFunc(c.Env, runEnv, func(a, b corev1.EnvVar) bool { return a.Name == b.Name && a.Value == b.Value && a.ValueFrom == nil }) ||
		!slices.EqualFunc(c.EnvFrom, run.EnvFrom, func(a, b corev1.EnvFromSource) bool {
			return a.SecretRef != nil && b.SecretRef != nil && a.SecretRef.Name == b.SecretRef.Name
		}) {
		t.Errorf("%s: env %+v from %+v, want the run's %+v from %+v", load.Name, c.Env, c.EnvFrom, runEnv, run.EnvFrom)
	}
	// the same ConfigMap and claim, mounted where the run pods mount them
	mounts := mountsByVolume(t, c.VolumeMounts, ls.Template.Spec.Volumes)
	runMounts := mountsByVolume(t, run.VolumeMounts, runVolumes)
	for _, v := range []string{"config", "reports"} {
		got, want := mounts[v], runMounts[v]
		if got.mount.MountPath != want.mount.MountPath || got.mount.ReadOnly != want.mount.ReadOnly ||
			!equalSources(got.volume.VolumeSource, want.volume.VolumeSource) {
			t.Errorf("%s mounts %s as %+v, the run pods as %+v", load.Name, v, got, want)
		}
	}
	if !strings.HasPrefix(marker, mounts["reports"].mount.MountPath+"/") {
		t.Errorf("the marker %s is not on the reports' claim mounted at %s", marker, mounts["reports"].mount.MountPath)
	}
}

// equalSources says whether two volumes are the same ConfigMap or the same claim.
func equalSources(a, b corev1.VolumeSource) bool {
	switch {
	case a.ConfigMap != nil && b.ConfigMap != nil:
		return a.ConfigMap.Name == b.ConfigMap.Name
	case a.PersistentVolumeClaim != nil && b.PersistentVolumeClaim != nil:
		return a.PersistentVolumeClaim.ClaimName == b.PersistentVolumeClaim.ClaimName
	}
	return false
}

// checkMerge checks a merge Job: suspended unless NoSuspend, one attempt per verdict, the dbbench
// image reading the run's reports on the claim, mounted where the run's pods mount it, replacing
// only its own earlier output (--force).
func checkMerge(t *testing.T, s *Spec, merge batchv1.Job, partial bool, claim, mountPath, runDir string) {
	t.Helper()
	ms := merge.Spec
	if suspended := ms.Suspend != nil && *ms.Suspend; suspended == s.NoSuspend || ms.BackoffLimit == nil || *ms.BackoffLimit != ServiceRetries {
		t.Errorf("%s: suspend %v, backoffLimit %v, want suspended %v, %d", merge.Name, ms.Suspend, ms.BackoffLimit, !s.NoSuspend, ServiceRetries)
	}
	if ms.CompletionMode != nil && *ms.CompletionMode == batchv1.IndexedCompletion || ms.Completions != nil && *ms.Completions != 1 {
		t.Errorf("%s runs more than once", merge.Name)
	}
	mpod := ms.Template.Spec
	mc := mpod.Containers[0]
	checkFailurePolicy(t, ms.PodFailurePolicy, mc.Name, []policyRule{{batchv1.PodFailurePolicyActionFailJob, []int32{1, 2, 4, 5, 6}}})
	mrep := mountsByVolume(t, mc.VolumeMounts, mpod.Volumes)["reports"]
	if mrep.volume.PersistentVolumeClaim == nil || mrep.volume.PersistentVolumeClaim.ClaimName != claim || mrep.mount.MountPath != mountPath {
		t.Errorf("%s reads %+v at %s, want the claim %s at %s", merge.Name, mrep.volume.PersistentVolumeClaim, mrep.mount.MountPath, claim, mountPath)
	}
	if len(mc.Command) != 3 || mc.Command[0] != "/bin/sh" || mc.Command[1] != "-c" || mc.Image != s.Image {
		t.Fatalf("%s: command %v, image %s", merge.Name, mc.Command, mc.Image)
	}
	script := mc.Command[2]
	if s.NoSuspend { // a wait for the reports first
		wait, rest, ok := strings.Cut(script, "; exec ")
		for ok && strings.Contains(rest, "; exec ") {
			var more string
			more, rest, _ = strings.Cut(rest, "; exec ")
			wait += "; exec " + more
		}
		if !ok || !strings.Contains(wait, "-lt "+strconv.Itoa(s.Shards)+" ]") || !strings.Contains(wait, "find "+strings.TrimSuffix(runDir, "/")) {
			t.Errorf("%s: %q, want a wait for %d reports in %s", merge.Name, script, s.Shards, runDir)
		}
		script = "exec " + rest
	}
	wantScript := []string{"exec", "dbbench", "merge", runDir + "shard-*.json", "--out", runDir + "merged.json", "--force"}
	if partial {
		wantScript = []string{"exec", "dbbench", "merge", runDir + "shard-*.json", "--out", runDir + "merged-partial.json", "--force", "--allow-missing"}
	}
	if got := strings.Fields(script); !slices.Equal(got, wantScript) {
		t.Errorf("%s: script %q, want %q", merge.Name, got, wantScript)
	}
}

type policyRule struct {
	action batchv1.PodFailurePolicyAction
	codes  []int32
}

// checkFailurePolicy: the rules on exit codes as wanted, each naming the container, then a
// disruption not counted.
func checkFailurePolicy(t *testing.T, p *batchv1.PodFailurePolicy, container string, want []policyRule) {
	t.Helper()
	if p == nil || len(p.Rules) != len(want)+1 {
		t.Fatalf("podFailurePolicy %+v: want %d rules", p, len(want)+1)
	}
	for i, want := range want {
		r := p.Rules[i]
		if r.Action != want.action || r.OnExitCodes == nil || r.OnExitCodes.Operator != batchv1.PodFailurePolicyOnExitCodesOpIn ||
			!slices.Equal(r.OnExitCodes.Values, want.codes) || r.OnExitCodes.ContainerName == nil || *r.OnExitCodes.ContainerName != container {
			t.Errorf("rule %d: %+v, want %s on exit %v of %s", i, r, want.action, want.codes, container)
		}
	}
	r := p.Rules[len(want)]
	if r.Action != batchv1.PodFailurePolicyActionIgnore || len(r.OnPodConditions) != 1 || r.OnPodConditions[0].Type != corev1.DisruptionTarget {
		t.Errorf("rule %d: %+v, want Ignore on DisruptionTarget", len(want), r)
	}
}

// flagValues reads args as flags and their values ("--force" alone: "").
func flagValues(t *testing.T, args []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i := 1; i < len(args); i++ {
		if !strings.HasPrefix(args[i], "-") {
			t.Fatalf("args %v: %q is not a flag", args, args[i])
		}
		if _, dup := out[args[i]]; dup {
			t.Errorf("args %v: %s twice", args, args[i])
		}
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			out[args[i]] = args[i+1]
			i++
		} else {
			out[args[i]] = ""
		}
	}
	return out
}

type mounted struct {
	mount  corev1.VolumeMount
	volume corev1.Volume
}

// mountsByVolume pairs each mount with the pod's volume of its name; a mount of no volume, or a
// volume mounted nowhere, fails.
func mountsByVolume(t *testing.T, mounts []corev1.VolumeMount, volumes []corev1.Volume) map[string]mounted {
	t.Helper()
	out := map[string]mounted{}
	for _, m := range mounts {
		i := slices.IndexFunc(volumes, func(v corev1.Volume) bool { return v.Name == m.Name })
		if i < 0 {
			t.Errorf("mount %s at %s names no volume of the pod", m.Name, m.MountPath)
			continue
		}
		out[m.Name] = mounted{m, volumes[i]}
	}
	for _, v := range volumes {
		if _, ok := out[v.Name]; !ok {
			t.Errorf("volume %s is mounted nowhere", v.Name)
		}
	}
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestConfigBytesSurvive: the ConfigMap holds every shipped config, and texts YAML finds awkward to
// carry (no final newline, trailing spaces, tabs, a document marker, CRLF, leading blanks, quotes and
// non-ASCII), byte for byte.
func TestConfigBytesSurvive(t *testing.T) {
	texts := map[string]string{
		"no final newline": "name: x\nseed: 1",
		"trailing spaces":  "name: x   \nseed: 1 \n\n\n",
		"tabs":             "name: x\n#\tcomment\twith tabs\n",
		"document markers": "---\nname: x\n...\n---\n",
		"crlf":             "name: x\r\nseed: 1\r\n",
		"leading blanks":   "\n\n   # indented first line\nname: x\n",
		"quotes, unicode":  "name: \"x\" # 'ünïcödé' \\ ${VAR:-d} $(JOB_COMPLETION_INDEX)\n",
	}
	for _, name := range configs.Names() {
		b, _ := configs.Read(name)
		texts[name] = string(b)
	}
	for name, text := range texts {
		s := smallSpec(t)
		s.Config = []byte(text)
		out, err := Render(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := decode(t, out).configMap.Data[s.ConfigName]; got != text {
			t.Errorf("%s: the ConfigMap holds %q, want %q", name, got, text)
		}
	}
}

// TestConfigFiles: the files a config reads travel in its ConfigMap, each mounted at its path
// relative to the config in every pod that mounts the config.
func TestConfigFiles(t *testing.T) {
	s := smallSpec(t)
	s.LoadOnce = true // a load Job too
	s.Files = []File{{"my.sql", []byte("\\set aid random(1, 10)\nSELECT :aid;\n")}, {"sql/b.sql", []byte("SELECT 2;\n")}}
	m := decode(t, mustRender(t, s))
	for i, f := range s.Files {
		if got := m.configMap.Data[fileKey(i)]; got != string(f.Data) {
			t.Errorf("the ConfigMap holds %q for %s", got, f.Path)
		}
	}
	want := map[string]string{s.ConfigName: s.ConfigName, "file-1": "my.sql", "file-2": "sql/b.sql"}
	for _, j := range m.jobs {
		for _, v := range j.Spec.Template.Spec.Volumes {
			if v.ConfigMap == nil {
				continue
			}
			got := map[string]string{}
			for _, it := range v.ConfigMap.Items {
				got[it.Key] = it.Path
			}
			if !maps.Equal(got, want) {
				t.Errorf("job %s mounts %v, want %v", j.Name, got, want)
			}
		}
	}
	if len(m.jobs) < 3 {
		t.Errorf("%d jobs", len(m.jobs))
	}
}

func mustRender(t *testing.T, s *Spec) []byte {
	t.Helper()
	out, err := Render(s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCheck: each spec the API server would refuse, or that could not run, is refused naming the
// flag.
func TestCheck(t *testing.T) {
	s0 := smallSpec(t)
	for _, tt := range []struct {
		edit func(*Spec)
		want string
	}{
		{func(s *Spec) { s.Name = "" }, "--name"},
		{func(s *Spec) { s.Name = "Upper" }, "--name"},
		{func(s *Spec) { s.Name = "-lead" }, "--name"},
		{func(s *Spec) { s.Name = strings.Repeat("n", MaxNameLen+1) }, "--name"},
		{func(s *Spec) { s.Namespace = "a.b" }, "--namespace"},
		{func(s *Spec) { s.Image = "" }, "--image"},
		{func(s *Spec) { s.Image = "a b" }, "--image"},
		{func(s *Spec) { s.Shards = 0 }, "--shards"},
		{func(s *Spec) { s.Shards = MaxShards + 1 }, "--shards"},
		{func(s *Spec) { s.Retries = -1 }, "--retries"},
		{func(s *Spec) { s.Retries = MaxRetries + 1 }, "--retries"},
		{func(s *Spec) { s.Secret = "Bad_Name" }, "--secret"},
		{func(s *Spec) { s.Claim = "x/y" }, "--claim"},
		{func(s *Spec) { s.StorageClass = "UPPER" }, "--storage-class"},
		{func(s *Spec) { s.Claim, s.StorageClass, s.RWXDefault = "c", "fast", false }, "--storage-class, --storage-size and --rwx-default do not apply"},
		{func(s *Spec) { s.Claim = "c" }, "--storage-class, --storage-size and --rwx-default do not apply"},
		{func(s *Spec) { s.StorageClass = "nfs" }, "--rwx-default says the cluster's default class offers ReadWriteMany"},
		{func(s *Spec) { s.RWXDefault = false }, "give --storage-class CLASS"},
		{func(s *Spec) { s.StorageSize = "1GB" }, "--storage-size"},
		{func(s *Spec) { s.Resources.CPU = "two" }, "--cpu"},
		{func(s *Spec) { s.Resources.Memory = "-1Gi" }, "--memory"},
		{func(s *Spec) { s.Resources.EphemeralStorage = "1 Gi" }, "--ephemeral-storage"},
		{func(s *Spec) { s.Deadline = -time.Second }, "--deadline"},
		{func(s *Spec) { s.NodeSelector = map[string]string{"a b": "c"} }, "--node-selector a b=c"},
		{func(s *Spec) { s.NodeSelector = map[string]string{"pool": strings.Repeat("v", 64)} }, "--node-selector pool="},
		{func(s *Spec) { s.Tolerations = []Toleration{{Key: "k", Operator: "Exists", Value: "v"}} }, "--toleration k=v"},
		{func(s *Spec) { s.Tolerations = []Toleration{{Key: "k", Operator: "Exists", Effect: "Sometimes"}} }, "--toleration k:Sometimes"},
		{func(s *Spec) { s.Env = []EnvVar{{"HOME", "/root"}} }, "variable HOME is /tmp in the pods"},
		{func(s *Spec) { s.Env = []EnvVar{{"TMPDIR", "/var/tmp"}} }, "variable TMPDIR is /tmp in the pods"},
		{func(s *Spec) { s.Now = time.Time{} }, "no start time"},
		{func(s *Spec) { s.ConfigName = "a/b.yaml" }, "ConfigMap key"},
		{func(s *Spec) { s.Config = bytes.Repeat([]byte("#"), MaxConfigBytes+1) }, "a ConfigMap holds at most"},
		{func(s *Spec) { s.Config = []byte("name: \xff\n") }, "not UTF-8"},
		{func(s *Spec) { s.Files = []File{{"../up.sql", nil}} }, "file ../up.sql: the pods find the files a config reads beside it"},
		{func(s *Spec) { s.Files = []File{{"/etc/x.sql", nil}} }, "file /etc/x.sql:"},
		{func(s *Spec) { s.Files = []File{{s.ConfigName, nil}} }, "file " + s0.ConfigName + ":"},
		{func(s *Spec) { s.Files = []File{{"x.sql", []byte("\xff")}} }, "file x.sql is not UTF-8"},
		{func(s *Spec) { s.Files = []File{{"x.sql", bytes.Repeat([]byte("-"), MaxConfigBytes)}} }, "the config and the files it reads"},
		{func(s *Spec) { s.StartAt = time.Time{} }, "no start time"},
		{func(s *Spec) { s.Env = []EnvVar{{"A-B", "1"}} }, `variable "A-B"`},
		{func(s *Spec) { s.LoadOnce, s.Env = true, []EnvVar{{StartAtEnv, "x"}} }, "variable " + StartAtEnv + " is the start time"},
	} {
		s := smallSpec(t)
		tt.edit(s)
		if out, err := Render(s); err == nil || !strings.Contains(err.Error(), tt.want) || out != nil {
			t.Errorf("%+v: error %v, want one naming %q and no manifests", *s, err, tt.want)
		}
	}
}

// TestGrammarsAgreeWithTheAPI: what Check accepts as a name, a quantity, a ConfigMap key or a
// variable, the API's own validation accepts too, and the usual values pass.
func TestGrammarsAgreeWithTheAPI(t *testing.T) {
	for _, v := range []string{"a", "dbbench-memory", "x1", "a.b", "-a", "a-", "A", "a_b", "", strings.Repeat("a", 64), "1a"} {
		if dnsLabel.MatchString(v) && len(v) <= 63 && len(validation.IsDNS1123Label(v)) > 0 {
			t.Errorf("label %q accepted here, refused by the API: %v", v, validation.IsDNS1123Label(v))
		}
		if dnsSubdomain.MatchString(v) && len(v) <= 253 && len(validation.IsDNS1123Subdomain(v)) > 0 {
			t.Errorf("subdomain %q accepted here, refused by the API", v)
		}
		if configKey.MatchString(v) && len(v) <= 253 && len(validation.IsConfigMapKey(v)) > 0 {
			t.Errorf("ConfigMap key %q accepted here, refused by the API", v)
		}
		if envName.MatchString(v) && len(validation.IsEnvVarName(v)) > 0 {
			t.Errorf("variable %q accepted here, refused by the API", v)
		}
	}
	for _, q := range []string{"1", "1Gi", "500Mi", "2", "500m", "0.5", ".5", "1.", "1e3", "1E3", "4k", "1Ti",
		"1GB", "1 Gi", "-1", "+1", "1gi", "Gi", "", "1.5.5", "0x10"} {
		_, err := resource.ParseQuantity(q)
		if quantity.MatchString(q) && err != nil {
			t.Errorf("quantity %q accepted here, refused by the API: %v", q, err)
		}
	}
	for _, q := range []string{"1Gi", "500Mi", "2", "500m", "0.5", "4G"} {
		if !quantity.MatchString(q) {
			t.Errorf("quantity %q refused", q)
		}
	}
}

// TestEnvFor: a variable set here reaches the pods as it was, unless it holds a secret, which only
// a Secret may carry; an unset or empty one is not passed.
func TestEnvFor(t *testing.T) {
	env := map[string]string{"PG_DSN": "postgres://u:hunter22@db/x", "SLOW": "20%", "EMPTY": "", "TOKEN": "s3cr3t-token"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	holds := func(v string) bool { return strings.Contains(v, "hunter22") || v == "s3cr3t-token" }
	for _, tt := range []struct {
		names  []string
		secret string
		want   []EnvVar
		err    string
	}{
		{[]string{"SLOW", "UNSET", "EMPTY"}, "", []EnvVar{{"SLOW", "20%"}}, ""},
		{[]string{"SLOW", "PG_DSN"}, "", nil, "${PG_DSN} holds a secret"},
		{[]string{"TOKEN"}, "", nil, "--secret"},
		{[]string{"SLOW", "PG_DSN", "TOKEN"}, "bench-env", []EnvVar{{"SLOW", "20%"}}, ""},
		{[]string{"ZED", "SLOW"}, "", []EnvVar{{"SLOW", "20%"}}, ""},
		{nil, "", nil, ""},
	} {
		env["ZED"] = "z"
		got, err := EnvFor(tt.names, lookup, holds, tt.secret)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "hunter22") || strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("%v: error %v, want one saying %q, without the secret", tt.names, err, tt.err)
			}
			continue
		}
		if tt.names != nil && tt.names[0] == "ZED" {
			tt.want = []EnvVar{{"SLOW", "20%"}, {"ZED", "z"}} // sorted by name
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%v: %v, %v, want %v", tt.names, got, err, tt.want)
		}
	}
}

// TestSecretLine: the first line a redactor changes, 0 when it changes none.
func TestSecretLine(t *testing.T) {
	redact := func(s string) string { return strings.ReplaceAll(s, "hunter22", "***") }
	for text, want := range map[string]int{
		"a\nb\n":                    0,
		"a\ndsn: x:hunter22@h\nc\n": 2,
		"hunter22":                  1,
		"a\nb\nc hunter22 hunter22": 3,
	} {
		if got := SecretLine([]byte(text), redact); got != want {
			t.Errorf("SecretLine(%q) = %d, want %d", text, got, want)
		}
	}
	multi := func(s string) string { return strings.ReplaceAll(s, "hunt\ner", "***") }
	if got := SecretLine([]byte("a\nhunt\ner\n"), multi); got != 1 {
		t.Errorf("a secret over two lines: line %d, want 1", got)
	}
}

// TestNames: the default object name and the config's file name in the pods.
func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"memory": "dbbench-memory", "Triplex on SQLite": "dbbench-triplex-on-sqlite", "--x__y--": "dbbench-x-y",
		"": "dbbench", strings.Repeat("ab", 40): ("dbbench-" + strings.Repeat("ab", 40))[:MaxNameLen],
		"x" + strings.Repeat("-", MaxNameLen) + "y": "dbbench-x-y",
		strings.Repeat("a", MaxNameLen-9) + "-bbbb": "dbbench-" + strings.Repeat("a", MaxNameLen-9), // no '-' at the cut
	} {
		got := DefaultName(in)
		if got != want || len(validation.IsDNS1123Label(got)) > 0 || len(got) > MaxNameLen {
			t.Errorf("DefaultName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"configs/lmdb.yaml": "lmdb.yaml", "memory": "memory.yaml", "/a/b/x.yml": "x.yml", `C:\cfg\win.yaml`: "win.yaml",
		"my config.yaml": "config.yaml", "ünï.yaml": "config.yaml",
	} {
		if got := ConfigFileName(in); got != want {
			t.Errorf("ConfigFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRunIDs: one rendering always has the same id, another rendering of the same config (rendered
// later, or with another flag) a new one; the names carry it unless pinned, the run's directory always.
func TestRunIDs(t *testing.T) {
	a, b := smallSpec(t), smallSpec(t)
	if a.RunID() != b.RunID() || a.RunName() != "dbbench-small-"+a.RunID() {
		t.Errorf("the same spec: ids %s and %s, run name %s", a.RunID(), b.RunID(), a.RunName())
	}
	ids := map[string]string{a.RunID(): "small"}
	for name, edit := range map[string]func(*Spec){
		"rendered a second later": func(s *Spec) { s.Now = s.Now.Add(time.Second) },
		"another start":           func(s *Spec) { s.StartAt = s.StartAt.Add(time.Minute) },
		"more shards":             func(s *Spec) { s.Shards++ },
		"another config":          func(s *Spec) { s.Config = append(s.Config, '\n') },
		"another image":           func(s *Spec) { s.Image += "-2" },
	} {
		s := smallSpec(t)
		edit(s)
		if prev, dup := ids[s.RunID()]; dup {
			t.Errorf("%s: id %s, the same as %s", name, s.RunID(), prev)
		}
		ids[s.RunID()] = name
	}
	p := smallSpec(t)
	p.Name, p.Pinned = "bench", true
	if p.RunName() != "bench" || p.MergeJobName() != "bench-merge" || p.ClaimName() != "bench-reports" || !strings.HasSuffix(p.RunDir(), "-"+p.RunID()) {
		t.Errorf("pinned: %s, %s, %s, %s", p.RunName(), p.MergeJobName(), p.ClaimName(), p.RunDir())
	}
	if a.ClaimName() != "dbbench-small-reports" {
		t.Errorf("the claim %s is not every rendering's", a.ClaimName())
	}
}

// TestResources: the formulas of docs/kubernetes.md, and the flags over them for the run pods only.
func TestResources(t *testing.T) {
	const mi = 1 << 20
	for _, tt := range []struct {
		work             Work
		over             Resources
		shards           int
		run, load, merge Resources
	}{
		{Work{Workers: 1, DatasetBytes: 100 * mi, InPodStores: 1}, Resources{}, 4,
			Resources{"2", "960Mi", "1472Mi"}, Resources{"2", "960Mi", "1Gi"}, Resources{"1", "576Mi", "1Gi"}},
		{Work{Workers: 8, DatasetBytes: 1 << 30, InPodStores: 3}, Resources{}, 100,
			Resources{"4", "12800Mi", "13Gi"}, Resources{"2", "4608Mi", "1Gi"}, Resources{"1", "960Mi", "1Gi"}},
		{Work{Workers: 3, DatasetBytes: mi, InPodStores: 0}, Resources{}, 100_000, // a store the shards share: one dataset's worth
			Resources{"4", "576Mi", "1Gi"}, Resources{"2", "576Mi", "1Gi"}, Resources{"1", "400512Mi", "1Gi"}},
		{Work{Workers: 1, DatasetBytes: mi, InPodStores: 1}, Resources{CPU: "500m", Memory: "3Gi", EphemeralStorage: "10Gi"}, 1,
			Resources{"500m", "3Gi", "10Gi"}, Resources{"2", "576Mi", "1Gi"}, Resources{"1", "576Mi", "1Gi"}},
	} {
		s := &Spec{Work: tt.work, Resources: tt.over, Shards: tt.shards}
		if got := [3]Resources{s.runResources(), s.loadResources(), s.mergeResources()}; got != [3]Resources{tt.run, tt.load, tt.merge} {
			t.Errorf("%+v, %d shards: run, load, merge %+v, want %+v", tt.work, tt.shards, got, [3]Resources{tt.run, tt.load, tt.merge})
		}
	}
}

// TestDeadlines: the formulas of docs/kubernetes.md: the wait for the start, three times the work,
// at least 15 minutes; a merge's from its release, or from the apply under NoSuspend.
func TestDeadlines(t *testing.T) {
	for _, tt := range []struct {
		name                string
		edit                func(*Spec)
		run, load, merge    time.Duration
		mergeAfterRunStarts time.Duration // what a NoSuspend merge waits for at most after the start
	}{
		{"small work", func(s *Spec) {}, 2*time.Minute + MinDeadline, MinDeadline, MinDeadline, 0},
		{"an hour's work", func(s *Spec) { s.Work.Run = time.Hour }, 2*time.Minute + 3*time.Hour, MinDeadline, MinDeadline, 0},
		{"--deadline", func(s *Spec) { s.Work.Run, s.Deadline = time.Hour, 30*time.Minute }, 30 * time.Minute, MinDeadline, MinDeadline, 0},
		{"10,000 shards", func(s *Spec) { s.Shards = 10_000 }, 2*time.Minute + MinDeadline, MinDeadline, 3000 * time.Second, 0},
		{"suspended run after a load", func(s *Spec) { s.LoadOnce, s.Work.Load = true, time.Hour }, 2*time.Minute + MinDeadline, 3 * time.Hour, MinDeadline, 0},
		{"no suspension", func(s *Spec) { s.NoSuspend, s.Work.Run = true, time.Hour },
			2*time.Minute + 3*time.Hour, MinDeadline, 2*time.Minute + 3*time.Hour + MinDeadline, 3 * time.Hour},
		{"no suspension, a load and a lead", func(s *Spec) { s.NoSuspend, s.LoadOnce, s.Lead, s.Work.Load = true, true, time.Minute, time.Hour },
			3*time.Hour + time.Minute + MinDeadline, 3 * time.Hour, 3*time.Hour + time.Minute + 2*MinDeadline, MinDeadline},
	} {
		s := smallSpec(t)
		tt.edit(s)
		if s.RunDeadline() != tt.run || s.LoadDeadline() != tt.load || s.MergeDeadline() != tt.merge {
			t.Errorf("%s: run %v, load %v, merge %v; want %v, %v, %v", tt.name, s.RunDeadline(), s.LoadDeadline(), s.MergeDeadline(), tt.run, tt.load, tt.merge)
		}
		if s.NoSuspend && s.runAfterStart() != tt.mergeAfterRunStarts {
			t.Errorf("%s: the merges wait %v after the start, want %v", tt.name, s.runAfterStart(), tt.mergeAfterRunStarts)
		}
	}
}

// TestImageVersion: the version label is the image's digest, else its tag.
func TestImageVersion(t *testing.T) {
	for image, want := range map[string]string{
		"registry.example/dbbench:1.0":                          "1.0",
		"registry.example:5000/dbbench":                         "",
		"registry.example:5000/team/dbbench:v2.1-rc.1":          "v2.1-rc.1",
		"dbbench@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f": "sha256-9f86d081884c",
		"dbbench:1.0@sha256:9f86d081884c7d659a2feaa0c55ad015":   "sha256-9f86d081884c",
		"dbbench:" + strings.Repeat("x", 70) + "_":              strings.Repeat("x", 63),
	} {
		if got := imageVersion(image); got != want || got != "" && len(validation.IsValidLabelValue(got)) > 0 {
			t.Errorf("imageVersion(%q) = %q, want %q", image, got, want)
		}
	}
}

// TestParseToleration: KEY[=VALUE][:EFFECT] as kubectl taint writes a taint.
func TestParseToleration(t *testing.T) {
	for in, want := range map[string]Toleration{
		"dedicated=bench:NoSchedule": {Key: "dedicated", Operator: "Equal", Value: "bench", Effect: "NoSchedule"},
		"spot":                       {Key: "spot", Operator: "Exists"},
		"example.com/gpu:NoExecute":  {Key: "example.com/gpu", Operator: "Exists", Effect: "NoExecute"},
		"k=":                         {Key: "k", Operator: "Equal"},
	} {
		got, err := ParseToleration(in)
		if err != nil || got != want || got.String() != in {
			t.Errorf("ParseToleration(%q) = %+v (%q), %v; want %+v", in, got, got.String(), err, want)
		}
	}
	for _, in := range []string{"", "=v", "k:Often", "k=v w", "a/b/c", "k:"} {
		if _, err := ParseToleration(in); err == nil {
			t.Errorf("ParseToleration(%q) accepted", in)
		}
	}
}

// TestScriptsRun runs the pods' shell scripts in /bin/sh, with the reports' directory in a temporary
// one and a dbbench that records its arguments: the load writes the start file (the load's end plus
// the lead, or the fixed start), a shard waits for it and starts at the time it holds, and a merge
// that is not released by hand waits until every shard has a report (a reservation does not count)
// or the run's deadline has passed.
func TestScriptsRun(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	type run struct {
		calls string
		err   error
	}
	// script runs one pod's script as its pod would (Kubernetes has put the index in), within wait
	runScript := func(t *testing.T, s *Spec, script string, files []testFile, wait time.Duration) run {
		t.Helper()
		dir := t.TempDir()
		bin := filepath.Join(dir, "bin")
		calls := filepath.Join(dir, "calls")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		fake := "#!/bin/sh\necho \"$*\" >> " + calls + "\n"
		if err := os.WriteFile(filepath.Join(bin, "dbbench"), []byte(fake), 0o755); err != nil {
			t.Fatal(err)
		}
		runDir := filepath.Join(dir, strings.TrimPrefix(s.RunDir(), ReportsDir+"/"))
		if err := os.MkdirAll(runDir, 0o755); err != nil {
			t.Fatal(err)
		}
		script = strings.ReplaceAll(script, ReportsDir+"/", dir+"/")
		script = strings.ReplaceAll(script, "$(JOB_COMPLETION_INDEX)", "0")
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(runDir, f.name), bytes.Repeat([]byte("x"), f.size), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		cmd := exec.CommandContext(ctx, sh, "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
		// a waiting script is stopped with its sleep, which would hold the output open
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.WaitDelay = time.Second
		out, err := cmd.CombinedOutput()
		if len(out) > 0 {
			t.Logf("script output: %s", out)
		}
		b, _ := os.ReadFile(calls)
		if start, rerr := os.ReadFile(filepath.Join(runDir, "start-at")); rerr == nil {
			b = append(b, "start-at: "...)
			b = append(b, start...)
		}
		return run{strings.ReplaceAll(string(b), dir+"/", ReportsDir+"/"), err}
	}

	t.Run("the load writes the start file: its end plus the lead", func(t *testing.T) {
		s := smallSpec(t)
		s.LoadOnce, s.NoSuspend, s.Lead = true, true, 90*time.Second
		before := time.Now().Unix()
		r := runScript(t, s, s.LoadScript(), nil, 10*time.Second)
		after := time.Now().Unix()
		_, stamp, ok := strings.Cut(r.calls, "start-at: ")
		var epoch int64
		var at string
		if _, err := fmt.Sscan(stamp, &epoch, &at); r.err != nil || !ok || err != nil {
			t.Fatalf("%v: calls and start file %q", r.err, r.calls)
		}
		when, err := time.Parse(time.RFC3339, at)
		if epoch < before+90 || epoch > after+90 || err != nil || when.Unix() != epoch {
			t.Errorf("start file %q: want the load's end plus 90 s, twice the same time (%v)", stamp, err)
		}
		if !strings.HasPrefix(r.calls, "run -c /config/small.yaml --load-only --loaded "+s.LoadedPath()+"\n") {
			t.Errorf("dbbench ran as %q", r.calls)
		}
	})
	t.Run("the load writes the fixed start", func(t *testing.T) {
		s := smallSpec(t)
		s.LoadOnce, s.NoSuspend = true, true
		r := runScript(t, s, s.LoadScript(), nil, 10*time.Second)
		if want := fmt.Sprintf("start-at: %d %s\n", s.StartAt.Unix(), s.StartAtText()); r.err != nil || !strings.HasSuffix(r.calls, want) {
			t.Errorf("%v: %q, want it to end %q", r.err, r.calls, want)
		}
	})
	t.Run("a shard starts at the start file's time", func(t *testing.T) {
		s := smallSpec(t)
		s.LoadOnce, s.NoSuspend, s.Lead = true, true, time.Minute
		r := runScript(t, s, strings.Replace(s.LoadScript(), "dbbench run", "true", 1)+"; "+s.RunScript(), nil, 10*time.Second)
		_, stamp, _ := strings.Cut(r.calls, "start-at: ")
		f := strings.Fields(stamp)
		if r.err != nil || len(f) != 2 || !strings.Contains(r.calls, "--start-at "+f[1]+" --loaded "+s.LoadedPath()+" --out "+s.RunDir()+"/shard-0.json --force") {
			t.Errorf("%v: %q, want dbbench run at the start file's time", r.err, r.calls)
		}
	})
	t.Run("a shard waits for the start file", func(t *testing.T) {
		s := smallSpec(t)
		s.LoadOnce, s.NoSuspend, s.Lead = true, true, time.Minute
		if r := runScript(t, s, s.RunScript(), nil, 1500*time.Millisecond); r.err == nil || r.calls != "" {
			t.Errorf("without the start file: %v, %q; want it still waiting", r.err, r.calls)
		}
	})
	reports := func(n int) []testFile {
		var fs []testFile
		for i := range n {
			fs = append(fs, testFile{fmt.Sprintf("shard-%d.json", i), 2048})
		}
		return fs
	}
	for _, tt := range []struct {
		name    string
		files   []testFile
		past    bool // the run's deadline has passed
		merges  bool
		partial bool
	}{
		{"every report: the merge runs", reports(4), false, true, false},
		{"every report, the partial merge runs", reports(4), false, true, true},
		{"a report missing: the merge waits", reports(3), false, false, false},
		{"a reservation is no report: the merge waits", append(reports(3), testFile{"shard-3.json", 300}), false, false, false},
		{"a report missing, the deadline passed: the merge runs", reports(3), true, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := smallSpec(t)
			s.NoSuspend = true
			if tt.past {
				s.StartAt = time.Now().Add(-time.Hour).Truncate(time.Second)
				s.Now = s.StartAt.Add(-2 * time.Minute)
			}
			r := runScript(t, s, s.MergeScript(tt.partial), tt.files, 1500*time.Millisecond)
			ran := strings.HasPrefix(r.calls, "merge "+s.RunDir()+"/shard-0.json ")
			if ran != tt.merges || tt.merges && (r.err != nil || !strings.Contains(r.calls, "--out "+s.MergedPath(tt.partial)+" --force")) {
				t.Errorf("%v: %q; want the merge run: %v", r.err, r.calls, tt.merges)
			}
		})
	}
}

// testFile is a file TestScriptsRun puts in the run's directory first.
type testFile struct {
	name string
	size int
}

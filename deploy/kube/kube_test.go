package kube

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

// start is the tests' start time: far ahead, so that a rendering never starts in the past.
var start = time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)

// smallSpec is what `dbbench kube -c deploy/kube/testdata/small.yaml --shards 4 --image
// registry.example/dbbench:1.0 --start-at 2099-01-01T00:00:00Z` renders (commands' test checks the
// command prints the same golden file).
func smallSpec(t *testing.T) *Spec {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "small.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return &Spec{Name: "dbbench-small", Image: "registry.example/dbbench:1.0", ConfigName: "small.yaml", Config: b,
		Shards: 4, StartAt: start, StorageSize: "1Gi"}
}

// pgSharedSpec is what `PG_DSN=postgres://bench:PASSWORD@db.example:5432/bench PG_SCHEMA=bench
// dbbench kube -c deploy/kube/testdata/pg-shared.yaml --shards 4 --secret pg-env --image
// registry.example/dbbench:1.0 --start-at 2099-01-01T00:00:00Z` renders: a store every shard
// shares, loaded once; the dsn from the Secret, the schema as it was set.
func pgSharedSpec(t *testing.T) *Spec {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "pg-shared.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return &Spec{Name: "dbbench-pg-shared", Image: "registry.example/dbbench:1.0", ConfigName: "pg-shared.yaml", Config: b,
		Shards: 4, StartAt: start, Secret: "pg-env", Env: []EnvVar{{"PG_SCHEMA", "bench"}}, LoadOnce: true}
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
			s.Name, s.Namespace, s.CI, s.Shards, s.Retries = "bench", "load-tests", true, 1, 2
			s.StorageClass, s.StorageSize, s.Secret = "nfs.example.com", "500Mi", "bench-env"
			s.Env = []EnvVar{{"DBBENCH_GATE_SLOWDOWN", "20%"}, {"PG_HOST", "db.example"}}
			s.CPU, s.Memory = "2", "4Gi"
			s.StartAt = start.Add(1500 * time.Millisecond)
		}},
		{"an existing claim", func(s *Spec) { s.Claim, s.StorageSize = "shared-reports", "" }},
		{"the default claim size", func(s *Spec) { s.StorageSize = "" }},
		{"the most shards", func(s *Spec) { s.Shards = MaxShards }},
		{"the longest name", func(s *Spec) { s.Name = strings.Repeat("n", MaxNameLen) }},
		{"a store loaded once", func(s *Spec) { s.LoadOnce = true }},
		{"a store loaded once, every option", func(s *Spec) {
			s.LoadOnce, s.Name, s.Namespace, s.CI, s.Shards, s.Retries = true, strings.Repeat("n", MaxNameLen), "load-tests", true, 8, 1
			s.Claim, s.StorageSize, s.Secret = "shared-reports", "", "bench-env"
			s.Env = []EnvVar{{"PG_SCHEMA", "bench"}}
			s.CPU, s.Memory = "2", "4Gi"
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

	// every object: named, in the namespace, labelled with valid labels
	metas := []metav1.ObjectMeta{m.configMap.ObjectMeta}
	if m.claim != nil {
		metas = append(metas, m.claim.ObjectMeta)
	}
	for _, j := range m.jobs {
		tmpl := j.Spec.Template.ObjectMeta
		tmpl.Namespace = s.Namespace // a pod template has no namespace of its own: its Job's
		metas = append(metas, j.ObjectMeta, tmpl)
	}
	for _, meta := range metas {
		if meta.Namespace != s.Namespace || meta.Labels["app.kubernetes.io/instance"] != s.Name {
			t.Errorf("%s: namespace %q, instance label %q, want %q and %q", meta.Name, meta.Namespace, meta.Labels["app.kubernetes.io/instance"], s.Namespace, s.Name)
		}
		for k, v := range meta.Labels {
			if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
				t.Errorf("label %s=%s: %v", k, v, errs)
			}
		}
	}
	for _, j := range m.jobs {
		if errs := validation.IsDNS1123Label(j.Name); len(errs) > 0 || len(j.Name) > 63 {
			t.Errorf("job name %q: %v", j.Name, errs)
		}
	}
	if names := []string{jobs[0].Name, jobs[1].Name, jobs[2].Name}; !slices.Equal(names, []string{s.Name, s.Name + "-merge", s.Name + "-merge-partial"}) {
		t.Errorf("jobs %v: want the run, the merge and the partial merge", names)
	}
	if load != nil && load.Name != s.Name+"-load" {
		t.Errorf("the load Job is named %s, want %s-load", load.Name, s.Name)
	}

	// the ConfigMap holds the config's bytes, exactly, under the name the pods read
	cm := m.configMap
	if cm.Immutable == nil || !*cm.Immutable || len(cm.Data) != 1 || len(cm.BinaryData) != 0 {
		t.Errorf("ConfigMap: immutable %v, %d data keys, %d binary: want immutable, the config alone", cm.Immutable, len(cm.Data), len(cm.BinaryData))
	}
	if got, ok := cm.Data[s.ConfigName]; !ok || got != string(s.Config) {
		t.Errorf("ConfigMap data[%q] is not the config's bytes (present: %v)", s.ConfigName, ok)
	}

	// the claim: ReadWriteMany, of the size and class asked
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
	// suspended exactly when a load must complete first
	if suspended := js.Suspend != nil && *js.Suspend; suspended != s.LoadOnce {
		t.Errorf("the run Job suspended: %v, want %v (a load Job: %v)", suspended, s.LoadOnce, s.LoadOnce)
	}
	pod := js.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever { // required by podFailurePolicy and the per-index limit
		t.Errorf("restartPolicy %q, want Never", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers in the run pod", len(pod.Containers))
	}
	c := pod.Containers[0]
	checkFailurePolicy(t, js.PodFailurePolicy, c.Name)
	if c.Image != s.Image || !slices.Equal(c.Command, []string{"dbbench"}) {
		t.Errorf("image %q, command %v", c.Image, c.Command)
	}
	args := flagValues(t, c.Args)
	if c.Args[0] != "run" || args["--shards"] != strconv.Itoa(s.Shards) {
		t.Errorf("args %v: want run ... --shards %d", c.Args, s.Shards)
	}
	startAt := args["--start-at"]
	startEnv := ""
	if s.LoadOnce {
		startEnv, startAt = checkStartAnnotation(t, s, run, c, startAt, m.header)
	}
	if at, err := time.Parse(time.RFC3339Nano, startAt); err != nil || !at.Equal(s.StartAt) {
		t.Errorf("--start-at %q (%v), want %s", startAt, err, s.StartAt)
	}
	if !strings.Contains(m.header, s.StartAt.UTC().Format(time.RFC3339Nano)) {
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
	// environment: the plain variables as given, the Secret's keys when there is one
	var env []EnvVar
	for _, e := range c.Env {
		if e.Name == startEnv {
			continue // checked above
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
	// resources: requests == limits, as given
	for name, v := range map[corev1.ResourceName]string{corev1.ResourceCPU: s.CPU, corev1.ResourceMemory: s.Memory} {
		req, hasReq := c.Resources.Requests[name]
		lim, hasLim := c.Resources.Limits[name]
		if v == "" && (hasReq || hasLim) || v != "" && (req.Cmp(resource.MustParse(v)) != 0 || lim.Cmp(req) != 0) {
			t.Errorf("%s: request %v, limit %v, want both %q", name, req.String(), lim.String(), v)
		}
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
	if m.claim != nil && m.claim.Name != claim {
		t.Errorf("the claim is named %s, the pods mount %s", m.claim.Name, claim)
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

	// the merge Jobs: suspended, one attempt, reading the same claim and directory; the second allows
	// missing shards and writes a report of its own
	for i, merge := range jobs[1:] {
		checkMerge(t, s, merge, i == 1, claim, repVol.mount.MountPath, runDir)
	}
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
	for _, want := range []string{"wait --for=condition=complete", "job/" + s.Name + "-load",
		`"suspend":false`, `"annotations":{"` + key + `":"TIME"}`} {
		if !strings.Contains(header, want) {
			t.Errorf("the header does not say %q:\n%s", want, header)
		}
	}
	return name, val
}

// checkLoad checks the load Job: one pod, one attempt, not suspended, running `run --load-only`
// on the run's config with the run's environment, writing the marker the shards check (shardArgs)
// on the same claim mounted at the same place.
func checkLoad(t *testing.T, s *Spec, load batchv1.Job, run corev1.Container, runVolumes []corev1.Volume, shardArgs map[string]string) {
	t.Helper()
	ls := load.Spec
	if ls.Suspend != nil && *ls.Suspend || ls.BackoffLimit == nil || *ls.BackoffLimit != 0 {
		t.Errorf("%s: suspend %v, backoffLimit %v, want running, 0", load.Name, ls.Suspend, ls.BackoffLimit)
	}
	if ls.CompletionMode != nil && *ls.CompletionMode == batchv1.IndexedCompletion || ls.Completions != nil && *ls.Completions != 1 ||
		ls.Parallelism != nil && *ls.Parallelism != 1 {
		t.Errorf("%s runs more than once", load.Name)
	}
	pod := ls.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever || len(pod.Containers) != 1 {
		t.Fatalf("%s: restartPolicy %q, %d containers", load.Name, pod.RestartPolicy, len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.Image != s.Image || len(c.Command) != 3 || c.Command[0] != "/bin/sh" || c.Command[1] != "-c" {
		t.Fatalf("%s: image %s, command %q", load.Name, c.Image, c.Command)
	}
	mkdir, cmd, ok := strings.Cut(c.Command[2], " && exec dbbench ")
	if !ok {
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
	mounts := mountsByVolume(t, c.VolumeMounts, pod.Volumes)
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

// checkMerge checks a merge Job: suspended, one attempt, the dbbench image reading the run's
// reports on the claim, mounted where the run's pods mount it.
func checkMerge(t *testing.T, s *Spec, merge batchv1.Job, partial bool, claim, mountPath, runDir string) {
	t.Helper()
	ms := merge.Spec
	if ms.Suspend == nil || !*ms.Suspend || ms.BackoffLimit == nil || *ms.BackoffLimit != 0 {
		t.Errorf("%s: suspend %v, backoffLimit %v, want suspended, 0", merge.Name, ms.Suspend, ms.BackoffLimit)
	}
	if ms.CompletionMode != nil && *ms.CompletionMode == batchv1.IndexedCompletion || ms.Completions != nil && *ms.Completions != 1 {
		t.Errorf("%s runs more than once", merge.Name)
	}
	mpod := ms.Template.Spec
	if mpod.RestartPolicy != corev1.RestartPolicyNever || len(mpod.Containers) != 1 {
		t.Fatalf("%s: restartPolicy %q, %d containers", merge.Name, mpod.RestartPolicy, len(mpod.Containers))
	}
	mc := mpod.Containers[0]
	mrep := mountsByVolume(t, mc.VolumeMounts, mpod.Volumes)["reports"]
	if mrep.volume.PersistentVolumeClaim == nil || mrep.volume.PersistentVolumeClaim.ClaimName != claim || mrep.mount.MountPath != mountPath {
		t.Errorf("%s reads %+v at %s, want the claim %s at %s", merge.Name, mrep.volume.PersistentVolumeClaim, mrep.mount.MountPath, claim, mountPath)
	}
	if len(mc.Command) != 3 || mc.Command[0] != "/bin/sh" || mc.Command[1] != "-c" || mc.Image != s.Image {
		t.Fatalf("%s: command %v, image %s", merge.Name, mc.Command, mc.Image)
	}
	script := strings.Fields(mc.Command[2])
	wantScript := []string{"exec", "dbbench", "merge", runDir + "shard-*.json", "--out", runDir + "merged.json"}
	if partial {
		wantScript = []string{"exec", "dbbench", "merge", runDir + "shard-*.json", "--out", runDir + "merged-partial.json", "--allow-missing"}
	}
	if !slices.Equal(script, wantScript) {
		t.Errorf("%s: script %q, want %q", merge.Name, script, wantScript)
	}
}

// checkFailurePolicy: a usage error fails the Job, a shard that wrote its report is not retried, a
// disruption is not counted, and every rule names the run's container.
func checkFailurePolicy(t *testing.T, p *batchv1.PodFailurePolicy, container string) {
	t.Helper()
	if p == nil || len(p.Rules) != 3 {
		t.Fatalf("podFailurePolicy %+v: want 3 rules", p)
	}
	for i, want := range []struct {
		action batchv1.PodFailurePolicyAction
		codes  []int32
	}{{batchv1.PodFailurePolicyActionFailJob, []int32{2}}, {batchv1.PodFailurePolicyActionFailIndex, []int32{1, 4, 5}}} {
		r := p.Rules[i]
		if r.Action != want.action || r.OnExitCodes == nil || r.OnExitCodes.Operator != batchv1.PodFailurePolicyOnExitCodesOpIn ||
			!slices.Equal(r.OnExitCodes.Values, want.codes) || r.OnExitCodes.ContainerName == nil || *r.OnExitCodes.ContainerName != container {
			t.Errorf("rule %d: %+v, want %s on exit %v of %s", i, r, want.action, want.codes, container)
		}
	}
	r := p.Rules[2]
	if r.Action != batchv1.PodFailurePolicyActionIgnore || len(r.OnPodConditions) != 1 || r.OnPodConditions[0].Type != corev1.DisruptionTarget {
		t.Errorf("rule 2: %+v, want Ignore on DisruptionTarget", r)
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

// TestCheck: each spec the API server would refuse, or that could not run, is refused naming the
// flag.
func TestCheck(t *testing.T) {
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
		{func(s *Spec) { s.Claim, s.StorageClass, s.StorageSize = "c", "fast", "" }, "--storage-class and --storage-size do not apply"},
		{func(s *Spec) { s.Claim = "c" }, "--storage-class and --storage-size do not apply"},
		{func(s *Spec) { s.StorageSize = "1GB" }, "--storage-size"},
		{func(s *Spec) { s.CPU = "two" }, "--cpu"},
		{func(s *Spec) { s.Memory = "-1Gi" }, "--memory"},
		{func(s *Spec) { s.ConfigName = "a/b.yaml" }, "ConfigMap key"},
		{func(s *Spec) { s.Config = bytes.Repeat([]byte("#"), MaxConfigBytes+1) }, "a ConfigMap holds at most"},
		{func(s *Spec) { s.Config = []byte("name: \xff\n") }, "not UTF-8"},
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

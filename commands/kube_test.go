package commands

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	psapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	k8syaml "sigs.k8s.io/yaml"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/configs"
	"github.com/dbbench/dbbench/deploy/kube"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// kubeBase are the flags every kube test gives: an image, a start time far ahead.
var kubeBase = []string{"--image", "registry.example/dbbench:1.0", "--start-at", "2099-01-01T00:00:00Z"}

// kubeArgs is `dbbench kube ARGS` with kubeBase, and --rwx-default unless the arguments say where
// the reports go.
func kubeArgs(args ...string) []string {
	out := append(append([]string{"kube"}, args...), kubeBase...)
	for _, a := range args {
		if a == "--claim" || a == "--storage-class" || a == "--rwx-default" {
			return out
		}
	}
	return append(out, "--rwx-default")
}

// kubeNow is the tests' rendering time: two minutes before kubeBase's start.
var kubeNow = time.Date(2098, 12, 31, 23, 58, 0, 0, time.UTC)

// runKubeAt runs `dbbench kube ARGS` as rendered at now: its exit code, stdout and stderr (the
// error's one line last, as dbbench prints it).
func runKubeAt(t *testing.T, now time.Time, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	f := &Factory{Out: &out, Err: &errb, Registry: func() (*adapters.Registry, error) {
		return adapters.NewRegistry(builtinAdapters()...)
	}}
	cmd := NewKubeCmd(f, func(o *KubeOptions) error {
		o.now = func() time.Time { return now }
		return runKube(o)
	})
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	if err != nil {
		errb.WriteString("dbbench: " + err.Error() + "\n")
	}
	return exitcode.Of(err), out.String(), errb.String()
}

// TestKubeGolden: the command prints deploy/kube's golden manifests for its small config and 4
// shards, and for its small config on a PostgreSQL server every shard shares (with a load Job: the
// command decides the store is shared, as the run does), and says on stderr when the shards start
// or what to wait for. That package decodes the files strictly into the Kubernetes API's types.
func TestKubeGolden(t *testing.T) {
	const pw = "golden-pw-77"
	for _, tt := range []struct {
		config, golden string
		env            map[string]string
		args           []string
		stderr         string
	}{
		{"small.yaml", "small-4.yaml", nil, nil, "dbbench: run dbbench-small-"},
		{"pg-shared.yaml", "pg-shared-4.yaml", map[string]string{"PG_DSN": "postgres://bench:" + pw + "@db.example:5432/bench", "PG_SCHEMA": "bench"},
			[]string{"--secret", "pg-env"}, "dbbench: run dbbench-pg-shared-"},
	} {
		t.Run(tt.config, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			cfg := filepath.Join(repoRoot, "deploy", "kube", "testdata", tt.config)
			code, out, errOut := runKubeAt(t, kubeNow, kubeArgs(append([]string{"-c", cfg, "--shards", "4"}, tt.args...)...)[1:]...)
			if code != exitcode.OK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			want, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "kube", "testdata", tt.golden))
			if err != nil {
				t.Fatal(err)
			}
			if out != string(want) {
				t.Errorf("kube printed other manifests than deploy/kube/testdata/%s:\n%s", tt.golden, out)
			}
			// what starts the run, then the tag's warning: a node may run another push of it
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], tt.stderr) || !strings.Contains(lines[1], "is a tag") || strings.Contains(errOut, pw) {
				t.Errorf("stderr %q: want a line starting %q, then the tag's warning", errOut, tt.stderr)
			}
		})
	}
}

// TestKubeListed: dbbench --help lists the command with what it does.
func TestKubeListed(t *testing.T) {
	_, out, _ := execute(t, "--help")
	if !strings.Contains(out, "\n  kube        Render Kubernetes manifests that run a config as N shards and merge them\n") {
		t.Errorf("dbbench --help does not list kube:\n%s", out)
	}
}

// TestKubeConfigs: a built-in config by name, and the default with no -c, go into the ConfigMap as
// the bytes dbbench has built in, under NAME.yaml, and name the objects after the config.
func TestKubeConfigs(t *testing.T) {
	for _, tt := range []struct{ flag, name string }{{"ycsb-a", "ycsb-a"}, {"", configs.Default}} {
		args := kubeArgs("--shards", "3")
		if tt.flag != "" {
			args = append(args, "-c", tt.flag)
		}
		code, out, errOut := execute(t, args...)
		if code != exitcode.OK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		b, _ := configs.Read(tt.name)
		if data := configMapData(t, out); len(data) != 1 || data[tt.name+".yaml"] != string(b) {
			t.Errorf("%v: the ConfigMap does not hold %s.yaml alone, as built in", args, tt.name)
		}
		if !strings.Contains(out, "- /config/"+tt.name+".yaml\n") || !strings.Contains(out, "name: dbbench-") {
			t.Errorf("%v: the pods do not read /config/%s.yaml", args, tt.name)
		}
	}
}

// configMapData is the data of the ConfigMap among rendered manifests.
func configMapData(t *testing.T, manifests string) map[string]string {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(manifests))
	for {
		var doc struct {
			Kind string
			Data map[string]string
		}
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("no ConfigMap in the manifests: %v", err)
		}
		if doc.Kind == "ConfigMap" {
			return doc.Data
		}
	}
}

// TestKubeEveryBuiltinConfig: every shipped config renders (none is taken for one holding a secret).
func TestKubeEveryBuiltinConfig(t *testing.T) {
	for _, name := range configs.Names() {
		if code, _, errOut := execute(t, kubeArgs("-c", name, "--shards", "2")...); code != exitcode.OK {
			t.Errorf("%s: exit %d: %s", name, code, errOut)
		}
	}
}

// TestKubeSecrets: no secret reaches the manifests or the messages. A secret written in the config
// is refused with its line; a ${NAME} that holds one needs --secret; a plain ${NAME} set here is
// passed on as it is.
func TestKubeSecrets(t *testing.T) {
	const pw = "hunter22-pw"
	dir := t.TempDir()
	target := func(opts string) string {
		return "name: pg\ndataset: {persons: 100}\nworkloads: [scan]\ntargets:\n  - {name: pg, adapter: sql, options: " + opts + "}\n"
	}
	literal := writeFile(t, dir, "literal.yaml", target("{driver: postgres, dsn: \"postgres://bench:"+pw+"@db.example/bench\"}"))
	fromEnv := writeFile(t, dir, "env.yaml", target("{driver: postgres, dsn: \"${DBBENCH_KUBE_DSN}\", schema: \"${DBBENCH_KUBE_SCHEMA}\"}"))
	option := writeFile(t, dir, "option.yaml", "name: tdb\ndataset: {persons: 100}\nworkloads: [scan]\ntargets:\n  - name: t\n    adapter: typedb\n    options: {password: "+pw+"}\n")
	keyValue := writeFile(t, dir, "kv.yaml", target(`{driver: postgres, dsn: "host=db port=5432 user=u password='a\\' `+pw+`'"}`))
	described := writeFile(t, dir, "described.yaml", "name: m\ndescription: the password is "+pw+"\ndataset: {persons: 100}\nworkloads: [scan]\ntargets: [{name: m, adapter: memory}]\n")
	for _, tt := range []struct {
		name    string
		env     map[string]string
		args    []string
		code    int
		want    string // on stderr when refused, on stdout when rendered
		notWant string // never on stdout
	}{
		{"a dsn's password in the file", nil, []string{"-c", literal}, exitcode.Usage, "literal.yaml:5: a secret in clear", ""},
		{"a key=value dsn's password in the file", nil, []string{"-c", keyValue}, exitcode.Usage, "kv.yaml:5: a secret in clear", ""},
		{"a secret option in the file", nil, []string{"-c", option}, exitcode.Usage, "option.yaml:7: a secret in clear", ""},
		{"PGPASSWORD's value in the file", map[string]string{"PGPASSWORD": pw}, []string{"-c", described}, exitcode.Usage, "described.yaml:2: a secret in clear", ""},
		{"a dsn from a variable, no Secret", map[string]string{"DBBENCH_KUBE_DSN": "postgres://bench:" + pw + "@db/x", "DBBENCH_KUBE_SCHEMA": "s"},
			[]string{"-c", fromEnv}, exitcode.Usage, "${DBBENCH_KUBE_DSN} holds a secret, which the manifests never hold: create a Secret with the key DBBENCH_KUBE_DSN and give it with --secret NAME", ""},
		{"a dsn from a variable, from the Secret", map[string]string{"DBBENCH_KUBE_DSN": "postgres://bench:" + pw + "@db/x", "DBBENCH_KUBE_SCHEMA": "bench_schema"},
			[]string{"-c", fromEnv, "--secret", "bench-env"}, exitcode.OK,
			"              value: /tmp\n            - name: DBBENCH_KUBE_SCHEMA\n              value: bench_schema\n          envFrom:\n            - secretRef:\n                name: bench-env\n",
			"DBBENCH_KUBE_DSN\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			code, out, errOut := execute(t, kubeArgs(append(tt.args, "--shards", "2")...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s", code, tt.code, errOut)
			}
			if strings.Contains(out+errOut, pw) {
				t.Errorf("the secret is shown:\n%s%s", out, errOut)
			}
			if tt.code != exitcode.OK {
				if out != "" || !strings.Contains(errOut, tt.want) {
					t.Errorf("stdout %q, stderr %q: want nothing, and %q", out, errOut, tt.want)
				}
				return
			}
			if !strings.Contains(out, tt.want) || strings.Contains(out, tt.notWant) {
				t.Errorf("the manifests lack %q or hold %q:\n%s", tt.want, tt.notWant, out)
			}
		})
	}
}

// TestKubeRefuses: bad input is one line and exit 2, with nothing on stdout.
func TestKubeRefuses(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.yaml", "name: bad\ndataset: {persons: 100}\nworkloads: [scan, nosuch]\ntargets: [{name: m, adapter: memory}]\n")
	// what every shard would refuse: a server's store without a schema of the user's, the insert
	// transaction on a shared store
	shared := func(workload, opts string) string {
		return "name: pg\ndataset: {persons: 100}\nworkloads: [" + workload + "]\ntargets:\n  - {name: pg, adapter: sql, options: {driver: postgres, dsn: \"postgres://bench@db.example/bench\"" + opts + "}}\n"
	}
	noSchema := writeFile(t, dir, "noschema.yaml", shared("scan", ""))
	insert := writeFile(t, dir, "insert.yaml", shared("insert", ", schema: bench"))
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"kube", "--image", "x", "-c", "memory"}, `required flag(s) "shards" not set`},
		{[]string{"kube", "--shards", "2", "-c", "memory"}, `required flag(s) "image" not set`},
		{kubeArgs("--shards", "0"), "--shards 0: want 1 to 100000"},
		{kubeArgs("--shards", "2", "-c", bad), `bad.yaml:3: unknown workload "nosuch"`},
		{kubeArgs("--shards", "2", "-c", "no-such-config"), "cannot read config no-such-config"},
		{kubeArgs("--shards", "2", "-c", "memory", "--ci", "--name", "Bad_Name"), `--name "Bad_Name"`},
		{kubeArgs("--shards", "2", "--claim", "shared", "--storage-class", "nfs"), "--storage-class, --storage-size and --rwx-default do not apply"},
		{kubeArgs("--shards", "2", "--rwx-default", "--storage-class", "nfs"), "--rwx-default says the cluster's default class offers ReadWriteMany"},
		{[]string{"kube", "--shards", "2", "--image", "x", "-c", "memory"}, "give --storage-class CLASS (an NFS, CephFS or cloud file share class), --claim NAME (an existing claim), or --rwx-default"},
		{kubeArgs("--shards", "2", "--node-selector", "pool"), `--node-selector "pool": want KEY=VALUE`},
		{kubeArgs("--shards", "2", "--node-selector", "pool=a b"), "--node-selector pool=a b: want a label's KEY=VALUE"},
		{kubeArgs("--shards", "2", "--node-selector", "pool=a", "--node-selector", "pool=b"), "--node-selector pool: given twice"},
		{kubeArgs("--shards", "2", "--toleration", "spot:Sometimes"), `--toleration "spot:Sometimes": want KEY[=VALUE][:EFFECT]`},
		{kubeArgs("--shards", "2", "--toleration", "=x"), `--toleration "=x"`},
		{kubeArgs("--shards", "2", "--deadline", "-1m"), "--deadline -1m0s"},
		{kubeArgs("--shards", "2", "--ttl", "0s"), "--ttl 0s"},
		{kubeArgs("--shards", "2", "--ephemeral-storage", "lots"), `--ephemeral-storage "lots"`},
		{kubeArgs("--shards", "2", "--cpu", "two"), `--cpu "two"`},
		{kubeArgs("--shards", "2", "--start-in", "1m"), "[start-in start-at]"},
		{[]string{"kube", "--shards", "2", "--image", "x", "--start-at", "tomorrow"}, `--start-at "tomorrow": want an RFC 3339 time`},
		{[]string{"kube", "--shards", "2", "--image", "x", "--start-at", "2001-01-01T00:00:00Z"}, "--start-at 2001-01-01T00:00:00Z is in the past"},
		{[]string{"kube", "--shards", "2", "--image", "x", "--start-in", "-5s"}, "--start-in -5s: want a positive duration"},
		{[]string{"kube", "--shards", "2", "--image", "x", "extra"}, "unknown command"},
		{kubeArgs("--shards", "2", "-c", noSchema), "shards share its store loaded once, and it cannot be shared: sql: give schema"},
		{kubeArgs("--shards", "2", "-c", insert), "workload insert makes the table persons_insert on every shard"},
	} {
		code, out, errOut := execute(t, tt.args...)
		if code != exitcode.Usage || out != "" || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, nothing, one line with %q", tt.args, code, out, errOut, tt.want)
		}
	}
}

// TestKubeScriptFiles: a sql workload's script file travels with the config (its ConfigMap,
// mounted beside it); one outside the config's directory, or holding a secret, is refused.
func TestKubeScriptFiles(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "bench")
	if err := os.MkdirAll(filepath.Join(dir, "sql"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "\\set aid random(1, 10)\nSELECT :aid;\n"
	writeFile(t, filepath.Join(dir, "sql"), "mine.sql", script)
	writeFile(t, root, "up.sql", script)
	writeFile(t, dir, "secret.sql", "SELECT 'hunter22-pw';\n")
	cfg := func(name, ref string) string {
		return writeFile(t, dir, name, "name: q\nworkloads:\n  - name: w\n    sql: {script: "+ref+"}\ntargets: [{name: s, adapter: sql}]\n")
	}
	code, out, errOut := execute(t, kubeArgs("--shards", "2", "-c", cfg("q.yaml", "./sql/../sql/mine.sql"))...)
	if code != exitcode.OK || !strings.Contains(out, "  file-1: |\n    \\set aid random(1, 10)\n    SELECT :aid;\n") ||
		!strings.Contains(out, "- key: file-1\n                path: sql/mine.sql\n") {
		t.Errorf("exit %d, stderr %q; want the script in the ConfigMap and mounted at sql/mine.sql:\n%s", code, errOut, out)
	}
	t.Setenv("PGPASSWORD", "hunter22-pw") // a secret dbbench knows of, which secret.sql holds
	for _, tt := range []struct{ name, ref, want string }{
		{"outside", "../up.sql", "script ../up.sql: the pods find a config's files beside it"},
		{"absolute", filepath.Join(root, "up.sql"), "the pods find a config's files beside it"},
		{"a secret", "secret.sql", "secret.sql:1: a secret in clear"},
	} {
		code, out, errOut := execute(t, kubeArgs("--shards", "2", "-c", cfg(tt.name+".yaml", tt.ref))...)
		if code != exitcode.Usage || out != "" || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tt.name, code, out, errOut, tt.want)
		}
	}
}

// TestKubeStartIn: --start-in counts from the moment of rendering, to the second, and every pod's
// command line holds that one time.
func TestKubeStartIn(t *testing.T) {
	now := time.Date(2026, 12, 2, 13, 59, 10, 700_000_000, time.UTC)
	for _, tt := range []struct {
		args []string
		want string
		in   string
	}{
		{nil, "2026-12-02T14:01:11Z", "2m0s"}, // DefaultStartIn, rounded up to the second
		{[]string{"--start-in", "90s"}, "2026-12-02T14:00:41Z", "1m30s"},
		{[]string{"--start-at", "2026-12-02T14:00:00.5+01:00"}, "2026-12-02T13:00:00.5Z", ""}, // in the past in UTC
		{[]string{"--start-at", "2026-12-02T15:00:00.25+01:00"}, "2026-12-02T14:00:00.25Z", "49s"},
	} {
		code, out, errOut := runKubeAt(t, now, append([]string{"-c", "memory", "--shards", "4", "--image", "x", "--rwx-default"}, tt.args...)...)
		if tt.in == "" {
			if code != exitcode.Usage || !strings.Contains(errOut, "in the past") {
				t.Errorf("%v: exit %d, %s; want a start in the past refused", tt.args, code, errOut)
			}
			continue
		}
		if code != exitcode.OK {
			t.Fatalf("%v: exit %d: %s", tt.args, code, errOut)
		}
		if strings.Count(out, `- "`+tt.want+`"`) != 1 || !strings.Contains(out, "starting at "+tt.want+";") {
			t.Errorf("%v: the manifests do not start the shards at %s once:\n%s", tt.args, tt.want, out)
		}
		if !strings.Contains(errOut, "start at "+tt.want+" (in "+tt.in+")") {
			t.Errorf("%v: stderr %q, want the start %s in %s", tt.args, errOut, tt.want, tt.in)
		}
	}
}

// kubeRendering is one line of deploy/kube/testdata/matrix.txt: a rendering every check of the
// manifests runs (this test, and .ci/kube-check on a real API server).
type kubeRendering struct {
	name string
	env  map[string]string
	args []string
}

// matrixImage is the image the matrix's renderings get: by digest, as the docs recommend.
const matrixImage = "registry.example/dbbench@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func readKubeMatrix(t *testing.T) []kubeRendering {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot, "deploy", "kube", "testdata", "matrix.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []kubeRendering
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		words := strings.Fields(sc.Text())
		if len(words) == 0 || strings.HasPrefix(words[0], "#") {
			continue
		}
		r := kubeRendering{name: words[0], env: map[string]string{}}
		for _, w := range words[1:] {
			if k, v, ok := strings.Cut(w, "="); ok && len(r.args) == 0 && !strings.HasPrefix(w, "-") {
				r.env[k] = v
				continue
			}
			if strings.HasPrefix(w, "deploy/") {
				w = filepath.Join(repoRoot, w)
			}
			r.args = append(r.args, w)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil || len(out) < 10 {
		t.Fatalf("matrix.txt: %d renderings, %v", len(out), err)
	}
	return out
}

// TestKubeMatrix renders every line of the matrix through the command and checks what an operator
// would ask of it: every object decodes strictly into the API's types; every pod template meets Pod
// Security "restricted" by Pod Security admission's own evaluator; no pod gets a service account
// token; every container has cpu, memory and ephemeral-storage requests equal to its limits (a
// namespace with a compute quota admits it); every Job has a deadline and a time to live; and
// --no-suspend leaves nothing suspended.
func TestKubeMatrix(t *testing.T) {
	eval, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	restricted := psapi.LevelVersion{Level: psapi.LevelRestricted, Version: psapi.LatestVersion()}
	now := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	for _, r := range readKubeMatrix(t) {
		t.Run(r.name, func(t *testing.T) {
			for k, v := range r.env {
				t.Setenv(k, v)
			}
			code, out, errOut := runKubeAt(t, now, append(r.args, "--image", matrixImage)...)
			if code != exitcode.OK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if strings.Contains(errOut, "is a tag") {
				t.Errorf("an image by digest is warned about: %s", errOut)
			}
			jobs := decodeJobs(t, out)
			noSuspend := slices.Contains(r.args, "--no-suspend")
			for _, j := range jobs {
				meta, pod := j.Spec.Template.ObjectMeta, j.Spec.Template.Spec
				if res := policy.AggregateCheckResults(eval.EvaluatePod(restricted, &meta, &pod)); !res.Allowed {
					t.Errorf("job %s: Pod Security %q refuses its pods: %s: %s", j.Name, "restricted", res.ForbiddenReason(), res.ForbiddenDetail())
				}
				if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
					t.Errorf("job %s: its pods get a service account token", j.Name)
				}
				for _, c := range pod.Containers {
					for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
						req, okReq := c.Resources.Requests[name]
						lim, okLim := c.Resources.Limits[name]
						if !okReq || !okLim || req.Cmp(lim) != 0 || req.Sign() <= 0 {
							t.Errorf("job %s, container %s: %s request %v, limit %v: want both, equal", j.Name, c.Name, name, req.String(), lim.String())
						}
					}
				}
				if d := j.Spec.ActiveDeadlineSeconds; d == nil || *d < int64(kube.MinDeadline/time.Second) && !slices.Contains(r.args, "--deadline") {
					t.Errorf("job %s: activeDeadlineSeconds %v: want at least %v", j.Name, d, kube.MinDeadline)
				}
				if ttl := j.Spec.TTLSecondsAfterFinished; ttl == nil || *ttl <= 0 {
					t.Errorf("job %s: ttlSecondsAfterFinished %v", j.Name, ttl)
				}
				if suspended := j.Spec.Suspend != nil && *j.Spec.Suspend; suspended && noSuspend {
					t.Errorf("job %s is suspended under --no-suspend", j.Name)
				}
			}
		})
	}
}

// decodeJobs decodes the Jobs of a rendering strictly into the API's type (deploy/kube's tests check
// every other object).
func decodeJobs(t *testing.T, manifests string) []batchv1.Job {
	t.Helper()
	var jobs []batchv1.Job
	for _, doc := range strings.Split(manifests, "\n---\n")[1:] {
		var tm metav1.TypeMeta
		if err := k8syaml.Unmarshal([]byte(doc), &tm); err != nil {
			t.Fatal(err)
		}
		if tm.Kind != "Job" {
			continue
		}
		var j batchv1.Job
		if err := k8syaml.UnmarshalStrict([]byte(doc), &j); err != nil {
			t.Fatalf("a Job does not decode strictly: %v", err)
		}
		jobs = append(jobs, j)
	}
	if len(jobs) < 3 {
		t.Fatalf("%d Jobs in the manifests", len(jobs))
	}
	return jobs
}

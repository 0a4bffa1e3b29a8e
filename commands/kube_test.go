package commands

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/configs"
	"github.com/dbbench/dbbench/internal/exitcode"
)

// kubeBase are the flags every kube test gives: an image, a start time far ahead.
var kubeBase = []string{"--image", "registry.example/dbbench:1.0", "--start-at", "2099-01-01T00:00:00Z"}

func kubeArgs(args ...string) []string { return append(append([]string{"kube"}, args...), kubeBase...) }

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
		{"small.yaml", "small-4.yaml", nil, nil, "dbbench: 4 shards of small.yaml start at 2099-01-01T00:00:00Z (in "},
		{"pg-shared.yaml", "pg-shared-4.yaml", map[string]string{"PG_DSN": "postgres://bench:" + pw + "@db.example:5432/bench", "PG_SCHEMA": "bench"},
			[]string{"--secret", "pg-env"}, "dbbench: 4 shards of pg-shared.yaml on a store they share: apply, wait for job/dbbench-pg-shared-load to complete, then release job/dbbench-pg-shared"},
	} {
		t.Run(tt.config, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			cfg := filepath.Join(repoRoot, "deploy", "kube", "testdata", tt.config)
			code, out, errOut := execute(t, kubeArgs(append([]string{"-c", cfg, "--shards", "4"}, tt.args...)...)...)
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
			if !strings.HasPrefix(errOut, tt.stderr) || strings.Count(errOut, "\n") != 1 || strings.Contains(errOut, pw) {
				t.Errorf("stderr %q: want one line starting %q", errOut, tt.stderr)
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
			"          env:\n            - name: DBBENCH_KUBE_SCHEMA\n              value: bench_schema\n          envFrom:\n            - secretRef:\n                name: bench-env\n",
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
		{kubeArgs("--shards", "2", "--claim", "shared", "--storage-class", "nfs"), "--storage-class and --storage-size do not apply"},
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
		var out, errb bytes.Buffer
		f := &Factory{Out: &out, Err: &errb, Registry: func() (*adapters.Registry, error) {
			return adapters.NewRegistry(builtinAdapters()...)
		}}
		cmd := NewKubeCmd(f, func(o *KubeOptions) error {
			o.now = func() time.Time { return now }
			return runKube(o)
		})
		cmd.SetArgs(append([]string{"-c", "memory", "--shards", "4", "--image", "x"}, tt.args...))
		cmd.SetOut(&out)
		cmd.SetErr(&errb)
		err := cmd.Execute()
		if tt.in == "" {
			if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "in the past") {
				t.Errorf("%v: %v, want a start in the past refused", tt.args, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if strings.Count(out.String(), `- "`+tt.want+`"`) != 1 || !strings.Contains(out.String(), "starting at "+tt.want+".") {
			t.Errorf("%v: the manifests do not start the shards at %s once:\n%s", tt.args, tt.want, out.String())
		}
		if !strings.Contains(errb.String(), "start at "+tt.want+" (in "+tt.in+")") {
			t.Errorf("%v: stderr %q, want the start %s in %s", tt.args, errb.String(), tt.want, tt.in)
		}
	}
}

package adapters

import (
	"context"
	"strings"
	"testing"
	"time"
)

var specs = []OptionSpec{
	{Name: "path", Kind: String},
	{Name: "map_size", Kind: Bytes, Default: "1GiB", HasMin: true, Min: 4096},
	{Name: "readers", Kind: Int, Default: "4", HasMin: true, Min: 1},
	{Name: "share", Kind: Float, Default: "0.1"},
	{Name: "durable", Kind: Bool, Default: "false"},
	{Name: "timeout", Kind: Duration, Default: "5m"},
	{Name: "layout", Kind: Enum, Choices: []string{"triplex", "indexed"}, Default: "indexed"},
	{Name: "password", Kind: String, Secret: true},
	{Name: "dsn", Kind: DSN},
}

func TestParseOptions(t *testing.T) {
	t.Setenv("DBBENCH_TEST_PW", "s3cret")
	o, err := ParseOptions(specs, map[string]any{
		"path": "/data", "map_size": "64MiB", "readers": 8, "share": "25", "durable": true,
		"timeout": "30s", "layout": "triplex", "password": "${DBBENCH_TEST_PW}",
		"dsn": "postgres://bob:hunter2@db:5432/x?sslmode=disable",
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.String("path") != "/data" || o.Int("map_size") != 64<<20 || o.Int("readers") != 8 || o.Float("share") != 25 ||
		!o.Bool("durable") || o.Duration("timeout") != 30*time.Second || o.String("layout") != "triplex" || o.String("password") != "s3cret" {
		t.Errorf("parsed: %+v", o.values)
	}
	red := o.Redacted()
	if red["password"] != "***" || red["timeout"] != "30s" {
		t.Errorf("redacted: %v", red)
	}
	if d := red["dsn"].(string); strings.Contains(d, "hunter2") || !strings.Contains(d, "bob:***@db") {
		t.Errorf("dsn not redacted: %s", d)
	}
	def, _ := ParseOptions(specs, nil)
	if def.Int("map_size") != 1<<30 || def.Int("readers") != 4 || def.Has("path") || def.String("layout") != "indexed" {
		t.Errorf("defaults: %+v", def.values)
	}
}

func TestParseOptionErrors(t *testing.T) {
	tests := []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{"paht": "/x"}, `unknown option "paht" (known: path, map_size`},
		{map[string]any{"map_size": "lots"}, "want a size"},
		{map[string]any{"map_size": "1KiB"}, "must be at least 4096"},
		{map[string]any{"readers": 0}, "must be at least 1"},
		{map[string]any{"readers": 2.5}, "want a whole number"},
		{map[string]any{"readers": "many"}, "want a whole number"},
		{map[string]any{"durable": "maybe"}, "want true or false"},
		{map[string]any{"timeout": 30}, "want a duration"},
		{map[string]any{"timeout": "-1s"}, "want a duration"},
		{map[string]any{"layout": "wide"}, `"wide" is not one of triplex, indexed`},
		{map[string]any{"share": "x"}, "want a number"},
	}
	for _, tt := range tests {
		_, err := ParseOptions(specs, tt.raw)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want %q", tt.raw, err, tt.want)
		}
	}
}

func TestParseBytes(t *testing.T) {
	tests := map[string]int64{"4096": 4096, "64MiB": 64 << 20, "1 GB": 1e9, "1.5KiB": 1536, "2g": 2 << 30, "1_000": 1000}
	for in, want := range tests {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "MiB", "-1", "1 parsec", "1e99"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted", bad)
		}
	}
}

func TestRedactDSN(t *testing.T) {
	tests := map[string]string{
		"postgres://u:pw@h/db":                  "postgres://u:***@h/db",
		"postgres://u@h/db":                     "postgres://u@h/db",
		"postgres://h/db?password=pw&sslmode=x": "postgres://h/db?password=***&sslmode=x",
		`host=h password='a\' b' dbname=d`:      "host=h password=*** dbname=d",
		"postgres://u:p@ss@h/db":                "postgres://u:***@h/db",
		"host=h user=u password=pw dbname=d":    "host=h user=u password=*** dbname=d",
		"host=h password='p w' dbname=d":        "host=h password=*** dbname=d",
	}
	for in, want := range tests {
		if got := RedactDSN(in); got != want {
			t.Errorf("RedactDSN(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExpandEnv(t *testing.T) {
	t.Setenv("DBBENCH_X", "1")
	if got := ExpandEnv("a${DBBENCH_X}b${DBBENCH_UNSET:-d}c${DBBENCH_UNSET}"); got != "a1bdc" {
		t.Errorf("ExpandEnv = %q", got)
	}
	// In a config an unset variable without a default is an error, never an empty value.
	if got, err := ExpandEnvStrict("a${DBBENCH_X}b${DBBENCH_UNSET:-d}c"); err != nil || got != "a1bdc" {
		t.Errorf("ExpandEnvStrict = %q, %v", got, err)
	}
	t.Setenv("DBBENCH_EMPTY", "")
	for _, s := range []string{"${DBBENCH_UNSET}", "x${DBBENCH_EMPTY}"} {
		if _, err := ExpandEnvStrict(s); err == nil || !strings.Contains(err.Error(), "is not set") {
			t.Errorf("ExpandEnvStrict(%q): %v", s, err)
		}
	}
	if _, err := ParseOptions([]OptionSpec{{Name: "dsn", Kind: DSN}}, map[string]any{"dsn": "${DBBENCH_UNSET}"}); err == nil {
		t.Error("a dsn from an unset variable was accepted")
	}
}

// TestEnvNames: the variables a config reads, each once, in order; what is not a reference (a $ alone,
// an unclosed brace, a name starting with a digit) is none.
func TestEnvNames(t *testing.T) {
	for in, want := range map[string]string{
		"dsn: ${PG_DSN}\nslowdown: ${SLOW:-0%} ${PG_DSN}": "PG_DSN SLOW",
		"$HOME ${1X} ${OPEN x: ${A_1:-${B}}":              "A_1",
		"":                                                "",
	} {
		if got := strings.Join(EnvNames(in), " "); got != want {
			t.Errorf("EnvNames(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRegistry(t *testing.T) {
	if _, err := NewRegistry(named("a"), named("a")); err == nil {
		t.Error("duplicate adapter names accepted")
	}
	r, _ := NewRegistry(named("b"), named("a"))
	if strings.Join(r.Names(), ",") != "a,b" {
		t.Errorf("names %v", r.Names())
	}
	if _, ok := r.Lookup("c"); ok {
		t.Error("lookup of an unknown adapter")
	}
}

type named string

func (n named) Info() Info { return Info{Name: string(n)} }
func (n named) Open(context.Context, Options, Env) (Target, error) {
	return nil, nil
}

func TestListAndMapOptions(t *testing.T) {
	t.Setenv("DBBENCH_TEST_TOKEN", "t0k")
	specs := []OptionSpec{
		{Name: "command", Kind: List},
		{Name: "client", Kind: Map},
		{Name: "env", Kind: Map, Secret: true},
	}
	o, err := ParseOptions(specs, map[string]any{
		"command": []any{"node", "${DBBENCH_TEST_TOKEN}.js", 3},
		"client":  map[string]any{"map_size": 1024, "api_token": "${DBBENCH_TEST_TOKEN}", "sync": false},
		"env":     map[string]any{"HOME": "/h"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(o.List("command"), " "); got != "node t0k.js 3" {
		t.Errorf("list: %q", got)
	}
	if c := o.Map("client"); c["map_size"] != int64(1024) || c["api_token"] != "t0k" || c["sync"] != false {
		t.Errorf("map: %v", c)
	}
	red := o.Redacted()
	if c := red["client"].(map[string]any); c["api_token"] != "***" || c["map_size"] != int64(1024) {
		t.Errorf("client redacted: %v", c)
	}
	if e := red["env"].(map[string]any); e["HOME"] != "***" {
		t.Errorf("secret map redacted: %v", e)
	}
	for _, bad := range []map[string]any{
		{"command": "node x.js"},
		{"command": []any{map[string]any{"a": 1}}},
		{"client": []any{"a"}},
		{"client": map[string]any{"nested": map[string]any{}}},
	} {
		if _, err := ParseOptions(specs, bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// TestSecretsOfMaps: the values a report masks in a map option (every value of a secret map, the
// secret-looking keys of another) are also secrets the run masks on stderr and in errors.
func TestSecretsOfMaps(t *testing.T) {
	specs := []OptionSpec{{Name: "env", Kind: Map, Secret: true}, {Name: "client", Kind: Map}}
	o, err := ParseOptions(specs, map[string]any{
		"env":    map[string]any{"API": "env-value-1"},
		"client": map[string]any{"password": "client-pw-2", "path": "/plain/path", "dsn": "postgres://u:dsn-pw-3@h/db"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(o.Secrets(), " ")
	for _, want := range []string{"env-value-1", "client-pw-2", "dsn-pw-3"} {
		if !strings.Contains(got, want) {
			t.Errorf("Secrets() = %q, missing %q", got, want)
		}
	}
	if strings.Contains(got, "/plain/path") {
		t.Errorf("Secrets() = %q holds a value that is no secret", got)
	}
}

package commands

import (
	"strings"
	"testing"

	"github.com/dbbench/dbbench/internal/exitcode"
)

// TestNoSecretOnStderr: passwords of every shape, in the dsn of a server that refuses the connection
// and in a TypeDB address with credentials, never reach stderr or stdout, progress included.
func TestNoSecretOnStderr(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, target string
		secret       string // what must not appear, nor its distinctive tail
		code         int
	}{
		{"url password with a raw @", `{name: pg, adapter: triplex, options: {backend: postgres, dsn: "postgres://bob:p@ss@wrd9tail@127.0.0.1:1/db"}}`, "wrd9tail", exitcode.Infra},
		{"key=value password with an escaped quote", `{name: pg, adapter: triplex, options: {backend: postgres, dsn: "host=127.0.0.1 port=1 user=bob password='a\\' b_secret_tail'"}}`, "b_secret_tail", exitcode.Infra},
		{"url password in the query", `{name: pg, adapter: triplex, options: {backend: postgres, dsn: "postgres://127.0.0.1:1/db?user=bob&password=q_secret_9"}}`, "q_secret_9", exitcode.Infra},
		{"typedb address with credentials", `{name: tdb, adapter: typedb, options: {address: "http://user:typedb_pw_77@127.0.0.1:1"}}`, "typedb_pw_77", exitcode.Usage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := writeFile(t, dir, "s.yaml", "name: s\ndataset: {persons: 100}\nworkloads: [scan]\ntargets:\n  - "+tt.target+"\n")
			for _, args := range [][]string{{"run", "-c", cfg, "--out", dir + "/r.json"}, {"validate", "-c", cfg}} {
				code, out, errOut := execute(t, args...)
				if strings.Contains(out+errOut, tt.secret) {
					t.Errorf("%s: secret on the output:\n%s%s", args[0], out, errOut)
				}
				if args[0] == "run" && (code != tt.code || !strings.HasPrefix(errOut, "dbbench: ")) {
					t.Errorf("run: exit %d, want %d: %s", code, tt.code, errOut)
				}
			}
		})
	}
}

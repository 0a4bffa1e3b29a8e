package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/internal/exitcode"
)

// TestValidateRefusesWhatRunRefuses: mistakes that used to surface only when run opened a target or
// prepared a workload are found by validate, with the config's line, and run refuses them the same
// way before starting anything.
func TestValidateRefusesWhatRunRefuses(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, workloads, targets, want string
	}{
		{"lmdb batch too large", "[scan]", "[{name: a, adapter: lmdb, options: {batch: 100000000}}]", "lmdb option batch"},
		{"triplex page over the dataset", "[{name: page_all, ops: 2, params: {page: 1000}}]", "[{name: a, adapter: triplex}]", "a page of 1000 rows needs more than 500 entities"},
		{"as-of with history depth 1", "[{name: asof_page, ops: 2}]", "[{name: a, adapter: triplex, options: {history_depth: 1}}]", "back 1 needs history_depth >= 2"},
		{"update_share 2", "[scan]", "[{name: a, adapter: triplex, options: {update_share: 2}}]", "update_share must be in (0, 1]"},
		{"file storage on postgres", "[scan]", "[{name: a, adapter: triplex, options: {backend: postgres, storage: file}}]", "storage is a sqlite option"},
		{"two targets on one path", "[scan]", "[{name: a, adapter: lmdb, options: {path: DIR/x}}, {name: b, adapter: lmdb, options: {path: DIR/x/}}]", "targets a and b both use path"},
		{"typedb database with a leading digit", "[scan]", "[{name: a, adapter: typedb, options: {database: 1db}}]", `database name "1db"`},
		{"triplex batch without bound", "[{name: insert_facts, ops: 2, params: {batch: 2000000000}}]", "[{name: a, adapter: triplex}]", "batch must be at most 1000000"},
		{"typedb max_conns without bound", "[scan]", "[{name: a, adapter: typedb, options: {max_conns: 10000000}}]", "max_conns must be at most 4096"},
		{"typedb address with credentials", "[scan]", `[{name: a, adapter: typedb, options: {address: "http://u:pw_secret@h:8000"}}]`, "holds credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := "name: v\ndataset: {persons: 500}\nworkloads: " + tt.workloads + "\ntargets: " + strings.ReplaceAll(tt.targets, "DIR", dir) + "\n"
			cfg := writeFile(t, dir, "v.yaml", body)
			for _, cmd := range []string{"validate", "run"} {
				code, _, errOut := execute(t, cmd, "-c", cfg, "--out", dir+"/r.json")
				if cmd == "validate" {
					code, _, errOut = execute(t, cmd, "-c", cfg)
				}
				if code != exitcode.Usage || !strings.Contains(errOut, tt.want) || !strings.Contains(errOut, "v.yaml:4:") {
					t.Errorf("%s: exit %d, %q; want exit 2 at line 4 with %q", cmd, code, errOut, tt.want)
				}
				if strings.Contains(errOut, "pw_secret") {
					t.Errorf("%s: secret on stderr: %s", cmd, errOut)
				}
			}
		})
	}
}

// TestInterleaveOpsRefused: interleave: ops with isolation: process (in the config or from
// --isolation) is a usage error found by validate and run, on one line naming the config's line; with
// --instructions, run refuses it.
func TestInterleaveOpsRefused(t *testing.T) {
	dir := t.TempDir()
	base := "name: v\ndataset: {persons: 500}\ninterleave: ops\nworkloads: [{name: lookup, ops: 10}]\ntargets: [{name: a, adapter: memory}]\n"
	proc := writeFile(t, dir, "p.yaml", base+"isolation: process\n")
	ops := writeFile(t, dir, "o.yaml", base)
	want := "interleave: ops does not combine with isolation: process"
	for _, args := range [][]string{
		{"validate", "-c", proc},
		{"run", "-c", proc, "--out", dir + "/r.json"},
		{"run", "-c", ops, "--isolation", "process", "--out", dir + "/r.json"},
	} {
		code, _, errOut := execute(t, args...)
		if code != exitcode.Usage || !strings.Contains(errOut, want) || !strings.Contains(errOut, ":3:") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want exit 2, one line at line 3 with %q", args, code, errOut, want)
		}
	}
}

// TestValidateRefusesSmallMap: an LMDB map too small for the dataset, which Load refuses, is refused
// by validate and by run before anything starts, with the same one line and exit 2: for either LMDB
// adapter, at any size of a sweep, and at the --ci sizes.
func TestValidateRefusesSmallMap(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, dataset, adapter, ci string
		args                       []string // besides -c; validate without --ci checks both forms
		want                       string
	}{
		{"lmdb", "{persons: 100000}", "lmdb", "", nil, "map_size 64KiB is too small for 100000 persons (needs about 11 MiB)"},
		{"lmdb-c", "{persons: 100000}", "lmdb-c", "", nil, "map_size 64KiB is too small for 100000 persons"},
		{"the last size of a sweep", "{sizes: [100, 1000, 100000]}", "lmdb", "", nil, "map_size 2MiB is too small for 100000 persons"},
		{"the --ci size", "{persons: 100}", "lmdb", "ci: {dataset: {persons: 100000}, relax: 10%}\n", []string{"--ci"}, "map_size 2MiB is too small for 100000 persons"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mapSize := "64KiB"
			if tt.name != "lmdb" && tt.name != "lmdb-c" {
				mapSize = "2MiB" // enough for the smaller sizes, not for 100000
			}
			cfg := writeFile(t, dir, "m.yaml", "name: m\ndataset: "+tt.dataset+"\nrepeats: 1\nworkloads: [scan]\ntargets:\n"+
				"  - {name: small, adapter: "+tt.adapter+", options: {map_size: "+mapSize+"}}\n"+tt.ci)
			out := filepath.Join(dir, "r.json")
			vcode, vout, verr := execute(t, append([]string{"validate", "-c", cfg}, tt.args...)...)
			rcode, _, rerr := execute(t, append([]string{"run", "-q", "-c", cfg, "--out", out}, tt.args...)...)
			want := "dbbench: " + cfg + ":6: target small: " + tt.want
			if vcode != exitcode.Usage || !strings.HasPrefix(verr, want) || strings.Count(verr, "\n") != 1 {
				t.Errorf("validate: exit %d, stderr %q, stdout %q; want exit 2 and one line %q...", vcode, verr, vout, want)
			}
			if rcode != exitcode.Usage || rerr != verr {
				t.Errorf("run: exit %d, stderr %q; want exit 2 and validate's line %q", rcode, rerr, verr)
			}
			if _, err := os.Lstat(out); err == nil {
				t.Error("the refused run left a file at its --out path")
			}
		})
	}
}

// TestOverlappingPaths: a target's path inside another's (LMDB directories, a SQLite file in an LMDB
// directory), however spelled (relative, through a symbolic link), is refused by validate and by run
// before anything starts, with one line naming both targets and exit 2; paths that only share a
// prefix are not.
func TestOverlappingPaths(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	cwd, _ := os.Getwd()
	rel := "overlap-" + filepath.Base(dir) // relative to the working directory; never created
	tests := []struct {
		name, targets, want string
	}{
		{"an lmdb path inside another", "{name: a, adapter: lmdb, options: {path: DIR/x}}, {name: b, adapter: lmdb-c, options: {path: DIR/x/sub}}",
			"targets a and b have overlapping paths: b's path DIR/x/sub is inside a's path DIR/x"},
		{"the outer path second", "{name: a, adapter: lmdb, options: {path: DIR/y/in/deeper}}, {name: b, adapter: lmdb, options: {path: DIR/y}}",
			"targets a and b have overlapping paths: a's path DIR/y/in/deeper is inside b's path DIR/y"},
		{"a sqlite file in an lmdb directory", "{name: a, adapter: lmdb, options: {path: DIR/z}}, {name: b, adapter: sql, options: {path: DIR/z/p.db}}",
			"targets a and b have overlapping paths: b's path DIR/z/p.db is inside a's path DIR/z"},
		{"a triplex file in an lmdb directory", "{name: a, adapter: triplex, options: {storage: file, path: DIR/w/t.db}}, {name: b, adapter: lmdb, options: {path: DIR/w}}",
			"targets a and b have overlapping paths: a's path DIR/w/t.db is inside b's path DIR/w"},
		{"through a symbolic link", "{name: a, adapter: lmdb, options: {path: DIR/real}}, {name: b, adapter: lmdb, options: {path: DIR/link/sub}}",
			"targets a and b have overlapping paths: b's path DIR/link/sub is inside a's path DIR/real"},
		{"a link to the same directory", "{name: a, adapter: lmdb, options: {path: DIR/real}}, {name: b, adapter: lmdb, options: {path: DIR/link}}",
			"targets a and b both use path DIR/link"},
		{"relative and absolute", "{name: a, adapter: lmdb, options: {path: " + rel + "}}, {name: b, adapter: lmdb, options: {path: " + filepath.Join(cwd, rel, "sub") + "}}",
			"targets a and b have overlapping paths: b's path " + filepath.Join(cwd, rel, "sub") + " is inside a's path " + rel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := "name: v\ndataset: {persons: 200}\nrepeats: 1\nworkloads: [scan]\ntargets: [" + strings.ReplaceAll(tt.targets, "DIR", dir) + "]\n"
			cfg := writeFile(t, dir, "v.yaml", body)
			want := "dbbench: " + cfg + ":5: " + strings.ReplaceAll(tt.want, "DIR", dir)
			out := filepath.Join(dir, "r.json")
			for _, args := range [][]string{{"validate", "-c", cfg}, {"run", "-q", "-c", cfg, "--out", out}} {
				code, _, errOut := execute(t, args...)
				if code != exitcode.Usage || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
					t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line %q", args[0], code, errOut, want)
				}
			}
			if _, err := os.Lstat(out); err == nil {
				t.Error("the refused run left a file at its --out path")
			}
			if _, err := os.Lstat(rel); err == nil {
				t.Errorf("the refused run created %s", rel)
			}
		})
	}

	// Paths that share a prefix but not a directory are apart.
	cfg := writeFile(t, dir, "apart.yaml", "name: v\ndataset: {persons: 200}\nrepeats: 1\nworkloads: [scan]\ntargets: ["+
		"{name: a, adapter: lmdb, options: {path: "+dir+"/ab}}, {name: b, adapter: lmdb, options: {path: "+dir+"/abc}}, "+
		"{name: c, adapter: sql, options: {path: "+dir+"/ab.db}}]\n")
	if code, out, errOut := execute(t, "validate", "-c", cfg); code != 0 {
		t.Errorf("paths apart: exit %d\n%s%s", code, out, errOut)
	}
}

// TestValidateListsEveryMistake: validate, and run before it starts anything, list every mistake of
// a config at once, sorted by line, one line each with its file:line and what a misspelt name was
// meant as; the exit code stays 2.
func TestValidateListsEveryMistake(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "bad.yaml", `name: bad
repeets: 3
dataset: {persons: 1000}
workloads:
  - scna
  - {name: lookup, opps: 10}
targets:
  - {name: a, adapter: lmbd}
  - name: b
    adapter: lmdb
    options: {map_sise: 1GiB}
  - {name: c, adapter: memory}
assertions:
  - lookup.rows_per_sec[c] > 0
  - lookup.p50[mem] < 1ms
ci: {relax: 5%, repeats: 0}
`)
	var want []string
	for _, l := range []string{
		`2: unknown key "repeets" in the config: did you mean repeats?`,
		`5: unknown workload "scna": did you mean scan?`,
		`6: unknown key "opps" in a workload: did you mean ops?`,
		`8: unknown adapter "lmbd": did you mean lmdb?`,
		`11: target b (lmdb): unknown option "map_sise": did you mean map_size?`,
		`14: unknown figure "rows_per_sec" in lookup.rows_per_sec[c]: did you mean rows_per_s?`,
		`15: assertion names unknown target "mem" (known: a, b, c)`,
		`16: ci.repeats must be positive, got 0`,
	} {
		want = append(want, "dbbench: "+cfg+":"+l)
	}
	for _, args := range [][]string{{"validate", "-c", cfg}, {"run", "-c", cfg, "--out", filepath.Join(dir, "r.json")}} {
		code, out, errOut := execute(t, args...)
		if got := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n"); code != exitcode.Usage || out != "" || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and:\n%s", args[0], code, out, errOut, strings.Join(want, "\n"))
		}
	}
}

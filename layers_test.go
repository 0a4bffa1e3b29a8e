// Package dbbench holds only this test: it keeps the module's layers apart (docs/architecture.md).
package dbbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layerRules is the policy: every package of the module in a layer, and which layers may import
// which. It is a statement of intent, as Go's own deps_test.go says of its rules: when the test fails,
// fix the import, not the rules. Change the rules only when the design changes, and then change
// docs/architecture.md with them.
//
//	NAME: patterns   places packages in layer NAME (UPPER CASE): "x" is the package x (relative to the
//	                 module; "." is the module root), "x/..." is x and every package under it; the most
//	                 specific pattern wins (a path beats a prefix, a longer prefix a shorter one).
//	A < B < C        B may import A, and C may import B and what B may (each layer may import its own
//	                 packages); "A, B < C" lets C import both. No layer may import one placed after it.
//	X !< Y, Z        nothing in X (a layer or a pattern) may reach Y or Z (layers or patterns), even
//	                 through other packages; between two layers, the rules above must not allow it.
//
// Only the imports of non-test files count (tests may reach upward: a test of an adapter may run it
// through the engine); a file left out by build tags (no cgo, callgrind) counts all the same.
const layerRules = `
GROUND:     internal/..., configs
DATASET:    dataset
WORKLOADS:  workloads/...
REPORT:     report, report/schema, report/hlog
VERDICT:    report/assertion
CONTRACT:   adapters, adapters/exec/protocol, adapters/phase, adapters/timing
ADAPTERS:   adapters/..., baselines/...
CONFIG:     config
ENGINE:     engine/...
RENDERERS:  report/render/...
COMPARISON: compare/...
DEPLOY:     deploy/...
COMMANDS:   commands/...
MAIN:       cmd/dbbench
CLIENTS:    clients/...
LAYERTEST:  .

# Who may import whom. The placements above read bottom to top; no arrow points down that order.
GROUND < DATASET < WORKLOADS
GROUND < REPORT < VERDICT
WORKLOADS, REPORT < CONTRACT < ADAPTERS
CONTRACT, VERDICT < CONFIG < ENGINE
CONTRACT, VERDICT < RENDERERS < COMPARISON
GROUND < DEPLOY
ADAPTERS, ENGINE, COMPARISON, DEPLOY < COMMANDS < MAIN < LAYERTEST

# Clients are programs of their own beside the stack: they use the dataset, the workload definitions,
# the protocol and the adapters' store code as a real client uses a library.
DATASET, WORKLOADS, CONTRACT, ADAPTERS < CLIENTS

# Ground is the project's own standard library; configs (the shipped configs, embedded) imports nothing.
GROUND !< DATASET, WORKLOADS, REPORT, VERDICT, CONTRACT, ADAPTERS, CONFIG
GROUND !< ENGINE, RENDERERS, COMPARISON, COMMANDS, MAIN, CLIENTS
configs !< GROUND
# Adapters know nothing of schedules, clocks or histograms: the engine wraps them.
CONTRACT, ADAPTERS !< ENGINE, CONFIG
# Reading a report needs nothing of the run.
REPORT !< CONTRACT, ADAPTERS, ENGINE
# The engine prints nothing: it reports progress as events.
ENGINE !< RENDERERS, COMMANDS
# Manifests for another machine are rendered, never run: deploy reaches no store, config or engine.
DEPLOY !< CONTRACT, ADAPTERS, CONFIG, ENGINE
# A client never reaches the engine, the config or the commands.
CLIENTS !< CONFIG, ENGINE, RENDERERS, COMPARISON, COMMANDS
`

// minPackages is a little under the module's package count, so that a go list that returned nothing
// (or half) cannot pass.
const minPackages = 44

// TestLayers checks every package's imports against layerRules.
func TestLayers(t *testing.T) {
	rules, err := parseLayerRules(layerRules)
	if err != nil {
		t.Fatalf("layerRules: %v", err)
	}
	graph, err := moduleGraph(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(graph) < minPackages {
		t.Fatalf("go list found %d packages of the module, expected at least %d", len(graph), minPackages)
	}
	for _, p := range rules.check(graph) {
		t.Error(p)
	}
	if t.Failed() {
		t.Log("the layers and why: docs/architecture.md; fix the import, not layerRules")
	}
}

// TestLayerCheckerCatches feeds the checker a fabricated graph with an upward import, an unplaced
// package and a transitive breach, and rules that contradict their own negative assertion: each must
// be reported, so that TestLayers cannot pass by checking nothing.
func TestLayerCheckerCatches(t *testing.T) {
	rules, err := parseLayerRules(layerRules)
	if err != nil {
		t.Fatal(err)
	}
	graph := map[string][]string{
		"internal/exitcode": nil,
		"dataset":           {"internal/exitcode"},
		"adapters":          {"dataset", "internal/exitcode"},
		"adapters/memory":   {"adapters", "engine"}, // upward
		"engine":            {"adapters", "dataset"},
		"newthing":          {"dataset"},           // not placed
		"configs":           {"internal/exitcode"}, // same layer, but configs imports nothing
		"clients/go/x":      {"adapters/memory"},   // reaches the engine through an adapter
	}
	got := rules.check(graph)
	for _, want := range []string{
		"unexpected import: adapters/memory (layer ADAPTERS) imports engine (layer ENGINE)",
		"package newthing is not placed in a layer",
		"configs reaches internal/exitcode (configs -> internal/exitcode), against the rule configs !< GROUND",
		"clients/go/x reaches engine (clients/go/x -> adapters/memory -> engine), against the rule CLIENTS !< ENGINE",
		"adapters/memory reaches engine (adapters/memory -> engine), against the rule ADAPTERS !< ENGINE",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("not reported: %s", want)
		}
	}
	for _, p := range got {
		if strings.Contains(p, "dataset (layer") || strings.HasPrefix(p, "unexpected import: engine ") {
			t.Errorf("a good import reported: %s", p)
		}
	}

	bad := []struct{ rules, want string }{
		{"A: a\nB: b\nA < B\nB < A\nA !< B", "A !< B, but the rules let A import B"},
		{"A: a\nB: b\nB < A", "layer A may import B, which is placed above it"},
		{"A: a\nA < B", `layer B is used before it is placed`},
		{"A: a\nA: b", `layer A placed twice`},
		{"A: a\nB: a", `pattern a placed twice`},
		{"A: a\nB: b\nA !< C", `layer C is used before it is placed`},
		{"A: a\nA < a", `"a" is not a layer`},
	}
	for _, b := range bad {
		if _, err := parseLayerRules(b.rules); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("rules %q: error %v, want %q", b.rules, err, b.want)
		}
	}
}

// layerSet is parsed layerRules.
type layerSet struct {
	order    []string            // layers, in the order they were placed
	patterns map[string]string   // pattern -> layer
	allowed  map[string][]string // layer -> the layers it may import, itself included (closed)
	never    []negative
}

// negative is one "X !< Y" pair, each side a layer or a pattern.
type negative struct{ from, to, rule string }

func parseLayerRules(text string) (*layerSet, error) {
	s := &layerSet{patterns: map[string]string{}, allowed: map[string][]string{}}
	direct := map[string][]string{} // layer -> layers it may import directly
	isLayer := func(x string) bool { return x == strings.ToUpper(x) && strings.ToLower(x) != x }
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(l, '#'); i >= 0 {
			l = strings.TrimSpace(l[:i])
		}
		if l != "" {
			lines = append(lines, l)
		}
	}
	split := func(x string) []string {
		var out []string
		for _, f := range strings.Split(x, ",") {
			out = append(out, strings.TrimSpace(f))
		}
		return out
	}
	known := func(names []string, patterns bool) error {
		for _, n := range names {
			if isLayer(n) {
				if _, ok := s.allowed[n]; !ok {
					return fmt.Errorf("layer %s is used before it is placed", n)
				}
			} else if !patterns {
				return fmt.Errorf("%q is not a layer", n)
			}
		}
		return nil
	}
	for _, l := range lines {
		switch {
		case strings.Contains(l, "!<"):
			from, to, _ := strings.Cut(l, "!<")
			xs, ys := split(from), split(to)
			if err := known(xs, true); err != nil {
				return nil, err
			}
			if err := known(ys, true); err != nil {
				return nil, err
			}
			for _, x := range xs {
				for _, y := range ys {
					s.never = append(s.never, negative{x, y, x + " !< " + y})
				}
			}
		case strings.Contains(l, "<"):
			parts := strings.Split(l, "<")
			for i := range parts {
				if err := known(split(parts[i]), false); err != nil {
					return nil, err
				}
			}
			for i := 0; i+1 < len(parts); i++ {
				for _, hi := range split(parts[i+1]) {
					direct[hi] = append(direct[hi], split(parts[i])...)
				}
			}
		default:
			name, pats, ok := strings.Cut(l, ":")
			name = strings.TrimSpace(name)
			if !ok || !isLayer(name) {
				return nil, fmt.Errorf("line %q: want LAYER: patterns, A < B or X !< Y", l)
			}
			if _, dup := s.allowed[name]; dup {
				return nil, fmt.Errorf("layer %s placed twice", name)
			}
			s.allowed[name] = nil
			s.order = append(s.order, name)
			for _, p := range split(pats) {
				if _, dup := s.patterns[p]; dup {
					return nil, fmt.Errorf("pattern %s placed twice", p)
				}
				s.patterns[p] = name
			}
		}
	}
	for _, l := range s.order {
		seen := map[string]bool{l: true}
		queue := []string{l}
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			for _, y := range direct[x] {
				if !seen[y] {
					seen[y] = true
					queue = append(queue, y)
				}
			}
		}
		for _, y := range s.order {
			if seen[y] {
				s.allowed[l] = append(s.allowed[l], y)
			}
		}
	}
	for _, n := range s.never {
		if isLayer(n.from) && isLayer(n.to) && slices.Contains(s.allowed[n.from], n.to) {
			return nil, fmt.Errorf("%s, but the rules let %s import %s", n.rule, n.from, n.to)
		}
	}
	for i, l := range s.order {
		for _, y := range s.allowed[l] {
			if slices.Index(s.order, y) > i {
				return nil, fmt.Errorf("layer %s may import %s, which is placed above it", l, y)
			}
		}
	}
	return s, nil
}

// layerOf is the layer of a package (relative to the module, "." for its root): the most specific
// pattern that matches it, or "" when none does.
func (s *layerSet) layerOf(pkg string) string {
	if l, ok := s.patterns[pkg]; ok {
		return l
	}
	best, layer := -1, ""
	for p, l := range s.patterns {
		base, ok := strings.CutSuffix(p, "/...")
		if ok && (pkg == base || strings.HasPrefix(pkg, base+"/")) && len(base) > best {
			best, layer = len(base), l
		}
	}
	return layer
}

// matches says whether a package is in x, a layer or a pattern.
func (s *layerSet) matches(pkg, x string) bool {
	if _, ok := s.allowed[x]; ok {
		return s.layerOf(pkg) == x
	}
	if base, ok := strings.CutSuffix(x, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == x
}

// check returns one line per problem of a module's import graph (package -> the module's packages it
// imports, paths relative to the module): packages not placed, imports the layers do not allow, and
// packages that reach what a negative rule forbids.
func (s *layerSet) check(graph map[string][]string) []string {
	var problems []string
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
		if s.layerOf(p) == "" {
			problems = append(problems, fmt.Sprintf("package %s is not placed in a layer", p))
		}
	}
	for _, p := range pkgs {
		lp := s.layerOf(p)
		for _, q := range graph[p] {
			lq := s.layerOf(q)
			if lp != "" && lq != "" && !slices.Contains(s.allowed[lp], lq) {
				problems = append(problems, fmt.Sprintf("unexpected import: %s (layer %s) imports %s (layer %s)", p, lp, q, lq))
			}
		}
	}
	for _, n := range s.never {
		for _, p := range pkgs {
			if !s.matches(p, n.from) {
				continue
			}
			for _, path := range reach(graph, p) {
				if q := path[len(path)-1]; s.matches(q, n.to) {
					problems = append(problems, fmt.Sprintf("%s reaches %s (%s), against the rule %s", p, q, strings.Join(path, " -> "), n.rule))
				}
			}
		}
	}
	return problems
}

// reach returns, for every package reachable from p (p excluded), the shortest import path to it.
func reach(graph map[string][]string, p string) [][]string {
	prev := map[string]string{p: ""}
	queue := []string{p}
	var out [][]string
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		deps := slices.Clone(graph[x])
		slices.Sort(deps)
		for _, y := range deps {
			if _, seen := prev[y]; seen {
				continue
			}
			prev[y] = x
			queue = append(queue, y)
			path := []string{y}
			for z := x; z != ""; z = prev[z] {
				path = append([]string{z}, path...)
			}
			out = append(out, path)
		}
	}
	return out
}

// moduleGraph lists the module's packages with one go list call and returns, for each, the module's
// packages its non-test files import, paths relative to the module ("." for its root). Files that
// build tags leave out of this build count too.
func moduleGraph(root string) (map[string][]string, error) {
	mod, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Dir,Imports,IgnoredGoFiles,Error", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	rel := func(path string) (string, bool) {
		if path == mod {
			return ".", true
		}
		r, ok := strings.CutPrefix(path, mod+"/")
		return r, ok
	}
	graph := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath, Dir string
			Imports         []string
			IgnoredGoFiles  []string
			Error           *struct{ Err string }
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %v", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		imports := p.Imports
		for _, f := range p.IgnoredGoFiles {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			more, err := fileImports(filepath.Join(p.Dir, f))
			if err != nil {
				return nil, err
			}
			imports = append(imports, more...)
		}
		name, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		deps := []string{}
		for _, imp := range imports {
			if r, ok := rel(imp); ok && !slices.Contains(deps, r) {
				deps = append(deps, r)
			}
		}
		graph[name] = deps
	}
	return graph, nil
}

// fileImports reads the import paths of one Go file.
func fileImports(path string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// modulePath reads the module path from go.mod.
func modulePath(gomod string) (string, error) {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}

package config

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dbbench/dbbench/internal/suggest"
	"github.com/dbbench/dbbench/workloads"
	"github.com/dbbench/dbbench/workloads/pgbench"
	"github.com/dbbench/dbbench/workloads/sqlgen"
	"github.com/dbbench/dbbench/workloads/sqlmix"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// A workload with a `sql:` section is a sql workload (docs/sql.md): the config's own SQL on a
// target that runs SQL (adapters.Info.SQL), through the load model as the YCSB workloads are
// (load: says how its operations arrive). Its transactions are statements with :name parameters
// drawn from the section's params, or pgbench scripts (built-in or a file); its setup and teardown
// statements run once per target, untimed. Parse reads the section and checks what it can alone
// (statements, inline scripts, generators); Resolve reads script files (relative to the config's
// directory), checks the targets and builds the definition the engine runs (SQLPlan).

// Defaults and bounds of a sql workload.
const (
	// DefaultSQLOps is a run phase's operations when neither the workload's ops nor load: (ops,
	// duration) say.
	DefaultSQLOps = 1000
	// MaxSQLScale bounds pgbench's scale: 100,000 accounts each.
	MaxSQLScale = 100_000
	// MaxSQLStatements bounds the statements of a workload (setup, teardown, transactions).
	MaxSQLStatements = 10_000
	// MaxScriptBytes bounds a pgbench script file.
	MaxScriptBytes = 1 << 20
)

// SQL init values: what runs before a sql workload's setup.
const (
	SQLInitNone    = "none"
	SQLInitPgbench = "pgbench" // pgbench -i -s SCALE's tables (pgbench.InitSQL)
)

// SQLWorkload is a workload's `sql:` section as the config gives it.
type SQLWorkload struct {
	Line         int
	Setup        []SQLText
	Teardown     []SQLText
	Params       map[string]sqlgen.Spec
	Transactions []SQLTransaction
	Scale        int64
	Init         string // SQLInitNone or SQLInitPgbench
	Vars         map[string]pgbench.Value
	asRun        any            // the section as written, for the report's config as run
	paramLines   map[string]int // where each param is written
}

// SQLText is a setup or teardown statement, run as written (no parameters): on every target that
// runs the workload, or on those Targets name.
type SQLText struct {
	Text    string
	Line    int
	Targets []string // nil: every target
}

// SQLTransaction is one transaction of the section: statements, or a pgbench script (a built-in's
// name or a file: Script; or its text: ScriptText).
type SQLTransaction struct {
	Name       string
	Line       int
	Weight     float64
	Statements []sqlmix.Statement
	Script     string
	ScriptText string
	scriptLine int             // where the script's first line is in the config (ScriptText), or its key (Script)
	script     *pgbench.Script // parsed: a built-in or ScriptText at Parse, a file at Resolve
	workload   string          // "workload NAME.sql", for messages
	defined    []string        // the variables the workload's vars supply
}

// SQLPlan is a sql workload resolved: what the engine runs on each target.
type SQLPlan struct {
	Def      *sqlmix.Definition
	Setup    []SQLText
	Teardown []SQLText
	Init     string // SQLInitNone or SQLInitPgbench
	Scale    int64
}

// LoadModel reports whether a workload runs through the load model (docs/load.md): a YCSB or a sql
// workload, whose operations arrive as load: says.
func (w WorkloadPlan) LoadModel() bool { return w.YCSB || w.SQL != nil }

// HasLoadModel reports whether the plan runs a workload through the load model.
func (p *Plan) HasLoadModel() bool {
	return slices.ContainsFunc(p.Workloads, WorkloadPlan.LoadModel)
}

// loadModel reports whether a config's workload runs through the load model.
func (w Workload) loadModel() bool { return IsYCSB(w.Name) || w.SQL != nil }

var (
	txNamePattern    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)
	paramNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
)

// parseSQLWorkload reads a workload's `sql:` section; fields are the workload entry's keys, of
// which a sql workload takes name and ops only. Each key is read on its own, so that every mistake
// of the section is reported at once; the checks of the whole (the statements' parameters and
// generators, their count) run when its parts read well.
func parseSQLWorkload(n *yaml.Node, name string, fields map[string]field) (*SQLWorkload, error) {
	var p problems
	for _, k := range []string{"rows", "readers", "params", "cross_check"} {
		if f, ok := fields[k]; ok {
			p.add(errAt(f.key, "workload %s: a sql workload takes name, ops and sql (its parameters are sql.params)", name))
		}
	}
	what := "workload " + name + ".sql"
	sf, _, err := mapping(n, what, "setup", "teardown", "params", "transactions", "script", "script_text", "scale", "init", "vars")
	if sf == nil {
		return nil, err
	}
	p.add(err)
	w := &SQLWorkload{Line: n.Line, Scale: 1, Init: SQLInitNone}
	if w.asRun, err = plain(n); err != nil {
		return nil, err
	}
	w.Vars = map[string]pgbench.Value{}
	if f, ok := sf["vars"]; ok {
		if v, err := parseSQLVars(f.value, what); p.ok(err) {
			if _, ok := v[pgbench.ScaleVar]; ok {
				p.add(errAt(f.value, "%s.vars: scale is %s.scale", what, what))
			} else {
				w.Vars = v
			}
		}
	}
	defined := slices.Sorted(maps.Keys(w.Vars))
	given := 0
	for _, k := range []string{"transactions", "script", "script_text"} {
		if _, ok := sf[k]; ok {
			given++
		}
	}
	switch {
	case given != 1:
		p.add(errAt(n, "%s: give one of transactions, script (tpcb-like, simple-update, select-only or a file) and script_text", what))
	case sf["transactions"].value != nil:
		w.Transactions, err = parseSQLTransactions(sf["transactions"].value, what, defined)
		p.add(err)
	default:
		t := SQLTransaction{Line: n.Line, Weight: 1, workload: what, defined: defined}
		if p.ok(t.parseScript(sf, what)) {
			w.Transactions = []SQLTransaction{t}
		}
	}
	builtin := false
	scripts := false
	for _, t := range w.Transactions {
		if _, ok := pgbench.BuiltinText(t.Script); ok {
			builtin = true
		}
		scripts = scripts || t.Script != "" || t.ScriptText != ""
	}
	if builtin {
		w.Init = SQLInitPgbench
	}
	if f, ok := sf["scale"]; ok {
		if v, err := boundedInt(f.value, what+".scale", 1, MaxSQLScale); p.ok(err) {
			w.Scale = int64(v)
		}
	}
	if f, ok := sf["init"]; ok {
		if v, err := scalarString(f.value, what+".init"); p.ok(err) {
			if v != SQLInitNone && v != SQLInitPgbench {
				p.add(errAt(f.value, "%s.init %q: want %s (pgbench -i -s SCALE's tables) or %s", what, v, SQLInitPgbench, SQLInitNone))
			} else {
				w.Init = v
			}
		}
	}
	if f, ok := sf["vars"]; ok && !scripts && len(w.Transactions) > 0 {
		p.add(errAt(f.key, "%s.vars: the variables of pgbench scripts (-D), and this workload runs none (its statements' parameters are sql.params)", what))
	}
	w.Vars[pgbench.ScaleVar] = pgbench.Int(w.Scale)
	if f, ok := sf["params"]; ok {
		w.Params, w.paramLines, err = parseSQLParams(f.value, what)
		p.add(err)
	}
	for _, k := range []string{"setup", "teardown"} {
		if f, ok := sf[k]; ok {
			list, err := parseSQLTexts(f.value, what+"."+k)
			if !p.ok(err) {
				continue
			}
			if k == "setup" {
				w.Setup = list
			} else {
				w.Teardown = list
			}
		}
	}
	if p.count() > 0 {
		return nil, lineErrors(p.list)
	}
	if n := len(w.Setup) + len(w.Teardown) + countStatements(w.Transactions); n > MaxSQLStatements {
		return nil, errAt(n0(sf), "%s: %d statements, at most %d", what, n, MaxSQLStatements)
	}
	// What can be checked without the script files: the statements' parameters, the generators.
	if _, err := sqlmix.New(w.definition(), 1, false); err != nil {
		return nil, &lineError{line: w.errorLine(err), msg: fmt.Sprintf("%s: %v", what, err)}
	}
	return w, nil
}

// n0 is a section's node for a message about all of it.
func n0(sf map[string]field) *yaml.Node {
	for _, k := range []string{"transactions", "script", "script_text", "setup"} {
		if f, ok := sf[k]; ok {
			return f.key
		}
	}
	return nil
}

func countStatements(ts []SQLTransaction) int {
	n := 0
	for _, t := range ts {
		n += len(t.Statements)
	}
	return n
}

// errorLine is the config line an error of sqlmix.New is about: its statement's ("(line N)"), its
// param's ("param NAME: ..."), or the section's.
func (w *SQLWorkload) errorLine(err error) int {
	msg := err.Error()
	var line int
	if i := strings.Index(msg, "(line "); i >= 0 {
		if _, serr := fmt.Sscanf(msg[i:], "(line %d)", &line); serr == nil {
			return line
		}
	}
	if rest, ok := strings.CutPrefix(msg, "param "); ok {
		if name, _, ok := strings.Cut(rest, ":"); ok && w.paramLines[name] > 0 {
			return w.paramLines[name]
		}
	}
	return w.Line
}

// parseSQLTransactions reads `transactions:`: a list of {name, weight, statements | script |
// script_text}.
func parseSQLTransactions(n *yaml.Node, what string, defined []string) ([]SQLTransaction, error) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return nil, errAt(n, "%s.transactions must be a non-empty list of {name, weight, statements}", what)
	}
	var out []SQLTransaction
	var p problems
	for _, e := range n.Content {
		t, err := parseSQLTransaction(e, what, defined, out)
		if p.ok(err) {
			out = append(out, t)
		}
	}
	if p.count() > 0 {
		return nil, lineErrors(p.list)
	}
	return out, nil
}

// parseSQLTransaction reads one entry of `transactions:`; out are the entries read before it.
func parseSQLTransaction(e *yaml.Node, what string, defined []string, out []SQLTransaction) (SQLTransaction, error) {
	f, _, err := mapping(e, "a transaction of "+what, "name", "weight", "statements", "script", "script_text")
	if err != nil {
		return SQLTransaction{}, err
	}
	t := SQLTransaction{Line: e.Line, Weight: 1, workload: what, defined: defined}
	if t.Name, _, err = requiredString(e, f, "name", "a transaction needs a name", "transaction name"); err != nil {
		return SQLTransaction{}, err
	}
	if !txNamePattern.MatchString(t.Name) {
		return SQLTransaction{}, errAt(e, "transaction name %q: letters, digits, '_' and '-', starting with a letter or '_' (it names the transaction's figures: %s.response_p99)", t.Name, t.Name)
	}
	if slices.ContainsFunc(out, func(o SQLTransaction) bool { return o.Name == t.Name }) {
		return SQLTransaction{}, errAt(e, "transaction %q appears twice", t.Name)
	}
	tw := what + ".transactions." + t.Name
	if wf, ok := f["weight"]; ok {
		s, err := scalarString(wf.value, tw+".weight")
		if err != nil {
			return SQLTransaction{}, err
		}
		v, perr := strconv.ParseFloat(s, 64)
		if perr != nil || !(v > 0) || math.IsInf(v, 0) {
			return SQLTransaction{}, errAt(wf.value, "%s.weight must be a positive number, got %q", tw, s)
		}
		t.Weight = v
	}
	sf, hasStatements := f["statements"]
	_, hasScript := f["script"]
	_, hasText := f["script_text"]
	switch {
	case hasStatements && (hasScript || hasText), hasScript && hasText:
		return SQLTransaction{}, errAt(e, "%s: give statements, script or script_text, one of them", tw)
	case hasStatements:
		if t.Statements, err = parseSQLStatements(sf.value, tw); err != nil {
			return SQLTransaction{}, err
		}
	case hasScript || hasText:
		if err := t.parseScript(f, tw); err != nil {
			return SQLTransaction{}, err
		}
	default:
		return SQLTransaction{}, errAt(e, "%s: give its statements (or a pgbench script)", tw)
	}
	return t, nil
}

// parseScript reads a transaction's script (a built-in's name or a file) or script_text; a
// transaction with no name takes the script's. An inline script is parsed here, a file in Resolve.
func (t *SQLTransaction) parseScript(f map[string]field, what string) error {
	if sf, ok := f["script"]; ok {
		s, err := scalarString(sf.value, what+".script")
		if err != nil {
			return err
		}
		t.Script, t.scriptLine = s, sf.value.Line
		if t.Name == "" {
			t.Name = scriptTxName(s)
		}
		if _, builtin := pgbench.BuiltinText(s); builtin {
			return t.parse(nil, "")
		}
		if !strings.ContainsAny(s, "./") {
			return errAt(sf.value, "%s.script %q: not a built-in script (%s) nor a file (a path with / or a .sql name)", what, s, strings.Join(pgbench.Builtins(), ", "))
		}
		return nil // a file: read at Resolve
	}
	tf := f["script_text"]
	s, err := scalarString(tf.value, what+".script_text")
	if err != nil {
		return err
	}
	t.ScriptText, t.scriptLine = s, contentLine(tf.value)
	if t.Name == "" {
		t.Name = "script"
	}
	return t.parse(nil, "")
}

// scriptTxName is the name a script gives its transaction: the built-in's, or the file's base
// name without .sql, its other characters made '_'.
func scriptTxName(s string) string {
	base := strings.TrimSuffix(filepath.Base(s), ".sql")
	b := []byte(base)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' || b[0] == '-' {
		b = append([]byte("s_"), b...)
	}
	return string(b)
}

// contentLine is the line a scalar's text starts on: the next one for a block scalar (| or >).
func contentLine(n *yaml.Node) int {
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.Line + 1
	}
	return n.Line
}

// parse parses the transaction's script (a built-in, ScriptText, or the file's text src read from
// path) into t.script and t.Statements, its statements' lines made the config's (inline) or the
// file's; an error names the line.
func (t *SQLTransaction) parse(src []byte, path string) error {
	name, text := path, []byte(t.ScriptText)
	if path == "" {
		if b, ok := pgbench.BuiltinText(t.Script); ok {
			name, text = t.Script, []byte(b)
		}
	} else {
		text = src
	}
	if path == "" && t.Script == "" {
		name = "script_text"
	}
	s, err := pgbench.Parse(name, text, t.defined)
	if err != nil {
		var pe *pgbench.Error
		if t.ScriptText != "" && errors.As(err, &pe) {
			return &lineError{line: t.scriptLine + pe.Line - 1, msg: fmt.Sprintf("%s: transaction %s: script_text line %d: %s", t.workload, t.Name, pe.Line, pe.Msg)}
		}
		return &lineError{line: t.scriptLine, msg: fmt.Sprintf("%s: transaction %s: %v", t.workload, t.Name, err)}
	}
	t.script, t.Statements = s, nil
	for _, st := range s.Statements {
		line := st.Line
		if t.ScriptText != "" {
			line = t.scriptLine + st.Line - 1
		}
		t.Statements = append(t.Statements, sqlmix.Statement{Statement: st, Line: line})
	}
	return nil
}

// parseSQLStatements reads a transaction's statements: each a text, or {sql, expect, check}.
func parseSQLStatements(n *yaml.Node, what string) ([]sqlmix.Statement, error) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return nil, errAt(n, "%s.statements must be a non-empty list of statements", what)
	}
	var out []sqlmix.Statement
	for i, e := range n.Content {
		text := e
		var f map[string]field
		if e.Kind == yaml.MappingNode {
			var err error
			if f, _, err = mapping(e, "a statement of "+what, "sql", "expect", "check"); err != nil {
				return nil, err
			}
			sf, ok := f["sql"]
			if !ok {
				return nil, errAt(e, "a statement needs its sql")
			}
			text = sf.value
		}
		s, err := scalarString(text, "a statement of "+what)
		if err != nil {
			return nil, err
		}
		st, err := pgbench.ParseStatement(s)
		if err != nil {
			line, msg := contentLine(text), err.Error()
			var l int
			if _, serr := fmt.Sscanf(msg, "line %d:", &l); serr == nil {
				line += l - 1
				msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
			}
			return nil, &lineError{line: line, msg: fmt.Sprintf("%s, statement %d: %s", what, i+1, msg)}
		}
		st.Index, st.Line = i, contentLine(text)+st.Line-1
		ms := sqlmix.Statement{Statement: st, Line: st.Line}
		if ef, ok := f["expect"]; ok {
			if ms.Expect, err = parseExpect(ef.value, what); err != nil {
				return nil, err
			}
		}
		if cf, ok := f["check"]; ok {
			v, err := scalarString(cf.value, what+": check")
			if err != nil {
				return nil, err
			}
			if v != "same" {
				return nil, errAt(cf.value, "%s: check %q: the only check is same (the result equals the first one with the same parameters)", what, v)
			}
			ms.Same = true
		}
		out = append(out, ms)
	}
	return out, nil
}

// parseExpect reads {rows: N} or {rows_min: N}.
func parseExpect(n *yaml.Node, what string) (*sqlmix.Expect, error) {
	f, _, err := mapping(n, what+": expect", "rows", "rows_min")
	if err != nil {
		return nil, err
	}
	r, hasRows := f["rows"]
	m, hasMin := f["rows_min"]
	switch {
	case hasRows == hasMin:
		return nil, errAt(n, "%s: expect takes rows (exactly N, returned or affected) or rows_min (at least N)", what)
	case hasRows:
		v, err := boundedInt(r.value, "expect.rows", 0, math.MaxInt32)
		return &sqlmix.Expect{Rows: int64(v)}, err
	}
	v, err := boundedInt(m.value, "expect.rows_min", 0, math.MaxInt32)
	return &sqlmix.Expect{Rows: int64(v), Min: true}, err
}

// parseSQLTexts reads setup or teardown: each a statement, or {sql, targets}.
func parseSQLTexts(n *yaml.Node, what string) ([]SQLText, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, errAt(n, "%s must be a list of statements", what)
	}
	var out []SQLText
	for _, e := range n.Content {
		text := e
		var targets []string
		if e.Kind == yaml.MappingNode {
			f, _, err := mapping(e, "a statement of "+what, "sql", "targets")
			if err != nil {
				return nil, err
			}
			sf, ok := f["sql"]
			if !ok {
				return nil, errAt(e, "a statement of %s needs its sql", what)
			}
			text = sf.value
			if tf, ok := f["targets"]; ok {
				if tf.value.Kind != yaml.SequenceNode || len(tf.value.Content) == 0 {
					return nil, errAt(tf.value, "%s: targets must be a list of target names", what)
				}
				for _, x := range tf.value.Content {
					s, err := scalarString(x, "a target name")
					if err != nil {
						return nil, err
					}
					targets = append(targets, s)
				}
			}
		}
		s, err := scalarString(text, "a statement of "+what)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(s) == "" {
			return nil, errAt(text, "%s: an empty statement", what)
		}
		out = append(out, SQLText{Text: s, Line: contentLine(text), Targets: targets})
	}
	return out, nil
}

// parseSQLParams reads `params:`: name -> {kind: ..., ...}, or a single value (a constant).
func parseSQLParams(n *yaml.Node, what string) (map[string]sqlgen.Spec, map[string]int, error) {
	f, order, err := mapping(n, what+".params")
	if err != nil {
		return nil, nil, err
	}
	out, lines := map[string]sqlgen.Spec{}, map[string]int{}
	for _, name := range order {
		v := f[name].value
		lines[name] = f[name].key.Line
		if !paramNamePattern.MatchString(name) {
			return nil, nil, errAt(f[name].key, "%s.params: %q is not a parameter name (letters, digits and '_', as :name in a statement)", what, name)
		}
		pw := what + ".params." + name
		if v.Kind == yaml.ScalarNode {
			c, err := plain(v)
			if err != nil {
				return nil, nil, err
			}
			if c == nil {
				return nil, nil, errAt(v, "%s: no value (give a constant, or {kind: uniform, min: 1, max: 100})", pw)
			}
			out[name] = sqlgen.Spec{Kind: sqlgen.Constant, Value: c}
			if _, err := sqlgen.New(out[name]); err != nil {
				return nil, nil, errAt(v, "%s: %v", pw, err)
			}
			continue
		}
		pf, _, err := mapping(v, pw, "kind", "min", "max", "theta", "hot_data", "hot_ops", "value", "min_len", "max_len", "alphabet")
		if err != nil {
			return nil, nil, err
		}
		kind, kn, err := requiredString(v, pf, "kind", pw+" needs a kind ("+sqlgenKinds()+")", pw+".kind")
		if err != nil {
			return nil, nil, err
		}
		s := sqlgen.Spec{Kind: sqlgen.Kind(kind)}
		if !slices.Contains(sqlgen.Kinds, s.Kind) {
			return nil, nil, errAt(kn, "%s.kind %q: want one of %s", pw, kind, sqlgenKinds())
		}
		ints := map[string]*int64{"min": &s.Min, "max": &s.Max}
		for k, dst := range ints {
			if x, ok := pf[k]; ok {
				str, err := scalarString(x.value, pw+"."+k)
				if err != nil {
					return nil, nil, err
				}
				if *dst, err = strconv.ParseInt(strings.ReplaceAll(str, "_", ""), 10, 64); err != nil {
					return nil, nil, errAt(x.value, "%s.%s must be a whole number, got %q", pw, k, str)
				}
			}
		}
		for k, dst := range map[string]*int{"min_len": &s.MinLen, "max_len": &s.MaxLen} {
			if x, ok := pf[k]; ok {
				if *dst, err = boundedInt(x.value, pw+"."+k, 0, sqlgen.MaxStringLen); err != nil {
					return nil, nil, err
				}
			}
		}
		for k, dst := range map[string]*float64{"theta": &s.Theta, "hot_data": &s.HotData, "hot_ops": &s.HotOps} {
			if x, ok := pf[k]; ok {
				if *dst, err = fraction(x.value, pw+"."+k, 1); err != nil {
					return nil, nil, err
				}
			}
		}
		if x, ok := pf["alphabet"]; ok {
			if s.Alphabet, err = scalarString(x.value, pw+".alphabet"); err != nil {
				return nil, nil, err
			}
		}
		if x, ok := pf["value"]; ok {
			if s.Value, err = plain(x.value); err != nil {
				return nil, nil, err
			}
		}
		// YCSB's defaults where the kind reads them and the config leaves them out.
		switch s.Kind {
		case sqlgen.Zipfian:
			if _, ok := pf["theta"]; !ok {
				s.Theta = ycsb.ZipfianConstant
			}
		case sqlgen.Hotspot:
			if _, ok := pf["hot_data"]; !ok {
				s.HotData = ycsb.DefaultHotspotDataFraction
			}
			if _, ok := pf["hot_ops"]; !ok {
				s.HotOps = ycsb.DefaultHotspotOpnFraction
			}
		}
		if _, err := sqlgen.New(s); err != nil {
			return nil, nil, errAt(v, "%s: %v", pw, err)
		}
		out[name] = s
	}
	return out, lines, nil
}

func sqlgenKinds() string {
	names := make([]string, len(sqlgen.Kinds))
	for i, k := range sqlgen.Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// parseSQLVars reads `vars:` (pgbench's -D NAME=VALUE): each value as pgbench reads -D's text.
func parseSQLVars(n *yaml.Node, what string) (map[string]pgbench.Value, error) {
	f, order, err := mapping(n, what+".vars")
	if err != nil {
		return nil, err
	}
	out := map[string]pgbench.Value{}
	for _, name := range order {
		if !paramNamePattern.MatchString(name) {
			return nil, errAt(f[name].key, "%s.vars: %q is not a variable name (letters, digits and '_')", what, name)
		}
		if name == pgbench.ClientIDVar {
			return nil, errAt(f[name].key, "%s.vars: client_id is refused: dbbench has one schedule shared by its workers, so an operation belongs to no client (docs/pgbench.md)", what)
		}
		s, err := scalarString(f[name].value, what+".vars."+name)
		if err != nil {
			return nil, err
		}
		out[name] = pgbench.Text(s)
	}
	return out, nil
}

// definition is the section's definition for sqlmix: a script not read yet (a file, before
// Resolve) stands as a transaction of no statements.
func (w *SQLWorkload) definition() *sqlmix.Definition {
	d := &sqlmix.Definition{Params: w.Params, Vars: w.Vars}
	for _, t := range w.Transactions {
		tx := sqlmix.Transaction{Name: t.Name, Weight: t.Weight, Statements: t.Statements, Script: t.script}
		tx.Wrap = t.script == nil && len(t.Statements) > 1
		if t.Script != "" && t.script == nil {
			tx.Statements = nil
		}
		d.Transactions = append(d.Transactions, tx)
	}
	return d
}

// resolveSQL resolves a sql workload: its script files read (relative to the config's directory),
// its definition checked, its setup's targets checked, and the targets that run it (each of an
// adapter that runs SQL: adapters.Info.SQL); ok false after a mistake.
func (r *resolution) resolveSQL(w Workload, o workloadOverride) (WorkloadPlan, bool) {
	c, p := r.c, r.p
	wp := WorkloadPlan{Name: w.Name, Ops: w.Ops}
	if o.ops != nil {
		wp.Ops = *o.ops
	}
	if o.rows != nil || o.readers != nil {
		r.pr.add(&lineError{line: o.line, msg: fmt.Sprintf("ci.workloads.%s: a sql workload takes ops only", w.Name)})
		return wp, false
	}
	s := w.SQL
	for i := range s.Transactions {
		t := &s.Transactions[i]
		if t.Script == "" {
			continue
		}
		if _, builtin := pgbench.BuiltinText(t.Script); builtin {
			continue // parsed with the config
		}
		if strings.HasPrefix(c.Source, "(built-in)") {
			r.pr.add(&lineError{line: t.scriptLine, msg: fmt.Sprintf("workload %s: script %s: a built-in config reads no script files", w.Name, t.Script)})
			return wp, false
		}
		path := t.Script
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(c.Source), path)
		}
		src, err := readScript(path)
		if err != nil {
			r.pr.add(&lineError{line: t.scriptLine, msg: fmt.Sprintf("workload %s: script %s: %v", w.Name, t.Script, err)})
			return wp, false
		}
		if !r.pr.ok(t.parse(src, t.Script)) {
			return wp, false
		}
		if !slices.Contains(p.Files, t.Script) {
			p.Files = append(p.Files, t.Script)
		}
	}
	def := s.definition()
	if _, err := sqlmix.New(def, 1, false); err != nil {
		r.pr.add(&lineError{line: w.Line, msg: fmt.Sprintf("workload %s: %v", w.Name, err)})
		return wp, false
	}
	wp.SQL = &SQLPlan{Def: def, Setup: s.Setup, Teardown: s.Teardown, Init: s.Init, Scale: s.Scale}
	runners := 0
	for i, t := range c.Targets {
		if !r.targetOK[i] || t.Workloads != nil && !slices.Contains(t.Workloads, w.Name) {
			continue
		}
		info := p.Targets[i].Adapter.Info()
		if !info.SQL {
			if t.Workloads == nil {
				continue // a sql workload runs on the targets that run SQL
			}
			r.pr.add(&lineError{line: w.Line, msg: fmt.Sprintf("target %s (%s) cannot run sql workload %s: its adapter runs no SQL (adapters that do: sql)", t.Name, t.Adapter, w.Name)})
			r.targetOK[i] = false
			return wp, false
		}
		p.Targets[i].Workloads = append(p.Targets[i].Workloads, w.Name)
		runners++
	}
	if runners == 0 {
		if r.targetsOK() {
			r.pr.add(&lineError{line: w.Line, msg: fmt.Sprintf("no target runs sql workload %s (it needs a target of an adapter that runs SQL: sql)", w.Name)})
		}
		return wp, false
	}
	for _, list := range [][]SQLText{s.Setup, s.Teardown} {
		for _, st := range list {
			for _, name := range st.Targets {
				i := slices.IndexFunc(c.Targets, func(t Target) bool { return t.Name == name })
				switch {
				case i < 0 && !c.skip[skipTargets]:
					r.pr.add(&lineError{line: st.Line, msg: fmt.Sprintf("workload %s: a statement for target %s, which is not in targets%s", w.Name, name, suggest.Hint(name, targetNames(c.Targets), ""))})
					return wp, false
				case i >= 0 && r.targetOK[i] && !p.Targets[i].Runs(w.Name):
					r.pr.add(&lineError{line: st.Line, msg: fmt.Sprintf("workload %s: a statement for target %s, which does not run it", w.Name, name)})
					return wp, false
				}
			}
		}
	}
	return wp, true
}

// checkSleeps refuses a \sleep in a sql workload's script when the load is an open loop: the
// schedule says when each operation starts, and think time belongs to a closed loop's workers.
func (p *Plan) checkSleeps() error {
	if !p.Load.Open() {
		return nil
	}
	for _, w := range p.Workloads {
		if w.SQL == nil {
			continue
		}
		for _, t := range w.SQL.Def.Transactions {
			if t.Script == nil {
				continue
			}
			if lines := t.Script.Sleeps(); len(lines) > 0 {
				return fmt.Errorf("workload %s: transaction %s: %s:%d: \\sleep is think time, which a closed loop's workers take between operations: an open loop (load: rate or stages, --rate) has none (drop the rate, or the \\sleep)",
					w.Name, t.Name, t.Script.Name, lines[0])
			}
		}
	}
	return nil
}

// readScript reads a pgbench script file (at most MaxScriptBytes).
func readScript(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxScriptBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxScriptBytes {
		return nil, fmt.Errorf("larger than %d KiB: not a script", MaxScriptBytes>>10)
	}
	return b, nil
}

// checkSQLName refuses a sql workload named as a workload of dbbench's own.
func checkSQLName(w Workload) error {
	if slices.Contains(workloads.Builtins, w.Name) || IsYCSB(w.Name) {
		return &lineError{line: w.Line, msg: fmt.Sprintf("workload %s: a sql workload needs a name of its own (%s is dbbench's)", w.Name, w.Name)}
	}
	return nil
}

// asRunSQL is the workload's sql section as run.
func (w *SQLWorkload) asRunSQL() any { return w.asRun }

// defaultSizes gives a plan whose config names no dataset (its workloads all run through the load
// model) its one size, which its results are keyed by: YCSB's record count, or 1 for sql workloads
// alone (they load no dataset: their setup makes their tables).
func (c *Config) defaultSizes(p *Plan) {
	switch {
	case len(p.Sizes) > 0:
	case slices.ContainsFunc(c.Workloads, func(w Workload) bool { return IsYCSB(w.Name) }):
		p.ycsbSizes()
	default:
		p.Sizes = []int{1}
	}
}

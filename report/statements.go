package report

import (
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// LoadStatement is one statement of a sql workload's transaction (docs/sql.md), as pgbench -r
// reports it: how often it ran and failed, and its execution times (ns, the executions that
// succeeded; keys as Result.Merged's). A Load holds its last run phase's; a shard's repeat each
// its own, with the histogram, for dbbench merge.
type LoadStatement struct {
	Op        string             `json:"op"`    // the transaction
	Index     int                `json:"index"` // its place in the transaction, from 1
	Line      int                `json:"line"`  // in the config, or in its script file
	Text      string             `json:"text"`  // as written, :name references and all
	Count     int64              `json:"count"`
	Errors    int64              `json:"errors"`
	Latency   map[string]float64 `json:"latency"`
	Histogram string             `json:"histogram"`
}

// Figure is the name of one of the statement's figures: OP.stmtN_FIGURE.
func (s LoadStatement) Figure(fig string) string {
	return fmt.Sprintf("%s.stmt%d_%s", s.Op, s.Index, fig)
}

// StatementFigures sets a run phase's statement figures from its statements: OP.stmtN_mean, p50
// and p99 of those that ran without an error, OP.stmtN_errors of each that ran at all.
func StatementFigures(f map[string]float64, stmts []LoadStatement) {
	for _, s := range stmts {
		if s.Count+s.Errors == 0 {
			continue
		}
		f[s.Figure("errors")] = float64(s.Errors)
		if s.Count > 0 {
			f[s.Figure("mean")] = s.Latency["mean"]
			f[s.Figure("p50")] = s.Latency["p50"]
			f[s.Figure("p99")] = s.Latency["p99"]
		}
	}
}

// NewLoadStatement is a statement's entry from its executions' histogram.
func NewLoadStatement(op string, index, line int, text string, h *hdrhistogram.Histogram, errors int64) LoadStatement {
	enc, _ := EncodeHistogram(h)
	return LoadStatement{Op: op, Index: index, Line: line, Text: text, Count: h.TotalCount(), Errors: errors,
		Latency: Percentiles(h), Histogram: enc}
}

// MergeStatements merges the statements of several run phases (the shards' of one repeat) by
// transaction and place: counts summed, histograms merged, percentiles recomputed. dbbench merge
// calls it for a sql workload's repeats and its load, then StatementFigures.
func MergeStatements(lists ...[]LoadStatement) []LoadStatement {
	type key struct {
		op    string
		index int
	}
	var order []key
	merged := map[key]*LoadStatement{}
	hists := map[key]*hdrhistogram.Histogram{}
	for _, l := range lists {
		for _, s := range l {
			k := key{s.Op, s.Index}
			m, ok := merged[k]
			if !ok {
				order = append(order, k)
				c := s
				c.Count, c.Errors = 0, 0
				m = &c
				merged[k], hists[k] = m, NewHistogram()
			}
			m.Errors += s.Errors
			if h, err := DecodeHistogram(s.Histogram); err == nil {
				hists[k].Merge(h)
			}
		}
	}
	out := []LoadStatement{}
	for _, k := range order {
		m := merged[k]
		out = append(out, NewLoadStatement(m.Op, m.Index, m.Line, m.Text, hists[k], m.Errors))
	}
	return out
}

package store

import (
	"strconv"
	"strings"
)

// open is the tx_to of a current fact in the indexed layout. It is written into the SQL as a
// literal: a partial index on "tx_to = <open>" is only usable when the query says so literally (a
// bound parameter defeats it in PostgreSQL's generic plans).
const open = "9223372036854775807"

// dialect holds what differs between SQLite and PostgreSQL.
type dialect struct {
	name string
	// dollar: placeholders are $1, $2, ... instead of ?.
	dollar bool
	// maxParams bounds the bound parameters of one statement.
	maxParams int
	// explain is the prefix that turns a query into its plan.
	explain string
}

var dialects = map[string]dialect{
	SQLite:   {name: SQLite, maxParams: 32766, explain: "EXPLAIN QUERY PLAN "},
	Postgres: {name: Postgres, dollar: true, maxParams: 65535, explain: "EXPLAIN (ANALYZE, BUFFERS) "},
}

// rebind turns the ? placeholders of q into the dialect's form, leaving quoted identifiers and
// string literals (such as Triplex's "?e" column names) alone.
func (d dialect) rebind(q string) string {
	if !d.dollar || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		switch {
		case quote != 0:
			if q[i] == quote {
				quote = 0
			}
		case q[i] == '"' || q[i] == '\'':
			quote = q[i]
		case q[i] == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// placeholders returns "(?,?,...),(?,...)" for rows rows of cols columns each.
func placeholders(rows, cols int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", cols), ",") + ")"
	return strings.TrimSuffix(strings.Repeat(one+",", rows), ",")
}

// inList returns "?,?,..." with n placeholders.
func inList(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// sqlTemplate replaces {name} with the store's prefixed table name.
func (s *Store) sqlTemplate(q string, tables ...string) string {
	pairs := make([]string, 0, 2*len(tables))
	for _, t := range tables {
		pairs = append(pairs, "{"+t+"}", s.table(t))
	}
	return s.d.rebind(strings.NewReplacer(pairs...).Replace(q))
}

// PostgresSettings are the session settings a layout's connections need on PostgreSQL (set as
// connection parameters, so every pooled connection has them, Explain's included).
//
// The indexed layout turns Memoize off. Each of its joins probes the joined attribute once per
// outer row, and the outer rows come from a current-facts index in which an entity has one row
// per cardinality-one attribute, so the cache can never hit. PostgreSQL (14+) still puts a
// Memoize node on the inner side when its distinct estimate of the outer entities, taken from
// column statistics over every stored version, comes out below the outer row count: each
// execution then builds a cache sized from that estimate and misses on every row. On the 300k
// fixture that cost the join page 70-90 µs of 200 µs of server time, and because history rows
// raise the estimate, more at history depth 20 than at depth 1 (1.10x with the same plan and
// buffer hits; 133 µs at both depths without it). The triplex layout, the reconstruction of
// Triplex, runs with the server's defaults, as Triplex does.
func PostgresSettings(layout string) map[string]string {
	if layout == LayoutIndexed {
		return map[string]string{"enable_memoize": "off"}
	}
	return nil
}

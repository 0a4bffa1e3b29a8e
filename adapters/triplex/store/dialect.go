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

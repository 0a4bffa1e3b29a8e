package engine

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/dbbench/dbbench/adapters"
)

// maxFirstResults bounds the first results a target keeps for check: same (a key and two numbers
// each: about 100 bytes): the results of arguments met after that are counted, not compared.
const maxFirstResults = 1 << 20

// sqlChecks is one target's checks of a sql workload's results, over all its run phases: each
// statement's expect, and check: same's first results by statement and arguments.
type sqlChecks struct {
	mu    sync.Mutex
	first map[string]sqlSeen
	// expects: results checked against an expect; comparisons: results compared with a first one;
	// firsts: first results kept; unchecked: results of check: same not compared (the budget).
	expects, comparisons, firsts, unchecked int64
	err                                     error // the first failed check
}

// sqlSeen is a statement's first result for some arguments.
type sqlSeen struct {
	rows int64
	sum  uint64
}

func newSQLChecks() *sqlChecks { return &sqlChecks{first: map[string]sqlSeen{}} }

// check checks one statement's result (after its transaction succeeded, outside its time).
func (c *sqlChecks) check(st *sqlStmt, id int, args []any, res *adapters.SQLResult) {
	s := &st.st
	if e := s.Expect; e != nil {
		c.mu.Lock()
		c.expects++
		c.mu.Unlock()
		if !e.Holds(res.Rows) {
			c.fail(fmt.Errorf("verification failed: transaction %s, statement %d (line %d) with arguments (%s): %s, expected %s",
				st.name, s.Index+1, s.Line, argList(args), rowsText(res.Rows), e))
		}
	}
	if !s.Same {
		return
	}
	sum := checksum(res.Values)
	key := sqlKey(id, args)
	c.mu.Lock()
	prev, ok := c.first[key]
	switch {
	case !ok && len(c.first) < maxFirstResults:
		c.first[key] = sqlSeen{rows: res.Rows, sum: sum}
		c.firsts++
	case !ok:
		c.unchecked++
	default:
		c.comparisons++
	}
	c.mu.Unlock()
	if ok && (prev.rows != res.Rows || prev.sum != sum) {
		c.fail(fmt.Errorf("verification failed: transaction %s, statement %d (line %d) with arguments (%s): %s (checksum %016x), and its first execution with the same arguments %s (checksum %016x) (check: same)",
			st.name, s.Index+1, s.Line, argList(args), rowsText(res.Rows), sum, rowsText(prev.rows), prev.sum))
	}
}

func (c *sqlChecks) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
}

// failed is the first failed check, nil when none failed.
func (c *sqlChecks) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// report sets the result's counts of what was checked.
func (c *sqlChecks) report(a *loadAcc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a.expects, a.comparisons, a.firsts, a.sameUnchecked = c.expects, c.comparisons, c.firsts, c.unchecked
}

// warning says what check: same could not compare, "" when it compared everything.
func (c *sqlChecks) warning() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unchecked == 0 {
		return ""
	}
	return fmt.Sprintf("check: same kept the first results of %d argument sets (its memory budget); %d results with other arguments were not compared (load.checks.same_unchecked)", c.firsts, c.unchecked)
}

// checksum is FNV-1a over the values a statement returned.
func checksum(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// sqlKey is a statement's id and its arguments, each with its type and length, as a map key.
func sqlKey(id int, args []any) string {
	b := binary.AppendUvarint(make([]byte, 0, 32), uint64(id))
	for _, a := range args {
		switch v := a.(type) {
		case nil:
			b = append(b, 'n')
		case string:
			b = binary.AppendUvarint(append(b, 's'), uint64(len(v)))
			b = append(b, v...)
		case int64:
			b = binary.AppendVarint(append(b, 'i'), v)
		case float64:
			b = binary.LittleEndian.AppendUint64(append(b, 'f'), math.Float64bits(v))
		case bool:
			b = append(b, 'b', map[bool]byte{false: 0, true: 1}[v])
		default:
			s := fmt.Sprint(v)
			b = binary.AppendUvarint(append(b, 'o'), uint64(len(s)))
			b = append(b, s...)
		}
	}
	return string(b)
}

// rowsText is a count of rows in words.
func rowsText(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

// argList writes arguments for a message.
func argList(args []any) string {
	parts := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			parts[i] = strconv.Quote(v)
		case nil:
			parts[i] = "NULL"
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return strings.Join(parts, ", ")
}

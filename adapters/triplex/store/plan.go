package store

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
)

// Plan shapes.
const (
	PlanAll  = "all"
	PlanAttr = "attribute"
	PlanJoin = "join" // with a cursor: the indexed layout's lower-scores statement
	// PlanJoinTie is the indexed layout's other statement of a later join page: the rest of the
	// cursor's score.
	PlanJoinTie = "join_tie"
	PlanGroups  = "groups"
	PlanEntity  = "entity"
	PlanByValue = "by_value"
	PlanScan    = "scan"
)

// PlanQuery names a read and its arguments, for Explain.
type PlanQuery struct {
	Shape      string
	At         int64
	Attr       int
	Join       Join
	Computed   bool
	Ident      string
	Value      Value
	AfterFact  *Fact
	AfterJoin  *JoinRow
	AfterValue *Value
	Limit      int
}

// Plan is a read's SQL and the engine's plan for it.
type Plan struct {
	SQL   string
	Lines []string
	// Method says how the plan was obtained.
	Method string
	// Sorts lists the plan lines that sort or build a temporary B-tree (SQLite "USE TEMP B-TREE",
	// PostgreSQL Sort, Incremental Sort or HashAggregate nodes): a read declared flat must have none.
	Sorts []string
}

var pgSort = regexp.MustCompile(`(?:^|->\s*)(Sort|Incremental Sort|HashAggregate)\b`)

// planExecutions is how often Explain executes a prepared read on PostgreSQL before explaining it:
// its plan cache plans the first five executions for their parameters and may switch to a generic
// plan from the sixth on, so the explained execution (the seventh) runs the plan every later
// timed execution of the read runs.
const planExecutions = 6

var planCount atomic.Int64

// Explain returns the plan of a read as the timed reads run it. On SQLite that is EXPLAIN QUERY
// PLAN of the statement. On PostgreSQL, where reads go through pgx's cache of prepared statements,
// it is EXPLAIN (ANALYZE, BUFFERS) EXECUTE of the same statement, prepared and executed
// planExecutions times first on one connection (which executes the query that often).
func (s *Store) Explain(ctx context.Context, p PlanQuery) (Plan, error) {
	q, args, err := s.eng.sqlFor(p)
	if err != nil {
		return Plan{}, err
	}
	plan := Plan{SQL: q, Method: "EXPLAIN QUERY PLAN"}
	if s.d.name == Postgres {
		plan.Method = fmt.Sprintf("EXPLAIN (ANALYZE, BUFFERS) EXECUTE of the prepared statement after %d executions", planExecutions)
		return plan, s.explainPrepared(ctx, q, args, &plan)
	}
	rows, err := s.cfg.DB.QueryContext(ctx, s.d.explain+q, args...)
	if err != nil {
		return plan, fmt.Errorf("store: explain: %w", err)
	}
	return plan, s.readPlan(rows, &plan)
}

// explainPrepared explains q as a prepared statement after planExecutions executions.
func (s *Store) explainPrepared(ctx context.Context, q string, args []any, plan *Plan) error {
	conn, err := s.cfg.DB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: explain: %w", err)
	}
	defer conn.Close()
	lits := make([]string, len(args))
	for i, a := range args {
		if lits[i], err = sqlLiteral(a); err != nil {
			return err
		}
	}
	// A name of its own each time: pgx caches statements by their text, with the columns they
	// return, so "EXECUTE" of one name must not come back for another statement.
	name := "dbbench_plan_" + strconv.FormatInt(planCount.Add(1), 10)
	exec := "EXECUTE " + name
	if len(lits) > 0 {
		exec += "(" + strings.Join(lits, ", ") + ")"
	}
	if _, err := conn.ExecContext(ctx, "PREPARE "+name+" AS "+q); err != nil {
		return fmt.Errorf("store: explain: prepare: %w", err)
	}
	defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), "DEALLOCATE "+name) }()
	for range planExecutions {
		rows, err := conn.QueryContext(ctx, exec)
		if err != nil {
			return fmt.Errorf("store: explain: execute: %w", err)
		}
		for rows.Next() {
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("store: explain: execute: %w", err)
		}
	}
	rows, err := conn.QueryContext(ctx, s.d.explain+exec)
	if err != nil {
		return fmt.Errorf("store: explain: %w", err)
	}
	return s.readPlan(rows, plan)
}

// sqlLiteral writes a read's argument as a SQL literal (for EXECUTE).
func sqlLiteral(a any) (string, error) {
	switch v := a.(type) {
	case int:
		return strconv.Itoa(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(v), nil
	case string:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'", nil
	}
	return "", fmt.Errorf("store: explain: no SQL literal for %T", a)
}

// readPlan reads EXPLAIN output into plan.
func (s *Store) readPlan(rows *sql.Rows, plan *Plan) error {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return fmt.Errorf("store: explain: %w", err)
	}
	depth := map[int64]int{}
	for rows.Next() {
		var line string
		if s.d.name == SQLite && len(cols) == 4 {
			var id, parent, unused int64
			if err := rows.Scan(&id, &parent, &unused, &line); err != nil {
				return fmt.Errorf("store: explain: %w", err)
			}
			depth[id] = depth[parent] + 1
			line = strings.Repeat("  ", depth[id]-1) + line
			if strings.Contains(line, "USE TEMP B-TREE") {
				plan.Sorts = append(plan.Sorts, strings.TrimSpace(line))
			}
		} else {
			var raw sql.NullString
			if err := rows.Scan(&raw); err != nil {
				return fmt.Errorf("store: explain: %w", err)
			}
			line = raw.String
			if pgSort.MatchString(strings.TrimSpace(line)) {
				plan.Sorts = append(plan.Sorts, strings.TrimSpace(line))
			}
		}
		plan.Lines = append(plan.Lines, line)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: explain: %w", err)
	}
	return nil
}

// planSQL is a shape's statement and arguments as sqlFor returns them.
func planSQL(q string, args []any) (string, []any, error) { return q, args, nil }

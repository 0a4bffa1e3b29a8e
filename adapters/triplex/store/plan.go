package store

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
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
	// Sorts lists the plan lines that sort or build a temporary B-tree (SQLite "USE TEMP B-TREE",
	// PostgreSQL Sort, Incremental Sort or HashAggregate nodes): a read declared flat must have none.
	Sorts []string
}

var pgSort = regexp.MustCompile(`(?:^|->\s*)(Sort|Incremental Sort|HashAggregate)\b`)

// Explain returns the plan of a read. On PostgreSQL it runs EXPLAIN (ANALYZE, BUFFERS), which
// executes the query.
func (s *Store) Explain(ctx context.Context, p PlanQuery) (Plan, error) {
	q, args, err := s.eng.sqlFor(p)
	if err != nil {
		return Plan{}, err
	}
	plan := Plan{SQL: q}
	rows, err := s.cfg.DB.QueryContext(ctx, s.d.explain+q, args...)
	if err != nil {
		return plan, fmt.Errorf("store: explain: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return plan, fmt.Errorf("store: explain: %w", err)
	}
	depth := map[int64]int{}
	for rows.Next() {
		var line string
		if s.d.name == SQLite && len(cols) == 4 {
			var id, parent, unused int64
			if err := rows.Scan(&id, &parent, &unused, &line); err != nil {
				return plan, fmt.Errorf("store: explain: %w", err)
			}
			depth[id] = depth[parent] + 1
			line = strings.Repeat("  ", depth[id]-1) + line
			if strings.Contains(line, "USE TEMP B-TREE") {
				plan.Sorts = append(plan.Sorts, strings.TrimSpace(line))
			}
		} else {
			var raw sql.NullString
			if err := rows.Scan(&raw); err != nil {
				return plan, fmt.Errorf("store: explain: %w", err)
			}
			line = raw.String
			if pgSort.MatchString(strings.TrimSpace(line)) {
				plan.Sorts = append(plan.Sorts, strings.TrimSpace(line))
			}
		}
		plan.Lines = append(plan.Lines, line)
	}
	if err := rows.Err(); err != nil {
		return plan, fmt.Errorf("store: explain: %w", err)
	}
	return plan, nil
}

package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbbench/dbbench/report"
)

// Shards writes what a shard's report says of its share, or a merged report of its shards: which
// shards, the spread of their starts, those late or missing (then PARTIAL), and each clock.
func Shards(w io.Writer, r *report.Report, st Style) {
	if s := r.Run.Shard; s != nil {
		fmt.Fprintf(w, "%s on %s: started %s%s; clock %s\n", report.ShardName(s.Index, s.Total), s.Host,
			s.StartedAt.Format(time.RFC3339Nano), lateText(*s), s.Clock)
		for _, n := range s.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		return
	}
	m := r.Run.Merge
	if m == nil {
		return
	}
	fmt.Fprintf(w, "merged %d of %s; their starts spread over %s\n", len(m.Shards), Plural(m.Total, "shard"), Duration(time.Duration(m.SkewNs)))
	if m.Partial {
		var idx, gaps []string
		for _, k := range m.Missing {
			idx = append(idx, fmt.Sprint(k))
		}
		if len(idx) > 0 {
			gaps = append(gaps, fmt.Sprintf("shares %s of %d missing", strings.Join(idx, ", "), m.Total))
		}
		for _, s := range m.MissingShares {
			gaps = append(gaps, s.String(m.Total, len(r.Run.Sizes) > 1))
		}
		fmt.Fprintln(w, wrap(fmt.Sprintf("%s: %s; the figures are those of the shards present",
			st.verdictWord("PARTIAL"), strings.Join(gaps, "; ")), st.width(), "  "))
	}
	for _, s := range m.Shards {
		if s.Late || !s.Clock.Known {
			fmt.Fprintf(w, "  %s on %s:%s clock %s\n", report.ShardName(s.Index, s.Total), s.Host, lateText(s), s.Clock)
		}
	}
}

func lateText(s report.Shard) string {
	if !s.Late {
		return ""
	}
	return fmt.Sprintf(" LATE by %s (bound %s);", Duration(time.Duration(s.LateNs)), Duration(time.Duration(s.LateBoundNs)))
}

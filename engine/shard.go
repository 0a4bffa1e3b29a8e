package engine

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/dbbench/dbbench/config"
	"github.com/dbbench/dbbench/engine/load"
	"github.com/dbbench/dbbench/internal/clocksync"
	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/workloads"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// A shard (docs/shards.md) does operations I, I+N, I+2N ... of the sequence one process would do:
// a lookup's keys, a YCSB run phase's schedule and operations (engine/load's Stripe and
// ycsbStripe), a concurrent workload's readers; a workload of one operation (a scan, the insert
// transaction) and an adapter's own workload run whole on every shard. Its stores are its own,
// loaded before it waits for the common start.

// shardRecord is the report's record of this shard as the run begins; complete adds its start.
func shardRecord(sp *config.ShardPlan) *report.Shard {
	host, _ := os.Hostname()
	c := clocksync.Read()
	s := &report.Shard{Index: sp.Index, Total: sp.Total, Host: host, BuildHash: sp.BuildHash,
		Clock: report.Clock{Source: c.Source, Known: c.Known, OffsetNs: c.OffsetNs, MaxErrorNs: c.MaxErrorNs}}
	if !sp.StartAt.IsZero() {
		t := sp.StartAt.UTC()
		s.StartAt, s.LateBoundNs = &t, sp.LateBound.Nanoseconds()
	}
	return s
}

// awaitStart waits, once per run, for the shard's common start before its first timed operation
// (warm-ups included: a shard's warm-up must not run beside another's timed repeats), and notes
// when it started.
func (r *Runner) awaitStart(ctx context.Context) error {
	sp := r.Plan.Shard
	if sp == nil || !r.shardStarted.IsZero() {
		return nil
	}
	if wait := time.Until(sp.StartAt); !sp.StartAt.IsZero() && wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	r.shardStarted = time.Now()
	return nil
}

// finishShard completes a shard's record in a report: its actual start and how late it was.
func (r *Runner) finishShard(rep *report.Report) {
	if rep.Run.Shard == nil {
		return
	}
	s := *rep.Run.Shard
	s.Notes = append([]string(nil), r.shardNotes...)
	if !r.shardStarted.IsZero() {
		s.StartedAt = r.shardStarted.UTC()
		if s.StartAt != nil {
			if late := r.shardStarted.Sub(*s.StartAt); late > 0 {
				s.LateNs = late.Nanoseconds()
				s.Late = late > time.Duration(s.LateBoundNs)
			}
		}
	}
	rep.Run.Shard = &s
}

// stripeRun narrows a persons workload to this shard's share: a lookup's keys I, I+N, ...; a
// concurrent workload's readers. A scan and the insert transaction are one operation each, and an
// adapter's own workload is the adapter's to split: they run whole on every shard.
func (r *Runner) stripeRun(w config.WorkloadPlan, run *workloads.Run) {
	sp := r.Plan.Shard
	if sp == nil {
		return
	}
	switch {
	case run.Name == workloads.Lookup:
		var keys []int32
		var emails [][]byte
		for i := sp.Index; i < len(run.Keys); i += sp.Total {
			keys, emails = append(keys, run.Keys[i]), append(emails, run.Emails[i])
		}
		run.Keys, run.Emails = keys, emails
	case run.Name == workloads.Concurrent:
		n := sp.Readers(run.Readers)
		if int64(n) != sp.Count(int64(run.Readers)) {
			r.note(fmt.Sprintf("concurrent: %d readers for %d shards: this shard runs one reader all the same", run.Readers, sp.Total))
		}
		run.Readers = n
	case w.Custom:
		r.note(fmt.Sprintf("%s: an adapter's own workload runs whole on every shard", w.Name))
	}
}

// note adds a line to the shard's notes, once.
func (r *Runner) note(s string) {
	for _, n := range r.shardNotes {
		if n == s {
			return
		}
	}
	r.shardNotes = append(r.shardNotes, s)
}

// ycsbStripe draws a shard's YCSB operations from the one-process generator: the operation at place
// base+seq of the whole sequence, drawing and discarding the other shards' in between (an insert
// among them is another shard's record: the log marks it, and reads here never address it).
type ycsbStripe struct {
	gen  *ycsb.Generator
	log  *recordLog
	base int64 // the current run phase's first place in the whole sequence
	pos  int64 // the place gen draws next
}

// at draws the operation at place g of the whole sequence (g only grows). A read, update or scan
// of a record this shard does not hold (another shard's, or its own insert still in flight)
// addresses the newest record it holds below it instead: drawing again, as one process does,
// would take places that are other shards' operations.
func (s *ycsbStripe) at(g int64) ycsb.Operation {
	for ; s.pos < g; s.pos++ {
		if op := s.gen.Next(); op.Type == ycsb.Insert {
			s.log.elsewhere(op.Record)
		}
	}
	s.pos++
	op := s.gen.Next()
	if op.Type != ycsb.Insert && !s.log.exists(op.Record) {
		op.Record = s.log.below(op.Record)
	}
	return op
}

// ycsbShare narrows a YCSB workload to this shard's share: the schedule's (or the closed loop's)
// operations I, I+N, ... and its workers.
func (r *Runner) ycsbShare(yr *ycsbRun) {
	if !r.stripeLoad(yr.w.Name, &yr.cfg, yr.open) {
		return
	}
	if yr.def.Mix[ycsb.Insert] > 0 {
		r.note(fmt.Sprintf("%s: reads, updates and scans address this shard's records only: one of a record another shard "+
			"inserted (or one of its own in flight) addresses the newest record this shard holds below it (requestdistribution %s; "+
			"latest then follows this shard's own inserts)", yr.w.Name, yr.def.RequestDistribution))
	}
}

// stripeLoad narrows a load-model workload's load to this shard's share: the schedule's (or the
// closed loop's) operations I, I+N, ... and its workers; false when the run is no shard's.
func (r *Runner) stripeLoad(name string, cfg *load.Config, open bool) bool {
	sp := r.Plan.Shard
	if sp == nil {
		return false
	}
	cfg.Schedule.Stripe = load.Stripe{Index: sp.Index, Total: sp.Total}
	w := sp.Readers(cfg.Workers)
	if int64(w) != sp.Count(int64(cfg.Workers)) {
		r.note(fmt.Sprintf("%s: %d workers for %d shards: this shard has one all the same", name, cfg.Workers, sp.Total))
	}
	cfg.Workers = w
	if cfg.Schedule.Ops == 0 && !open {
		r.note(fmt.Sprintf("%s: a closed loop for a duration: each shard does what it can in it, so the shards' operations are a stripe of no one sequence", name))
	}
	return true
}
